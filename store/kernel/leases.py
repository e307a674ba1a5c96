"""Leases on queue items: one person works an item at a time, for a while (default 15 minutes).

The `leases` table holds the current lease per item (a projection); every take,
renewal and release is also an event, so the audit log shows who held what when.
"""

from datetime import datetime, timedelta
from typing import Any

from sqlite_utils import Database

from .clock import now as clock_now
from .clock import now_iso
from .db import transaction
from .errors import ConflictError
from .events import append_event

DEFAULT_TTL = timedelta(minutes=15)


def _now() -> datetime:
    return clock_now()


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def holder(db: Database, subject_type: str, subject_id: str, *, now: datetime | None = None) -> dict[str, Any] | None:
    """The unexpired lease on an item, or None."""
    row = db.execute(
        "SELECT holder, taken_at, expires_at FROM leases WHERE subject_type = ? AND subject_id = ? AND expires_at > ?",
        [subject_type, subject_id, _iso(now or _now())],
    ).fetchone()
    return {"holder": row[0], "taken_at": row[1], "expires_at": row[2]} if row else None


def check_free(db: Database, subject_type: str, subject_id: str, person: str, *,
               now: datetime | None = None) -> None:
    """Refuse (ConflictError) when someone else holds an unexpired lease on the item."""
    lease = holder(db, subject_type, subject_id, now=now)
    if lease and lease["holder"] != person:
        raise ConflictError(
            f"{subject_type} {subject_id}: refused: {lease['holder']} is working on it "
            f"(lease until {lease['expires_at'][:19]}Z)")


def take(db: Database, subject_type: str, subject_id: str, person: str, *,
         ttl: timedelta = DEFAULT_TTL, now: datetime | None = None) -> dict[str, Any]:
    """Take or renew a lease for `person`; refused while another person's lease is unexpired."""
    moment = now or _now()
    with transaction(db):
        check_free(db, subject_type, subject_id, person, now=moment)
        current = holder(db, subject_type, subject_id, now=moment)
        kind = "lease.renewed" if current else "lease.taken"
        expires = _iso(moment + ttl)
        seq = append_event(db, kind, actor=person, subject_type=subject_type, subject_id=subject_id,
                           payload={"expires_at": expires}, at=_iso(moment))
        db.table("leases").upsert({"subject_type": subject_type, "subject_id": subject_id, "holder": person,
                             "taken_at": current["taken_at"] if current else _iso(moment),
                             "expires_at": expires, "event_seq": seq}, pk=("subject_type", "subject_id"))
    return {"holder": person, "expires_at": expires}


def release(db: Database, subject_type: str, subject_id: str, person: str) -> bool:
    """Give an item back; only its holder can. Returns whether a lease was released."""
    with transaction(db):
        current = holder(db, subject_type, subject_id)
        if not current or current["holder"] != person:
            return False
        seq = append_event(db, "lease.released", actor=person, subject_type=subject_type, subject_id=subject_id)
        db.table("leases").upsert({"subject_type": subject_type, "subject_id": subject_id, "holder": person,
                             "taken_at": current["taken_at"], "expires_at": now_iso(), "event_seq": seq},
                            pk=("subject_type", "subject_id"))
    return True


def held_by_others(db: Database, subject_type: str, person: str, *, now: datetime | None = None) -> dict[str, dict[str, Any]]:
    """Items of one type that other people hold now: {subject_id: lease}."""
    rows = db.execute(
        "SELECT subject_id, holder, expires_at FROM leases WHERE subject_type = ? AND holder != ? AND expires_at > ?",
        [subject_type, person, _iso(now or _now())],
    ).fetchall()
    return {r[0]: {"holder": r[1], "expires_at": r[2]} for r in rows}
