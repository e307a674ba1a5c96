"""The acts on a case: import, revision, evidence, undecided notes, decisions and landing.

A case's state is its append-only records (candidate revisions, evidence, decisions); every act goes
through the guarded pipeline and brings the `cases` row's projection up to date in the same
transaction (derived.py), so lists page from SQL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from sqlite_utils import Database

from gatepost.store import loops
from gatepost.store.kernel import (
    CAPABILITY,
    OPEN,
    SELF_DEALING,
    InputError,
    RefusedError,
    Subject,
    acts_as_admin,
    as_found,
    capabilities_of,
    check_name,
    ensure_producer,
    guarded,
    now_iso,
    observed_at,
    refusal,
    same_actor,
)
from gatepost.store.protocol import (
    RUBRIC,
    Evaluation,
    Protocol,
    candidate_revision,
    content_hash,
    explicit_decisions,
    protocol_for,
)

from .derived import (
    COUNTED_SQL,
    UNDECIDED_EVENT,
    _artifact_of,
    _case_row,
    _evaluate,
    _project,
    _records,
    _revisions,
    case_state,
    case_subject,
    get_case,
    kept_rival,
    staleness,
)
from .design_review import known_designs
from .parse import _check_json, _check_kind, _is_text, _read, parse_case

LOOP_PATH = "loop-path"  # the rule: a path a registered loop owns belongs to that loop
# Deciding an outcome takes this capability; every other outcome closes the case under case.close.
OUTCOME_CAPABILITY = {"kept": "loop_change.keep"}
CLOSE_CAPABILITY = "case.close"
DESIGN_REVIEW_KIND = "design_review"
DESIGN_REVIEW_CAPABILITY = "eval_design.review"
AUTHORSHIP = "authorship"  # the rule a refused import or revision by someone else than the author names
DECIDER = "decider"  # the rule a decision by whom the evidence came from names
_HEX = re.compile(r"[0-9a-f]{6,64}")


def _case_id(parsed: dict[str, Any], revision: str) -> str:
    return parsed["id"] or "case-" + content_hash(
        {"title": parsed["title"], "author": parsed["author"], "revision": revision})[:10]


def import_case(db: Database, path_or_mapping: str | Path | dict[str, Any], *, actor: str | None = None,
                at: str | None = None, loop: str | None = None) -> str:
    """Store a case file and its evidence: a case is what it was imported as.

    A path a registered loop owns is refused (rule `loop-path`) unless `loop` names that loop (the
    case comes through `case new --loop`, flows.new_case); the imported event names the loop.

    Importing the same id again is a no-op when the file is identical, and bad input otherwise: the
    candidate moves with `gatepost case revise` (a new revision, an event). Each evidence item of the
    file is recorded through the evidence act (as its producer, or for it with evidence.record_for).
    """
    parsed = _read(path_or_mapping)
    when = observed_at(at) or now_iso()
    revision = candidate_revision(parsed["content"], parsed["basis"], parsed["candidate_path"])
    case_id = _case_id(parsed, revision)
    doing = f"import case {case_id}"
    on_behalf: list[str] = []  # the importer, when an administrator imports someone else's case

    def authorship(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        on_behalf.extend(_for_author(db, who, actor, parsed["author"], doing=doing, act="imports"))

    with guarded(db, doing, actor=actor, known=False, authority=authorship) as act:
        existing = _case_row(db, case_id)
        if existing is not None:
            _check_reimport(existing, parsed, case_id)
            if _identical(db, existing, parsed, revision):
                return case_id
            if existing["status"] != "open":
                raise refusal(act.doing, OPEN, f"the case is closed ({existing['outcome']}); a closed case is "
                                               "closed, import the new candidate as a new case")
            changed = _differences(db, existing, parsed, revision)
            raise InputError(f"case {case_id}: already imported with another {', '.join(changed)}; a case is what it "
                             "was imported as (change its candidate with gatepost case revise FILE, record new "
                             "evidence with gatepost case evidence)")
        outside = loops.outside_registration(db, parsed["candidate_path"], loop)
        if outside:
            raise refusal(act.doing, LOOP_PATH, outside)
        for name in {parsed["author"], *(p for ps in parsed["independent"].values() for p in ps)}:
            ensure_producer(db, name)
        db.execute(
            "INSERT INTO cases (id, protocol, title, author, candidate_path, current_revision, independent,"
            " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)",
            [case_id, parsed["protocol"], parsed["title"], parsed["author"], parsed["candidate_path"],
             revision, json.dumps(parsed["independent"], ensure_ascii=False), when, when])
        seq = act.event("case.imported", subject_type="case", subject_id=case_id, revision=revision, at=when,
                        payload={"title": parsed["title"], "author": parsed["author"],
                                 "protocol": parsed["protocol"], "independent": parsed["independent"],
                                 "loop": loop, "path": parsed["candidate_path"],
                                 "candidate_path": parsed["candidate_path"], "content": parsed["content"],
                                 "basis": parsed["basis"],
                                 **({"on_behalf_of": parsed["author"]} if on_behalf else {})})
        _store_revision(db, case_id, revision, parsed["content"], parsed["basis"], when, seq)
        latest = when
        for item in parsed["evidence"]:
            about = _resolve_about(db, case_id, item["kind"], item["about"])
            add_evidence(db, case_id, kind=item["kind"], result=item["result"], producer=item["producer"],
                         about=about, details=item["details"], at=item["at"] or when, actor=actor,
                         _reproject=False)
            latest = max(latest, item["at"] or when)
        _project(db, case_id, latest)
    return case_id


def _for_author(db: Database, who: dict[str, Any] | None, actor: str | None, author: str, *, doing: str,
                act: str) -> list[str]:
    """The authorship rule of importing and revising a case: who acts is its author, or a holder of store.admin
    acting on the author's behalf (returned, for the event to name both). An in-process caller passes."""
    if actor is None:
        return []
    name = who["name"] if who else check_name(actor, field="--as")
    if same_actor(name, author):
        return []
    if acts_as_admin(db, who):
        return [name]
    raise refusal(doing, AUTHORSHIP, f"{name} {act} a case whose author is {author}; the importer is the author "
                                     "(only a holder of store.admin acts on an author's behalf)")


