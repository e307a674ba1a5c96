"""Open a gatepost store: a SQLite file through sqlite-utils, in WAL mode, migrated in order.

sqlite-utils itself is imported when a connection first needs it (a write, a migration, any of its methods):
a command that only reads rows never pays for its import (docs/performance.md).
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from . import schema
from .errors import StoreError
from .integrity import (
    check_writable,
    damaged,
    machine_error,
    mark_read_only,
    recover_hint,
    remember_file,
    store_file,
)

if TYPE_CHECKING:
    from sqlite_utils import Database

BUSY_TIMEOUT_MS = 30_000
# Every commit is on disk before the writer is told it landed: in WAL mode FULL syncs the WAL at each commit
# (NORMAL only at checkpoints, so a power cut could lose acknowledged decisions). Measured in
# benchmarks/durability.py; docs/reliability.md says what survives what.
SYNCHRONOUS = "FULL"
BUSY_ENV = "GATEPOST_BUSY_TIMEOUT"  # seconds a writer waits for another's write lock (default 30)


def busy_timeout_ms() -> int:
    """How long a writer waits for the write lock: $GATEPOST_BUSY_TIMEOUT seconds, else 30 s."""
    value = os.environ.get(BUSY_ENV)
    if not value:
        return BUSY_TIMEOUT_MS
    try:
        seconds = float(value)
    except ValueError:
        raise StoreError(f"{BUSY_ENV}: expected a number of seconds, got {value!r}") from None
    return max(0, min(int(seconds * 1000), 3_600_000))
DEFAULT_DB = "gatepost.db"


def resolve_path(path: str | os.PathLike[str] | None) -> Path:
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


def read_only_media(path: Path) -> bool:
    """True when the store cannot be written here: a read-only file system, file or folder."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return True
    except OSError:
        return False
    return not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK)


def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
    if not read_only:
        return sqlite3.connect(str(path), timeout=busy_timeout_ms() / 1000, check_same_thread=False)
    uri = path.resolve().as_uri()
    immutable = False
    try:
        immutable = bool(os.statvfs(path).f_flag & os.ST_RDONLY)  # nobody writes there: no WAL index needed
    except OSError:
        pass
    if not immutable:
        try:
            conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=busy_timeout_ms() / 1000,
                                   check_same_thread=False)
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            pass  # a WAL store whose folder we cannot write: no -shm can be made, read it as it is
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False)


# statements sqlite-utils' `Database.execute` runs exactly as the connection does: neither opens a transaction
# (Python's sqlite3 begins one only before INSERT, UPDATE, DELETE or REPLACE), so there is nothing to commit
_READS = ("select", "pragma")
_loading = threading.Lock()


class _Deferred:
    """A store connection whose sqlite-utils `Database` is made when something first needs it.

    A command that only reads rows runs SELECTs and PRAGMAs through `execute` on the connection. Any other
    statement, and any other attribute (a table, `atomic`, `enable_wal`, the migrations...), first turns this
    very object into the `Database` it stands for (`_load`), so what was keyed by it (the read-only mark, the
    file it opened, its write queue) stays keyed, and from then on it is sqlite-utils' own.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.execute("PRAGMA recursive_triggers=on;")  # what Database(conn) runs first

    def execute(self, sql: str, parameters: Any = None) -> sqlite3.Cursor:
        if sql.lstrip()[:6].lower() not in _READS:
            return _load(self).execute(sql, parameters)
        return self.conn.execute(sql) if parameters is None else self.conn.execute(sql, parameters)

    def __getattr__(self, name: str) -> Any:  # only for a name this class does not have
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_load(self), name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "conn":
            object.__setattr__(self, name, value)
        else:  # a setting of sqlite-utils' (a tracer, ...): made first, so loading it does not overwrite what is set
            setattr(_load(self), name, value)

    def __getitem__(self, name: str) -> Any:
        return _load(self)[name]

    def __enter__(self) -> Database:
        return _load(self)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (all sqlite-utils' `close` does): a store opened only to read is closed without
        loading sqlite-utils, as the console does when it quits."""
        self.conn.close()


def _load(deferred: _Deferred | Database) -> Database:
    """Make `deferred` the sqlite-utils `Database` of its connection, in place (once; thread-safe)."""
    with _loading:
        if isinstance(deferred, _Deferred):
            from sqlite_utils import (
                Database,  # the first time a connection needs more than reading rows
            )

            # no sqlite-utils plugins: a plugin's hook runs on every connection it sees, and no package
            # installed beside gatepost may register functions on the store's (finding them scans every
            # installed distribution's entry points: about a tenth of a read-only command's start)
            made = Database(deferred.conn, recursive_triggers=False, execute_plugins=False)
            deferred.__dict__.update(made.__dict__)  # every attribute in place before the class changes
            object.__setattr__(deferred, "__class__", Database)  # past _Deferred.__setattr__
    return cast("Database", deferred)


