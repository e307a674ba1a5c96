"""The Results screen's figures of a run (issue 16/19): run_statistics computes them with SQL aggregates and
gives the same figures as the old computation, which read every attempt of the run into Python; its memory
does not grow with the run; the exact sign test holds at thousands of differing tasks."""

import random
import tracemalloc
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import (
    load_suite,
    pooled_attempts,
    run_statistics,
    stats,
    store_run,
    summarise,
)
from gatepost.store.kernel import open_store
from tests.evaluator_helpers import contains_task, write_suite


def _exact_sign_test(b: int, c: int) -> Fraction:
    """The definition: twice the binomial tail of min(b, c) over 2**n, as an exact fraction (capped at 1)."""
    n = b + c
    if n == 0:
        return Fraction(1)
    return min(Fraction(1), Fraction(2 * sum(comb(n, i) for i in range(min(b, c) + 1)), 2 ** n))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2500), st.integers(0, 2500))
def test_sign_test_is_the_exact_tail_up_to_thousands_of_differing_tasks(b, c):
    assert stats.sign_test(b, c) == float(_exact_sign_test(b, c))


def test_sign_test_at_five_thousand_differing_tasks_is_pinned():
    # 2,400 against 2,600 (n = 5,000): exact tail, and the float(2**n) that overflowed before
    p = stats.sign_test(2400, 2600)
    assert p == float(_exact_sign_test(2400, 2600))
    assert round(p, 6) == 0.004884  # a 4 % difference over 5,000 differing tasks is decided at 0.05
    assert stats.sign_test(2500, 2500) == 1.0 and stats.sign_test(0, 5000) == 0.0
    figures = stats.compare(stats.Pairs(1000, 2600, 2400, 1000))
    assert figures["decided"] == "better" and figures["p_value"] == 0.0049


def _iterative_exact(b: int, c: int) -> Fraction:
    n, m = b + c, min(b, c)
    term = tail = 1
    for i in range(m):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(Fraction(1), Fraction(2 * tail, 2 ** n))


@pytest.mark.parametrize("b, c", [(9_950, 10_300), (10_000, 10_001), (49_000, 51_000), (12, 20_500)])
def test_sign_test_beyond_the_exact_range_agrees_with_the_exact_tail(b, c):
    assert b + c > stats.EXACT_SIGN_TEST_MAX
    exact = float(_iterative_exact(b, c))
    assert stats.sign_test(b, c) == pytest.approx(exact, rel=1e-9, abs=1e-300)
    assert stats.sign_test(b, c) == stats.sign_test(c, b)


# --- run_statistics against the old computation --------------------------------------------------------
def _old_run_statistics(db, run_id: str) -> dict[str, Any]:
    """What run_statistics computed before: every attempt of the run read into Python, then summarise()."""
    row = db.execute("SELECT suite_id, executor, candidate_hash, baseline_hash, pass_k,"
                     " COALESCE(json_extract(artifact, '$.baseline_cache.hit'), 0) FROM evaluation_runs"
                     " WHERE id = ?", [run_id]).fetchone()
    key = dict(zip(("suite_id", "executor", "candidate_hash", "baseline_hash", "pass_k"), row[:5], strict=True))
    sides: dict[str, dict[str, list[dict[str, bool]]]] = {"candidate": {}, "baseline": {}}
    for side, task, passed, judged in db.execute(
            "SELECT side, task_id, passed, judged FROM task_results WHERE run_id = ? ORDER BY id", [run_id]):
        sides.setdefault(side, {}).setdefault(task, []).append({"passed": bool(passed), "judged": bool(judged)})
    return summarise(sides, pass_k=key["pass_k"] or 1, pooled=pooled_attempts(db, key, leave_out=run_id),
                     cached_baseline=bool(row[5]))


