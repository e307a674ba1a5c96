"""Bulk inserts by multi-row statements, and in a second thread (a large artifact's import): every row lands, in
order, inside the caller's transaction; the writer's error reaches the caller; a failing block leaves nothing
behind after its rollback."""

import sqlite3
import threading
from pathlib import Path

import pytest

from gatepost.store.kernel import FlatRows, background_inserts, insert_values


def _table(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, note TEXT)")
    return conn


def _rows(start: int, n: int) -> list[tuple]:
    return [(i, f"task-{i}", i / 7 if i % 3 else None, "a\x00b" if i % 5 == 0 else "é") for i in range(start, start + n)]


def test_every_row_lands_in_order_inside_the_callers_transaction(tmp_path: Path):
    conn = _table(tmp_path / "s.db")
    conn.execute("BEGIN IMMEDIATE")
    sizes = [1, 7, 8, 9, 0, 23, 100]  # around rows_per_statement=8: whole statements, remainders, an empty batch
    expected: list[tuple] = []
    with background_inserts(conn, "t", ("id", "name", "score", "note"), rows_per_statement=8) as insert:
        for size in sizes:
            batch = _rows(len(expected) + 1, size)
            expected += batch
            insert(batch)
    assert conn.in_transaction  # the block wrote inside it and did not commit
    conn.execute("COMMIT")
    assert conn.execute("SELECT id, name, score, note FROM t ORDER BY id").fetchall() == expected
    assert conn.execute("SELECT note FROM t WHERE id = 5").fetchone()[0] == "a\x00b"  # the NUL kept


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 17])
def test_insert_values_stores_every_row_in_order_around_the_statement_size(tmp_path: Path, size: int):
    conn = _table(tmp_path / "s.db")
    conn.execute("BEGIN IMMEDIATE")
    insert_values(conn, "t", ("id", "name", "score", "note"), [v for row in _rows(1, size) for v in row],
                  rows_per_statement=8)
    conn.execute("COMMIT")
    assert conn.execute("SELECT id, name, score, note FROM t ORDER BY id").fetchall() == _rows(1, size)


def test_the_writers_error_reaches_the_caller_and_a_rollback_leaves_nothing(tmp_path: Path):
    conn = _table(tmp_path / "s.db")
    conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        with background_inserts(conn, "t", ("id", "name", "score", "note"), rows_per_statement=4) as insert:
            insert(_rows(1, 10))
            insert(_rows(5, 3))  # ids 5..7 again: refused by SQLite in the writer thread
            for start in range(100, 10_000, 10):  # the caller goes on until the writer's error reaches it
                insert(_rows(start, 10))
    conn.execute("ROLLBACK")
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0


def test_a_failing_block_waits_for_the_writer_before_its_rollback(tmp_path: Path):
    conn = _table(tmp_path / "s.db")
    conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(ValueError, match="bad result"):
        with background_inserts(conn, "t", ("id", "name", "score", "note")) as insert:
            for start in range(1, 50_000, 5_000):
                insert(_rows(start, 5_000))
            raise ValueError("bad result")
    assert [t.name for t in threading.enumerate() if t.name == "gatepost-bulk-insert"] == []
    conn.execute("ROLLBACK")  # no insert runs beside it
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
    other = sqlite3.connect(tmp_path / "s.db")
    assert other.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0


def test_rows_given_as_their_values_one_after_the_other_land_as_rows(tmp_path: Path):
    conn = _table(tmp_path / "s.db")
    rows = _rows(1, 21)
    values = [v for row in rows for v in row]
    flat = FlatRows(values, 4)
    assert len(flat) == 21 and list(flat) == rows and flat[-1] == rows[-1] and flat[2:4] == rows[2:4]
    with pytest.raises(IndexError):
        flat[21]
    conn.execute("BEGIN IMMEDIATE")
    insert_values(conn, "t", ("id", "name", "score", "note"), values, rows_per_statement=8)  # 8, 8 and 5 rows
    insert_values(conn, "t", ("id", "name", "score", "note"), [])
    with pytest.raises(ValueError, match="not whole rows"):
        insert_values(conn, "t", ("id", "name", "score", "note"), values[:-1])
    conn.execute("COMMIT")
    assert conn.execute("SELECT * FROM t ORDER BY id").fetchall() == rows