def open_store(path: str | os.PathLike[str], *, create: bool = True, read_only: bool | None = None) -> Database:
    """Create or open a store; refuse files that are not gatepost's or come from a newer gatepost.

    A store on read-only media (or `read_only=True`) opens read-only: it can be browsed, and a
    write is refused in one line by SQLite's own read-only check.
    """
    path = Path(path)
    _check_file(path)
    new = not path.exists()
    try:
        return _open(path, create=create, read_only=read_only)
    except BaseException:
        if new:  # a store this call created and could not finish (a full disk): no empty file is left behind
            discard_new_store(path)
        raise


def discard_new_store(path: str | os.PathLike[str]) -> None:
    """Remove a store file gatepost just created and could not finish, with its -wal, -shm and -journal."""
    path = Path(path)
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        try:
            (path.parent / name).unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass  # what cannot be removed stays; the error that failed the open is the one reported


def _open(path: Path, *, create: bool, read_only: bool | None) -> Database:
    if not path.exists() and not create:
        raise StoreError(f"{path}: no gatepost store here (run `gatepost init` or `gatepost demo`)")
    if not path.parent.exists():
        raise StoreError(f"{path}: folder {path.parent} does not exist")
    if read_only is None:
        read_only = path.exists() and read_only_media(path)
    if read_only and not path.exists():
        raise StoreError(f"{path}: no gatepost store here, and its folder is read-only")
    conn = None
    try:
        conn = _connect(path, read_only)
        db = cast("Database", _Deferred(conn))  # sqlite-utils loads when something needs more than reading
        db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
        db.execute("PRAGMA foreign_keys = ON")
        _check_owner(db, path, read_only=read_only)  # before anything writes: a file not ours is left untouched
        if not read_only:
            if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                _retry_busy(lambda: db.enable_wal())
            db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            db.execute("PRAGMA wal_autocheckpoint = 10000")  # checkpoint every ~40 MB, not every 4 MB: bulk imports
        remember_file(db, str(path))
        if read_only:
            mark_read_only(db)
            if schema.pending_migration_names(db):
                raise StoreError(f"{path}: read-only, and written by an older gatepost (schema version "
                                 f"{schema_version(db)}, this one uses {schema.latest_version()}); open it once "
                                 "where it can be written to upgrade it")
        else:
            _retry_busy(lambda: _migrate(db, path))
    except StoreError:
        if conn is not None:
            conn.close()
        raise
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB" or "file is not a database" in str(exc):
            raise StoreError(f"{path}: not a SQLite database, so not a gatepost store") from None
        known = machine_error(exc, str(path))
        if known is not None and not str(known).startswith(f"{path}: {exc}"):
            raise known from None
        raise StoreError(f"{path}: cannot be read as a gatepost store ({exc})") from None
    return db


def _retry_busy(step: Callable[[], object], attempts: int = 20) -> None:
    """Run `step`, retrying while the store is locked, within the busy timeout (then SQLite's error)."""
    deadline = time.monotonic() + busy_timeout_ms() / 1000
    for attempt in range(attempts):
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1 \
                    or time.monotonic() >= deadline:
                raise
            time.sleep(0.05 * (attempt + 1))


def _ours_by_schema(db: Database, tables: set[str]) -> bool:
    """A store from before the application_id: gatepost's migration set and its core tables."""
    if not {"_sqlite_migrations", "events", "cases"} <= tables:
        return False
    row = db.execute("SELECT COUNT(*) FROM _sqlite_migrations WHERE migration_set = ? AND name = 'm001_initial'",
                     [schema.MIGRATION_SET]).fetchone()
    return bool(row[0])


