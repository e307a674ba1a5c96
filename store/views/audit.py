"""The audit log as the console shows it: each row says the outcome or mark a decision was, and lease
events (taken, renewed, released on every open) are folded away unless asked for."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

from gatepost.store.kernel import event_filter

if TYPE_CHECKING:
    from sqlite_utils import Database

# payload fields that say what a decision was, in the order they are looked for
OUTCOME_FIELDS = ("outcome", "status", "state", "result")


class AuditRow(TypedDict):
    """One event on the audit list."""

    seq: int
    at: str
    actor: str | None
    kind: str
    subject_type: str | None
    subject_id: str | None
    revision: str | None
    note: str | None
    payload: str | None
    outcome: str  # the outcome, mark or result the event records ("" when it records none)


class AuditPage(TypedDict):
    rows: list[AuditRow]
    total: int
    leases_hidden: int  # lease events left out of this view (0 when they are shown)


LEASE_KINDS = "kind GLOB 'lease.*'"  # case-sensitive, so SQLite reads it as a range of the kind index


def _where(actor: str | None, kind: str | None, search: str | None, leases: bool) -> tuple[str, list[Any]]:
    clauses, params = event_filter(actor=actor, kind=kind, search=search)
    if not leases and not (kind or "").startswith("lease."):
        clauses.append(f"NOT ({LEASE_KINDS})")
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


# events whose kind is the mark itself: the mark, then the state it was made on when the payload has one
KIND_MARKS = {"draft.approved": "approved", "draft.rejected": "rejected", "draft.superseded": "superseded",
              "draft.edited": "edited", "regression.acknowledged": "acknowledged", "regression.mismatch": "mismatch",
              "regression.carried": "ack carried", "case.applied": "applied", "proposal.applied": "applied",
              "path.applied": "applied"}
# payload fields that say what a run came to (a suite run's verdict)
RESULT_FIELDS = ("verdict",)


def outcome_of(payload: str | None, kind: str = "") -> str:
    """What a decision was, from its event: kept, accepted, approved, acknowledged NEW_FAIL, clean …"""
    data: Any = None
    if payload:
        try:
            data = json.loads(payload)
        except ValueError:
            data = None
    if not isinstance(data, dict):
        data = {}
    if kind == "actor.key_added" and data.get("replaces") is True:  # every replaced key stands out on the list
        return f"key replaced ({data.get('rotation') or 'unstated'})"
    if data.get("on_behalf_of"):  # an administrator acted for someone else: both are named
        return f"for {data['on_behalf_of']}"
    found = next((str(data[f]) for f in (*OUTCOME_FIELDS, *RESULT_FIELDS) if isinstance(data.get(f), str)), "")
    mark = KIND_MARKS.get(kind, "")
    return f"{mark} {found}".strip() if mark else found


def audit_page(db: Database, *, actor: str | None = None, kind: str | None = None, search: str | None = None,
               leases: bool = False, limit: int = 100, offset: int = 0) -> AuditPage:
    """One page of events newest first; lease events left out unless `leases` (or asked for by kind)."""
    where, params = _where(actor, kind, search, leases)
    hidden = 0
    if not leases and not (kind or "").startswith("lease."):
        # every event less the lease events, each counted through an index: counting the events that are not
        # leases tested every event's kind (10 ms at 130,000 events, on each open of the Audit screen)
        all_where, all_params = _where(actor, kind, search, True)
        everything = db.execute(f"SELECT COUNT(*) FROM events{all_where}", all_params).fetchone()[0]
        hidden = db.execute(f"SELECT COUNT(*) FROM events{all_where}{' AND' if all_where else ' WHERE'} {LEASE_KINDS}",
                            all_params).fetchone()[0]
        total = everything - hidden
    else:
        total = db.execute(f"SELECT COUNT(*) FROM events{where}", params).fetchone()[0]
    rows: list[AuditRow] = []
    for r in db.query("SELECT seq, at, actor, kind, subject_type, subject_id, revision, note, payload FROM events"
                      f"{where} ORDER BY seq DESC LIMIT ? OFFSET ?", [*params, limit, offset]):
        rows.append({"seq": r["seq"], "at": r["at"], "actor": r["actor"], "kind": r["kind"],
                     "subject_type": r["subject_type"], "subject_id": r["subject_id"], "revision": r["revision"],
                     "note": r["note"], "payload": r["payload"], "outcome": outcome_of(r["payload"], r["kind"])})
    return {"rows": rows, "total": total, "leases_hidden": hidden}


def fold_leases(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """A subject's history without its lease events, and the line they fold into:
    "opened 4 times by 2 reviewers" ("" when there were none)."""
    kept = [e for e in events if not str(e.get("kind", "")).startswith("lease.")]
    taken = [e for e in events if e.get("kind") == "lease.taken"]
    if not taken:
        return kept, ""
    people = {e.get("actor") for e in taken}
    times = "once" if len(taken) == 1 else f"{len(taken)} times"
    return kept, f"opened {times} by {len(people)} reviewer{'s' if len(people) != 1 else ''}"
