"""The hash chain of the audit trail, like a transparency log.

Each event row stores `prev_hash` (the `hash` of the event before it) and `hash` =
sha256(previous hash, newline, the event's canonical encoding). Editing, inserting or deleting
an event anywhere breaks every later link, which `gatepost verify` finds; a head hash kept
elsewhere (`gatepost verify --expect HASH`) also catches a cut tail or a history rewritten whole.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils import Database


GENESIS = "0" * 64  # the prev_hash of the first event
CHAIN_FORMAT = "gatepost-event/1"
EVENT_FIELDS = ("seq", "at", "actor", "kind", "subject_type", "subject_id", "revision", "note", "payload")


def canonical_event(seq: int, at: str, actor: str | None, kind: str, subject_type: str | None,
                    subject_id: str | None, revision: str | None, note: str | None, payload: str | None) -> bytes:
    """The bytes an event's hash covers: its fields, in a fixed order, as compact JSON (UTF-8).

    `payload` is the stored JSON text itself, so even a re-encoding of the same data is a change.
    """
    return json.dumps([CHAIN_FORMAT, seq, at, actor, kind, subject_type, subject_id, revision, note, payload],
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def chain_hash(prev_hash: str, canonical: bytes) -> str:
    """The hash of one event: sha256(previous hash, newline, canonical encoding), hex."""
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    return hashlib.sha256(prev_hash.encode("ascii") + b"\n" + canonical).hexdigest()


def head(db: Database) -> tuple[int, str]:
    """The newest event's seq and hash: (0, GENESIS) for a store with no events."""
    row = db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    return (row[0], row[1] or GENESIS) if row else (0, GENESIS)


def insert_chained(db: Database, at: str, actor: str | None, kind: str, subject_type: str | None,
                   subject_id: str | None, revision: str | None, note: str | None, payload: str | None) -> int:
    """Insert one event as the next link of the chain; returns its seq. Inside a transaction only."""
    last, prev_hash = head(db)
    seq = last + 1
    values = [seq, at, actor, kind, subject_type, subject_id, revision, note, payload]
    digest = chain_hash(prev_hash, canonical_event(*values))  # type: ignore[arg-type]
    db.execute(
        "INSERT INTO events (seq, at, actor, kind, subject_type, subject_id, revision, note, payload, prev_hash, hash)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [*values, prev_hash, digest],
    )
    return seq
