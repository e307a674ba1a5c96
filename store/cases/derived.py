"""A case as the store holds it: its row and records read back, the interpreter's state of it, and the
projection columns (claims, allowed outcomes, needs_decision) kept current inside each case act.

What a case allows is never stored as a rule: the protocol file is evaluated every time; the columns
here are what lists page from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from gatepost.store import loops
from gatepost.store.kernel import (
    InputError,
    Subject,
    all_rows,
    as_found,
    last_seq,
    one_row,
    rehearsing,
)
from gatepost.store.protocol import (
    Evaluation,
    Record,
    State,
    protocol_for,
)

from . import contradicted as _contradiction
from .design_review import waits_on_design_review
from .types import Contradiction

if TYPE_CHECKING:
    from sqlite_utils import Database


def _case_row(db: Database, case_id: str) -> dict[str, Any] | None:
    return one_row(db.execute("SELECT * FROM cases WHERE id = ?", [case_id]))


def get_case(db: Database, case_id: str) -> dict[str, Any]:
    """One case with its current candidate (content, basis); an unknown id is an InputError.

    Read once for all the rehearsals of the case's decisions (kernel.as_found): each caller gets its own dict,
    whose parsed values (content, basis, independent, claims, allowed) it reads and never changes."""
    stored = as_found(db, ("case", case_id), lambda: _stored_case(db, case_id))
    if stored is None:
        raise InputError(f"case {case_id}: no such case in this store (gatepost case list)")
    return dict(stored)


def _stored_case(db: Database, case_id: str) -> dict[str, Any] | None:
    row = _case_row(db, case_id)
    if row is None:
        return None
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
    return current_revisions(case["current_revision"], case["basis"])


def current_revisions(revision: str, basis: dict[str, Any]) -> dict[str, str]:
    """The current revision of each artifact: the candidate's hash, and the design named by its basis."""
    return {"candidate": revision, "eval_design": cast(str, basis.get("design"))}


def _artifact_of(case: dict[str, Any], kind: str) -> str:
    artifact = protocol_for(case["protocol"]).kind_artifacts.get(kind)
    return artifact or "candidate"


def _records(db: Database, case_id: str) -> list[dict[str, Any]]:
    return all_rows(db.execute("SELECT * FROM evidence WHERE case_id = ? ORDER BY id", [case_id]))


def _decisions(db: Database, case_id: str) -> list[dict[str, Any]]:
    return all_rows(db.execute("SELECT * FROM decisions WHERE case_id = ? ORDER BY id", [case_id]))


def case_state(case: dict[str, Any], rows: list[dict[str, Any]], authority: set[str] | None = None) -> State:
    """The interpreter's view of a case: revisions, its evidence rows (`_records`) as records, independence,
    authority."""
    records = [Record(id=str(r["id"]), kind=r["kind"], result=r["result"], artifact=r["artifact"],
                      revision=r["about"], producer=r["producer"], observed_at=r["observed_at"], order=r["id"])
               for r in rows if not is_mock(r)]
    return State(revisions=_revisions(case), records=records, independent=case["independent"],
                 authority=set(authority or ()))


def is_mock(row: dict[str, Any]) -> bool:
    """Evidence from a mock executor (details.mock): stored and shown, never establishing a claim."""
    return mock_details(json.loads(row["details"]) if row.get("details") else {})


def mock_details(details: Any) -> bool:
    """Whether evidence with these details (parsed) is from a mock executor: details.mock is true."""
    return isinstance(details, dict) and details.get("mock") is True


MOCK_WHY = "mock: from a mock executor; stored and shown, never establishes a claim"


def _evaluate(db: Database, case: dict[str, Any], authority: set[str] | None = None) -> Evaluation:
    return protocol_for(case["protocol"]).evaluate(case_state(case, _records(db, case["id"]), authority))


def _distinct_records(db: Database, case_id: str) -> list[Record]:
    """The case's evidence for its projection (`distinct_records`), read already grouped: one row per group."""
    rows = db.execute(
        "SELECT MAX(id), kind, result, producer, artifact, about, MAX(observed_at) FROM evidence"
        f" WHERE case_id = ? AND {COUNTED_SQL} GROUP BY kind, result, producer, artifact, about ORDER BY MAX(id)",
        [case_id]).fetchall()
    return distinct_records(rows)


# Evidence that is not mock (`is_mock`), in SQL: details.mock is JSON true.
COUNTED_SQL = "(details IS NULL OR json_type(details, '$.mock') IS NOT 'true')"


def distinct_records(rows: Iterable[Sequence[Any]]) -> list[Record]:
    """The case's evidence for its projection: one record per distinct kind, result, producer, artifact and
    revision (the newest of each: its order, and the newest time of the group), mock records left out by the
    caller. `rows`: (order, kind, result, producer, artifact, about, observed_at), oldest first.

    What a claim is rests on which results count, never on how often the same one was recorded (an expired
    record of a group means its newest is expired too), so the claims and the outcomes they allow are the
    same as from every record; the projection then costs the same on a case's 3,000th record as on its 10th.
    A case's acts read the rows grouped by SQL already (`_distinct_records`); `gatepost verify` passes every
    row the events made.
    """
    groups: dict[tuple[Any, ...], tuple[int, str]] = {}
    for order, kind, result, producer, artifact, about, at in rows:
        key = (kind, result, producer, artifact, about)
        newest = groups.get(key)
        groups[key] = (order, at if newest is None or (at or "") > (newest[1] or "") else newest[1])
    ordered = sorted(groups.items(), key=lambda item: item[1][0])
    return [Record(id=str(order), kind=kind, result=result, artifact=artifact, revision=about, producer=producer,
                   observed_at=at, order=order) for (kind, result, producer, artifact, about), (order, at) in ordered]


