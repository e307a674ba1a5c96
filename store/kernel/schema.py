"""The kernel's tables, and the store's ordered list of migrations once it is set (the kernel's own migrations
are in migrations.py, loaded when a store is migrated).

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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .errors import StoreError

if TYPE_CHECKING:
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

    from .records import RecordSource

MIGRATION_SET = "gatepost"
MIGRATIONS_TABLE = "_sqlite_migrations"  # where sqlite-utils' Migrations records each one applied
# each migration's name -> its function (asked for only when a store is migrated)
MigrationFunctions = Callable[[], Mapping[str, Callable[["Database"], None]]]
# the store's migrations: their names in order, and where their functions are; set once by the top floor
_registered: list[tuple[tuple[str, ...], MigrationFunctions]] = []

# The kernel's tables whose rows are records: triggers refuse UPDATE and DELETE on them (events: m001, made on
# the top floor; the keys and signatures: m008).
KERNEL_APPEND_ONLY = ("events", "actor_keys", "signatures")
# every other domain's record tables: where they are (set once by the top floor)
_domain_record_tables: list[Callable[[], tuple[str, ...]]] = []


def use_append_only(tables: Callable[[], tuple[str, ...]]) -> None:
    """Where the record tables of the domains above the kernel are: a function giving them (gatepost.store.schema
    sets it when imported). It is asked when they are first needed, before a connection's first write or by
    verify: a command that only reads loads no domain's list."""
    _domain_record_tables[:] = [tables]


def record_tables() -> tuple[str, ...]:
    """Every table whose triggers must be there: what the store checks before a write and verify restores
    (StoreError before the top floor has set the domains' tables)."""
    if not _domain_record_tables:
        raise StoreError("the store's record tables are not set: import gatepost.store (its schema sets them)")
    return _record_tables(_domain_record_tables[0])


@functools.cache
def _record_tables(domains: Callable[[], tuple[str, ...]]) -> tuple[str, ...]:
    """The kernel's record tables and the domains', asked once of each function that gives them."""
    tables = domains()
    if set(tables) & set(KERNEL_APPEND_ONLY) or len(set(tables)) != len(tables):
        raise ValueError(f"append-only tables: expected each domain's tables once, got {tables!r}")
    return (*KERNEL_APPEND_ONLY, *tables)


# where the sources are (set once by the top floor, gatepost.store.schema)
_sources: list[Callable[[], Sequence[RecordSource]]] = []


def use_record_sources(sources: Callable[[], Sequence[RecordSource]]) -> None:
    """Where the tables whose rows events seal are: a function giving them in the order every digest reads them
    (set by gatepost.store.schema; asked when a digest is first made or checked, so a command that only reads
    loads no domain's sources). The order is part of every digest stored: a source is only ever added at the end."""
    _sources[:] = [sources]


def record_sources() -> tuple[RecordSource, ...]:
    """The sources of sealed records, in order (StoreError before the top floor has set them)."""
    if not _sources:
        raise StoreError("the sealed record tables are not set: import gatepost.store (its schema sets them)")
    return _known_sources(_sources[0])


@functools.cache
def _known_sources(given: Callable[[], Sequence[RecordSource]]) -> tuple[RecordSource, ...]:
    """The sources, asked once of each function that gives them."""
    sources = tuple(given())
    if len({s.table for s in sources}) != len(sources):
        raise ValueError("record sources: a table is given twice")
    return sources


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


APPLICATION_ID = 0x47415445  # "GATE": PRAGMA application_id of every gatepost store
# the events that mark where complete events begin (kernel/migrations.py records them; verify reads them)
EVENTS_COMPLETE_KIND = "audit.events_complete"  # from this event on, each event carries all its act wrote
PROJECTIONS_COMPLETE_KIND = "audit.projections_complete"  # from this event on, events carry runs, suites, skills