def _evidence_keys(db: Database, case_id: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in db.execute("SELECT kind, result, producer, about FROM evidence WHERE case_id = ?",
                                         [case_id]).fetchall()]


def _differences(db: Database, existing: dict[str, Any], parsed: dict[str, Any], revision: str) -> list[str]:
    """What a re-imported file changes: candidate, title, path, independent list, evidence."""
    out = []
    if existing["current_revision"] != revision:
        out.append("candidate")
    if existing["title"] != parsed["title"]:
        out.append("title")
    if existing["candidate_path"] != parsed["candidate_path"]:
        out.append("candidate.path")
    if json.loads(existing["independent"] or "{}") != parsed["independent"]:
        out.append("independent list")
    known = set(_evidence_keys(db, existing["id"]))
    for item in parsed["evidence"]:
        about = _resolve_about(db, existing["id"], item["kind"], item["about"])
        if (item["kind"], item["result"], item["producer"], about) not in known:
            out.append("evidence")
            break
    return out


def _identical(db: Database, existing: dict[str, Any], parsed: dict[str, Any], revision: str) -> bool:
    return not _differences(db, existing, parsed, revision)


def _check_reimport(existing: dict[str, Any], parsed: dict[str, Any], case_id: str) -> None:
    for field in ("author", "protocol"):
        if existing[field] != parsed[field]:
            raise InputError(f"case {case_id}: {field}: already imported with {existing[field]!r}, "
                             f"this file says {parsed[field]!r}; give the file another id")