def _check_owner(db: Database, path: Path, *, read_only: bool = False) -> None:
    """Only gatepost's stores: PRAGMA application_id says so (older stores are known by their schema)."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()}
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    if app_id != schema.APPLICATION_ID:
        if app_id != 0:
            raise StoreError(f"{path}: a SQLite database of another program (application_id {app_id:#x}), "
                             "not a gatepost store; left untouched")
        if tables and not _ours_by_schema(db, tables):
            raise StoreError(f"{path}: a SQLite database, but not a gatepost store (no gatepost application_id "
                             "or schema); left untouched")
    applied = schema.applied_migration_names(db)
    known = schema.known_migration_names()
    unknown = [name for name in applied if name not in known]
    stored_version = db.execute("PRAGMA user_version").fetchone()[0]
    if unknown or stored_version > schema.latest_version():
        raise StoreError(
            f"{path}: written by a newer gatepost (schema version {max(stored_version, len(applied))}, "
            f"this gatepost knows up to {schema.latest_version()}); upgrade gatepost to open it"
        )
    _check_version(db, path, stored_version, applied, known, has_tables=bool(tables), read_only=read_only)


def _check_version(db: Database, path: Path, stored: int, applied: list[str], known: list[str], *,
                   has_tables: bool, read_only: bool) -> None:
    """The schema version (user_version) must be the number of migrations the store records as applied.

    Each migration sets it in the transaction that records it, so they differ only when one was edited
    by hand. Where the record proves the schema (N of gatepost's own migrations; one missing runs next),
    the version is repaired to N on a writable open; anything else is refused, and nothing is written.
    """
    if stored == len(applied):
        return
    proven = stored >= 0 and set(applied) <= set(known) and (bool(applied) or not has_tables)
    if not proven:
        raise StoreError(f"{path}: its schema version (PRAGMA user_version {stored}) does not match the "
                         f"{len(applied)} migrations it records, and they cannot prove its schema; not opened, "
                         "nothing was written (restore a backup)")
    if read_only:
        raise StoreError(f"{path}: its schema version (PRAGMA user_version {stored}) does not match the "
                         f"{len(applied)} migrations it records; open it once where it can be written to repair it")
    with db.atomic():
        db.execute(f"PRAGMA user_version = {len(applied)}")


def _migrate(db: Database, path: Path) -> None:
    """Apply pending migrations, each in one transaction with its user_version and the application_id (a new
    store's all in one: nothing is there to keep if one fails, and the file is removed).

    A store is checked (`PRAGMA quick_check`) before a migration writes to it: migrating a
    damaged file would spread the damage.
    """
    stamped = db.execute("PRAGMA application_id").fetchone()[0] == schema.APPLICATION_ID
    if not schema.pending_migration_names(db):  # read without sqlite-utils: a current store is opened as it is
        if not stamped:  # a gatepost store from before the application_id, recognised by its schema
            with db.atomic():
                db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
        return
    new = not db.table_names()
    if not new:
        problem = damaged(db)
        if problem is not None:
            raise StoreError(f"{path}: damaged ({problem}); not migrated, nothing was written; "
                             f"{recover_hint(str(path))}")
    migrations = schema.store_migrations()
    # a store being made: every migration in one transaction (one commit to disk, not one a migration; each
    # migration's own transaction is then a savepoint in it)
    with db.atomic() if new else nullcontext():
        pending = migrations.pending(db)
        migrations.ensure_migrations_table(db)
        done = len(migrations.applied(db))
        for migration in pending:
            with db.atomic():
                migration.fn(db)
                migrations._record_applied(db, migration.name)
                done += 1
                db.execute(f"PRAGMA user_version = {done}")
                db.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")


def schema_version(db: Database) -> int:
    """The schema version recorded in the store (PRAGMA user_version, set by the migrations)."""
    version: int = db.execute("PRAGMA user_version").fetchone()[0]
    return version


def one_of(column: str, values: Iterable[str | int]) -> tuple[str, list[str]]:
    """`column IN (…)` for a list of values, as SQL and its one parameter: the list is bound as a JSON array
    (json_each), so any number of values fits (SQLite caps bound variables), none matches nothing, and no SQL
    text is built from the values."""
    return f"{column} IN (SELECT value FROM json_each(?))", [json.dumps(list(values))]


QUEUE_SUFFIX = "-writers"  # next to the store's -wal and -shm: the writers' queue


class WriteQueue:
    """Writers of one store wait their turn on a lock file (flock), not in SQLite's busy handler.

    SQLite's busy handler has each waiting writer sleep and retry (1 ms, then up to 100 ms a try): a
    writer that happens to retry at the right instant goes first, and under sustained load some wait
    past any timeout while others pass them again and again. A writer blocked in flock is woken by the
    kernel the moment the lock is released, so no turn is lost to a sleep and every waiter races for
    each turn: nobody is passed over for long (measured: benchmarks/write_load.py). The holder writes
    its pid, command and start into the file, so a writer that does time out can say who held the lock.
    Locks held by a process that dies are released by the kernel: a killed writer never blocks the queue.
    """

    def __init__(self, store_path: str) -> None:
        self.path = store_path + QUEUE_SUFFIX
        self.fd: int | None = None

    def _open(self) -> int | None:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError:
            return None  # a folder we cannot write: the store is read-only there anyway; SQLite's lock decides

    def acquire(self, budget_s: float) -> None:
        """Wait for this store's write turn, at most `budget_s` seconds; StoreError names who held it if known."""
        fd = self._open()
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not _wait_in_kernel(fd, budget_s):
                raise StoreError(self.busy_message(budget_s)) from None
        except OSError:
            os.close(fd)
            return
        self.fd = fd
        note = f"{os.getpid()}\t{time.monotonic():.3f}\t{' '.join(sys.argv[:4])[:200]}\n".encode()
        try:
            os.pwrite(fd, note, 0)
            os.ftruncate(fd, len(note))
        except OSError:
            pass

    def release(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)  # closing the only descriptor of the lock releases it

    def busy_message(self, budget_s: float) -> str:
        store = self.path[: -len(QUEUE_SUFFIX)]
        try:
            pid, since, command = Path(self.path).read_text("utf-8").rstrip("\n").split("\t", 2)
            held = time.monotonic() - float(since)
            alive = _alive(int(pid))
        except (OSError, ValueError):
            alive, pid, held, command = False, "", 0.0, ""
        if alive and held >= budget_s / 2:
            return (f"{store}: busy: process {pid} ({command}) has held the store's write lock for {held:.0f} s; "
                    f"nothing was written; retry")
        return (f"{store}: busy: the store was busy (other writers queued ahead for {budget_s:g} s); nothing was "
                "written; retry")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _wait_in_kernel(fd: int, budget_s: float) -> bool:
    """Block in flock on `fd` for at most `budget_s` s (a helper thread waits; True once the lock is held).

    flock has no timeout: the helper blocks, and a caller that gives up leaves it to release the lock at once
    when it finally gets it (then close its descriptor), so an abandoned wait never holds up the queue.
    """
    got = threading.Event()
    gave_up = threading.Lock()
    state = {"abandoned": False}

    def wait() -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            return
        with gave_up:
            if state["abandoned"]:
                os.close(fd)
                return
            got.set()

    threading.Thread(target=wait, name="gatepost-write-queue", daemon=True).start()
    if got.wait(budget_s):
        return True
    with gave_up:
        if got.is_set():
            return True
        state["abandoned"] = True
    return False


_queues: weakref.WeakKeyDictionary[Database, WriteQueue] = weakref.WeakKeyDictionary()


def _queue(db: Database) -> WriteQueue | None:
    if db not in _queues:
        path = store_file(db)
        if not path:
            return None  # an in-memory database has one connection: nothing to queue behind
        _queues[db] = WriteQueue(path)
    return _queues[db]


@contextmanager
def transaction(db: Database, *, synced: bool = True) -> Iterator[Database]:
    """One write transaction: the writer waits its turn in the store's write queue, then BEGIN IMMEDIATE.

    Nested calls become savepoints (`nested`). The queue (WriteQueue) orders the writers of every process;
    the busy timeout still covers anything that writes outside it (a migration, a checkpoint, another
    program), and a lock still held after it is retried.

    `synced=False` is for what is no record, a person's read receipt: its commit returns without waiting for the
    disk (synchronous NORMAL for that one commit: a power cut may lose it, never a commit made before it, and the
    next synced commit syncs it too; the store stays whole). A synced commit cost ~0.4 ms of CPU and 3-6 ms of the
    writer's time for every item a person opened. Nested, it is the caller's transaction that commits.
    """
    check_writable(db)
    if db.conn.in_transaction:
        with nested(db):
            yield db
        return
    with write_turn(db):
        level = None if synced else db.execute("PRAGMA synchronous").fetchone()[0]
        if level is not None:
            db.execute("PRAGMA synchronous = NORMAL")  # between transactions: SQLite refuses it inside one
        try:
            _retry_busy(lambda: db.execute("BEGIN IMMEDIATE"))
            try:
                yield db
            except BaseException:
                db.rollback()
                raise
            db.execute("COMMIT")
        finally:
            if level is not None:
                db.execute(f"PRAGMA synchronous = {level}")


NESTED = "gatepost_nested"


@contextmanager
def nested(db: Database) -> Iterator[None]:
    """A transaction inside another: a savepoint, rolled back to if the block fails. One name for all of them:
    SQLite releases and rolls back to the innermost savepoint of a name, and its three statements stay
    compiled in the connection's statement cache (sqlite-utils' atomic() names each anew, compiled each
    time: a third of what the rehearsals of an item cost)."""
    db.conn.execute(f"SAVEPOINT {NESTED}")
    try:
        yield
    except BaseException:
        if db.conn.in_transaction:  # an error such as RAISE(ROLLBACK) may have ended the whole transaction
            db.conn.execute(f"ROLLBACK TO {NESTED}")
            db.conn.execute(f"RELEASE {NESTED}")
        raise
    db.conn.execute(f"RELEASE {NESTED}")


@contextmanager
def write_turn(db: Database) -> Iterator[None]:
    """Hold the store's turn in its write queue (what every transaction does first; a restore holds it while
    it copies a whole store in, outside any transaction)."""
    queue = _queue(db)
    if queue is not None:
        queue.acquire(busy_timeout_ms() / 1000)
    try:
        yield
    finally:
        if queue is not None:
            queue.release()
