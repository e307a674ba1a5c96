"""A large run's statistics counts are stored with its order (issue 19), so opening it does not stream every task
for its statistics; what run_statistics gives from them is what it computes task by task, and what the old
whole-run computation gave."""

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import import_artifact, run_statistics, runs, stored_figures
from gatepost.store.kernel import open_store
from tests.conftest import run_gatepost
from tests.store.evaluation.test_run_statistics_sql import _old_run_statistics

NOT_STORED = "gatepost.store.evaluation.noise.stored_figures"


def _write(path: Path, candidate: list[tuple[str, bool]], baseline: list[tuple[str, bool]], *,
           pass_k: int | None = None) -> Path:
    def results(side: list[tuple[str, bool]]) -> list[dict]:
        return [{"task_id": t, "passed": p, "score": 1.0 if p else 0.0, "output": f"{t} out"} for t, p in side]
    c = sum(p for _, p in candidate) / len(candidate) if candidate else 0.0
    b = sum(p for _, p in baseline) / len(baseline) if baseline else 0.0
    data = {"skill_id": "figures-skill", "execution_pass_rate": c, "baseline_pass_rate": b,
            "delta": round(c - b, 4), "verdict": "pass" if round(c - b, 4) >= 0 else "fail",
            "candidate_results": results(candidate), "baseline_results": results(baseline)}
    if pass_k is not None:
        data["pass_k"] = pass_k
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _both_ways(store: Path, path: Path, monkeypatch: pytest.MonkeyPatch, *, streamed: bool) -> tuple:
    """(stored counts, run_statistics, run_statistics task by task, the old computation) of one imported file."""
    with monkeypatch.context() as patch:
        if streamed:
            patch.setattr(runs, "MAX_FILE_BYTES", 0)  # the path of a file over the limit
        db = open_store(store)
        run_id, _ = import_artifact(db, path, actor="ana")
    figures, fast = stored_figures(db, run_id), run_statistics(db, run_id)
    with monkeypatch.context() as patch:
        patch.setattr(NOT_STORED, lambda db, run_id: None)
        streamed_stats = run_statistics(db, run_id)
    return figures, fast, streamed_stats, _old_run_statistics(db, run_id)


def _agree(fast: dict | None, stream: dict | None, old: dict) -> None:
    assert fast is not None and stream is not None
    assert fast == stream
    assert fast.pop("flaky_total") == len(old["flaky"])
    assert fast == old


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tasks=st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from(["both", "candidate", "baseline"])),
                      max_size=40),
       pass_k=st.sampled_from([None, 1, 3]), streamed=st.booleans())
def test_stored_counts_give_the_statistics_task_by_task_would(tmp_path_factory: pytest.TempPathFactory,
                                                             monkeypatch: pytest.MonkeyPatch, tasks: list,
                                                             pass_k: int | None, streamed: bool) -> None:
    """One attempt per task and side (upstream's shape), tasks on one side only, pass^k measurable or not."""
    folder = tmp_path_factory.mktemp("figures")
    candidate = [(f"t{i}", c) for i, (c, _, where) in enumerate(tasks) if where != "baseline"]
    baseline = [(f"t{i}", b) for i, (_, b, where) in enumerate(tasks) if where != "candidate"]
    figures, fast, stream, old = _both_ways(folder / "s.db", _write(folder / "a.json", candidate, baseline,
                                                                    pass_k=pass_k), monkeypatch, streamed=streamed)
    if tasks:  # a run without results has no order to store
        assert figures is not None
        assert (figures["candidate_tasks"], figures["baseline_tasks"]) == (len(candidate), len(baseline))
    _agree(fast, stream, old)


@pytest.mark.parametrize("streamed", [False, True])
def test_a_run_with_repeated_attempts_stores_no_counts_and_streams_its_statistics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool) -> None:
    candidate = [("t1", True), ("t2", False), ("t1", False)]  # t1 twice: two attempts, flaky
    figures, fast, stream, old = _both_ways(tmp_path / "s.db", _write(tmp_path / "a.json", candidate,
                                                                      [("t1", True), ("t2", True)]),
                                            monkeypatch, streamed=streamed)
    assert figures is None
    _agree(fast, stream, old)
    assert old["flaky"][0]["task_id"] == "t1"


def test_a_run_of_one_task_stores_its_counts(tmp_path: Path) -> None:
    db = open_store(tmp_path / "s.db")
    run_id, _ = import_artifact(db, _write(tmp_path / "a.json", [("t1", True)], [("t1", False)]), actor="ana")
    assert stored_figures(db, run_id) == {"candidate_tasks": 1, "candidate_passed": 1, "baseline_tasks": 1,
                                          "baseline_passed": 0, "both_pass": 0, "only_candidate": 1,
                                          "only_baseline": 0, "neither": 0}


def test_the_migration_stores_the_counts_of_runs_stored_before_it(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s.db"
    db = open_store(store)
    run_id, _ = import_artifact(db, _write(tmp_path / "a.json", [("t1", True), ("t2", False), ("t3", True)],
                                           [("t1", False), ("t2", False)]), actor="ana")
    expected = stored_figures(db, run_id)
    db.close()
    raw = sqlite3.connect(store)  # the store as it was before m011: no table, the migration not applied
    raw.execute("DROP TABLE run_task_figures")
    raw.execute("DELETE FROM _sqlite_migrations WHERE name = 'm011_scale_run_task_figures'")
    raw.commit()
    raw.close()
    db = open_store(store)
    assert expected is not None and stored_figures(db, run_id) == expected
    assert expected == {"candidate_tasks": 3, "candidate_passed": 2, "baseline_tasks": 2, "baseline_passed": 0,
                        "both_pass": 0, "only_candidate": 1, "only_baseline": 0, "neither": 1}


def test_verify_finds_stored_counts_edited_by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s.db"
    db = open_store(store)
    run_id, _ = import_artifact(db, _write(tmp_path / "a.json", [("t1", True), ("t2", False), ("t3", True)],
                                           [("t1", False), ("t2", False), ("t3", True)]), actor="ana")
    db.close()
    intact = run_gatepost("--db", str(store), "verify")
    assert intact.returncode == 0, intact.stdout + intact.stderr
    with sqlite3.connect(store) as conn:  # a better candidate pass rate, written straight into the derived row
        conn.execute("UPDATE run_task_figures SET candidate_passed = 3, only_candidate = 2 WHERE run_id = ?", [run_id])
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert f"run {run_id}: its stored statistics counts are not what its task results count" in found.stdout
    assert "candidate_passed 3 stored, 2 counted" in found.stdout
