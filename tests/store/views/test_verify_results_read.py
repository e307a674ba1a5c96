"""`gatepost verify` reads the task results once (views/integrity.py): each run's stored review order, counts and
statistics counts are built again from that read (evaluation.blocked_order) and compared, and each event's sealed
records digest is made from lines SQLite encodes; only what that read cannot vouch for is checked the exact way.
What it vouches for must be exactly what the exact checks would say: the order as the import writes it, the digest
of the very values stored."""

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlite_utils import Database

import gatepost.store.views.integrity as integrity
import gatepost.store.views.verify as verify
from gatepost.store.evaluation import (
    counted_figures,
    import_artifact,
    order_differences,
    stored_figures,
)
from gatepost.store.evaluation.task_order import backfill_task_order
from gatepost.store.kernel import add_actor, open_store
from gatepost.store.skills import record_run
from gatepost.store.views import verify_store
from gatepost.store.views.integrity import read_results
from tests.conftest import run_gatepost

SIDES = ("candidate", "baseline")
task = st.sampled_from([f"t{i}" for i in range(8)])
passed = st.sampled_from([0, 1, None, 2, 10])  # 10: an array of passes not a digit each (decoded, not bytes)
split = st.sampled_from([None, "", "dev", "test"])
# a run: its results in id order, each (side, task, passed, split); blocks of one side each, or anything else
result = st.tuples(st.sampled_from(SIDES), task, passed, split)
blocked = st.tuples(st.lists(st.tuples(task, passed, split), max_size=8, unique_by=lambda r: r[0]),
                    st.lists(st.tuples(task, passed, split), max_size=8, unique_by=lambda r: r[0]),
                    st.sampled_from([SIDES, SIDES[::-1], ("candidate",), ("baseline",)])).map(
    lambda b: [(side, *r) for side, rows in zip(b[2], b[:2], strict=False) for r in rows])
runs_ = st.lists(st.tuples(st.one_of(blocked.map(lambda rows: (True, rows)),
                                     st.lists(result, max_size=10).map(lambda rows: (False, rows))),
                           st.sampled_from(["2026-01-01", "2026-01-02", "2026-01-03"])), min_size=1, max_size=4)


def _store(path: Path, runs: list[tuple[list[tuple], str]]) -> Database:
    """Runs of one skill inserted as rows, their order written the import's way (task_order._write_ordered)."""
    db = open_store(path)
    for n, ((_, rows), started) in enumerate(runs):
        db.execute("INSERT INTO evaluation_runs (id, skill_id, started_at) VALUES (?, 's', ?)", [f"r{n}", started])
        db.conn.executemany("INSERT INTO task_results (run_id, side, task_id, attempt, passed, judged, score,"
                            " duration_ms, output, mock, split) VALUES (?, ?, ?, 1, ?, 1, 1.0, 5, 'out', 0, ?)",
                            [(f"r{n}", *row) for row in rows])
    backfill_task_order(db)
    db.conn.commit()
    return db


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=runs_)
def test_what_the_read_vouches_for_is_what_the_import_writes(tmp_path_factory: pytest.TempPathFactory, runs):
    db = _store(tmp_path_factory.mktemp("r") / "s.db", runs)
    read = read_results(db)
    # a run of one block a side is vouched for (its order built from the read is the one stored); any other is left
    # to the exact checks, which find it as stored
    assert not {f"r{n}" for n, ((shaped, _), _) in enumerate(runs) if shaped} & set(read.orders + read.figures)
    assert all(order_differences(db, run_id) == [] for run_id in read.orders)
    assert all(stored_figures(db, run_id) == counted_figures(db, run_id) for run_id in read.figures)
    for run_id, in db.execute("SELECT DISTINCT run_id FROM run_task_pages").fetchall():  # and an edit shows
        db.execute("UPDATE run_task_pages SET entries = '[]' WHERE run_id = ? AND chunk = 0 AND list = 'all'",
                   [run_id])
        assert run_id in read_results(db).orders
        db.conn.rollback()
    db.close()


