"""Proposals: changes a loop may not apply by itself, waiting for a person to mark them.

A proposal is an ai-memory proposal (its request contract's fields) or a case
whose outcome is `proposed` (id `case:<case_id>`, inserted by the cases side).
Its status is a projection of `proposal.marked` events, updated in the same
transaction.
"""

# annotations stay text: `loops.Landing` in a signature would load the loops registry with this module
from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gatepost.store import cases, loops, rubrics
from gatepost.store.kernel import (
    CAPABILITY,
    GatepostError,
    InputError,
    RefusedError,
    Subject,
    all_rows,
    as_found,
    guarded,
    last_seq,
    now_iso,
    observed_at,
    one_of,
    one_row,
    parse_json,
    read_text,
    refusal,
    repo_path,
    transaction,
)

from .contradicted import contradicted_proposal_ids, proposal_contradiction
from .types import ProposalRow, ProposalView

if TYPE_CHECKING:
    from sqlite_utils import Database

OPERATIONS = ("create", "update")
EDIT_MODES = ("full_page", "patch")
STATUSES = ("waiting", "needs_changes", "accepted", "declined")
MARKS = ("accepted", "declined", "needs_changes")
FINAL = ("accepted", "declined")
REQUEST_FIELDS = ("path", "kind", "operation", "edit_mode", "title", "confidence", "rationale", "before_body",
                  "after_body", "expected_base_body_sha256")


def validate_proposal(data: Any, *, name: str = "proposal") -> dict[str, Any]:
    """The proposal's request-contract fields, checked; InputError naming the field otherwise."""
    if not isinstance(data, dict):
        raise InputError(f"{name}: expected a JSON object (an ai-memory proposal)")

    def text(key: str, *, required: bool = False, nonempty: bool = False) -> str | None:
        value = data.get(key)
        if value is None:
            if required:
                raise InputError(f"{name}: {key}: missing (expected a string)")
            return None
        if not isinstance(value, str) or (nonempty and not value.strip()):
            raise InputError(f"{name}: {key}: expected a{' non-empty' if nonempty else ''} string")
        return value

    text("path", required=True, nonempty=True)
    path = repo_path(data["path"], f"{name}: path")
    operation = data.get("operation")
    if operation not in OPERATIONS:
        raise InputError(f"{name}: operation: expected create or update, got {operation!r}")
    edit_mode = data.get("edit_mode")
    if edit_mode not in EDIT_MODES:
        raise InputError(f"{name}: edit_mode: expected full_page or patch, got {edit_mode!r}")
    before = text("before_body")
    if operation == "create":
        if before:
            raise InputError(f"{name}: before_body: expected an empty string for a create proposal")
        before = ""
    elif before is None:
        raise InputError(f"{name}: before_body: missing (expected the current body for an update proposal)")
    after = text("after_body", required=True)
    confidence = data.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
                                   or not math.isfinite(confidence) or not 0 <= confidence <= 1):
        raise InputError(f"{name}: confidence: expected a number from 0 to 1, got {confidence!r}")
    base_sha = text("expected_base_body_sha256")
    if base_sha is not None:
        if len(base_sha) != 64 or any(c not in "0123456789abcdefABCDEF" for c in base_sha):
            raise InputError(f"{name}: expected_base_body_sha256: expected 64 hex digits or null")
        if edit_mode != "patch":
            raise InputError(f"{name}: expected_base_body_sha256: only patch proposals carry a base hash")
    return {"path": path, "kind": text("kind"), "operation": operation, "edit_mode": edit_mode,
            "title": text("title"), "confidence": float(confidence) if confidence is not None else None,
            "rationale": text("rationale"), "before_body": before, "after_body": after,
            "expected_base_body_sha256": base_sha.lower() if base_sha else None}


def case_proposal(case: dict[str, Any], note: str | None) -> dict[str, Any]:
    """The proposal a case decided `proposed` becomes: its candidate's content at its path (what `decide`
    stores, and what verify rebuilds from the case's events)."""
    content = case["content"]
    body = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
    return {"path": case["candidate_path"], "kind": "case", "operation": "update", "edit_mode": "full_page",
            "title": case["title"], "confidence": None, "rationale": note, "before_body": "",
            "after_body": body, "expected_base_body_sha256": None}


