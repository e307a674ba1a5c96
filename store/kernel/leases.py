"""Leases on queue items: one person works an item at a time, for a while (default 15 minutes).

The `leases` table holds the current lease per item (a projection); every take,
renewal and release is also an event, so the audit log shows who held what when.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict

from .clock import now as clock_now
from .clock import now_iso
from .errors import InputError
from .pipeline import Subject, check_lease, guarded

if TYPE_CHECKING:
    from sqlite_utils import Database

DEFAULT_TTL = timedelta(minutes=15)
# The items people work (what can be leased): each by its table and key (the kernel's schema owns both).
ITEMS = {"case": ("cases", "id"), "proposal": ("proposals", "id"), "draft": ("manifest_drafts", "id"),
            "skill": ("skills", "name")}
# Holding an item keeps everyone else from deciding it: only who could decide it may hold it (any one of these;
# a case's design reviewers work it from their own queue).
LEASE_CAPABILITIES: dict[str, tuple[str, ...]] = {
    "case": ("loop_change.keep", "case.close", "eval_design.review"), "proposal": ("proposal.review",), "draft": ("manifest.review",),
    "skill": ("regression.triage",)}


class Lease(TypedDict):
    """An unexpired lease on an item: who works it, since when, until when (store times)."""

    holder: str
    taken_at: str
    expires_at: str


class Held(TypedDict):
    """An item someone else works now, as a queue skips it."""

    holder: str
    expires_at: str


def _now() -> datetime:
    return clock_now()


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def item_subject(subject_type: str, subject_id: str,
                 items: Mapping[str, tuple[str, str]] = ITEMS) -> Callable[[Database], Subject]:
    """The guarded pipeline's cheapest view of an item (a lease, a skill's evaluation, a comment): it exists, by one
    key lookup. `items`: the kinds an act may name, each with its (table, key) (a comment names runs too)."""
    if subject_type not in items:
        raise InputError(f"item: expected one of {', '.join(items)}, got {subject_type!r}")
    table, key = items[subject_type]

    def load(db: Database) -> Subject:
        if db.execute(f"SELECT 1 FROM {table} WHERE {key} = ?", [subject_id]).fetchone() is None:
            raise InputError(f"{subject_type} {subject_id}: no such {subject_type} in this store")
        return Subject(subject_type, subject_id, subject_type, None)

    return load


def holder(db: Database, subject_type: str, subject_id: str, *, now: datetime | None = None) -> Lease | None:
    """The unexpired lease on an item, or None."""
    row = db.execute(
        "SELECT holder, taken_at, expires_at FROM leases WHERE subject_type = ? AND subject_id = ? AND expires_at > ?",
        [subject_type, subject_id, _iso(now or _now())],
    ).fetchone()
    return {"holder": row[0], "taken_at": row[1], "expires_at": row[2]} if row else None


def check_free(db: Database, subject_type: str, subject_id: str, person: str, *,
               now: datetime | None = None) -> None:
    """Refuse (ConflictError, rule lease) when someone else holds an unexpired lease on the item."""
    check_lease(db, Subject(subject_type, subject_id, subject_type, None), person,
                doing=f"work on {subject_type} {subject_id}", at=_iso(now or _now()))


def take(db: Database, subject_type: str, subject_id: str, person: str, *,
         ttl: timedelta = DEFAULT_TTL, now: datetime | None = None) -> dict[str, Any]:
    """Take or renew a lease for `person`, through the guarded pipeline: a known actor holding a capability the
    item's decisions need (a lease keeps everyone else from deciding it), the item exists, nobody else holds it
    unexpired (rule lease). `now` is for in-process callers (tests); the CLI and console take the store clock."""
    moment = now or _now()
    item_subject(subject_type, subject_id)  # an unknown item type is bad input before anything else
    with guarded(db, f"take {subject_type} {subject_id}", actor=person,
                 capability=LEASE_CAPABILITIES[subject_type],
                 subject=item_subject(subject_type, subject_id), must_be_open=False, self_dealing=False,
                 lease_at=_iso(moment)) as act:
        current = holder(db, subject_type, subject_id, now=moment)
        expires = _iso(moment + ttl)
        taken = current["taken_at"] if current else _iso(moment)
        seq = act.event("lease.renewed" if current else "lease.taken", payload={"expires_at": expires,
                                                                             "taken_at": taken}, at=_iso(moment))
        db.table("leases").upsert({"subject_type": subject_type, "subject_id": subject_id, "holder": act.actor,
                                   "taken_at": taken,
                                   "expires_at": expires, "event_seq": seq}, pk=("subject_type", "subject_id"))
    return {"holder": act.actor, "expires_at": expires}


def release(db: Database, subject_type: str, subject_id: str, person: str) -> bool:
    """Give an item back, through the guarded pipeline; only its holder can. Returns whether a lease was released."""
    with guarded(db, f"release {subject_type} {subject_id}", actor=person, known=False,
                 subject=item_subject(subject_type, subject_id), must_be_open=False, self_dealing=False,
                 lease=False) as act:
        current = holder(db, subject_type, subject_id)
        if not current or current["holder"] != act.actor:
            return False
        when = now_iso()
        seq = act.event("lease.released", at=when, payload={"expires_at": when, "taken_at": current["taken_at"]})
        db.table("leases").upsert({"subject_type": subject_type, "subject_id": subject_id, "holder": act.actor,
                                   "taken_at": current["taken_at"], "expires_at": when, "event_seq": seq},
                                  pk=("subject_type", "subject_id"))
    return True


def held_by_others(db: Database, subject_type: str, person: str, *, now: datetime | None = None) -> dict[str, Held]:
    """Items of one type that other people hold now: {subject_id: lease}."""
    rows = db.execute(
        "SELECT subject_id, holder, expires_at FROM leases WHERE subject_type = ? AND holder != ? AND expires_at > ?",
        [subject_type, person, _iso(now or _now())],
    ).fetchall()
    return {r[0]: {"holder": r[1], "expires_at": r[2]} for r in rows}
