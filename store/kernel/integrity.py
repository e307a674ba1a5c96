"""The store's health before it takes a write, and failures of the machine as one line.

Before the first write of a connection gatepost runs `PRAGMA quick_check` and looks for the
append-only triggers: a damaged store, or one whose triggers were dropped (someone edited
records by hand), takes no write until a person has looked (`sqlite3 .recover`, `gatepost verify`).
Errors SQLite or the OS raise for the machine (disk full, read-only, busy, gone, corrupt) become
one line naming the store and what to do, exit 2, instead of a traceback.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import sqlite3
import weakref
from typing import TYPE_CHECKING

from .chain import insert_chained
from .clock import now_iso
from .errors import StoreError
from .schema import append_only_triggers, record_tables, trigger_sql

if TYPE_CHECKING:
    from sqlite_utils import Database

_checked: weakref.WeakSet[Database] = weakref.WeakSet()
# the schema's version at which a connection last found every append-only trigger in place: any trigger dropped,
# added or changed since (by any connection or process) changes it, and the triggers are read again
_triggers_seen: weakref.WeakKeyDictionary[Database, int] = weakref.WeakKeyDictionary()
_files: weakref.WeakKeyDictionary[Database, tuple[str, int, int]] = weakref.WeakKeyDictionary()


_read_only: weakref.WeakSet[Database] = weakref.WeakSet()


def mark_read_only(db: Database) -> None:
    """This connection was opened read-only (read-only media): its writes are refused in one line."""
    _read_only.add(db)


def check_writable(db: Database) -> None:
    """Refuse a write through a read-only connection before SQLite does, as a StoreError the console shows."""
    if db in _read_only:
        path = store_file(db) or "the store"
        raise StoreError(f"{path}: read-only (the file, its folder or its media); nothing was written; "
                         "browsing works, deciding needs write access")


def remember_file(db: Database, path: str) -> None:
    """Note which file a connection opened, to notice it being deleted or replaced under us."""
    try:
        info = os.stat(path)
    except OSError:
        return
    _files[db] = (path, info.st_dev, info.st_ino)


def check_still_there(db: Database) -> None:
    """Refuse a write to a store whose file was deleted or replaced since it was opened.

    On Linux SQLite would go on writing into the deleted file: every decision would be lost.
    """
    known = _files.get(db)
    if known is None:
        return
    path, dev, ino = known
    try:
        info = os.stat(path)
    except OSError:
        raise StoreError(f"{path}: the store file was deleted while gatepost had it open; nothing was written") from None
    if (info.st_dev, info.st_ino) != (dev, ino):
        raise StoreError(f"{path}: the store file was replaced while gatepost had it open; nothing was written; "
                         "open it again")


def store_file(db: Database) -> str:
    """The file behind a connection ('' for an in-memory database)."""
    for row in db.execute("PRAGMA database_list").fetchall():
        if row[1] == "main":
            return str(row[2] or "")
    return ""


def expected_triggers() -> dict[str, str]:
    """The triggers that make the record tables append-only: name -> their SQL, normalised."""
    return dict(_expected_triggers())


@functools.cache
def _expected_triggers() -> dict[str, str]:
    """expected_triggers, normalised once a process (each is four regular-expression passes over its SQL)."""
    return {f"{table}_no_{verb.lower()}": normalised_trigger(trigger_sql(table, verb))
            for table in record_tables() for verb in ("UPDATE", "DELETE")}


_TRIGGER_NAME = re.compile(r'^create trigger (?:if not exists )?(?:"[^"]*"|\[[^\]]*\]|`[^`]*`|\S+) ')
_SPACES = re.compile(r"\s+")
_PUNCTUATION = re.compile(r" ?([(),;]) ?")


def normalised_trigger(sql: str) -> str:
    """A trigger's SQL as compared: whitespace collapsed, case folded, its own name left out (a trigger
    that does the same under another name still holds; one with the right name and another body does not)."""
    text = _SPACES.sub(" ", sql.strip()).lower()
    text = _PUNCTUATION.sub(r"\1", text).rstrip(";")
    return _TRIGGER_NAME.sub("create trigger _ ", text)


def missing_triggers(db: Database) -> list[str]:
    """Append-only triggers that should exist and do not, or exist with another body (a sign of hand edits):
    compared by their SQL, not by name."""
    present = {normalised_trigger(r[0] or "") for r in
               db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger'").fetchall()}
    return sorted(name for name, sql in _expected_triggers().items() if sql not in present)


def damaged(db: Database) -> str | None:
    """The first problem `PRAGMA quick_check` finds, or None for a sound store."""
    rows = db.execute("PRAGMA quick_check(1)").fetchall()
    first = rows[0][0] if rows else "ok"
    return None if first == "ok" else str(first)


def recover_hint(path: str) -> str:
    return f"recover what is readable with: sqlite3 {path} .recover | sqlite3 recovered.db"


def check_before_first_write(db: Database, *, scan: bool = True) -> None:
    """Refuse the first write of a connection to a damaged store or one whose triggers are gone
    (and any write to a store file deleted or replaced under us).

    `scan` False (a rehearsal, whose writes are all rolled back): everything but the damage scan, a read of
    the whole file (a third of a second on a 220 MB store, paid by the console on the first item it showed);
    the connection's first real write still scans."""
    check_writable(db)
    check_still_there(db)
    if db in _checked:
        return
    if scan:
        try:
            problem = damaged(db)
        except sqlite3.DatabaseError as exc:
            problem = str(exc)
        if problem is not None:
            path = store_file(db)
            raise StoreError(f"{path}: damaged ({problem}); nothing was written; {recover_hint(path)}")
    # a rehearsal (scan False) comes before every item the console shows, six to an item: the triggers are read
    # again only when the schema changed since this connection last found them all
    version = int(db.execute("PRAGMA schema_version").fetchone()[0])
    if _triggers_seen.get(db) != version:
        missing = missing_triggers(db)
        if missing:
            raise StoreError(f"{store_file(db)}: refused: integrity: append-only triggers are missing ({', '.join(missing)}), "
                             "so records may have been edited by hand; run `gatepost verify` before writing")
        _triggers_seen[db] = version
    if scan:
        _checked.add(db)