def proposal_request(proposal: dict[str, Any]) -> dict[str, Any]:
    """The scorer's request: the contract's fields in the contract's order; like ai-memory, the base
    hash is always sent (null when unknown)."""
    return {key: proposal.get(key) for key in REQUEST_FIELDS}


def proposal_id(proposal: dict[str, Any]) -> str:
    """The same proposal always gets the same id, so importing it twice stores it once."""
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    canonical = json.dumps({k: proposal.get(k) for k in REQUEST_FIELDS}, sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False)
    return "prop-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def add_proposal(db: Database, proposal: dict[str, Any], *, actor: str | None, source: str | None = None,
                 at: str | None = None, case_id: str | None = None, id: str | None = None,
                 made_by_event: int | None = None) -> tuple[str, bool]:
    """Store a validated proposal if it is new, through the guarded pipeline; returns (id, newly stored).

    Who imports is a named, printable actor (no capability: a proposal decides nothing, a person marks it).
    Call inside a transaction or not. `made_by_event`: the event of the act that made this proposal (a case
    decided `proposed`); the proposal is then part of that act and gets no event of its own.
    """
    pid = id or proposal_id(proposal)
    with guarded(db, f"import proposal {pid}", actor=actor, known=False) as act:
        if db.execute("SELECT 1 FROM proposals WHERE id = ?", [pid]).fetchone():
            return pid, False
        at = at or now_iso()  # a stored time (the decision's) or the store clock: no CLI passes --at here
        seq = made_by_event or act.event("proposal.imported", subject_type="proposal", subject_id=pid,
                                         note=proposal.get("title") or proposal["path"], at=at,
                                         payload={**{k: proposal.get(k) for k in REQUEST_FIELDS},
                                                  "source": source, "case_id": case_id})
        db.table("proposals").insert({**{k: proposal.get(k) for k in REQUEST_FIELDS}, "id": pid, "case_id": case_id,
                                      "status": "waiting", "created_at": at, "updated_at": at, "event_seq": seq})
    return pid, True


def _read_json(path: Path) -> Any:
    return parse_json(read_text(path, what="proposal file"), source=str(path))


def read_proposal_file(path: str | Path) -> dict[str, Any]:
    """One ai-memory proposal (the scorer's request contract) from a JSON file, checked."""
    path = Path(path)
    return validate_proposal(_read_json(path), name=str(path))


def import_proposal(db: Database, path: str | Path, *, actor: str | None) -> tuple[str, bool]:
    """Import an ai-memory proposal JSON file; returns (id, newly stored)."""
    proposal = read_proposal_file(path)
    return add_proposal(db, proposal, actor=actor, source=str(Path(path).resolve()))


def import_proposals(db: Database, path: str | Path, *, actor: str | None) -> list[tuple[str, bool]]:
    """Import a file holding one proposal or a JSON list of them; all are checked before any is stored."""
    path = Path(path)
    data = _read_json(path)
    items = data if isinstance(data, list) else [data]
    if not items:
        raise InputError(f"{path}: an empty list, expected proposals")
    checked = [validate_proposal(item, name=f"{path}[{i}]" if isinstance(data, list) else str(path))
               for i, item in enumerate(items)]
    with transaction(db):
        return [add_proposal(db, p, actor=actor, source=str(path.resolve())) for p in checked]


# --- the queue --------------------------------------------------------------------------
_ORDER = ("CASE status WHEN 'waiting' THEN 0 WHEN 'needs_changes' THEN 1 WHEN 'accepted' THEN 2 ELSE 3 END,"
          " created_at DESC, id")
