"""The kernel's own migrations: its tables after the first schema, the hash chain, keys and signatures, sealed
records and the events that mark where complete events begin.

They run only when a store is migrated (the top floor asks the kernel's face for KERNEL_MIGRATIONS then): a
command that opens a current store loads neither this module nor the sealed records' module it uses. The
ordered list of every domain's migrations, and the kernel's constants they record, are in schema.py.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .chain import EVENT_FIELDS, GENESIS, canonical_event, chain_hash, insert_chained
from .clock import now_iso
from .records import (
    RECORDS_FORMAT,
    RECORDS_FORMAT_IDS,
    RESEAL_KIND,
    SEAL_KIND,
    reseal_by_position,
    seal_existing,
)
from .schema import EVENTS_COMPLETE_KIND, PROJECTIONS_COMPLETE_KIND, append_only_triggers

if TYPE_CHECKING:
    from sqlite_utils import Database


def m002_leases(db: Database) -> None:
    """Leases: who is working an item of a queue, until when. Each take/renew/release is an event."""
    db.table("leases").create(
        {
            "subject_type": str,  # case | proposal | draft | skill
            "subject_id": str,
            "holder": str,
            "taken_at": str,
            "expires_at": str,
            "event_seq": int,
        },
        pk=("subject_type", "subject_id"),
        not_null={"holder", "taken_at", "expires_at"},
    )
    db.table("leases").create_index(["holder"])
    db.table("leases").create_index(["expires_at"])


def m003_kernel_audit_chain(db: Database) -> None:
    """Hash-chain the audit trail: every event gets `prev_hash` and `hash`.

    Existing events are hashed once, in sequence order (the append-only trigger is lifted for
    this one UPDATE inside the migration's transaction), and the migration is itself an event.
    """
    db.table("events").add_column("prev_hash", str)
    db.table("events").add_column("hash", str)
    db.execute("DROP TRIGGER IF EXISTS events_no_update")
    prev = GENESIS
    count = 0
    rows = db.execute(f"SELECT {', '.join(EVENT_FIELDS)} FROM events ORDER BY seq").fetchall()
    for row in rows:
        digest = chain_hash(prev, canonical_event(*row))
        db.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?", [prev, digest, row[0]])
        prev = digest
        count += 1
    append_only_triggers(db, "events")
    if count:
        insert_chained(db, now_iso(), None, "audit.chained", "store", "events", None,
                       f"hashed the {count} events recorded before the chain, in sequence order",
                       json.dumps({"events": count, "head": prev}, sort_keys=True))


def m008_kernel_signatures_and_sealed_records(db: Database) -> None:
    """SSH keys and signed decisions, and records sealed into the chain.

    - actor_keys: the public keys people registered (a record; the newest of an actor's is theirs);
    - signatures: one per signed decision event, over the event's hash (a record);
    - the skill runs, manifest versions and task results stored before events sealed their records
      are hashed once, per event, into one `audit.records_sealed` event (`gatepost verify` checks them).
    """
    db.table("actor_keys").create(
        {"id": int, "actor": str, "key_type": str, "public_key": str, "comment": str, "fingerprint": str,
         "added_by": str, "at": str, "event_seq": int},
        pk="id",
        foreign_keys=[("actor", "actors", "name")],
        not_null={"actor", "key_type", "public_key", "fingerprint", "at", "event_seq"},
    )
    db.table("actor_keys").create_index(["actor", "event_seq"])
    db.table("signatures").create(
        {"event_seq": int, "actor": str, "key_id": int, "fingerprint": str, "namespace": str, "signature": str},
        pk="event_seq",
        foreign_keys=[("key_id", "actor_keys", "id")],
        not_null={"actor", "key_id", "fingerprint", "namespace", "signature"},
    )
    for table in ("actor_keys", "signatures"):
        append_only_triggers(db, table)
    digests = seal_existing(db)
    if digests:
        insert_chained(db, now_iso(), None, SEAL_KIND, "store", "records", None,
                       f"sealed the records of {len(digests)} events stored before events sealed their records",
                       json.dumps({"format": RECORDS_FORMAT_IDS, "digests": digests}, sort_keys=True))

def m012_kernel_events_complete(db: Database) -> None:
    """From here on every event carries everything its act wrote (evidence details, a case's content and path,
    the times of grants and keys, evaluations with their assertion results, ...), so `gatepost verify`
    rebuilds every table from the events. Events stored before say less; this event marks where the store's
    complete events begin (none is needed in a store with no events yet)."""
    count = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    if count:
        insert_chained(db, now_iso(), None, EVENTS_COMPLETE_KIND, "store", "events", None,
                       f"the {count} events before this one may not carry every column their acts wrote",
                       json.dumps({"events": count}, sort_keys=True))


def m013_kernel_records_by_position(db: Database) -> None:
    """Task results sealed by their position in their run, not by their row ids: events sealed in the first
    format are checked against it and sealed again by position, in one `audit.records_resealed` event. One
    whose records no longer hash to what it sealed is left out of it (and named there), so `gatepost verify`
    goes on finding it: nothing unchecked is sealed."""
    digests, unmatched = reseal_by_position(db)
    if digests or unmatched:
        left = f"; {len(unmatched)} no longer matched their seal and were left out" if unmatched else ""
        insert_chained(db, now_iso(), None, RESEAL_KIND, "store", "records", None,
                       f"sealed again by position the records of {len(digests)} events{left}",
                       json.dumps({"format": RECORDS_FORMAT, "from": RECORDS_FORMAT_IDS, "digests": digests,
                                   "unmatched": unmatched}, sort_keys=True))


def m017_kernel_projections_complete(db: Database) -> None:
    """From here on the events also carry the evaluation runs and task suites their acts stored (the run's
    columns, its artifact and the suite's text as their hashes), a skill is registered at the time of the event
    that first names it, and a case's cached columns (claims, allowed, needs_decision, last_seq, updated_at)
    move only with an event about the case: `gatepost verify` rebuilds them all. Events stored before say less
    of these; this event marks where they begin (none is needed in a store with no events yet)."""
    count = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    if count:
        insert_chained(db, now_iso(), None, PROJECTIONS_COMPLETE_KIND, "store", "events", None,
                       f"the {count} events before this one may not carry the runs, suites and skills their acts "
                       "wrote", json.dumps({"events": count}, sort_keys=True))


# The kernel's migrations by name, for the top floor's ordered list.
KERNEL_MIGRATIONS = {
    "m002_leases": m002_leases,
    "m003_kernel_audit_chain": m003_kernel_audit_chain,
    "m008_kernel_signatures_and_sealed_records": m008_kernel_signatures_and_sealed_records,
    "m012_kernel_events_complete": m012_kernel_events_complete,
    "m013_kernel_records_by_position": m013_kernel_records_by_position,
    "m017_kernel_projections_complete": m017_kernel_projections_complete,
}
