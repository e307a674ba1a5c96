"""The append-only audit trail: every act of a person or a producer is one event.

Events are hash-chained (see chain.py): each stores the hash of the event before it and its own.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .chain import head, insert_chained
from .clock import now_iso
from .integrity import check_before_first_write
from .records import RECORDS_KEY, StreamedRecords, records_digest
from .rows import all_rows
from .shared import as_found
from .signing import SIGNED_KINDS, SIGNED_WITH, decision_key, rehearsing, sign_event

if TYPE_CHECKING:
    from sqlite_utils import Database


def append_event(
    db: Database,
    kind: str,
    *,
    actor: str | None,
    subject_type: str,
    subject_id: str,
    revision: str | None = None,
    note: str | None = None,
    payload: dict[str, Any] | None = None,
    at: str | None = None,
    seal: bool = False,
    doing: str | None = None,
    sealed: StreamedRecords | None = None,
) -> int:
    """Append one event, chained to the one before it, and return its sequence number.

    Call inside the write's transaction: the head read here and the row written are then one
    atomic step (a concurrent writer waits for the write lock, or fails and retries).

    `seal`: the records this event creates (skill runs, manifest versions, task results) are
    already written, naming the seq this event gets (`next_seq`); their digest goes into the
    payload (`records_sha256`), so the chain covers them; `sealed`: their digest, hashed by the act as it
    inserted them (a streamed import), instead of read back. A decision (signing.SIGNED_KINDS) by an
    actor with a registered key is signed over the event's hash, or refused (`doing` words it).
    """
    if rehearsing():  # the store as the rehearsals of an item found it is checked once for all of them
        as_found(db, ("checked before writing",), lambda: check_before_first_write(db, scan=False))
    else:
        check_before_first_write(db)
    seq = head(db)[0] + 1 if seal or kind in SIGNED_KINDS else 0  # only they need it: no extra read per event
    data = dict(payload) if payload is not None else None
    if seal:
        data = {**(data or {}), RECORDS_KEY: sealed.hexdigest() if sealed is not None else records_digest(db, seq)}
    key = decision_key(db, kind, actor, seq)
    if key is not None:
        data = {**(data or {}), SIGNED_WITH: key["fingerprint"]}
    appended = insert_chained(
        db, at or now_iso(), actor, kind, subject_type, subject_id, revision, note,
        json.dumps(data, ensure_ascii=False, sort_keys=True) if data is not None else None,
    )
    if key is not None:
        sign_event(db, appended, key, doing=doing or f"{kind} {subject_id}")
    return appended


def next_seq(db: Database) -> int:
    """The seq the next event will get: records written before their sealing event name it (in its transaction)."""
    return head(db)[0] + 1


def last_seq(db: Database, subject_type: str, subject_id: str) -> int:
    """The newest event's seq about one subject (0 if none): the token of optimistic concurrency.

    Lease events (lease.taken/renewed/released) say who works an item, not what it is, so
    they do not move the token: a renewal must not make a reviewer's decision look stale.
    """
    return as_found(db, ("last seq", subject_type, subject_id), lambda: _last_seq(db, subject_type, subject_id))


def _last_seq(db: Database, subject_type: str, subject_id: str) -> int:
    row = db.execute(
        "SELECT MAX(seq) FROM events WHERE subject_type = ? AND subject_id = ? AND kind NOT LIKE 'lease.%'",
        [subject_type, subject_id],
    ).fetchone()
    return row[0] or 0


def event_filter(actor: str | None = None, kind: str | None = None, subject_type: str | None = None,
                 subject_id: str | None = None, search: str | None = None) -> tuple[list[str], list[Any]]:
    """The one way events are filtered (audit log, feed, CLI): SQL clauses and their parameters.

    `kind` ending in `*` or `.` is a prefix (`lease.` is every lease event).
    """
    clauses: list[str] = []
    params: list[Any] = []
    if actor:
        clauses.append("actor = ?")
        params.append(actor)
    if kind:
        if kind.endswith("*") or kind.endswith("."):
            clauses.append("kind LIKE ?")
            params.append(kind.rstrip("*") + "%")
        else:
            clauses.append("kind = ?")
            params.append(kind)
    if subject_type:
        clauses.append("subject_type = ?")
        params.append(subject_type)
    if subject_id:
        clauses.append("subject_id = ?")
        params.append(subject_id)
    if search:
        clauses.append("(subject_id LIKE ? OR note LIKE ? OR kind LIKE ?)")
        params.extend([f"%{search}%"] * 3)
    return clauses, params


def _where(actor: str | None, kind: str | None, subject_type: str | None, subject_id: str | None,
           search: str | None) -> tuple[str, list[Any]]:
    clauses, params = event_filter(actor, kind, subject_type, subject_id, search)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def list_events(
    db: Database,
    *,
    actor: str | None = None,
    kind: str | None = None,
    subject_type: str | None = None,
    subject_id: str | None = None,
    search: str | None = None,
    before_seq: int | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """Events newest first, one page; `before_seq` pages by key instead of offset."""
    where, params = _where(actor, kind, subject_type, subject_id, search)
    if before_seq is not None:
        where += (" AND " if where else " WHERE ") + "seq < ?"
        params.append(before_seq)
    rows = db.execute(
        f"SELECT seq, at, actor, kind, subject_type, subject_id, revision, note, payload FROM events"
        f"{where} ORDER BY seq DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    )
    return all_rows(rows)


def count_events(db: Database, *, actor: str | None = None, kind: str | None = None,
                 subject_type: str | None = None, subject_id: str | None = None,
                 search: str | None = None) -> int:
    where, params = _where(actor, kind, subject_type, subject_id, search)
    count: int = db.execute(f"SELECT COUNT(*) FROM events{where}", params).fetchone()[0]
    return count


def _distinct(column: str) -> str:
    """The distinct non-null values of an indexed column of events, in order, one index seek each (each the least
    value above the one before): SELECT DISTINCT walked the whole index, 11 ms a column at 300,000 events, on
    every open of the Audit screen, for a handful of values."""
    return (f"WITH RECURSIVE found(v) AS (SELECT MIN({column}) FROM events UNION ALL "
            f"SELECT (SELECT MIN({column}) FROM events WHERE {column} > found.v) FROM found WHERE found.v IS NOT NULL) "
            "SELECT v FROM found WHERE v IS NOT NULL")


def event_kinds(db: Database) -> list[str]:
    """The distinct kinds of event in the store, for the audit log's filter."""
    return [r[0] for r in db.execute(_distinct("kind")).fetchall()]


def event_actors(db: Database) -> list[str]:
    """The distinct actors of the store's events (none for an event without one), for the audit log's filter."""
    return [r[0] for r in db.execute(_distinct("actor")).fetchall()]
