"""An accepted proposal contradicted later: evidence recorded after the acceptance
(by store sequence) that would change what it was accepted on.

A case's proposal: the case's claims evaluated with the evidence up to the acceptance against all of
it (cases.case_contradiction with the acceptance as cutoff). Any proposal: a gate result recorded
after the acceptance that ran the scorer and failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gatepost.store import cases
from gatepost.store.kernel import one_of

if TYPE_CHECKING:
    from sqlite_utils import Database


def _acceptance(db: Database, pid: str) -> tuple[int, str] | None:
    row = db.execute("SELECT seq, at FROM events WHERE subject_type = 'proposal' AND subject_id = ? AND"
                     " kind = 'proposal.marked' AND json_extract(payload, '$.status') = 'accepted'"
                     " ORDER BY seq DESC LIMIT 1", [pid]).fetchone()
    return (int(row[0]), row[1]) if row else None


def proposal_contradiction(db: Database, proposal: dict[str, Any]) -> cases.Contradiction | None:
    """None, or what contradicts an accepted proposal (its id, status and case_id) now, with its `line`
    ("accepted at 08:00; held-out came back regressed at 18:00")."""
    if proposal.get("status") != "accepted":
        return None
    accepted = _acceptance(db, proposal["id"])
    if accepted is None:
        return None
    seq, at = accepted
    if proposal.get("case_id"):
        found = cases.case_contradiction(db, proposal["case_id"], cutoff=seq, what="accepted", what_at=at)
        if found:
            return found
    gate = db.execute("SELECT reason, at, event_seq FROM gate_results WHERE proposal_id = ? AND event_seq > ?"
                      " AND targeted = 1 AND passed = 0 ORDER BY event_seq LIMIT 1", [proposal["id"], seq]).fetchone()
    if gate is None:
        return None
    reason, gate_at, gate_seq = gate
    same_day = (gate_at or "")[:10] == (at or "")[:10]
    line = (f"accepted at {(at or '?')[:16].replace('T', ' ')}; the gate came back failed at "
            f"{(gate_at or '?')[11:16] if same_day else (gate_at or '?')[:16].replace('T', ' ')}")
    return {"decided": "accepted", "decided_at": at, "decided_seq": seq, "kind": "gate", "result": "failed",
            "producer": None, "evidence_id": None, "recorded_at": gate_at, "recorded_seq": gate_seq,
            "claims": {}, "reason": reason, "line": line}


def contradicted_proposal_ids(db: Database, ids: list[str] | None = None) -> list[str]:
    """The accepted proposals (of `ids`, or all) that later evidence contradicts, in id order. One query keeps
    only those with something recorded after their acceptance (case evidence, or a failed gate result): the
    only ones a later record can contradict, so only these are evaluated."""
    accepted = ("(SELECT MAX(seq) FROM events WHERE subject_type = 'proposal' AND subject_id = p.id"
                " AND kind = 'proposal.marked' AND json_extract(payload, '$.status') = 'accepted')")
    sql = (f"SELECT p.id, p.status, p.case_id FROM proposals p WHERE p.status = 'accepted' AND ("
           f"EXISTS (SELECT 1 FROM evidence e WHERE e.case_id = p.case_id AND e.event_seq > {accepted})"
           f" OR EXISTS (SELECT 1 FROM gate_results g WHERE g.proposal_id = p.id AND g.targeted = 1"
           f" AND g.passed = 0 AND g.event_seq > {accepted}))")
    params: list[Any] = []
    if ids is not None:
        if not ids:
            return []
        clause, params = one_of("p.id", ids)
        sql += f" AND {clause}"
    rows = db.execute(sql + " ORDER BY p.id", params).fetchall()
    return [r[0] for r in rows
            if proposal_contradiction(db, {"id": r[0], "status": r[1], "case_id": r[2]}) is not None]
