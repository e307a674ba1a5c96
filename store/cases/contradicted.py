"""Decisions contradicted later: a closed case whose later evidence changes its claims.

A decision was made on the evidence the store held when it was recorded. The protocol is evaluated
twice: with the evidence up to the decision's event (by store sequence, never a caller's clock) and
with all of it. A claim that was decided then (TRUE or FALSE) and reads otherwise now is contradicted;
the later record that first turned it is named. A claim that was UNKNOWN and is decided now is new
knowledge, not a contradiction. The case stays closed (a closed case is closed); someone must look.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gatepost.store.kernel import one_of
from gatepost.store.protocol import Protocol, Record, State

from .types import Contradiction

if TYPE_CHECKING:
    from sqlite_utils import Database

DECIDED = ("TRUE", "FALSE")
# How a kind reads in "held-out came back regressed"
KIND_WORDS = {"heldout_comparison": "held-out", "tuning_comparison": "tuning", "guard_check": "guard check",
              "design_review": "design review"}


@dataclass(frozen=True)
class Turn:
    """What later evidence changed: each decided claim's (then, now), and the record that first turned one."""

    changed: dict[str, tuple[str, str]]
    record: Record


def _decided_claims(protocol: Protocol, state: State) -> dict[str, str]:
    return dict(protocol.evaluate(state).claims)


def contradiction(protocol: Protocol, state: State, cutoff: int) -> Turn | None:
    """Pure: the claims decided with the records of `order` <= cutoff that all the records change.

    `state.records` carry their store sequence as `order`. Returns None when nothing decided then
    reads otherwise now. The record named is the first later one (in sequence) after which a claim
    decided at the cutoff no longer reads as it did.
    """
    before = [r for r in state.records if r.order <= cutoff]
    later = sorted((r for r in state.records if r.order > cutoff), key=lambda r: r.order)
    if not later:
        return None
    then = _decided_claims(protocol, replace(state, records=before))
    now = _decided_claims(protocol, state)
    changed = {name: (then[name], now[name]) for name in then
               if then[name] in DECIDED and now.get(name) != then[name]}
    if not changed:
        return None
    seen = list(before)
    for record in later:
        seen.append(record)
        step = _decided_claims(protocol, replace(state, records=seen))
        if any(step.get(name) != then[name] for name in changed):
            return Turn(changed, record)
    return Turn(changed, later[-1])  # unreachable: all the records give `now`


def _event_at(db: Database, seq: int | None) -> str | None:
    row = db.execute("SELECT at FROM events WHERE seq = ?", [seq]).fetchone() if seq else None
    return row[0] if row else None


def _clock(at: str | None, other: str | None = None) -> str:
    """'08:00', or '2026-12-01 08:00' when the two times are not on the same day."""
    if not at:
        return "?"
    if other and other[:10] == at[:10]:
        return at[11:16]
    return at[:16].replace("T", " ")


def last_decision(db: Database, case_id: str) -> tuple[str, int] | None:
    """The case's last decision: its outcome and its event's store sequence (None: never decided)."""
    row = db.execute("SELECT outcome, event_seq FROM decisions WHERE case_id = ? ORDER BY id DESC LIMIT 1",
                     [case_id]).fetchone()
    return (row[0], int(row[1])) if row is not None and row[1] is not None else None


def describe(db: Database, case: dict[str, Any], protocol: Protocol, state: State, *, cutoff: int | None = None,
             what: str | None = None, what_at: str | None = None,
             seqs: dict[int, int | None] | None = None) -> Contradiction | None:
    """Whether a closed case's decision (or another cutoff: a proposal's acceptance) is contradicted now.

    `state` is the case's state as the interpreter sees it (cases.case_state); `seqs`, each evidence row's
    event sequence by its id, when the caller has read the rows. Returns None, or
    {"decided", "decided_at", "decided_seq", "kind", "result", "producer", "evidence_id", "recorded_at",
    "recorded_seq", "claims": {name: [then, now]}, "line"}; `line` reads
    "kept at 08:00; held-out came back regressed at 18:00". Times are the events' store times.
    """
    if cutoff is None:
        if case["status"] == "open":
            return None
        last = last_decision(db, case["id"])
        if last is None:
            return None
        what, cutoff = last
    if seqs is None:
        seqs = dict(db.execute("SELECT id, event_seq FROM evidence WHERE case_id = ?", [case["id"]]).fetchall())
    state = replace(state, records=[replace(r, order=int(seqs.get(int(r.id)) or 0)) for r in state.records])
    turn = contradiction(protocol, state, cutoff)
    if turn is None:
        return None
    decided_at = what_at or _event_at(db, cutoff)
    record = turn.record
    recorded_at = _event_at(db, record.order)
    words = KIND_WORDS.get(record.kind, record.kind.replace("_", " "))
    line = (f"{what} at {_clock(decided_at)}; {words} came back {record.result} at "
            f"{_clock(recorded_at, decided_at)}")
    return {"decided": what, "decided_at": decided_at, "decided_seq": cutoff, "kind": record.kind,
            "result": record.result, "producer": record.producer, "evidence_id": int(record.id),
            "recorded_at": recorded_at, "recorded_seq": record.order,
            "claims": {name: list(pair) for name, pair in turn.changed.items()}, "line": line}


def later_evidence(db: Database, case_id: str, cutoff: int | None = None) -> bool:
    """Whether any evidence was recorded on the case after its decision (or `cutoff`): one indexed query."""
    if cutoff is None:
        last = last_decision(db, case_id)
        if last is None:
            return False
        cutoff = last[1]
    return db.execute("SELECT 1 FROM evidence WHERE case_id = ? AND event_seq > ? LIMIT 1",
                      [case_id, cutoff]).fetchone() is not None


def candidate_ids(db: Database, ids: list[str] | None = None) -> list[str]:
    """The closed cases (of `ids`, or all) with evidence recorded after their decision, in id order:
    the only ones a later record can contradict (one query; only these are evaluated)."""
    sql = ("SELECT DISTINCT c.id FROM cases c JOIN decisions d ON d.case_id = c.id AND d.id ="
           " (SELECT MAX(id) FROM decisions WHERE case_id = c.id)"
           " WHERE c.status = 'closed' AND EXISTS (SELECT 1 FROM evidence e WHERE e.case_id = c.id"
           " AND e.event_seq > d.event_seq)")
    params: list[Any] = []
    if ids is not None:
        if not ids:
            return []
        clause, params = one_of("c.id", ids)
        sql += f" AND {clause}"
    return [r[0] for r in db.execute(sql + " ORDER BY c.id", params).fetchall()]