LIST_COLUMNS = ("id, path, kind, operation, edit_mode, title, confidence, case_id, status, created_at, updated_at,"
                " (SELECT CASE WHEN g.targeted = 0 THEN (CASE WHEN g.reason LIKE 'gate disabled%' THEN 'disabled'"
                " ELSE 'not_targeted' END) WHEN g.passed = 1 THEN 'passed' ELSE 'failed' END FROM gate_results g"
                " WHERE g.proposal_id = proposals.id ORDER BY g.id DESC LIMIT 1) AS gate")


def list_proposals(db: Database, *, status: str | None = None, search: str | None = None, limit: int = 100,
                   offset: int = 0) -> tuple[list[ProposalRow], int]:
    """One page of proposals, waiting first, and how many match.

    Status `contradicted`: the accepted proposals later evidence contradicts (proposal_contradiction).
    """
    clauses, params = [], []
    if status == "contradicted":
        found = contradicted_proposal_ids(db)
        clause, values = one_of("id", found)
        clauses.append(clause)
        params.extend(values)
        status = None
    if status:
        if status not in STATUSES:
            raise InputError(f"--status: expected one of {', '.join(STATUSES)}, got {status!r}")
        clauses.append("status = ?")
        params.append(status)
    if search:
        clauses.append("(id LIKE ? OR path LIKE ? OR title LIKE ? OR case_id LIKE ?)")
        params.extend([f"%{search}%"] * 4)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    cursor = db.execute(f"SELECT {LIST_COLUMNS} FROM proposals{where} ORDER BY {_ORDER} LIMIT ? OFFSET ?",
                        [*params, limit, offset])
    rows = cast(list[ProposalRow], all_rows(cursor))  # the columns selected are ProposalRow's keys
    total = db.execute(f"SELECT COUNT(*) FROM proposals{where}", params).fetchone()[0]
    return rows, int(total)


def _case_view(db: Database, case_id: str) -> cases.CaseView | None:
    try:
        return cases.case_view(db, case_id)
    except GatepostError:  # a case the cases side cannot show (gone, or its protocol unknown) must not hide the proposal
        return None


def get_proposal(db: Database, pid: str) -> ProposalView | None:
    """A proposal with its gate results, its marks (newest first) and, for a case proposal, the case's view."""
    # plain SQL: sqlite-utils' table lookup reads the schema first (most of the cost of a look at a proposal)
    proposal = one_row(db.execute("SELECT * FROM proposals WHERE id = ?", [pid]))
    if proposal is None:
        return None
    proposal["gate_results"] = [  # booleans as booleans, in --json too
        {**r, "passed": bool(r["passed"]), "targeted": bool(r["targeted"])}
        for r in all_rows(db.execute("SELECT * FROM gate_results WHERE proposal_id = ? ORDER BY id DESC", [pid]))]
    cursor = db.execute("SELECT seq, at, actor, kind, note, payload FROM events WHERE subject_type = 'proposal'"
                        " AND subject_id = ? AND kind = 'proposal.marked' ORDER BY seq DESC", [pid])
    proposal["marks"] = []
    for seq, at, actor, _kind, note, payload in cursor.fetchall():
        data = json.loads(payload) if payload else {}
        proposal["marks"].append({"seq": seq, "at": at, "actor": actor, "status": data.get("status"), "note": note,
                                  "override_gate": data.get("override_gate"), "rubric": data.get("rubric")})
    proposal["last_seq"] = last_seq(db, "proposal", pid)
    proposal["case"] = _case_view(db, proposal["case_id"]) if proposal.get("case_id") else None
    proposal["contradicted"] = proposal_contradiction(db, proposal)  # later evidence against an acceptance
    return cast(ProposalView, proposal)  # the table's columns and the keys above are ProposalView's


OUTSIDE_SURFACE_CAPABILITY = "loop_change.apply_outside_surface"


def proposal_subject(pid: str) -> Callable[[Database], Subject]:
    """The guarded pipeline's view of a proposal: final or not, and (for a case's) the case's author."""

    def load(db: Database) -> Subject:
        # read once for all the rehearsals of the proposal's decisions (kernel.as_found); the act gets a copy
        stored, author = as_found(db, ("proposal", pid), lambda: _stored_proposal(db, pid))
        if stored is None:
            raise InputError(f"proposal {pid}: no such proposal (gatepost proposal list)")
        row = dict(stored)
        closed = f"the proposal is already {row['status']}; a decision is never edited" if row["status"] in FINAL else None
        return Subject("proposal", pid, "proposal", row, closed=closed, author=author,
                       author_role="case's author" if author else "author")

    return load


