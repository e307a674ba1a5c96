"""A run's stored review order and counts (what the console lists its tasks by, and under which filters) are
derived data no hash covers: `gatepost verify` writes them again from the task results and finds a row edited,
added or deleted by hand, naming the run and the table, and changes nothing in the store while it looks."""

import sqlite3
from pathlib import Path

import pytest

from gatepost.store.evaluation import import_artifact, runs
from gatepost.store.kernel import open_store
from tests.conftest import run_gatepost
from tests.store.evaluation.test_run_task_figures import _write


def _store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """Three runs of one skill with their order stored: a first, a second whose tasks changed since, and a third
    imported the streamed way (its order written from what the import kept, not from task_results)."""
    store = tmp_path / "s.db"
    db = open_store(store)
    ids = []
    for n, (path, streamed) in enumerate([("a.json", False), ("b.json", False), ("c.json", True)]):
        candidate = [(f"t{i}", (i + n) % 3 != 0) for i in range(40)]
        baseline = [(f"t{i}", i % 4 != 0) for i in range(40)]
        with monkeypatch.context() as patch:
            if streamed:
                patch.setattr(runs, "MAX_FILE_BYTES", 0)
            ids.append(import_artifact(db, _write(tmp_path / path, candidate, baseline), actor="ana")[0])
    db.close()
    return store, ids


def _rows(store: Path) -> list[tuple]:
    with sqlite3.connect(store) as conn:
        return [row for table in ("run_task_pages", "run_task_counts", "run_task_figures", "events")
                for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]


def test_stored_orders_verify_and_verify_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    store, ids = _store(tmp_path, monkeypatch)
    with sqlite3.connect(store) as conn:
        assert {r[0] for r in conn.execute("SELECT run_id FROM run_task_pages")} == set(ids)
    before = _rows(store)
    intact = run_gatepost("--db", str(store), "verify")
    assert intact.returncode == 0, intact.stdout + intact.stderr
    assert _rows(store) == before


@pytest.mark.slow
@pytest.mark.parametrize("edit, table", [
    ("UPDATE run_task_pages SET entries = '[]' WHERE run_id = :run AND list = 'failing'", "run_task_pages"),
    ("DELETE FROM run_task_pages WHERE run_id = :run AND list = 'differs'", "run_task_pages"),
    # one task's flags (a character each in a chunk of the list "all") changed
    ("UPDATE run_task_pages SET entries = substr(entries, 1, instr(entries, '\"flags\":\"') + 8)"
     " || CASE substr(entries, instr(entries, '\"flags\":\"') + 9, 1) WHEN 'A' THEN 'B' ELSE 'A' END"
     " || substr(entries, instr(entries, '\"flags\":\"') + 10) WHERE run_id = :run AND list = 'all'", "run_task_pages"),
    ("UPDATE run_task_counts SET failing = failing - 1 WHERE run_id = :run", "run_task_counts"),
])
def test_an_order_edited_by_hand_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str, table: str):
    store, ids = _store(tmp_path, monkeypatch)
    run_id = ids[1]
    with sqlite3.connect(store) as conn:  # the second run's failing tasks hidden from its filter, or its counts
        assert conn.execute(edit, {"run": run_id}).rowcount > 0
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    lines = [line for line in found.stdout.splitlines() if "review order" in line]
    assert len(lines) == 1, found.stdout  # that run only
    assert f"run {run_id}: its stored review order is not what its task results give ({table})" in lines[0]


def test_an_edited_statistics_row_is_one_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The order check writes the statistics counts again too; verify's own check of them names what differs,
    and the order check does not report the same row a second time."""
    store, ids = _store(tmp_path, monkeypatch)
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE run_task_figures SET candidate_passed = candidate_passed + 1 WHERE run_id = ?", [ids[0]])
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1
    findings = [line for line in found.stdout.splitlines() if line.startswith("run ")]
    assert len(findings) == 1 and "its stored statistics counts are not what its task results count" in findings[0]