def _store_revision(db: Database, case_id: str, revision: str, content: Any, basis: dict[str, Any], when: str,
                    seq: int) -> None:
    if db.execute("SELECT 1 FROM candidate_revisions WHERE case_id = ? AND revision = ?",
                  [case_id, revision]).fetchone():
        return  # moved back to a revision the case had before: its record stands
    db.execute("INSERT INTO candidate_revisions (case_id, revision, content, basis, created_at, event_seq)"
               " VALUES (?, ?, ?, ?, ?, ?)",
               [case_id, revision, json.dumps(content, ensure_ascii=False),
                json.dumps(basis, ensure_ascii=False, sort_keys=True), when, seq])


_UNSET: Any = object()


def revise_candidate(db: Database, case_id: str, *, content: Any = None, basis: dict[str, Any] | None = None,
                     actor: str | None = None, at: str | None = None, title: str | None = None,
                     path: Any = _UNSET, independent: dict[str, list[str]] | None = None,
                     note: str | None = None) -> str:
    """Move an open case's candidate (its content, any basis field or its path): a new revision and its event.

    Only the case's author revises it, or a holder of store.admin on the author's behalf (the event names
    both; rule `authorship`). Changing the `independent:` list of a case that already has evidence needs
    store.admin and is an audited event of its own (`case.independence_changed`, in the case's history). Returns the revision.
    """
    when = observed_at(at) or now_iso()
    doing = f"revise {case_id}"
    on_behalf: list[str] = []

    def independence(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        assert subject is not None and subject.row is not None
        on_behalf.extend(_for_author(db, who, actor, subject.row["author"], doing=doing, act="revises"))
        if independent is None or independent == subject.row["independent"] or actor is None:
            return
        has_evidence = db.execute("SELECT 1 FROM evidence WHERE case_id = ?", [case_id]).fetchone()
        if has_evidence and (who is None or "store.admin" not in who["capabilities"]):
            raise refusal(doing, CAPABILITY, f"{who['name'] if who else actor} does not hold store.admin "
                                             "(changing the independent: list of a case that has evidence)")

    with guarded(db, doing, actor=actor, known=False, subject=case_subject(case_id), lease=False,
                 self_dealing=False, authority=independence) as act:
        assert act.subject is not None and act.subject.row is not None
        case = act.subject.row
        new_basis = dict(case["basis"], **(basis or {}))
        new_content = case["content"] if content is None else content
        _check_json(new_content, f"case {case_id}: candidate.content")
        data = {"protocol": case["protocol"], "id": case_id, "title": title or case["title"],
                "author": case["author"],
                "candidate": {"content": new_content, "basis": new_basis,
                              **({"path": p} if (p := case["candidate_path"] if path is _UNSET else path) else {})},
                "independent": case["independent"] if independent is None else independent}
        parsed = parse_case(data, f"revise {case_id}")
        link = loops.loop_case(db, case_id)
        outside = loops.outside_registration(db, parsed["candidate_path"], link["loop"] if link else None)
        if outside and parsed["candidate_path"] != case["candidate_path"]:
            raise refusal(doing, LOOP_PATH, outside)
        if parsed["independent"] != case["independent"]:
            for name in {p for ps in parsed["independent"].values() for p in ps}:
                ensure_producer(db, name)
            act.event("case.independence_changed", note=(note or "").strip() or None, at=when,
                      payload={"from": case["independent"], "to": parsed["independent"]})
        revision = candidate_revision(parsed["content"], parsed["basis"], parsed["candidate_path"])
        if revision != case["current_revision"] or parsed["independent"] != case["independent"] \
                or parsed["title"] != case["title"] or parsed["candidate_path"] != case["candidate_path"]:
            seq = act.event("case.revised", revision=revision, at=when, note=(note or "").strip() or None,
                            payload={"previous_revision": case["current_revision"], "basis": parsed["basis"],
                                     "independent": parsed["independent"], "path": parsed["candidate_path"],
                                     "title": parsed["title"], "candidate_path": parsed["candidate_path"],
                                     "content": parsed["content"],
                                     **({"on_behalf_of": case["author"]} if on_behalf else {})})
            db.execute("UPDATE cases SET current_revision = ?, independent = ?, title = ?, candidate_path = ?"
                       " WHERE id = ?", [revision, json.dumps(parsed["independent"], ensure_ascii=False),
                                         parsed["title"], parsed["candidate_path"], case_id])
            _store_revision(db, case_id, revision, parsed["content"], parsed["basis"], when, seq)
        if act.events:  # a revision that changed nothing writes nothing, not even the projection's time
            _project(db, case_id, when)
    return revision


def revise_case(db: Database, path_or_mapping: str | Path | dict[str, Any], *, actor: str | None,
                note: str | None = None, at: str | None = None) -> str:
    """`gatepost case revise FILE`: the case file of an imported id, with its new candidate (or list)."""
    parsed = _read(path_or_mapping)
    if not parsed["id"]:
        raise InputError("case revise: id: missing (expected the id of an imported case)")
    existing = get_case(db, parsed["id"])
    _check_reimport(existing, parsed, parsed["id"])
    if parsed["evidence"]:
        raise InputError(f"case {parsed['id']}: evidence: a revision carries no evidence (evidence about the new "
                         "revision is recorded with gatepost case evidence)")
    return revise_candidate(db, parsed["id"], content=parsed["content"], basis=parsed["basis"], actor=actor,
                            at=at, title=parsed["title"], path=parsed["candidate_path"],
                            independent=parsed["independent"], note=note)


def _resolve_about(db: Database, case_id: str, kind: str, about: str) -> str:
    """`current` → the artifact's current revision; a unique hex prefix → the full candidate revision."""
    case = get_case(db, case_id)
    artifact = _artifact_of(case, kind)
    if about == "current":
        return _revisions(case)[artifact]
    if artifact == "candidate" and _HEX.fullmatch(about) and len(about) < 64:
        full: list[str] = [r[0] for r in db.execute("SELECT revision FROM candidate_revisions WHERE case_id = ? AND "
                                         "revision LIKE ?", [case_id, about + "%"]).fetchall()]
        if len(full) == 1:
            return full[0]
    return about


def add_evidence(db: Database, case_id: str, *, kind: str, result: str, producer: str | None = None,
                 about: str = "current", details: dict[str, Any] | None = None, at: str | None = None,
                 actor: str | None = None, _reproject: bool = True, based_on_seq: int | None = None) -> int:
    """Record one piece of evidence; it counts only if current, independent and not mock (the protocol decides).

    Evidence is recorded as oneself: the producer is the acting identity (`actor`, holding evidence.record;
    design_review needs eval_design.review). Recording for another producer needs evidence.record_for, and
    the record names both. The case's author never records evidence about its own case.
    `based_on_seq` (a person's review in the console): refused if the case changed since they looked.
    Evidence on a closed case is stored for the record but does not reopen it.
    (`_reproject=False` is for import_case, which brings the projection up to date once at its end.)
    """
    case = get_case(db, case_id)
    protocol = protocol_for(case["protocol"])
    _check_kind(protocol, kind, result, lambda f, m: InputError(f"--{f}: {m}"))
    producer = producer if producer is not None else actor
    if not _is_text(producer):
        raise InputError("--producer: expected the name of the run or person that produced the evidence")
    if not _is_text(about):
        raise InputError("--about: expected current or a revision")
    if details is not None and not isinstance(details, dict):
        raise InputError("details: expected a mapping")
    when = observed_at(at) or now_iso()
    producer = check_name(producer, field="--producer")
    doing = f"record evidence on {case_id}"
    recorder: list[str] = []

    def as_oneself(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        assert subject is not None
        stored = ensure_producer(db, producer)
        name = who["name"] if who else stored
        recorder.append(name)
        if same_actor(name, subject.author):
            raise refusal(doing, SELF_DEALING, f"{name} is the case's author; evidence about its own case is "
                                               "recorded by others")
        held = set(who["capabilities"]) if who else set()
        if kind == DESIGN_REVIEW_KIND:
            if DESIGN_REVIEW_CAPABILITY not in held | set(capabilities_of(db, stored)):
                text = stored if not who or same_actor(name, stored) else f"{stored} (nor {name})"
                raise refusal(doing, CAPABILITY, f"{text} does not hold {DESIGN_REVIEW_CAPABILITY}")
        elif who is not None and same_actor(name, stored) and "evidence.record" not in held:
            raise refusal(doing, CAPABILITY, f"{name} does not hold evidence.record")
        if who is not None and not same_actor(name, stored) and "evidence.record_for" not in held:
            raise refusal(doing, CAPABILITY, f"{name} does not hold evidence.record_for (evidence is recorded "
                                             f"as oneself: {stored} records its own)")

    with guarded(db, doing, actor=actor, subject=case_subject(case_id), must_be_open=False, lease=False,
                 authority=as_oneself, seen_seq=based_on_seq) as act:
        case = get_case(db, case_id)  # again, inside the write: the candidate may have moved meanwhile
        link = loops.loop_case(db, case_id)
        outside = loops.outside_registration(db, case["candidate_path"], link["loop"] if link else None)
        if outside and case["status"] == "open":
            raise refusal(doing, LOOP_PATH, outside)
        revision = _resolve_about(db, case_id, kind, about.strip())
        artifact = _artifact_of(case, kind)
        if artifact == "eval_design" and revision not in (designs := known_designs(db, case_id)):
            raise refusal(doing, "design", f"--about {revision} is not a design of {case_id} (its designs: "
                                           f"{', '.join(designs) or 'none'}; current names the basis' design)")
        stored_producer = ensure_producer(db, producer)
        # the same result from the same producer about the same revision, or a mock record, changes no claim:
        # the projection needs only its seq and time (what keeps recording linear however long a case runs)
        same = details is not None and details.get("mock") is True or db.execute(
            "SELECT 1 FROM evidence WHERE case_id = ? AND kind = ? AND result = ? AND producer = ? AND artifact IS ?"
            f" AND about = ? AND {COUNTED_SQL} LIMIT 1",
            [case_id, kind, result, stored_producer, artifact, revision]).fetchone() is not None
        seq = act.event("evidence.added", revision=revision, at=when, actor=recorder[0],
                        payload={"kind": kind, "result": result, "producer": stored_producer,
                                 "artifact": artifact, "recorded_by": recorder[0], "details": details})
        cursor = db.execute(
            "INSERT INTO evidence (case_id, kind, result, producer, artifact, about, observed_at, details, event_seq,"
            " recorded_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [case_id, kind, result, stored_producer, artifact, revision, when,
             json.dumps(details, ensure_ascii=False, sort_keys=True) if details is not None else None, seq,
             recorder[0]])
        if _reproject and same:
            db.execute("UPDATE cases SET last_seq = ?, updated_at = MAX(COALESCE(updated_at, ''), ?) WHERE id = ?",
                       [seq, when, case_id])
        elif _reproject:
            _project(db, case_id, when)
    return cast(int, cursor.lastrowid)  # the id of the row just inserted


def note_undecided(db: Database, case_id: str, *, kind: str, producer: str, note: str,
                   details: dict[str, Any] | None = None, actor: str | None = None, at: str | None = None) -> int:
    """Say on the case that an evaluation settled nothing (decision rule `significant`), recording no evidence.

    The claim that evidence would have decided stays UNKNOWN, the protocol's way of saying the
    evaluation settles nothing; the event lets the case's why say which comparison was undecided
    and by how much. It is about the case's current revision, like evidence; returns its seq.
    """
    if not _is_text(producer):
        raise InputError("--producer: expected the name of the run or person that produced the evaluation")
    when = observed_at(at) or now_iso()
    with guarded(db, f"evaluate {case_id}", actor=actor or producer.strip(), subject=case_subject(case_id),
                 lease=False, known=False) as act:
        case = get_case(db, case_id)
        seq = act.event(UNDECIDED_EVENT, revision=case["current_revision"], at=when, note=note,
                        payload={"kind": kind, "producer": producer.strip(), "note": note,
                                 "details": details or {}})
        _project(db, case_id, when)
    return seq


def decide_case(db: Database, case_id: str, outcome: str, *, actor: str | None, note: str | None = None,
                based_on_seq: int | None = None, at: str | None = None,
                answers: Mapping[str, Any] | None = None, answers_later: bool = False) -> int:
    """Close a case with an outcome the protocol allows now; a refusal names its rule and writes nothing.

    Callers decide through `gatepost.store.flows.decide`, which also turns a `proposed` case into a
    proposal in the same transaction; `decide` below is the same for every other outcome.
    When the case's protocol carries a rubric, `answers` (question key → yes/no or 1..N) answer every
    question, or the decision is refused (rule `rubric`); they are stored with it. `answers_later`: a
    rehearsal asking whether the rest allows the decision before the person is asked the questions.
    """
    note = (note or "").strip() or None
    when = observed_at(at) or now_iso()
    protocol = protocol_for(get_case(db, case_id)["protocol"])
    if outcome not in protocol.outcomes:
        raise InputError(f"outcome: expected one of {', '.join(protocol.outcomes)}, got {outcome!r}")
    answered: dict[str, str | int] | None = None
    missing: list[str] = []
    if protocol.rubric is not None:
        answered, missing = protocol.rubric.check(answers)
    elif answers:
        raise InputError(f"--answer: {protocol.key} asks no rubric questions; decide without --answer")
    capability = OUTCOME_CAPABILITY.get(outcome, CLOSE_CAPABILITY)
    doing = f"decide {case_id} {outcome}"
    evaluated: list[Evaluation] = []
    with guarded(db, doing, actor=actor, capability=capability, subject=case_subject(case_id),
                 seen_seq=based_on_seq, authority=_decider_rule(doing, evaluated)) as act:
        assert act.subject is not None and act.subject.row is not None
        case = act.subject.row
        explicit = explicit_decisions(protocol, outcome)
        if explicit and not note:
            raise refusal(doing, "protocol", f"outcomes.{outcome}.requires: needs an explicit decision "
                                             f"({', '.join(sorted(explicit))}) with a reason (--note)")
        stale = staleness(db, case) if outcome == "kept" else None
        if stale:
            raise RefusedError(f"{doing}: refused: {stale}")
        rival = kept_rival(db, case) if outcome == "kept" else None
        if rival:
            raise refusal(doing, "pending", rival)
        evaluation = evaluated[0] if evaluated else _evaluate(db, case)
        allowed, why = evaluation.outcome_allowed(outcome, explicit)
        if not allowed:
            rule = _rule_text(protocol, outcome)
            raise refusal(doing, "protocol", f"{outcome} refused by outcomes.{outcome}.requires"
                                             f"{f' ({rule})' if len(rule) <= 60 else ''}: {why}")
        if missing and not answers_later:
            assert protocol.rubric is not None
            asked = {q.key: q for q in protocol.rubric.questions}
            raise refusal(doing, RUBRIC, f"{protocol.key} asks every decision its rubric; unanswered: "
                                         + ", ".join(f"{k} ({asked[k].expects})" for k in missing)
                                         + " (--answer KEY=VALUE)")
        payload: dict[str, Any] = {"outcome": outcome, "capability": capability, "based_on_seq": act.seen_seq,
                                   "claims": evaluation.claims}
        if answered is not None:
            payload["rubric"] = answered
        seq = act.event("case.decided", revision=case["current_revision"], note=note, at=when, payload=payload)
        cursor = db.execute(
            "INSERT INTO decisions (case_id, outcome, actor, capability, revision, note, at, based_on_seq, event_seq,"
            " rubric) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [case_id, outcome, act.actor, capability, case["current_revision"], note, when, act.seen_seq, seq,
             json.dumps(answered, ensure_ascii=False, sort_keys=True) if answered is not None else None])
        db.execute("UPDATE cases SET status = 'closed', outcome = ? WHERE id = ?", [outcome, case_id])
        _project(db, case_id, when, evaluation)  # a decision adds no evidence: the claims are the same
    return cast(int, cursor.lastrowid)  # the id of the row just inserted


