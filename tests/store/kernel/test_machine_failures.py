"""Failures of the machine under a store (issue 13, items 3 and 7): disk full, read-only store or
folder, a busy store, a store deleted under us, a damaged file, a SQLite file that is not ours.
Each is one line on stderr and exit 2 through the real CLI; nothing half-written; browsing a
read-only store works. Disk full and read-only media use a real tmpfs (needs root to mount)."""

import contextlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from gatepost.store.kernel import APPLICATION_ID, StoreError, append_event, open_store, transaction
from tests.conftest import run_gatepost
from tests.console_helpers import settle


def gatepost(store: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_gatepost("--db", str(store), *args, env=env)


def one_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def actors_of(store: Path) -> set[str]:
    conn = sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM actors")}
    finally:
        conn.close()


@contextlib.contextmanager
def tmpfs(where: Path, size_kb: int):
    where.mkdir()
    mounted = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)], capture_output=True).returncode == 0
    if not mounted:
        pytest.skip("needs root and mount(8) for a real tmpfs")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.slow
def test_disk_full_is_one_line_and_nothing_is_half_written(demo_store: Path, tmp_path: Path):
    size_kb = demo_store.stat().st_size // 1024 + 512
    with tmpfs(tmp_path / "disk", size_kb) as disk:
        store = disk / "review.db"
        shutil.copy(demo_store, store)
        assert gatepost(store, "case", "list").returncode == 0
        holder = open_store(store)  # another console keeps the store open: its -wal and -shm stay
        filler = disk / "filler"
        with contextlib.suppress(OSError), filler.open("wb") as out:  # fill the disk to the last byte
            while True:
                out.write(b"\0" * 4096)
                out.flush()
        line = one_line(gatepost(store, "actors", "add", "zoe", "--as", "ana"), str(store), "disk full")
        assert "nothing" in line
        holder.close()
        listed = gatepost(store, "case", "list")  # works, or says the disk is full (no room for its -shm)
        assert listed.returncode == 0 or "disk full" in one_line(listed, str(store))
        filler.unlink()
        assert "zoe" not in actors_of(store)
        assert gatepost(store, "verify").returncode == 0