def projection(protocol: str, status: str, revisions: dict[str, str], records: list[Record],
               independent: dict[str, list[str]]) -> tuple[dict[str, str], list[str], int]:
    """A case's cached columns from its state: the claims, the outcomes allowed (none once closed) and whether
    it needs a decision (an open case allowing an outcome other than inconclusive). What every act that
    changes a case stores (`_project`) and what `gatepost verify` computes again from the events."""
    evaluation = protocol_for(protocol).evaluate(State(revisions=revisions, records=records,
                                                       independent=independent, authority=set()))
    return _projected(status, evaluation)


def _projected(status: str, evaluation: Evaluation) -> tuple[dict[str, str], list[str], int]:
    allowed = evaluation.allowed_outcomes() if status == "open" else []
    needs = 1 if status == "open" and any(o != "inconclusive" for o in allowed) else 0
    return dict(evaluation.claims), allowed, needs


UNDECIDED_EVENT = "evaluation.undecided"
# The kinds of event whose acts bring a case's cached columns up to date (`_project`, as of that event): an act
# that calls `_project` adds its kind here, since `gatepost verify` rebuilds last_seq and updated_at from these.
PROJECTING = frozenset({"case.imported", "case.revised", "case.independence_changed", "evidence.added",
                        "case.decided", UNDECIDED_EVENT})


def _project(db: Database, case_id: str, when: str, evaluation: Evaluation | None = None) -> None:
    """Bring the case's projection columns up to date, inside the caller's transaction. `evaluation`: the
    case's, when the caller has just evaluated it and what it rests on (revisions, evidence) is unchanged
    since, as after a decision (the protocol was evaluated twice for one decision).

    A rehearsal (kernel.rehearsing: an act run to ask whether it may be done, then rolled back) leaves the
    projection as it is: it is derived from what the act wrote, decides nothing (every rule evaluates the
    protocol itself) and would be rolled back with the rest."""
    if rehearsing():
        return
    case = get_case(db, case_id)
    if evaluation is None:
        claims, allowed, needs = projection(case["protocol"], case["status"], _revisions(case),
                                            _distinct_records(db, case_id), case["independent"])
    else:
        claims, allowed, needs = _projected(case["status"], evaluation)
    design_review = 1 if case["status"] == "open" and waits_on_design_review(case["protocol"], claims) else 0
    db.execute("UPDATE cases SET claims = ?, allowed = ?, needs_decision = ?, design_review = ?, last_seq = ?,"
               " updated_at = ? WHERE id = ?",
               [json.dumps(claims), json.dumps(allowed), needs, design_review, last_seq(db, "case", case_id),
                max(when, case["updated_at"] or ""), case_id])


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


def _made_seq(db: Database, case: dict[str, Any]) -> int | None:
    row = db.execute("SELECT event_seq FROM candidate_revisions WHERE case_id = ? AND revision = ?",
                     [case["id"], case["current_revision"]]).fetchone()
    return row[0] if row else None


def staleness(db: Database, case: dict[str, Any]) -> str | None:
    """Why a case's candidate (`get_case`) does not rest on the current content of its path (None if it does).

    A stale candidate cannot be kept until rebased (a new revision made on the current content):
    keeping it would silently undo what was kept and applied since.
    """
    return _stale(db, case, loops.applications_of(db, "case", case["id"]))


def _stale(db: Database, case: dict[str, Any], applied: list[dict[str, Any]]) -> str | None:
    """staleness, given where the case landed (`loops.applications_of`)."""
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


def case_contradiction(db: Database, case_id: str, *, cutoff: int | None = None, what: str | None = None,
                       what_at: str | None = None) -> Contradiction | None:
    """Whether later evidence contradicts the case's decision (or what was decided at `cutoff`, a store seq).

    None, or what changed and the line "kept at 08:00; held-out came back regressed at 18:00"
    (see contradicted.py); evaluated only when evidence came after the cutoff.
    """
    return _contradicted(db, get_case(db, case_id), lambda: _records(db, case_id), cutoff=cutoff, what=what,
                         what_at=what_at)


def _contradicted(db: Database, case: dict[str, Any], read_rows: Callable[[], list[dict[str, Any]]], *,
                  cutoff: int | None = None, what: str | None = None, what_at: str | None = None
                  ) -> Contradiction | None:
    """case_contradiction of a case read (`get_case`); `read_rows` gives its evidence rows (`_records`), read
    only when evidence came after the cutoff."""
    if cutoff is None:
        last = _contradiction.last_decision(db, case["id"]) if case["status"] != "open" else None
        if last is None:
            return None
        what, cutoff = last  # read once, for both steps
    if not _contradiction.later_evidence(db, case["id"], cutoff):
        return None
    rows = read_rows()
    seqs = {int(r["id"]): r["event_seq"] for r in rows}
    return _contradiction.describe(db, case, protocol_for(case["protocol"]), case_state(case, rows),
                                   cutoff=cutoff, what=what, what_at=what_at, seqs=seqs)


def contradicted_case_ids(db: Database, ids: list[str] | None = None) -> list[str]:
    """The closed cases (of `ids`, or all) whose decision later evidence contradicts, in id order."""
    return [cid for cid in _contradiction.candidate_ids(db, ids) if case_contradiction(db, cid) is not None]