def _decider_rule(doing: str, evaluated: list[Evaluation]) -> Callable[[Database, dict[str, Any] | None, Subject | None],
                                                                          None]:
    """Deciding is for people, never for whom the evidence came from: a producer never decides, nor does the
    producer of a record that counts on the case now (rule `decider`). Who only recorded a record for its
    producer (evidence.record_for, a pasted CI result) vouches for the copy, not the result. The case's
    evaluation is left in `evaluated` for the decision (it is evaluated once)."""

    def check(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        if who is None or subject is None or subject.row is None:
            return
        if who.get("kind") == "producer":
            raise refusal(doing, DECIDER, f"{who['name']} is a producer; deciding is a person's")
        if subject.row["status"] != "open":
            return  # the open rule says why; the evaluation below is for an open case only
        rows, evaluation, counting = as_found(db, ("case evaluation", subject.id),
                                              lambda: _counting(db, cast(dict[str, Any], subject.row)))
        evaluated.append(evaluation)
        for row in rows:
            if str(row["id"]) not in counting:
                continue
            if same_actor(who["name"], row["producer"]):
                raise refusal(doing, DECIDER, f"{who['name']} produced evidence #{row['id']} ({row['kind']} "
                                              f"{row['result']}) that counts on this case; it is decided by "
                                              "someone whose evidence it does not weigh")

    return check


def _counting(db: Database, case: dict[str, Any]) -> tuple[list[dict[str, Any]], Evaluation, frozenset[str]]:
    """A case's evidence rows, its evaluation and the ids of the records that count on it: read and evaluated
    once for all the rehearsals of the case's decisions (as_found)."""
    rows = _records(db, case["id"])
    evaluation = protocol_for(case["protocol"]).evaluate(case_state(case, rows))
    return rows, evaluation, evaluation.counting()


def decide(db: Database, case_id: str, outcome: str, *, actor: str | None, note: str | None = None,
           based_on_seq: int | None = None, at: str | None = None,
           answers: Mapping[str, Any] | None = None) -> int:
    """decide_case for every outcome but `proposed`, which only `gatepost.store.flows.decide` records
    (it makes the proposal the case becomes; recording the decision alone would lose it)."""
    if outcome == "proposed":
        raise RefusedError(f"case {case_id}: proposed is recorded through gatepost.store.flows.decide, "
                           "which makes the proposal too")
    return decide_case(db, case_id, outcome, actor=actor, note=note, based_on_seq=based_on_seq, at=at,
                       answers=answers)


def landing(case_id: str) -> Callable[[Database], loops.Landing]:
    """A case as it lands (`loops.record_applied` decides whether it may): a kept case lands as its candidate."""

    def load(db: Database) -> loops.Landing:
        subject = case_subject(case_id)(db)
        case = subject.row or {}
        return loops.Landing(subject, case["outcome"] or "open", "kept", case["candidate_path"], "candidate.path",
                             loops.content_text(case["content"]), lambda: staleness(db, case),
                             instead=" (a proposed one lands as its proposal: gatepost proposal applied)")

    return load


def record_applied(db: Database, case_id: str, *, ref: str | None, actor: str | None, at: str | None = None) -> dict[str, Any]:
    """Record where a kept case's content landed (`case applied ID --ref REF`): it becomes current for its path."""
    return loops.record_applied(db, "case", case_id, landing(case_id), ref=ref, actor=actor, at=at)


def _rule_text(protocol: Protocol, outcome: str) -> str:
    cond = protocol.outcomes[outcome][1]
    return cond.describe() if cond else "no requirement"
