"""The kernel's tables and its migrations, and the store's ordered list of migrations once it is set.

The list itself is composed on the store's top floor (gatepost.store.schema), out of each domain's
migrations in the order they were written, and handed to the kernel (`use_migrations`) when the store
package is imported: opening a store runs them, and the kernel never names another domain's tables.
So too the record tables whose triggers it checks before every write: each domain declares its own
(`CASES_APPEND_ONLY`, `EVALUATION_APPEND_ONLY`, ...) and the top floor hands them over (`use_append_only`);
the kernel names only its own (`KERNEL_APPEND_ONLY`).

The list is kept as names and functions; sqlite-utils' `Migrations` is made of it when a store is migrated
(`store_migrations`). Whether a store is current is read without it (`applied_migration_names`), so opening a
current store to read it does not import sqlite-utils.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .chain import EVENT_FIELDS, GENESIS, canonical_event, chain_hash, insert_chained
from .clock import now_iso
from .errors import StoreError
from .records import (
    RECORDS_FORMAT,
    RECORDS_FORMAT_IDS,
    RESEAL_KIND,
    SEAL_KIND,
    reseal_by_position,
    seal_existing,
)

if TYPE_CHECKING:
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

MIGRATION_SET = "gatepost"
MIGRATIONS_TABLE = "_sqlite_migrations"  # where sqlite-utils' Migrations records each one applied
# each migration's name -> its function (asked for only when a store is migrated)
MigrationFunctions = Callable[[], Mapping[str, Callable[["Database"], None]]]
# the store's migrations: their names in order, and where their functions are; set once by the top floor
_registered: list[tuple[tuple[str, ...], MigrationFunctions]] = []

# The kernel's tables whose rows are records: triggers refuse UPDATE and DELETE on them (events: m001, made on
# the top floor; the keys and signatures: m008).
KERNEL_APPEND_ONLY = ("events", "actor_keys", "signatures")
# every other domain's record tables: where they are (set once by the top floor), and what they are once asked
_domain_record_tables: list[Callable[[], tuple[str, ...]]] = []
_record_tables: list[tuple[str, ...]] = []


def use_append_only(tables: Callable[[], tuple[str, ...]]) -> None:
    """Where the record tables of the domains above the kernel are: a function giving them (gatepost.store.schema
    sets it when imported). It is asked when they are first needed, before a connection's first write or by
    verify: a command that only reads loads no domain's list."""
    _domain_record_tables[:] = [tables]
    _record_tables.clear()


def record_tables() -> tuple[str, ...]:
    """Every table whose triggers must be there: what the store checks before a write and verify restores
    (StoreError before the top floor has set the domains' tables)."""
    if not _record_tables:
        if not _domain_record_tables:
            raise StoreError("the store's record tables are not set: import gatepost.store (its schema sets them)")
        tables = _domain_record_tables[0]()
        if set(tables) & set(KERNEL_APPEND_ONLY) or len(set(tables)) != len(tables):
            raise ValueError(f"append-only tables: expected each domain's tables once, got {tables!r}")
        _record_tables[:] = [(*KERNEL_APPEND_ONLY, *tables)]
    return _record_tables[0]


def trigger_sql(table: str, verb: str) -> str:
    """The trigger that refuses `verb` (UPDATE or DELETE) on a record table, as the schema makes it."""
    return (f"""CREATE TRIGGER {table}_no_{verb.lower()}
            BEFORE {verb} ON {table}
            BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} refused'); END""")


def append_only_triggers(db: Database, table: str) -> None:
    """Create the triggers that refuse UPDATE and DELETE on a record table (if missing)."""
    for verb in ("UPDATE", "DELETE"):
        db.execute(trigger_sql(table, verb).replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS", 1))


def use_migrations(names: Sequence[str], functions: MigrationFunctions) -> None:
    """The store's migrations: their names in the order they run, and `functions`, which maps each name to its
    function when a store is to be migrated (gatepost.store.schema sets them when imported)."""
    if len(set(names)) != len(names):
        raise ValueError(f"migrations: expected each name once, got {list(names)!r}")
    _registered[:] = [(tuple(names), functions)]
    _migrations.cache_clear()


def _names() -> tuple[str, ...]:
    if not _registered:
        raise StoreError("the store's migrations are not set: import gatepost.store (its schema sets them)")
    return _registered[0][0]


def store_migrations() -> Migrations:
    """The store's ordered migrations as sqlite-utils' `Migrations` (StoreError before the top floor has set
    them)."""
    _names()
    return _migrations(*_registered[0])


@functools.cache
def _migrations(names: tuple[str, ...], functions: MigrationFunctions) -> Migrations:
    # only a store being migrated (or a caller asking for them) needs sqlite-utils' Migrations
    from sqlite_utils.migrations import Migrations

    made = Migrations(MIGRATION_SET)
    by_name = functions()
    for name in names:
        made(name=name)(by_name[name])
    return made


def latest_version() -> int:
    """The schema version this gatepost writes: the number of migrations it knows."""
    return len(_names())


def known_migration_names() -> list[str]:
    return list(_names())


def applied_migration_names(db: Database) -> list[str]:
    """The names of the migrations the store records as applied, in the order applied: what
    `store_migrations().applied(db)` lists, read with two SELECTs (it writes nothing either)."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [MIGRATIONS_TABLE]).fetchone():
        return []
    return [row[0] for row in db.execute(f"SELECT name FROM [{MIGRATIONS_TABLE}] WHERE migration_set = ? "
                                         "ORDER BY rowid", [MIGRATION_SET]).fetchall()]


def pending_migration_names(db: Database) -> list[str]:
    """The known migrations the store has not applied yet, in the order they run."""
    applied = set(applied_migration_names(db))
    return [name for name in known_migration_names() if name not in applied]


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


APPLICATION_ID = 0x47415445  # "GATE": PRAGMA application_id of every gatepost store


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

EVENTS_COMPLETE_KIND = "audit.events_complete"  # from this event on, each event carries all its act wrote


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


PROJECTIONS_COMPLETE_KIND = "audit.projections_complete"  # from this event on, events carry runs, suites, skills


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