def test_runs_of_the_common_shape_are_vouched_for_by_the_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Not everything is left to the exact checks: a store imported the usual way has none of its runs checked
    one by one, and none of its events' records hashed again the kernel's way."""
    store, _ = _imported(tmp_path)
    calls: list[str] = []
    monkeypatch.setattr(verify, "order_differences", lambda db, run_id: calls.append(run_id) or [])
    monkeypatch.setattr(integrity, "records_digest", lambda db, seq: calls.append(str(seq)))
    db = open_store(store)
    assert verify_store(db).intact and calls == []


def _imported(tmp_path: Path, score: float = 0.3) -> tuple[Path, list[str]]:
    store = tmp_path / "s.db"
    db = open_store(store)
    ids = []
    for n in range(3):
        path = tmp_path / f"a{n}.json"
        path.write_text(json.dumps({
            "skill_id": "s", "execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0, "verdict": "pass",
            "candidate_results": [{"task_id": f"t{i}", "passed": (i + n) % 3 != 0, "score": score,
                                   "duration_ms": 12} for i in range(30)],
            "baseline_results": [{"task_id": f"t{i}", "passed": i % 4 != 0, "score": 1.0} for i in range(30)]}))
        ids.append(import_artifact(db, path, actor="ana")[0])
    db.close()
    return store, ids


@pytest.mark.parametrize("edit", [
    "UPDATE task_results SET score = 0.30000000000000004 WHERE id = (SELECT MIN(id) FROM task_results)",
    "UPDATE task_results SET output = 'edited' WHERE id = (SELECT MAX(id) FROM task_results)",
])
def test_a_result_edited_to_a_value_sqlite_would_print_alike_is_found(tmp_path: Path, edit: str):
    """SQLite prints a REAL with 15 significant digits: 0.30000000000000004 as 0.3. A value the sealed lines hold as
    0.3 edited so is still a finding (the read does not vouch for a value it would print rounded)."""
    store, _ = _imported(tmp_path)
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TRIGGER task_results_no_update")
        assert conn.execute(edit).rowcount == 1
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert "no longer hash to what it sealed" in found.stdout


def test_a_score_read_back_as_another_number_is_found(tmp_path: Path):
    """Scores of 1.0, sealed so, read back as the integer 1 once the column's declared type is no longer REAL (no
    value edited: SQLite keeps a REAL without a fraction as an integer on disk, and makes it a REAL again as it reads
    only under REAL affinity). The read writes a score equal to 1.0 as 1.0 directly only under REAL affinity: here
    its lines hold 1, as the kernel's do, and the records are found changed."""
    store, _ = _imported(tmp_path, score=1.0)
    with sqlite3.connect(store) as conn:
        conn.execute("PRAGMA writable_schema = ON")
        assert conn.execute("UPDATE sqlite_master SET sql = replace(sql, '\"score\" REAL', '\"score\" NUMERIC')"
                            " WHERE name = 'task_results'").rowcount == 1
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT DISTINCT typeof(score) FROM task_results").fetchall() == [("integer",)]
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert "no longer hash to what it sealed" in found.stdout


def test_a_run_whose_order_was_deleted_whole_is_found(tmp_path: Path):
    store, ids = _imported(tmp_path)
    with sqlite3.connect(store) as conn:
        for table in ("run_task_pages", "run_task_counts"):
            conn.execute(f"DELETE FROM {table} WHERE run_id = ?", [ids[1]])
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1
    assert f"run {ids[1]}: its stored review order is not what its task results give" in found.stdout


