"""`gatepost backup FILE` and `gatepost restore FILE`: a consistent, verified copy of a store, and back.

A backup is taken with SQLite's backup API in one step, inside one read transaction: in WAL mode that is a
snapshot of every commit made before it began, while other processes keep writing. The copy is written
to a temporary file, made a single self-contained file (journal mode DELETE), synced, renamed into place
and then checked: SQLite's integrity check, `verify` (chain, triggers, every projection against its
events), and its head must be an event of the store it was taken from. A restore checks the backup the
same way before it touches anything, copies it into the store through the backup API (other processes'
connections see the restored store; nobody can write while it is copied), checks the result, and records
a `store.restored` event in the restored history.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import (
    InputError,
    StoreError,
    guarded,
    open_store,
    require,
    write_turn,
)

from .verify import VERIFY_PARTS, VerifyReport, verify_store

ADMIN = "store.admin"

# `steps(name, done, total)`: called as each step begins (copying a large store and verifying it take seconds)
Steps = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Copy:
    """What a backup or a restore left, checked: where, its size, its events and its head."""

    path: str
    bytes: int
    events: int
    head_seq: int
    head_hash: str

    def document(self) -> dict[str, Any]:
        return {"schema": "gatepost.backup/1", "path": self.path, "bytes": self.bytes, "events": self.events,
                "head_seq": self.head_seq, "head_hash": self.head_hash}


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_copy(path: Path, what: str, steps: Steps | None = None, *, done: int = 0, total: int = 0) -> VerifyReport:
    """Open `path` read-only as a gatepost store and check it whole; StoreError naming the first problem.

    With `steps`, its integrity check and verify's parts are steps `done`, `done` + 1, … of `total`."""
    def step(name: str, index: int) -> None:
        if steps is not None:
            steps(f"{what}: {name}", done + index, total)

    db = open_store(path, create=False, read_only=True)
    try:
        step("integrity check", 0)
        result = db.execute("PRAGMA integrity_check").fetchone()[0]
        if result != "ok":
            raise StoreError(f"{path}: {what} is damaged (integrity_check: {result})")
        report = verify_store(db, parts=lambda name, index, _parts: step(f"verify {name}", index + 1))
        if not report.intact:
            raise StoreError(f"{path}: {what} does not verify: {report.findings[0]}")
        return report
    finally:
        db.close()


def backup_store(db: Database, target: str | os.PathLike[str], *, force: bool = False,
                 steps: Steps | None = None) -> Copy:
    """Write a consistent copy of the store behind `db` to `target` and verify it (StoreError if it fails).

    `steps(name, done, total)` is called as the copy, its integrity check and each part of verify begin."""
    target = Path(target)
    if target.is_dir():
        raise InputError(f"{target}: is a folder, expected the backup file to write")
    if not target.parent.exists():
        raise InputError(f"{target}: folder {target.parent} does not exist")
    if target.exists() and not force:
        raise InputError(f"{target}: exists; give another file, or --force to replace it")
    temporary = target.with_name(target.name + ".partial")
    for leftover in (temporary, Path(str(temporary) + "-wal"), Path(str(temporary) + "-shm")):
        leftover.unlink(missing_ok=True)
    total = 2 + len(VERIFY_PARTS)
    if steps is not None:
        steps("copy the store", 0, total)
    dest = sqlite3.connect(str(temporary))
    try:
        db.conn.backup(dest, pages=-1)  # one step: one read transaction, one snapshot, writers carry on
        dest.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        dest.commit()
    finally:
        dest.close()
    _fsync(temporary)
    os.replace(temporary, target)
    _fsync(target.parent)
    report = check_copy(target, "the backup", steps, done=1, total=total)
    if not db.execute("SELECT 1 FROM events WHERE seq = ? AND hash = ?", [report.head_seq, report.head_hash]).fetchone() \
            and report.head_seq:
        raise StoreError(f"{target}: the backup's head (event {report.head_seq}) is not an event of the store")
    return Copy(str(target), target.stat().st_size, report.events, report.head_seq, report.head_hash)


def restore_store(db: Database, source: str | os.PathLike[str], *, actor: str | None, force: bool = False,
                  steps: Steps | None = None) -> Copy:
    """Replace the store behind `db` with the backup `source`, after checking it; needs store.admin (held in the
    backup, which is what the store becomes). Refused without `force` when the store has events the backup
    does not (they would be lost). `steps` as for `backup_store`: the backup's check, the copy, verify after."""
    source = Path(source)
    if not source.is_file():
        raise InputError(f"{source}: no such backup file")
    total = 2 + 2 * len(VERIFY_PARTS)
    report = check_copy(source, "the backup", steps, total=total)
    backup = open_store(source, create=False, read_only=True)
    try:
        require(backup, actor, ADMIN, doing=f"restore {source}")
    finally:
        backup.close()
    head = db.execute("SELECT MAX(seq) FROM events").fetchone()[0] if "events" in db.table_names() else None
    if head and head > report.head_seq and not force:
        raise InputError(f"{source}: the store has {head - report.head_seq} event(s) after the backup's head "
                         f"(event {report.head_seq}); restoring would lose them: --force to restore anyway")
    if steps is not None:
        steps("copy the backup into the store", 1 + len(VERIFY_PARTS), total)
    copied = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        with write_turn(db):  # nobody writes while the store is replaced
            copied.backup(db.conn, pages=-1)
    finally:
        copied.close()
    db.execute("PRAGMA journal_mode = WAL")
    with guarded(db, f"restore {source}", actor=actor, capability=ADMIN) as act:
        act.event("store.restored", subject_type="store", subject_id=source.name,
                  payload={"from": str(source), "head_seq": report.head_seq, "head_hash": report.head_hash,
                           "replaced_head_seq": head})
    after = verify_store(db, parts=None if steps is None else
                         lambda name, index, _parts: steps(f"the restored store: verify {name}",
                                                           2 + len(VERIFY_PARTS) + index, total))
    if not after.intact:
        raise StoreError(f"restore {source}: the restored store does not verify: {after.findings[0]}")
    path = Path(db.execute("PRAGMA database_list").fetchone()[2])
    return Copy(str(path), path.stat().st_size, after.events, after.head_seq, after.head_hash)
