"""Open a gatepost store: a SQLite file through sqlite-utils, in WAL mode, migrated in order."""

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from . import schema
from .errors import StoreError

BUSY_TIMEOUT_MS = 30_000
DEFAULT_DB = "gatepost.db"


def resolve_path(path: str | os.PathLike | None) -> Path:
    """The store's location: the given path, else $GATEPOST_DB, else ./gatepost.db."""
    if path:
        return Path(path)
    env = os.environ.get("GATEPOST_DB")
    return Path(env) if env else Path(DEFAULT_DB)


def _check_file(path: Path) -> None:
    # The SQLite header is not read here with open(): closing any descriptor of the file would drop the
    # POSIX locks this process's open connections hold on it, and another process could then delete the
    # WAL under them ("disk I/O error"). SQLite itself refuses a file that is not a database (SQLITE_NOTADB).
    if path.is_dir():
        raise StoreError(f"{path}: is a directory, expected a gatepost store file")


def open_store(path: str | os.PathLike, *, create: bool = True) -> Database:
    """Create or open a store; refuse files that are not gatepost's or come from a newer gatepost."""
    path = Path(path)
    _check_file(path)
    if not path.exists() and not create:
        raise StoreError(f"{path}: no gatepost store here (run `gatepost init` or `gatepost demo`)")
    if not path.parent.exists():
        raise StoreError(f"{path}: folder {path.parent} does not exist")
    conn = None
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        db = Database(conn)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA foreign_keys = ON")
        if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            _retry_busy(lambda: db.enable_wal())
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA wal_autocheckpoint = 10000")  # checkpoint every ~40 MB, not every 4 MB: bulk imports
        _check_owner(db, path)
        _retry_busy(lambda: _migrate(db, path))
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB" or "file is not a database" in str(exc):
            raise StoreError(f"{path}: not a SQLite database, so not a gatepost store") from None
        raise StoreError(f"{path}: cannot be read as a gatepost store ({exc})") from None
    return db


def _retry_busy(step, attempts: int = 20) -> None:
    for attempt in range(attempts):
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


def _check_owner(db: Database, path: Path) -> None:
    tables = set(db.table_names())
    if tables and "_sqlite_migrations" not in tables:
        raise StoreError(f"{path}: a SQLite database, but not a gatepost store (it has no gatepost schema)")
    applied = [m.name for m in schema.migrations.applied(db)]
    known = schema.known_migration_names()
    unknown = [name for name in applied if name not in known]
    stored_version = db.execute("PRAGMA user_version").fetchone()[0]
    if unknown or stored_version > schema.latest_version():
        raise StoreError(
            f"{path}: written by a newer gatepost (schema version {max(stored_version, len(applied))}, "
            f"this gatepost knows up to {schema.latest_version()}); upgrade gatepost to open it"
        )


def _migrate(db: Database, path: Path) -> None:
    if not schema.migrations.pending(db):
        return
    schema.migrations.apply(db)
    db.execute(f"PRAGMA user_version = {schema.latest_version()}")


def schema_version(db: Database) -> int:
    """The schema version recorded in the store (PRAGMA user_version, set by the migrations)."""
    return db.execute("PRAGMA user_version").fetchone()[0]


@contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """One write transaction, taken with BEGIN IMMEDIATE so concurrent writers queue, not fail.

    Nested calls become savepoints (sqlite-utils' atomic()). The busy timeout
    makes a waiting writer wait; a lock still held after it is retried.
    """
    if db.conn.in_transaction:
        with db.atomic():
            yield db
        return
    _retry_busy(lambda: db.execute("BEGIN IMMEDIATE"))
    try:
        with db.atomic():
            yield db
    except BaseException:
        db.rollback()
        raise
    db.execute("COMMIT")