def test_skill_runs_recorded_through_gatepost_are_vouched_for_by_the_read(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    """The skill runs' seal lines SQLite encodes are the kernel's bytes: a store whose runs were recorded the usual
    way has none of their events' records hashed again the kernel's way (and an edit still is: the test below)."""
    db = open_store(tmp_path / "s.db")
    add_actor(db, "ana", "person", ["evidence.record"])
    for n in range(4):
        record_run(db, "s", f"line {n}\nwith \"quotes\", a tab\t and é", actor="ana")
    calls: list[int] = []
    monkeypatch.setattr(integrity, "records_digest", lambda db, seq: calls.append(seq))
    assert verify_store(db).intact and calls == []


@pytest.mark.parametrize("edit", [
    "UPDATE skill_runs SET output = CAST(output AS BLOB) WHERE id = 's-0002'",  # the same bytes, as a BLOB
    "UPDATE skill_runs SET word_count = word_count + 0.5 WHERE id = 's-0002'",  # a REAL SQLite prints otherwise
    "UPDATE skill_runs SET word_count = 2.0000000000000004 WHERE id = 's-0002'",  # ... or as the whole number 2
    "UPDATE skill_runs SET output = 'edited' WHERE id = 's-0003'",
])
def test_a_skill_run_edited_by_hand_is_found_whatever_sqlite_holds(tmp_path: Path, edit: str):
    """The skill runs' seal lines are encoded by SQLite, which refuses a BLOB (the runs are then read again, each
    value's type looked at) and may print a REAL as another number (its event is hashed the kernel's way): an
    edit of either kind is still a finding, and only the edited run's event is named."""
    store = tmp_path / "s.db"
    db = open_store(store)
    add_actor(db, "ana", "person", ["evidence.record"])
    for n in range(4):
        record_run(db, "s", "one two" if n != 2 else "one two three", actor="ana")
    assert verify_store(db).intact
    seq = db.execute("SELECT event_seq FROM skill_runs WHERE id = ?", [edit.split("'")[-2]]).fetchone()[0]
    db.close()
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TRIGGER skill_runs_no_update")
        assert conn.execute(edit).rowcount == 1
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert f"event {seq}: the skill runs, manifest versions or task results it created" in found.stdout
    assert found.stdout.count("no longer hash to what it sealed") == 1


_MOVES = st.lists(st.tuples(st.integers(1, 180), st.sampled_from(["run", "side", "delete", "copy"])), min_size=1,
                  max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(moves=_MOVES)
def test_the_blocks_walked_are_the_blocks_sql_groups_whatever_was_moved(tmp_path_factory: pytest.TempPathFactory,
                                                                          moves):
    """The read finds each run's blocks by looking at their ends only; rows moved to another run or side, deleted or
    copied by hand (the ends left as they were, or not) make it read exactly what grouping every row would: the same
    digests vouched for, the same runs left to the exact checks."""
    folder = tmp_path_factory.mktemp("w")
    store, _ = _imported(folder)
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TRIGGER task_results_no_update")
        conn.execute("DROP TRIGGER task_results_no_delete")
        for row, move in moves:
            if move == "run":
                conn.execute("UPDATE task_results SET run_id = COALESCE((SELECT run_id FROM task_results WHERE id = ?),"
                             " run_id) WHERE id = ?", [(row + 60) % 180 + 1, row])  # (that row deleted: left as is)
            elif move == "side":
                conn.execute("UPDATE task_results SET side = CASE side WHEN 'candidate' THEN 'baseline'"
                             " ELSE 'candidate' END WHERE id = ?", [row])
            elif move == "delete":
                conn.execute("DELETE FROM task_results WHERE id = ?", [row])
            else:  # a copy of a row of another run inserted at the end
                conn.execute("INSERT INTO task_results (run_id, side, task_id, attempt, passed, judged, score,"
                             " duration_ms, output, mock) SELECT run_id, side, task_id, attempt, passed, judged, score,"
                             " duration_ms, output, mock FROM task_results WHERE id = ?", [row])
    db = open_store(store)
    walked, grouped = read_results(db), integrity._read_results(db, walked=False)
    assert (walked.digests, walked.orders, walked.figures) == (grouped.digests, grouped.orders, grouped.figures)
    db.close()


def test_a_row_of_another_run_between_a_blocks_ends_is_read_as_sql_groups_it(tmp_path: Path):
    """The case the walk cannot see: a row inside a block moved to the run after it, the block's ends untouched. The
    block's read finds it (a line of another run) and the read starts again grouped: the run's records are hashed
    again and found edited."""
    store, _ = _imported(tmp_path)
    with sqlite3.connect(store) as conn:
        conn.execute("DROP TRIGGER task_results_no_update")
        conn.execute("UPDATE task_results SET run_id = (SELECT run_id FROM task_results WHERE id = 100) WHERE id = 15")
    db = open_store(store)
    walked, grouped = read_results(db), integrity._read_results(db, walked=False)
    assert (walked.digests, walked.orders, walked.figures) == (grouped.digests, grouped.orders, grouped.figures)
    report = verify_store(db)
    assert any("no longer hash to what it sealed" in line for line in report.findings)
    db.close()


@pytest.mark.parametrize("seq", ["head + 5", "0", "-1", "2.5", "'x'", "NULL + 1e30"])
def test_a_record_naming_an_event_not_in_the_store_is_found(tmp_path: Path, seq: str):
    """A record's event_seq edited to name no event: past the head, before the first, a fraction between two events,
    text, a number too large for an integer: each a finding naming the table and the value (the events being 1..head,
    only what is not a whole number in that range is looked up)."""
    store, _ = _imported(tmp_path)
    with sqlite3.connect(store) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name ="
                                    " 'evaluation_runs'").fetchall():
            conn.execute(f"DROP TRIGGER [{name}]")
        head = conn.execute("SELECT MAX(seq) FROM events").fetchone()[0]
        value = seq.replace("head", str(head)).replace("NULL + ", "")
        conn.execute(f"UPDATE evaluation_runs SET event_seq = {value} WHERE rowid = (SELECT MIN(rowid) FROM"
                     " evaluation_runs)")
        stored = conn.execute("SELECT event_seq FROM evaluation_runs WHERE rowid = (SELECT MIN(rowid) FROM"
                              " evaluation_runs)").fetchone()[0]
    report = verify_store(open_store(store))
    assert any(line.startswith("evaluation_runs row ") and f"names event {stored}, which is not in the store" in line
               for line in report.findings), report.findings
