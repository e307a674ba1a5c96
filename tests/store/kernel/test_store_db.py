"""The store file: creation, migrations, refusals of foreign and newer files, append-only events."""

import os
import resource
import signal
import sqlite3
import subprocess
import sys

import pytest

from gatepost.store import schema
from gatepost.store.kernel import (
    StoreError,
    append_event,
    applied_migration_names,
    list_events,
    one_of,
    open_store,
    resolve_path,
    schema_version,
    transaction,
)
from tests.conftest import ROOT, run_gatepost

EXPECTED_TABLES = {
    "actors", "capabilities", "events", "cases", "candidate_revisions", "evidence", "decisions",
    "skills", "skill_runs", "manifest_versions", "manifests", "manifest_drafts", "skill_evals",
    "assertion_results", "regression_states", "task_suites", "evaluation_runs", "task_results",
    "proposals", "gate_results",
}


def test_new_store_has_every_table_wal_and_foreign_keys(store_path):
    db = open_store(store_path)
    assert EXPECTED_TABLES <= set(db.table_names())
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert schema_version(db) == schema.latest_version() >= 1


def test_reopening_applies_nothing_twice(store_path):
    open_store(store_path).close()
    db = open_store(store_path)
    applied = [m.name for m in schema.migrations.applied(db)]
    assert applied == schema.known_migration_names()


def test_indexes_for_the_console_lists(db):
    def indexed(table):
        return {tuple(i.columns) for i in db[table].indexes}

    assert ("status", "updated_at") in indexed("cases")
    assert ("urgency", "skill") in indexed("regression_states")
    assert ("run_id", "side", "task_id", "attempt") in indexed("task_results")
    assert ("status", "created_at") in indexed("proposals")


def test_file_that_is_not_sqlite_is_refused_in_one_line(tmp_path):
    bogus = tmp_path / "notes.db"
    bogus.write_text("these are my notes, not a database\n")
    with pytest.raises(StoreError) as err:
        open_store(bogus)
    assert "not a SQLite database" in str(err.value)
    assert str(bogus) in str(err.value)
    assert "\n" not in str(err.value)
    assert bogus.read_text() == "these are my notes, not a database\n"