def _store_generated_run(db, suite, run_id: str, tasks: int, *, k: int, seed: int, cached: bool = False,
                         candidate_hash: str = "c" * 64) -> None:
    """A run of `tasks` tasks, k attempts each (some fewer, some unjudged, some on one side only)."""
    rng = random.Random(seed)

    def results(side: str) -> list[dict[str, Any]]:
        out = []
        for t in range(tasks):
            if (side == "baseline" and t % 97 == 5) or (side == "candidate" and t % 89 == 7):
                continue  # a task on one side only
            skill = rng.random()  # how likely this task passes on this side
            attempts = k if t % 53 else max(1, k - 1)  # a few tasks ran fewer attempts
            out.append({"task_id": f"task-{t:06d}", "split": "tuning", "attempt_details": [
                {"attempt": a + 1, "passed": rng.random() < skill, "judged": rng.random() > 0.02,
                 "score": None, "duration_ms": 1, "output": "", "reason": None, "mock": False}
                for a in range(attempts)]})
        return out

    artifact = {"run_id": run_id, "skill_id": "gen-skill", "verdict": "pass", "delta": 0.0,
                "execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "executor": "gen-executor", "pass_k": k,
                "candidate": {"path": "c.md", "sha256": candidate_hash}, "baseline": {"path": "b.md", "sha256": "b" * 64},
                "started_at": f"2026-11-{10 + seed:02d}T09:00:00Z", "finished_at": f"2026-11-{10 + seed:02d}T09:05:00Z",
                "candidate_results": results("candidate"), "baseline_results": results("baseline"),
                **({"baseline_cache": {"hit": True}} if cached else {})}
    store_run(db, suite, artifact, actor="ci")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Four runs of one suite, executor and skill texts (so their flaky counts pool), one with a cached
    baseline, one of another candidate text."""
    tmp_path = tmp_path_factory.mktemp("generated")
    db = open_store(tmp_path / "gen.db")
    suite = load_suite(write_suite(tmp_path / "suite", [contains_task("t0", "q?", ["a"])]))
    _store_generated_run(db, suite, "gen-1", 3000, k=3, seed=1)
    _store_generated_run(db, suite, "gen-2", 3000, k=3, seed=2)
    _store_generated_run(db, suite, "gen-3", 3000, k=3, seed=3, cached=True)
    _store_generated_run(db, suite, "gen-4", 3000, k=1, seed=4, candidate_hash="d" * 64)
    yield db
    db.close()


@pytest.mark.slow
@pytest.mark.parametrize("run_id", ["gen-1", "gen-2", "gen-3", "gen-4"])
def test_sql_figures_equal_the_old_whole_run_computation(generated, run_id):
    new = run_statistics(generated, run_id)
    old = _old_run_statistics(generated, run_id)
    assert new is not None
    assert new.pop("flaky_total") == len(old["flaky"])
    assert new == old
    assert old["flaky"] and old["comparison"]["tasks"] > 2000  # the run is worth comparing: flaky tasks, pairs


def test_a_flaky_limit_keeps_the_first_ones_and_counts_them_all(generated):
    every = run_statistics(generated, "gen-2")
    some = run_statistics(generated, "gen-2", flaky_limit=10)
    assert every is not None and some is not None
    assert some["flaky"] == every["flaky"][:10] and some["flaky_total"] == len(every["flaky"]) > 10


def test_no_such_run_has_no_figures(generated):
    assert run_statistics(generated, "no-such-run") is None


def _python_peak(db, run_id: str) -> int:
    tracemalloc.start()
    try:
        run_statistics(db, run_id, flaky_limit=50)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_memory_of_the_figures_does_not_grow_with_the_run(tmp_path: Path):
    db = open_store(tmp_path / "big.db")
    suite = load_suite(write_suite(tmp_path / "suite", [contains_task("t0", "q?", ["a"])]))
    _store_generated_run(db, suite, "small", 1_000, k=2, seed=1)
    _store_generated_run(db, suite, "large", 20_000, k=2, seed=2)
    small = _python_peak(db, "small")
    large = _python_peak(db, "large")
    figures = run_statistics(db, "large", flaky_limit=50)
    assert figures is not None and figures["comparison"]["tasks"] > 19_000 and figures["flaky_total"] > 50
    # the old computation held every attempt of the run (tens of MB here); the SQL one holds a few rows
    assert large <= 1.2 * small + 64 * 1024, (small, large)
    db.close()