def restore_triggers(db: Database, *, actor: str | None) -> list[str]:
    """Recreate missing append-only triggers (after `verify` has shown what was found), as an event.

    Returns the triggers recreated; none on a store this process cannot write (read-only).
    """
    missing = missing_triggers(db)
    if not missing:
        return []
    try:
        with db.atomic():
            for name in missing:  # a same-named trigger with another body goes: the schema's takes its place
                db.execute(f"DROP TRIGGER IF EXISTS [{name}]")
            for table in record_tables():
                append_only_triggers(db, table)
            insert_chained(db, now_iso(), actor, "audit.triggers_restored", "store", "events", None,
                           "append-only triggers were missing; recreated after gatepost verify",
                           json.dumps({"triggers": missing}, sort_keys=True))
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc):
            return []
        raise
    _checked.discard(db)
    _triggers_seen.pop(db, None)
    return missing


def forget_checked(db: Database) -> None:
    """Check again before the next write (after verify restored the triggers, say)."""
    _checked.discard(db)
    _triggers_seen.pop(db, None)


def _no_space_left(path: str) -> bool:
    try:
        info = os.statvfs(os.path.dirname(os.path.abspath(path)) or ".")
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < 64 * 1024


def machine_error(exc: BaseException, path: str) -> StoreError | None:
    """One line for a failure of the machine under a store (None when `exc` is not one)."""
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
            return StoreError(f"{exc.filename or path}: disk full; nothing was written there; free space and retry")
        if exc.errno == errno.EROFS:
            return StoreError(f"{exc.filename or path}: on a read-only file system; nothing was written")
        return None
    if not isinstance(exc, sqlite3.Error):
        return None
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith("SQLITE_FULL") or "database or disk is full" in text:
        return StoreError(f"{path}: disk full; the write was rolled back, nothing was stored; free space and retry")
    if name.startswith("SQLITE_READONLY") or "readonly database" in text:
        return StoreError(f"{path}: read-only (the file or its folder); nothing was written; "
                          "browsing works, deciding needs write access to both")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in text:
        return StoreError(f"{path}: busy: another process held the store's write lock too long; "
                          "nothing was written; retry")
    if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        return StoreError(f"{path}: damaged ({text}); {recover_hint(path)}")
    if name.startswith("SQLITE_NOTADB") or "file is not a database" in text:
        return StoreError(f"{path}: not a SQLite database, so not a gatepost store")
    if _no_space_left(path):
        return StoreError(f"{path}: disk full ({text}); nothing was written; free space and retry")
    if name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN")) or "disk I/O error" in text or "unable to open" in text:
        return StoreError(f"{path}: cannot be read or written any more ({text}); was it moved or deleted?")
    return StoreError(f"{path}: {text}")