def _stored_proposal(db: Database, pid: str) -> tuple[dict[str, Any] | None, str | None]:
    """A proposal's row and, for a case's, the case's author."""
    row = one_row(db.execute("SELECT * FROM proposals WHERE id = ?", [pid]))
    author = None
    if row is not None and row.get("case_id"):
        found = db.execute("SELECT author FROM cases WHERE id = ?", [row["case_id"]]).fetchone()
        author = found[0] if found else None
    return row, author


def leaves_surface(db: Database, proposal: dict[str, Any]) -> bool:
    """Whether a proposal came from a case outside the loop's surface (change.within_surface FALSE)."""
    if not proposal.get("case_id"):
        return False
    row = db.execute("SELECT claims FROM cases WHERE id = ?", [proposal["case_id"]]).fetchone()
    claims = json.loads(row[0] or "{}") if row else {}
    return claims.get("change.within_surface") != "TRUE"


def failed_gate(db: Database, pid: str) -> dict[str, Any] | None:
    """The proposal's latest gate result if it ran the scorer and failed closed, else None."""
    row = db.execute("SELECT reason, at FROM gate_results WHERE proposal_id = ? ORDER BY id DESC LIMIT 1",
                     [pid]).fetchone()
    latest = db.execute("SELECT passed, targeted FROM gate_results WHERE proposal_id = ? ORDER BY id DESC LIMIT 1",
                        [pid]).fetchone()
    if row and latest and latest[1] and not latest[0]:
        return {"reason": row[0], "at": row[1]}
    return None


