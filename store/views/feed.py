"""The audit log as a feed: every event after a sequence number, oldest first, one page at a time.

Order is the store's sequence, never a caller's clock: a consumer keeps the last `seq` it read and
asks for what came after it (`gatepost events --since SEQ`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gatepost.store.kernel import all_rows, event_filter

if TYPE_CHECKING:
    from sqlite_utils import Database

EVENT_SCHEMA = "gatepost.event/1"
MAX_PAGE = 10_000


def events_since(db: Database, since: int = 0, *, limit: int = 100, kind: str | None = None,
                 subject_type: str | None = None, subject_id: str | None = None, last: bool = False,
                 leases: bool = True) -> list[dict[str, Any]]:
    """Events with seq > since, oldest first, at most `limit`; `kind` may end in `*` (a prefix).

    `last`: the newest `limit` of them (still oldest first); `leases` False leaves lease events out (taken,
    renewed and released as people open items, they outnumber decisions), unless `kind` asks for them."""
    filters, filter_params = event_filter(kind=kind, subject_type=subject_type, subject_id=subject_id)
    clauses = ["seq > ?", *filters]
    if not leases and not (kind or "").startswith("lease."):
        clauses.append("kind NOT LIKE 'lease.%'")
    params: list[Any] = [int(since), *filter_params]
    cursor = db.execute(
        "SELECT seq, at, actor, kind, subject_type, subject_id, revision, note, payload, hash FROM events WHERE "
        + " AND ".join(clauses) + f" ORDER BY seq {'DESC' if last else ''} LIMIT ?",
        [*params, max(1, min(int(limit), MAX_PAGE))])
    out = []
    fetched = all_rows(cursor)
    for event in reversed(fetched) if last else fetched:
        event["payload"] = json.loads(event["payload"]) if event["payload"] else None
        out.append({"schema": EVENT_SCHEMA, **event})
    return out


def newest_seq(db: Database) -> int:
    """The newest event's seq (0 in an empty store): where a new consumer starts to follow."""
    seq: int = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
    return seq
