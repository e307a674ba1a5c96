"""Cases of eval.gated_change/1: import, evidence, decisions, and the queries the console reads.

A case's state is its append-only records (candidate revisions, evidence,
decisions); the `cases` row is a projection kept current in the same
transaction as each event, so lists page from SQL. What a case allows is
never stored as a rule: the protocol file is evaluated every time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
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
    capabilities_of,
    check_name,
    ensure_producer,
    guarded,
    last_seq,
    now_iso,
    observed_at,
    one_of,
    parse_iso,
    refusal,
    repo_path,
    same_actor,
)
from gatepost.store.protocol import (
    BASIS_FIELDS,
    BLOCKED,
    Evaluation,
    Protocol,
    Record,
    State,
    candidate_revision,
    content_hash,
    explicit_decisions,
    protocol_for,
    read_yaml,
    short,
)

from . import contradicted as _contradiction
from .design_review import known_designs, waiting_on_design_review

DEFAULT_PROTOCOL = "eval.gated_change/1"
LOOP_PATH = "loop-path"  # the rule: a path a registered loop owns belongs to that loop
AUTHOR_DIMENSION = "different_agent_run"  # the author is never independent of its own work on this
# Deciding an outcome takes this capability; every other outcome closes the case under case.close.
OUTCOME_CAPABILITY = {"kept": "loop_change.keep"}
CLOSE_CAPABILITY = "case.close"
DESIGN_REVIEW_KIND = "design_review"
DESIGN_REVIEW_CAPABILITY = "eval_design.review"
AUTHORSHIP = "authorship"  # the rule a refused import or revision by someone else than the author names
DECIDER = "decider"  # the rule a decision by whom the evidence came from names
CASE_KEYS = {"protocol", "id", "title", "author", "candidate", "independent", "evidence"}
CANDIDATE_KEYS = {"path", "content", "basis"}
EVIDENCE_KEYS = {"kind", "result", "producer", "about", "at", "observed_at", "details"}
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")
_HEX = re.compile(r"[0-9a-f]{6,64}")


# --- the case file -----------------------------------------------------------------------------
def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def parse_case(data: Any, source: str = "case") -> dict[str, Any]:
    """Validate a case file's data; every error names the file and the field."""

    def fail(field: str, message: str) -> InputError:
        return InputError(f"{source}: {field}: {message}")

    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a mapping with protocol, title, author, candidate, independent")
    unknown = sorted(set(map(str, data)) - CASE_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown field (expected {', '.join(sorted(CASE_KEYS))})")
    ref = data.get("protocol", DEFAULT_PROTOCOL)
    if not isinstance(ref, str):
        raise fail("protocol", "expected a string such as eval.gated_change/1")
    try:
        protocol = protocol_for(ref)
    except InputError as exc:
        raise fail("protocol", str(exc).split(": ", 1)[-1]) from None
    case_id = data.get("id")
    if case_id is not None:
        if not isinstance(case_id, str) or not _ID.fullmatch(case_id):
            raise fail("id", "expected letters, digits, '.', '_', ':' or '-' (at most 100), "
                             f"got {case_id!r}")
    for field, meaning in (("title", "a one-line title of the change"),
                           ("author", "the agent run that wrote the candidate")):
        if data.get(field) is None:
            raise fail(field, f"missing (expected {meaning})")
        if not _is_text(data.get(field)):
            raise fail(field, f"expected a string: {meaning}")
    author = check_name(data["author"], field=f"{source}: author")
    candidate = data.get("candidate")
    if not isinstance(candidate, dict):
        missing = "missing (expected a mapping with content and basis)"
        raise fail("candidate", missing if candidate is None else "expected a mapping with content and basis")
    unknown = sorted(set(map(str, candidate)) - CANDIDATE_KEYS)
    if unknown:
        raise fail(f"candidate.{unknown[0]}", f"unknown field (expected {', '.join(sorted(CANDIDATE_KEYS))})")
    path = candidate.get("path")
    if path is not None:
        path = repo_path(path, f"{source}: candidate.path")
    if "content" not in candidate or candidate["content"] is None:
        raise fail("candidate.content", "missing (expected the changed text (a string) or configuration (a mapping))")
    content = candidate["content"]
    if not isinstance(content, (str, dict, list)):
        raise fail("candidate.content", "expected a string, a mapping or a list")
    _check_json(content, f"{source}: candidate.content")
    basis = _parse_basis(candidate.get("basis"), fail)
    independent = _parse_independent(data.get("independent"), protocol, author, fail)
    evidence = []
    raw = data.get("evidence") or []
    if not isinstance(raw, list):
        raise fail("evidence", "expected a list of {kind, result, producer, about}")
    for i, item in enumerate(raw):
        evidence.append(_parse_evidence_item(item, protocol, f"evidence[{i}]", fail, source))
    return {
        "protocol": protocol.key, "id": case_id, "title": data["title"].strip(), "author": author,
        "candidate_path": path, "content": content, "basis": basis,
        "independent": independent, "evidence": evidence,
    }


def _check_json(value: Any, where: str) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected plain text, numbers, lists and mappings (no dates or binary)") from None


def _parse_basis(basis: Any, fail: Callable[[str, str], InputError]) -> dict[str, str]:
    if not isinstance(basis, dict):
        raise fail("candidate.basis", f"{'missing (expected' if basis is None else '(expected'} a mapping with "
                                      f"{', '.join(BASIS_FIELDS)})")
    unknown = sorted(set(map(str, basis)) - set(BASIS_FIELDS))
    if unknown:
        raise fail(f"candidate.basis.{unknown[0]}", f"unknown field (expected {', '.join(BASIS_FIELDS)})")
    out = {}
    for field in BASIS_FIELDS:
        if basis.get(field) is None:
            raise fail(f"candidate.basis.{field}", "missing (expected a string)")
        if not _is_text(basis.get(field)):
            raise fail(f"candidate.basis.{field}", "expected a string")
        out[field] = basis[field].strip()
    return out


def _parse_independent(value: Any, protocol: Protocol, author: str, fail: Callable[[str, str], InputError]) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail("independent", "expected a mapping {dimension: [producer, ...]}")
    out: dict[str, list[str]] = {}
    for dim, producers in value.items():
        if dim not in protocol.independence_dimensions:
            raise fail(f"independent.{dim}", "unknown independence dimension (expected one of "
                                             f"{', '.join(protocol.independence_dimensions)})")
        if producers is None:
            producers = []
        if not isinstance(producers, list) or not all(_is_text(p) for p in producers):
            raise fail(f"independent.{dim}", "expected a list of producer names")
        names = list(dict.fromkeys(check_name(p, field=f"independent.{dim}") for p in producers))
        if dim == AUTHOR_DIMENSION and any(same_actor(author, n) for n in names):
            raise fail(f"independent.{dim}", f"lists the case's own author {author}: the run that wrote "
                                             "the candidate is not independent of it")
        out[dim] = names
    return out


def _parse_evidence_item(item: Any, protocol: Protocol, where: str, fail: Callable[[str, str], InputError],
                         source: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise fail(where, "expected a mapping {kind, result, producer, about}")
    unknown = sorted(set(map(str, item)) - EVIDENCE_KEYS)
    if unknown:
        raise fail(f"{where}.{unknown[0]}", f"unknown field (expected {', '.join(sorted(EVIDENCE_KEYS))})")
    for field in ("kind", "result", "producer"):
        if item.get(field) is None:
            raise fail(f"{where}.{field}", "missing (expected a string)")
        if not _is_text(item.get(field)):
            raise fail(f"{where}.{field}", "expected a string")
    _check_kind(protocol, item["kind"], item["result"], lambda f, m: fail(f"{where}.{f}", m))
    about = item.get("about", "current")
    if not _is_text(about):
        raise fail(f"{where}.about", "expected current or a revision")
    at = item.get("at", item.get("observed_at"))
    if at is not None:
        at = parse_iso(str(at), field=f"{source}: {where}.at")
    details = item.get("details")
    if details is not None:
        if not isinstance(details, dict):
            raise fail(f"{where}.details", "expected a mapping")
        _check_json(details, f"{where}.details")
    return {"kind": item["kind"], "result": item["result"],
            "producer": check_name(item["producer"], field=f"{source}: {where}.producer"),
            "about": about.strip(), "at": at, "details": details}


def _check_kind(protocol: Protocol, kind: str, result: str, fail: Callable[[str, str], InputError]) -> None:
    if kind not in protocol.evidence_kinds:
        raise fail("kind", f"unknown evidence kind {kind!r} (expected one of {', '.join(protocol.evidence_kinds)})")
    results = protocol.evidence_kinds[kind]["results"]
    if results is not None and result not in results:
        raise fail("result", f"unknown result {result!r} of {kind} (expected one of {', '.join(results)})")


def read_case_file(path: str | Path) -> dict[str, Any]:
    return parse_case(read_yaml(path), str(path))


# --- writing -----------------------------------------------------------------------------------
def _read(path_or_mapping: str | Path | dict[str, Any]) -> dict[str, Any]:
    if isinstance(path_or_mapping, dict):
        return parse_case(path_or_mapping, "case")
    return read_case_file(path_or_mapping)


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
            " AND about = ? AND (details IS NULL OR json_extract(details, '$.mock') IS NOT 1) LIMIT 1",
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


UNDECIDED_EVENT = "evaluation.undecided"


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


def undecided_notes(db: Database, case_id: str, revision: str | None) -> dict[str, str]:
    """Per evidence kind, the newest 'settled nothing' note about this revision (none once evidence came later)."""
    notes: dict[str, str] = {}
    for payload, seq in db.execute(
            "SELECT payload, seq FROM events WHERE subject_type = 'case' AND subject_id = ? AND kind = ?"
            " AND revision IS ? ORDER BY seq", [case_id, UNDECIDED_EVENT, revision]).fetchall():
        data = json.loads(payload) if payload else {}
        kind = str(data.get("kind") or "")
        later = db.execute("SELECT 1 FROM evidence WHERE case_id = ? AND kind = ? AND about IS ? AND event_seq > ?",
                           [case_id, kind, revision, seq]).fetchone()
        if later:
            notes.pop(kind, None)
        else:
            notes[kind] = str(data.get("note") or "")
    return notes


def noise_warnings(evidence: list[dict[str, Any]]) -> list[str]:
    """One line per counting record whose comparison is not decided at its alpha: a claim resting on noise.

    The evaluation puts `inside_noise` and the comparisons in words in the record's details
    (flows.evaluate_case); records from elsewhere say nothing of it and draw no warning.
    """
    lines = []
    for e in evidence:
        details = e.get("details") or {}
        flags, words = details.get("inside_noise"), details.get("comparisons")
        if e["status"] != "counting" or not isinstance(flags, list) or not isinstance(words, list):
            continue
        for i, (flag, said) in enumerate(zip(flags, words, strict=False)):
            if flag is True and isinstance(said, str):
                run = f" run {i + 1}" if len(flags) > 1 else ""
                decides = f" ({', '.join(e['decides'])})" if e.get("decides") else ""
                rule = f" ({details['decided_by']})" if isinstance(details.get("decided_by"), str) else ""
                lines.append(f"#{e['id']} {e['kind']} {e['result']}{decides} rests on a delta inside the noise"
                             f"{rule}:{run} {said}")
    return lines


def case_subject(case_id: str) -> Callable[[Database], Subject]:
    """The guarded pipeline's view of a case: open or closed (and by whom), and its author."""

    def load(db: Database) -> Subject:
        case = get_case(db, case_id)
        closed = None
        if case["status"] != "open":
            previous = _decisions(db, case_id)
            last = previous[-1] if previous else {}
            closed = (f"the case is closed ({case['outcome']}{' by ' + last['actor'] if last.get('actor') else ''})"
                      "; a decision is never edited")
        return Subject("case", case_id, "case", case, closed=closed, author=case["author"])

    return load


def decide_case(db: Database, case_id: str, outcome: str, *, actor: str | None, note: str | None = None,
                based_on_seq: int | None = None, at: str | None = None) -> int:
    """Close a case with an outcome the protocol allows now; a refusal names its rule and writes nothing.

    Callers decide through `gatepost.store.flows.decide`, which also turns a `proposed` case into a
    proposal in the same transaction; `decide` below is the same for every other outcome.
    """
    note = (note or "").strip() or None
    when = observed_at(at) or now_iso()
    protocol = protocol_for(get_case(db, case_id)["protocol"])
    if outcome not in protocol.outcomes:
        raise InputError(f"outcome: expected one of {', '.join(protocol.outcomes)}, got {outcome!r}")
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
        seq = act.event("case.decided", revision=case["current_revision"], note=note, at=when,
                        payload={"outcome": outcome, "capability": capability, "based_on_seq": act.seen_seq,
                                 "claims": evaluation.claims})
        cursor = db.execute(
            "INSERT INTO decisions (case_id, outcome, actor, capability, revision, note, at, based_on_seq, event_seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [case_id, outcome, act.actor, capability, case["current_revision"], note, when, act.seen_seq, seq])
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
        rows = _records(db, subject.id)
        evaluation = protocol_for(subject.row["protocol"]).evaluate(case_state(db, subject.row, rows=rows))
        evaluated.append(evaluation)
        counting = {item["record"].id for item in evaluation.records() if item["status"] == "counting"}
        for row in rows:
            if str(row["id"]) not in counting:
                continue
            if same_actor(who["name"], row["producer"]):
                raise refusal(doing, DECIDER, f"{who['name']} produced evidence #{row['id']} ({row['kind']} "
                                              f"{row['result']}) that counts on this case; it is decided by "
                                              "someone whose evidence it does not weigh")

    return check


def decide(db: Database, case_id: str, outcome: str, *, actor: str | None, note: str | None = None,
           based_on_seq: int | None = None, at: str | None = None) -> int:
    """decide_case for every outcome but `proposed`, which only `gatepost.store.flows.decide` records
    (it makes the proposal the case becomes; recording the decision alone would lose it)."""
    if outcome == "proposed":
        raise RefusedError(f"case {case_id}: proposed is recorded through gatepost.store.flows.decide, "
                           "which makes the proposal too")
    return decide_case(db, case_id, outcome, actor=actor, note=note, based_on_seq=based_on_seq, at=at)


def _made_seq(db: Database, case: dict[str, Any]) -> int | None:
    row = db.execute("SELECT event_seq FROM candidate_revisions WHERE case_id = ? AND revision = ?",
                     [case["id"], case["current_revision"]]).fetchone()
    return row[0] if row else None


def staleness(db: Database, case: dict[str, Any] | str, applied: list[dict[str, Any]] | None = None) -> str | None:
    """Why a case's candidate does not rest on the current content of its path (None if it does; `applied`:
    where it landed, when the caller has read it already).

    A stale candidate cannot be kept until rebased (a new revision made on the current content):
    keeping it would silently undo what was kept and applied since.
    """
    if isinstance(case, str):
        case = get_case(db, case)
    if applied is None:
        applied = loops.applications_of(db, "case", case["id"])
    if applied:
        return None  # it landed: it is (or was) the current content, not a change waiting on a base
    return loops.base_status(db, case["candidate_path"], case["basis"].get("baseline"), _made_seq(db, case))


def kept_rival(db: Database, case: dict[str, Any]) -> str | None:
    """Why keeping `case` would be a second landing on one base: another case of the same path, kept on the
    same base and not recorded applied yet (None when there is none).

    Two changes kept on one base cannot both land: whichever lands second would silently undo the first.
    The first kept waits to be recorded applied; this one is rebased on what it becomes.
    """
    path, base = case["candidate_path"], case["basis"].get("baseline")
    if not path or not base:
        return None
    row = db.execute(
        "SELECT c.id FROM cases c JOIN candidate_revisions r ON r.case_id = c.id AND r.revision = c.current_revision"
        " WHERE c.candidate_path = ? AND c.outcome = 'kept' AND c.id != ?"
        " AND json_extract(r.basis, '$.baseline') = ?"
        " AND NOT EXISTS (SELECT 1 FROM applications a WHERE a.subject_type = 'case' AND a.subject_id = c.id)"
        " ORDER BY c.id LIMIT 1", [path, case["id"], base]).fetchone()
    if row is None:
        return None
    return (f"case {row[0]} for {path} was kept on the same base ({base[:19] + '…' if len(base) > 19 else base}) and is not recorded applied yet "
            f"(gatepost case applied {row[0]} --ref REF); rebase this one on it once it lands")


KEPT_NOT_LANDED = ("outcome = 'kept' AND candidate_path IS NOT NULL AND id NOT IN"
                   " (SELECT subject_id FROM applications WHERE subject_type = 'case')")


def kept_not_landed_count(db: Database) -> int:
    """How many kept cases were never recorded applied (`case list --kept-not-landed`; the Overview's count)."""
    return int(db.execute(f"SELECT COUNT(*) FROM cases WHERE {KEPT_NOT_LANDED}").fetchone()[0])


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


def _case_row(db: Database, case_id: str) -> dict[str, Any] | None:
    cursor = db.execute("SELECT * FROM cases WHERE id = ?", [case_id])
    row = cursor.fetchone()
    return dict(zip([c[0] for c in cursor.description], row, strict=True)) if row else None


def get_case(db: Database, case_id: str) -> dict[str, Any]:
    """One case with its current candidate (content, basis); an unknown id is an InputError."""
    row = _case_row(db, case_id)
    if row is None:
        raise InputError(f"case {case_id}: no such case in this store (gatepost case list)")
    cand = db.execute("SELECT content, basis FROM candidate_revisions WHERE case_id = ? AND revision = ?",
                      [case_id, row["current_revision"]]).fetchone()
    row["content"] = json.loads(cand[0]) if cand else None
    row["basis"] = json.loads(cand[1]) if cand else {}
    row["independent"] = json.loads(row["independent"] or "{}")
    row["claims"] = json.loads(row["claims"] or "{}")
    row["allowed"] = json.loads(row["allowed"] or "[]")
    row["last_seq"] = row["last_seq"] or 0
    return row


def _revisions(case: dict[str, Any]) -> dict[str, str]:
    """The current revision of each artifact: the candidate's hash, and the design named by its basis."""
    return {"candidate": case["current_revision"], "eval_design": case["basis"].get("design")}


def _artifact_of(case: dict[str, Any], kind: str) -> str:
    artifact = protocol_for(case["protocol"]).kind_artifacts.get(kind)
    return artifact or "candidate"


def _records(db: Database, case_id: str) -> list[dict[str, Any]]:
    cursor = db.execute("SELECT * FROM evidence WHERE case_id = ? ORDER BY id", [case_id])
    cols = [c[0] for c in cursor.description]
    return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]


def _decisions(db: Database, case_id: str) -> list[dict[str, Any]]:
    cursor = db.execute("SELECT * FROM decisions WHERE case_id = ? ORDER BY id", [case_id])
    cols = [c[0] for c in cursor.description]
    return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]


def case_state(db: Database, case: dict[str, Any], authority: set[str] | None = None,
               rows: list[dict[str, Any]] | None = None) -> State:
    """The interpreter's view of a case: revisions, evidence records, independence, authority (`rows`: the
    case's evidence rows when the caller has read them already)."""
    records = [Record(id=str(r["id"]), kind=r["kind"], result=r["result"], artifact=r["artifact"],
                      revision=r["about"], producer=r["producer"], observed_at=r["observed_at"], order=r["id"])
               for r in (_records(db, case["id"]) if rows is None else rows) if not is_mock(r)]
    return State(revisions=_revisions(case), records=records, independent=case["independent"],
                 authority=set(authority or ()))


def is_mock(row: dict[str, Any]) -> bool:
    """Evidence from a mock executor (details.mock): stored and shown, never establishing a claim."""
    details = json.loads(row["details"]) if row.get("details") else {}
    return isinstance(details, dict) and details.get("mock") is True


MOCK_WHY = "mock: from a mock executor; stored and shown, never establishes a claim"


def _evaluate(db: Database, case: dict[str, Any], authority: set[str] | None = None) -> Evaluation:
    return protocol_for(case["protocol"]).evaluate(case_state(db, case, authority))


def _distinct_records(db: Database, case_id: str) -> list[Record]:
    """The case's evidence for its projection: one record per distinct kind, result, producer, artifact and
    revision (the newest of each), mock records left out.

    What a claim is rests on which results count, never on how often the same one was recorded (an expired
    record of a group means its newest is expired too), so the claims and the outcomes they allow are the
    same as from every record; the projection then costs the same on a case's 3,000th record as on its 10th.
    """
    rows = db.execute(
        "SELECT MAX(id), kind, result, producer, artifact, about, MAX(observed_at) FROM evidence"
        " WHERE case_id = ? AND (details IS NULL OR json_extract(details, '$.mock') IS NOT 1)"
        " GROUP BY kind, result, producer, artifact, about ORDER BY MAX(id)", [case_id]).fetchall()
    return [Record(id=str(r[0]), kind=r[1], result=r[2], artifact=r[4], revision=r[5], producer=r[3],
                   observed_at=r[6], order=r[0]) for r in rows]


def _project(db: Database, case_id: str, when: str, evaluation: Evaluation | None = None) -> None:
    """Bring the case's projection columns up to date, inside the caller's transaction. `evaluation`: the
    case's, when the caller has just evaluated it and what it rests on (revisions, evidence) is unchanged
    since, as after a decision (the protocol was evaluated twice for one decision)."""
    case = get_case(db, case_id)
    if evaluation is None:
        evaluation = protocol_for(case["protocol"]).evaluate(
            State(revisions=_revisions(case), records=_distinct_records(db, case_id), independent=case["independent"],
                  authority=set()))
    if case["status"] == "open":
        allowed = [name for name, o in evaluation.outcomes().items() if o["allowed"]]
    else:
        allowed = []
    needs = 1 if case["status"] == "open" and any(o != "inconclusive" for o in allowed) else 0
    db.execute("UPDATE cases SET claims = ?, allowed = ?, needs_decision = ?, last_seq = ?, updated_at = ?"
               " WHERE id = ?",
               [json.dumps(evaluation.claims), json.dumps(allowed), needs, last_seq(db, "case", case_id),
                max(when, case["updated_at"] or ""), case_id])


def case_view(db: Database, case_id: str, *, actor: str | None = None) -> dict[str, Any]:
    """Everything a person needs to decide a case: the `case show --json` shape plus the why of each value.

    Actions' status is for `actor` (their capabilities are the authority held):
    approval-required means someone holding the capability must take it.
    """
    case = get_case(db, case_id)
    authority = set(capabilities_of(db, actor)) if actor else set()  # the whole actor took 7 reads
    protocol = protocol_for(case["protocol"])
    evidence_rows = _records(db, case_id)  # read once: for the interpreter and for the list shown
    evaluation = protocol.evaluate(case_state(db, case, authority, evidence_rows))
    actions = evaluation.actions()
    outcomes = evaluation.outcomes()
    decisions = _decisions(db, case_id)
    if case["status"] != "open":
        last = decisions[-1] if decisions else {}
        closed = f"the case is closed ({case['outcome']}" + (f" by {last['actor']})" if last else ")")
        actions = {n: {"allowed": False, "status": BLOCKED, "why": closed} for n in actions}
        outcomes = {n: {"allowed": False, "why": closed} for n in outcomes}
    rows = {str(r["id"]): r for r in evidence_rows}
    evidence = []
    for item in evaluation.records():
        rec = item["record"]
        row = rows[rec.id]
        evidence.append({"id": row["id"], "kind": rec.kind, "result": rec.result, "producer": rec.producer,
                         "artifact": rec.artifact, "about": rec.revision, "observed_at": rec.observed_at,
                         "details": json.loads(row["details"]) if row["details"] else None,
                         "status": item["status"], "why": item["why"], "decides": item["decides"]})
    for row in rows.values():
        if is_mock(row):
            evidence.append({"id": row["id"], "kind": row["kind"], "result": row["result"],
                             "producer": row["producer"], "artifact": row["artifact"], "about": row["about"],
                             "observed_at": row["observed_at"], "details": json.loads(row["details"]),
                             "status": "mock", "why": MOCK_WHY, "decides": []})
    evidence.sort(key=lambda e: e["id"])
    counts = {s: sum(1 for e in evidence if e["status"] == s) for s in ("counting", "stale", "not independent")}
    undecided = undecided_notes(db, case_id, case["current_revision"])
    explanations = {name: evaluation.claim_why(name) for name in protocol.claims}
    for name, why in explanations.items():
        for kind, note in undecided.items():
            if evaluation.claims[name] == "UNKNOWN" and kind in why:
                explanations[name] = f"{why}; the evaluation settled nothing: {note}"
    applied = loops.applications_of(db, "case", case_id)
    stale = staleness(db, case, applied)
    path = case["candidate_path"]
    link = loops.loop_case(db, case_id)
    return {
        "id": case["id"],
        "revision": case["current_revision"],
        "claims": dict(evaluation.claims),
        "actions": actions,
        "outcomes": outcomes,
        "outcome": case["outcome"],
        "title": case["title"],
        "author": case["author"],
        "protocol": case["protocol"],
        "status": case["status"],
        "last_seq": last_seq(db, "case", case_id),
        "independent": case["independent"],
        "candidate": {"path": case["candidate_path"], "content": case["content"], "basis": case["basis"],
                      "revision": case["current_revision"]},
        "explanations": explanations,
        "undecided": undecided,
        "noise": noise_warnings(evidence),
        "claim_order": list(protocol.claim_order),
        "derived": [name for name in protocol.claims if protocol.derived(name)],
        "claim_descriptions": {name: desc for name, (desc, _c) in protocol.claims.items()},
        "trees": {name: evaluation.claim_tree(name) for name in protocol.claims},
        "evidence": evidence,
        "evidence_counts": counts,
        "decisions": [{k: d[k] for k in ("id", "outcome", "actor", "capability", "revision", "note", "at",
                                         "based_on_seq")} for d in decisions],
        "viewer": actor,
        "viewer_capabilities": sorted(authority),
        "loop": link["loop"] if link else None,
        "base": {"path": path, "made_on": case["basis"].get("baseline"),
                 "current": loops.current_hash(db, path) if path else None, "stale": bool(stale), "why": stale},
        "applied": applied,
        "contradicted": case_contradiction(db, case, rows=evidence_rows),
    }


CASE_SCHEMA = "gatepost.case/1"


def show_json(view: dict[str, Any]) -> dict[str, Any]:
    """The `case show --json` document (schema gatepost.case/1): DESIGN.md's shape, then everything a loop needs.

    Status, `last_seq` (what `case decide --seq` asks for), decisions, the candidate (content, basis,
    path), evidence with its producer, status and runs, the loop, its base and where it landed.
    """
    doc: dict[str, Any] = {"schema": CASE_SCHEMA}
    doc.update({k: view[k] for k in ("id", "revision", "claims", "actions", "outcomes", "outcome")})
    doc.update({k: view[k] for k in ("status", "last_seq", "title", "author", "protocol", "independent",
                                     "candidate", "decisions", "loop", "base", "applied", "contradicted")})
    doc["evidence"] = [{k: e[k] for k in ("id", "kind", "result", "producer", "artifact", "about", "observed_at",
                                          "status", "why", "decides")}
                       | {"runs": list((e["details"] or {}).get("runs", [])), "details": e["details"]}
                       for e in view["evidence"]]
    doc["evidence_counts"] = view["evidence_counts"]
    return doc


def case_contradiction(db: Database, case: dict[str, Any] | str, *, cutoff: int | None = None,
                       what: str | None = None, what_at: str | None = None,
                       rows: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
    """Whether later evidence contradicts the case's decision (or what was decided at `cutoff`, a store seq).

    None, or what changed and the line "kept at 08:00; held-out came back regressed at 18:00"
    (see contradicted.py); evaluated only when evidence came after the cutoff. `rows`: the case's evidence
    rows, when the caller has read them already.
    """
    if isinstance(case, str):
        case = get_case(db, case)
    if cutoff is None:
        last = _contradiction.last_decision(db, case["id"]) if case["status"] != "open" else None
        if last is None:
            return None
        what, cutoff = last  # read once, for both steps
    if not _contradiction.later_evidence(db, case["id"], cutoff):
        return None
    seqs = {int(r["id"]): r["event_seq"] for r in rows} if rows is not None else None
    return _contradiction.describe(db, case, protocol_for(case["protocol"]), case_state(db, case, rows=rows),
                                   cutoff=cutoff, what=what, what_at=what_at, seqs=seqs)


def contradicted_case_ids(db: Database, ids: list[str] | None = None) -> list[str]:
    """The closed cases (of `ids`, or all) whose decision later evidence contradicts, in id order."""
    return [cid for cid in _contradiction.candidate_ids(db, ids) if case_contradiction(db, cid) is not None]


def list_cases(db: Database, *, status: str | None = None, outcome: str | None = None,
               needs_decision: bool | None = None, search: str | None = None, limit: int = 100,
               offset: int = 0, contradicted: bool = False,
               kept_not_landed: bool = False) -> tuple[list[dict[str, Any]], int]:
    """One page of cases, newest activity first, from the projection's indexed columns; and the total.

    `contradicted` keeps the closed cases whose decision later evidence contradicts (status
    `contradicted` is the same); `kept_not_landed` the kept cases never recorded applied.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if status == "contradicted":
        status, contradicted = None, True
    if status == "kept_not_landed":
        status, kept_not_landed = None, True
    if kept_not_landed:
        clauses.append(f"({KEPT_NOT_LANDED})")
    if status == "design_review":
        waiting = waiting_on_design_review(db, DEFAULT_PROTOCOL)
        clause, values = one_of("id", waiting)
        clauses.append(clause)
        params += values
        status = None
    if contradicted:
        found = contradicted_case_ids(db)
        clause, values = one_of("id", found)
        clauses.append(clause)
        params += values
    if status == "needs_decision":
        status, needs_decision = "open", True
    if status:
        if status not in ("open", "closed"):
            raise InputError(f"--status: expected open, closed, needs_decision, design_review or contradicted, "
                             f"got {status!r}")
        clauses.append("status = ?")
        params.append(status)
    if outcome:
        clauses.append("outcome = ?")
        params.append(outcome)
    if needs_decision is not None:
        clauses.append("needs_decision = ?")
        params.append(1 if needs_decision else 0)
    if search and search.strip():
        like = f"%{search.strip()}%"
        clauses.append("(id LIKE ? OR title LIKE ? OR author LIKE ? OR candidate_path LIKE ? "
                       "OR current_revision LIKE ?)")
        params += [like, like, like, like, search.strip() + "%"]
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    total = db.execute(f"SELECT COUNT(*) FROM cases{where}", params).fetchone()[0]
    cursor = db.execute(
        "SELECT id, title, author, protocol, candidate_path, current_revision, status, outcome, claims, allowed,"
        f" needs_decision, last_seq, created_at, updated_at FROM cases{where}"
        " ORDER BY updated_at DESC, id LIMIT ? OFFSET ?", [*params, int(limit), int(offset)])
    cols = [c[0] for c in cursor.description]
    rows = []
    for raw in cursor.fetchall():
        row = dict(zip(cols, raw, strict=True))
        row["claims"] = json.loads(row["claims"] or "{}")
        row["allowed"] = json.loads(row["allowed"] or "[]")
        rows.append(row)
    return rows, total


def claim_strip(protocol_ref: str, claims: dict[str, str]) -> str:
    """✔ ✘ ? per claim in protocol order, claims resting on claims after a space (for lists)."""
    protocol = protocol_for(protocol_ref)
    symbol = {"TRUE": "✔", "FALSE": "✘"}
    base = "".join(symbol.get(claims.get(n, ""), "?") for n in protocol.claim_order if not protocol.derived(n))
    derived = "".join(symbol.get(claims.get(n, ""), "?") for n in protocol.claim_order if protocol.derived(n))
    return f"{base} {derived}".strip()


def evidence_note(item: dict[str, Any]) -> str:
    """`counting`, `stale: about revision …`, `not independent: producer … not independent on …`; a comparison
    the evaluator recorded adds the rule that decided it (`counting: strict: noise may pass`)."""
    status: str = item["status"]
    why: str = item["why"]
    text = why if why == status or why.startswith(status) else f"{status}: {why}"
    rule = (item.get("details") or {}).get("decided_by")
    if not isinstance(rule, str) or not rule:
        return text
    return f"{text}: {rule}" if text == status else f"{text}; {rule}"


def short_revision(revision: str | None, width: int = 6) -> str:
    """A hash's first characters; a name such as design-2 is shown whole."""
    return short(revision, width)