def test_sqlite_database_of_another_program_is_refused(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a gatepost store"):
        open_store(other)


def test_store_from_a_newer_gatepost_is_refused(store_path):
    db = open_store(store_path)
    db.execute(f"PRAGMA user_version = {schema.latest_version() + 1}")
    db["_sqlite_migrations"].insert({"migration_set": schema.MIGRATION_SET, "name": "m999_future",
                                     "applied_at": "2030-01-01"})
    db.close()
    with pytest.raises(StoreError, match="newer gatepost"):
        open_store(store_path)


def test_missing_store_is_not_created_when_not_asked(tmp_path):
    with pytest.raises(StoreError, match="gatepost init"):
        open_store(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_events_are_append_only(db):
    with transaction(db):
        seq = append_event(db, "test.happened", actor="ana", subject_type="case", subject_id="c-1",
                           note="first")
    for statement in ("UPDATE events SET note = 'rewritten' WHERE seq = ?", "DELETE FROM events WHERE seq = ?"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(statement, [seq])
    assert [e["note"] for e in list_events(db)] == ["first"]


def test_decisions_and_evidence_are_append_only_too(db):
    for table in ("decisions", "evidence", "task_results", "manifest_versions"):
        triggers = {t.name for t in db[table].triggers}
        assert {f"{table}_no_update", f"{table}_no_delete"} <= triggers


def test_transaction_rolls_back_everything_on_error(db):
    with pytest.raises(RuntimeError), transaction(db):
        append_event(db, "test.half", actor=None, subject_type="x", subject_id="1")
        raise RuntimeError("crash midway")
    assert list_events(db) == []


def test_store_location_rules(tmp_path, monkeypatch):
    monkeypatch.delenv("GATEPOST_DB", raising=False)
    assert resolve_path(None).name == "gatepost.db"
    monkeypatch.setenv("GATEPOST_DB", str(tmp_path / "env.db"))
    assert resolve_path(None) == tmp_path / "env.db"
    assert resolve_path(tmp_path / "given.db") == tmp_path / "given.db"


def test_an_older_store_is_migrated_in_order(store_path):
    import sqlite3 as sq

    from sqlite_utils import Database

    old = Database(sq.connect(store_path))
    schema.migrations.apply(old, stop_before="m002_leases")
    old.execute("PRAGMA user_version = 1")
    assert "leases" not in old.table_names()
    old.close()
    db = open_store(store_path)
    assert "leases" in db.table_names()
    assert schema_version(db) == schema.latest_version()
    assert [m.name for m in schema.migrations.applied(db)] == schema.known_migration_names()


def _schema_of(db) -> tuple:
    """What a store's migrations leave: its schema, the migrations it records in order, its version and id."""
    return (sorted(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name != 'sqlite_sequence'")),
            [m.name for m in schema.migrations.applied(db)], schema_version(db),
            db.execute("PRAGMA application_id").fetchone()[0])


def test_a_new_store_has_the_schema_an_older_store_is_migrated_to(tmp_path):
    """A new store is made in one transaction, an older one migrated one migration a transaction: both end the
    same, table for table, index for index, trigger for trigger."""
    import sqlite3 as sq

    from sqlite_utils import Database

    old = Database(sq.connect(tmp_path / "old.db"))
    schema.migrations.apply(old, stop_before="m002_leases")
    old.execute("PRAGMA user_version = 1")
    old.close()
    assert _schema_of(open_store(tmp_path / "old.db")) == _schema_of(open_store(tmp_path / "new.db"))


def _commits_in_wal(path) -> int:
    """The transactions committed to a store's WAL file (a frame whose header gives the database's size after
    it ends a commit)."""
    wal = (path.parent / f"{path.name}-wal").read_bytes()
    page_size = int.from_bytes(wal[8:12], "big")
    return sum(1 for at in range(32, len(wal), 24 + page_size) if int.from_bytes(wal[at + 4:at + 8], "big"))


def test_a_new_store_is_written_to_disk_once(store_path):
    """Each commit waits for the disk (synchronous FULL): a new store's migrations commit together."""
    db = open_store(store_path)
    assert _commits_in_wal(store_path) == 1
    db.close()


def test_a_new_store_is_made_without_the_protocol_interpreter(tmp_path):
    """Only a store that holds cases needs the protocol's rule to mark them when migrated: making a store (an
    import's, `gatepost init`'s) does not load the interpreter."""
    code = ("import sys\nfrom gatepost.store.kernel import open_store\nimport gatepost.store\n"
            f"open_store({str(tmp_path / 'new.db')!r}).close()\n"
            "print('gatepost.store.protocol.interpreter' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("stop_before", [None, "m001_initial", "m002_leases", "m013_kernel_records_by_position"])
def test_the_migrations_read_without_sqlite_utils_are_the_ones_it_records(tmp_path, stop_before):
    """Whether a store is current is read with two SELECTs (no sqlite-utils import): the same names, in the same
    order, as sqlite-utils' Migrations lists, at every stage of an older store."""
    import sqlite3 as sq

    from sqlite_utils import Database

    db = Database(sq.connect(tmp_path / "store.db"))
    if stop_before != "m001_initial":
        schema.migrations.apply(db, stop_before=stop_before)
    recorded = [m.name for m in schema.migrations.applied(db)]
    assert applied_migration_names(db) == recorded
    assert len(recorded) == (schema.latest_version() if stop_before is None else
                             schema.known_migration_names().index(stop_before))


def test_a_store_opened_to_read_takes_writes_and_sqlite_utils_calls(store_path):
    """A current store opens without sqlite-utils; the first write or sqlite-utils call loads it on the same
    connection, and a transaction's write lands."""
    open_store(store_path).close()
    db = open_store(store_path)
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    traced = []
    db._tracer = lambda sql, params: traced.append(sql)  # a sqlite-utils setting, given before it is loaded
    with transaction(db):
        append_event(db, "test.happened", actor="ana", subject_type="case", subject_id="c-1", note="a note")
    assert "events" in db.table_names()
    assert db["events"].count == 1
    assert [e["note"] for e in list_events(db)] == ["a note"]
    assert "BEGIN IMMEDIATE" in traced


def test_one_of_matches_any_number_of_values_literally(tmp_path):
    """More values than SQLite binds (32,766), none, and values that look like SQL are all just values."""
    db = open_store(tmp_path / "store.db")
    db.execute("CREATE TEMP TABLE t (id TEXT, n INTEGER)")
    db.conn.executemany("INSERT INTO t VALUES (?, ?)", [(f"case-{i}", i) for i in range(40_000)]
                        + [("x') OR 1=1 --", -1)])
    clause, params = one_of("n", range(40_000))
    assert db.execute(f"SELECT COUNT(*) FROM t WHERE {clause}", params).fetchone()[0] == 40_000
    clause, params = one_of("id", [])
    assert db.execute(f"SELECT COUNT(*) FROM t WHERE {clause}", params).fetchone()[0] == 0
    clause, params = one_of("id", ["x') OR 1=1 --", "case-7", "nope"])
    assert sorted(r[0] for r in db.execute(f"SELECT n FROM t WHERE {clause}", params)) == [-1, 7]


@pytest.mark.parametrize("version", [0, 5, 11])
def test_a_schema_version_set_by_hand_is_repaired_from_the_migrations_it_records(tmp_path, version):
    path = tmp_path / "store.db"
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    done = run_gatepost("--db", str(path), "init", "--admin", "ana")
    assert done.returncode == 0, done.stderr
    assert f"(schema version {schema.latest_version()})" in done.stdout
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.latest_version()
    conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("version", [-1, "missing"])
def test_a_schema_version_the_migrations_cannot_prove_is_refused_in_one_line(tmp_path, version):
    path = tmp_path / "store.db"
    open_store(path).close()
    conn = sqlite3.connect(path)
    if version == "missing":  # the migrations' record gone: nothing proves which schema the tables have
        conn.execute("DROP TABLE _sqlite_migrations")
        conn.execute("PRAGMA user_version = 3")
    else:
        conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    for args in (["init"], ["events"]):
        done = run_gatepost("--db", str(path), *args)
        assert done.returncode == 2 and "store ready" not in done.stdout, done.stdout
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "does not match" in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert path.read_bytes() == before


def _full_disk():
    """Lower a child's file-size limit: SQLite's writes fail past 64 KiB, as on a full disk."""
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
    return limit


def test_an_init_that_fails_on_a_full_disk_leaves_no_file(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(tmp_path / "store.db"), "init",
                           "--admin", "ana"], capture_output=True, text=True, cwd=tmp_path, env=env,
                          preexec_fn=_full_disk(), timeout=120)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_an_init_on_a_real_full_tmpfs_leaves_no_file(tmp_path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("mount is not allowed here")
    try:
        done = run_gatepost("--db", str(mount / "store.db"), "init", "--admin", "ana")
        assert done.returncode == 2 and "disk full" in done.stderr, done.stderr
        assert list(mount.iterdir()) == []
    finally:
        subprocess.run(["umount", str(mount)], check=False)