@pytest.mark.slow
def test_a_store_on_read_only_media_is_browsed_and_refuses_writes_in_one_line(demo_store: Path, tmp_path: Path):
    with tmpfs(tmp_path / "media", demo_store.stat().st_size // 1024 * 3) as media:
        store = media / "review.db"
        shutil.copy(demo_store, store)
        assert subprocess.run(["mount", "-o", "remount,ro", str(media)], capture_output=True).returncode == 0
        listed = gatepost(store, "case", "list")
        assert listed.returncode == 0 and "case-00" in listed.stdout, listed.stderr
        assert gatepost(store, "verify").returncode == 0
        one_line(gatepost(store, "actors", "add", "zoe", "--as", "ana"), str(store), "read-only")
        assert sorted(p.name for p in media.iterdir()) == ["review.db"]  # not even a -wal or -shm


def test_a_read_only_file_in_a_writable_folder_is_browsed_and_refuses_writes(demo_store: Path, tmp_path: Path):
    store = tmp_path / "review.db"
    shutil.copy(demo_store, store)
    db = open_store(store, read_only=True)
    try:
        assert db.execute("SELECT COUNT(*) FROM cases").fetchone()[0] > 10
        with pytest.raises(StoreError, match="read-only"), transaction(db):
            append_event(db, "test.write", actor="ana", subject_type="store", subject_id="x")
    finally:
        db.close()
    if os.geteuid() != 0:  # root writes through chmod; the tmpfs test above covers root
        store.chmod(0o444)
        assert gatepost(store, "case", "list").returncode == 0
        one_line(gatepost(store, "actors", "add", "zoe", "--as", "ana"), "read-only")


def test_a_busy_store_is_one_line_after_the_timeout(demo_store: Path, tmp_path: Path):
    store = tmp_path / "review.db"
    shutil.copy(demo_store, store)
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the write lock
    try:
        line = one_line(gatepost(store, "actors", "add", "zoe", "--as", "ana", env={"GATEPOST_BUSY_TIMEOUT": "1"}),
                        str(store), "busy")
        assert "nothing was written" in line
        assert gatepost(store, "case", "list", env={"GATEPOST_BUSY_TIMEOUT": "1"}).returncode == 0  # readers go on
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "zoe" not in actors_of(store)


def test_a_store_deleted_under_us_takes_no_write(demo_store: Path, tmp_path: Path):
    store = tmp_path / "review.db"
    shutil.copy(demo_store, store)
    db = open_store(store)
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{store}{suffix}").unlink(missing_ok=True)
        with pytest.raises(StoreError, match="deleted while gatepost had it open"), transaction(db):
            append_event(db, "test.write", actor="ana", subject_type="store", subject_id="x")
    finally:
        db.close()
    shutil.copy(demo_store, store)
    db = open_store(store)
    try:
        store.unlink()
        shutil.copy(demo_store, store)  # replaced by another file of the same name
        with pytest.raises(StoreError, match="replaced"), transaction(db):
            append_event(db, "test.write", actor="ana", subject_type="store", subject_id="x")
    finally:
        db.close()


def _flip_a_page(store: Path) -> None:
    """Damage a b-tree page of the events table, as a failing disk would."""
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'cases'").fetchone()[0]
    conn.close()
    with store.open("r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\x0d\xff\xff\xff\xff\xff\xff\xff" * 8)


def test_a_damaged_store_is_one_line_and_takes_no_write(demo_store: Path, tmp_path: Path):
    store = tmp_path / "review.db"
    shutil.copy(demo_store, store)
    _flip_a_page(store)
    listed = gatepost(store, "case", "list")
    assert listed.returncode == 2 and "Traceback" not in listed.stderr
    assert "damaged" in listed.stderr and ".recover" in listed.stderr
    line = one_line(gatepost(store, "actors", "add", "zoe", "--as", "ana"), str(store), "damaged")
    assert "sqlite3" in line and ".recover" in line
    conn = sqlite3.connect(store)
    assert conn.execute("SELECT COUNT(*) FROM actors WHERE name = 'zoe'").fetchone()[0] == 0
    conn.close()


def test_a_new_store_carries_gateposts_application_id(tmp_path: Path):
    store = tmp_path / "new.db"
    assert gatepost(store, "init").returncode == 0
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


@pytest.mark.slow
def test_another_sqlite_utils_programs_database_is_refused_and_left_untouched(tmp_path: Path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE _sqlite_migrations (id INTEGER PRIMARY KEY, migration_set TEXT, name TEXT,"
                 " applied_at TEXT)")
    conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('notes', 'm001', 'x')")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    for command in (["init"], ["case", "list"], ["verify"]):
        one_line(gatepost(other, *command), str(other), "not a gatepost store")
    assert other.read_bytes() == before


def test_a_sqlite_file_with_another_application_id_is_refused(tmp_path: Path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    one_line(gatepost(other, "case", "list"), "another program", "not a gatepost store")


def test_an_older_gatepost_store_without_the_id_is_recognised_and_stamped(demo_store: Path, tmp_path: Path):
    store = tmp_path / "old.db"
    shutil.copy(demo_store, store)
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA application_id = 0")
    conn.commit()
    conn.close()
    assert gatepost(store, "case", "list").returncode == 0
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


async def test_the_console_browses_a_store_on_read_only_media(demo_store: Path, tmp_path: Path):
    from gatepost.app import GatepostApp

    with tmpfs(tmp_path / "media", demo_store.stat().st_size // 1024 * 3) as media:
        store = media / "review.db"
        shutil.copy(demo_store, store)
        assert subprocess.run(["mount", "-o", "remount,ro", str(media)], capture_output=True).returncode == 0
        app = GatepostApp(store, person="ana")
        async with app.run_test(size=(140, 42)) as pilot:
            await settle(pilot)
            assert "Waiting" in app.export_screenshot()
            await pilot.press("2")
            await settle(pilot)
            await app.workers.wait_for_complete()
            await settle(pilot)
            assert type(app.screen).__name__ == "CasesScreen"
            assert "case-00" in app.export_screenshot()
            with pytest.raises(StoreError, match="read-only"), transaction(app.db):
                pass