def mark_proposal(db: Database, pid: str, status: str, *, actor: str | None, note: str,
                  expected_seq: int | None = None, at: str | None = None, override_gate: str | None = None,
                  answers: Mapping[str, Any] | None = None, answers_later: bool = False) -> dict[str, Any]:
    """Mark a proposal accepted, declined or needs_changes, with a note, under proposal.review.

    Accepting a change that leaves the loop's surface also needs loop_change.apply_outside_surface.
    Accepting one whose latest gate result failed needs `override_gate`: a reason, kept in its history.
    When the proposals' queue carries a rubric, `answers` answer it (store/rubrics; `answers_later`: a
    rehearsal before the person is asked).
    """
    if override_gate is not None and not override_gate.strip():
        raise InputError("--override-gate: expected a reason for accepting despite the failed gate")
    if status not in MARKS:
        raise InputError(f"mark: expected one of {', '.join(MARKS)}, got {status!r}")
    if not (note or "").strip():
        raise InputError("--note: expected a note saying why (it is kept with the decision)")
    when = observed_at(at) or now_iso()
    doing = f"mark {pid} {status}"

    def outside(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        assert subject is not None and subject.row is not None and who is not None
        if status == "accepted" and leaves_surface(db, subject.row) \
                and OUTSIDE_SURFACE_CAPABILITY not in who["capabilities"]:
            raise refusal(doing, CAPABILITY, f"{who['name']} does not hold {OUTSIDE_SURFACE_CAPABILITY} "
                                             "(the change leaves the loop's surface)")
        gate = failed_gate(db, pid) if status == "accepted" else None
        if gate and not override_gate:
            raise refusal(doing, "gate", f"its latest gate result failed ({gate['reason'][:120]}); accepting it "
                                         "needs --override-gate REASON")

    with guarded(db, doing, actor=actor, capability="proposal.review", subject=proposal_subject(pid),
                 seen_seq=expected_seq, authority=outside) as act:
        assert act.subject is not None and act.subject.row is not None
        if status == "accepted":
            stale = staleness(db, pid) or _rival(db, pid)
            if stale:
                raise RefusedError(f"{doing}: refused: {stale}")
        capability = ("proposal.review" if status != "accepted" or not leaves_surface(db, act.subject.row)
                      else f"proposal.review+{OUTSIDE_SURFACE_CAPABILITY}")
        given = rubrics.answer(db, "proposal", answers, doing=doing, answers_later=answers_later)
        seq = act.event("proposal.marked", note=note.strip(), at=when,
                        payload={"status": status, "capability": capability, "from": act.subject.row["status"],
                                 **({"override_gate": override_gate.strip()}
                                    if override_gate and status == "accepted" and failed_gate(db, pid) else {}),
                                 **(given.payload() if given else {})})
        rubrics.record_answers(db, given, subject_type="proposal", subject_id=pid, decision=status, event_seq=seq,
                               person=act.actor)
        db.execute("UPDATE proposals SET status = ?, updated_at = ?, event_seq = ? WHERE id = ?",
                   [status, when, seq, pid])
    return get_proposal(db, pid)  # type: ignore[return-value]


def staleness(db: Database, pid: str) -> str | None:
    """Why a proposal does not rest on the current content of its path (None if it does).

    A case's proposal rests on its case's base; an ai-memory proposal on its `before_body` (empty for a
    create). Accepting a stale one would silently undo what landed since.
    """
    row = db.execute("SELECT path, before_body, case_id, created_at FROM proposals WHERE id = ?", [pid]).fetchone()
    if not row:
        raise InputError(f"proposal {pid}: no such proposal (gatepost proposal list)")
    path, before, case_id, _created = row
    if case_id:
        return cases.staleness(db, cases.get_case(db, case_id))
    if not path:
        return None
    made = db.execute("SELECT MIN(seq) FROM events WHERE subject_type = 'proposal' AND subject_id = ?",
                      [pid]).fetchone()[0]
    stale = loops.base_status(db, path, loops.text_hash(before or ""), made)
    if stale and loops.current_of(db, path) is None:
        return None  # nothing recorded applied for the path: the store cannot tell, the gate's base check can
    return stale


def _rival(db: Database, pid: str) -> str | None:
    """Another accepted, not yet applied proposal for the same path made on the same base: accepting both
    would have the second silently undo the first."""
    row = db.execute("SELECT path, before_body FROM proposals WHERE id = ?", [pid]).fetchone()
    if not row or not row[0]:
        return None
    for other, in db.execute("SELECT id FROM proposals WHERE path = ? AND COALESCE(before_body, '') = ? AND"
                             " status = 'accepted' AND id != ? ORDER BY id", [row[0], row[1] or "", pid]).fetchall():
        if not loops.applications_of(db, "proposal", other):
            return (f"pending: proposal {other} for {row[0]} was accepted on the same base and is not recorded "
                    f"applied yet (gatepost proposal applied {other} --ref REF); this one must be rebased after it")
    return None


def landing(pid: str) -> Callable[[Database], loops.Landing]:
    """A proposal as it lands (`loops.record_applied` decides whether it may): a full page as its after_body;
    a patch's result only the caller knows."""

    def load(db: Database) -> loops.Landing:
        subject = proposal_subject(pid)(db)
        row = subject.row or {}
        return loops.Landing(subject, row["status"], "accepted", row["path"], "path",
                             None if row["edit_mode"] == "patch" else row["after_body"] or "",
                             lambda: staleness(db, pid),
                             content_why="for a patch proposal (the content that resulted from applying it)")

    return load


def record_applied(db: Database, pid: str, *, ref: str | None, actor: str | None, content: str | None = None,
                   at: str | None = None) -> dict[str, Any]:
    """Record where an accepted proposal landed (`proposal applied ID --ref REF`): it becomes current.

    A full-page proposal lands as its after_body; a patch needs the content that resulted (`content`).
    """
    return loops.record_applied(db, "proposal", pid, landing(pid), ref=ref, actor=actor, at=at, content=content)


def count_by_status(db: Database) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for status, n in db.execute("SELECT status, COUNT(*) FROM proposals GROUP BY status").fetchall():
        counts[status] = n
    return counts
