"""Change since the last run: the assertions that flipped lead a skill's detail; the assertion × run grid."""

import pytest

from gatepost.store.evaluation import RunSettings
from gatepost.store.kernel import add_actor
from gatepost.store.skills import (
    assertion_changes,
    assertion_grid,
    evaluate,
    import_manifest,
    record_run,
    skill_detail,
)
from tests.conftest import FIXTURES as ALL_FIXTURES
from tests.console_helpers import settle

FIXTURES = ALL_FIXTURES / "reviewer"

MANIFEST = """\
digest:
  min_words: 3
  max_words: 50
  required_patterns: ["Top"]
"""
OUTPUTS = ["Top stories today", "Top", "alpha beta gamma delta", "alpha beta gamma delta"]


@pytest.fixture
def store(db):
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    import_manifest(db, "evals.yaml", actor="bruno", text=MANIFEST)
    return db


def run(db, output: str, day: int) -> None:
    record_run(db, "digest", output, actor="run-52", at=f"2026-05-{day:02d}T08:00:00Z")
    evaluate(db, actor="run-52", skill="digest")


def test_nothing_to_compare_before_two_evals(store):
    assert assertion_changes(store, "digest")["changes"] == []
    run(store, OUTPUTS[0], 1)
    assert assertion_changes(store, "digest")["changes"] == []


def test_flipped_assertions_lead_newly_failing_first(store):
    run(store, OUTPUTS[1], 1)  # min_words fails, the pattern is there
    run(store, OUTPUTS[2], 2)  # min_words passes, the pattern is gone; max_words passes both times
    found = assertion_changes(store, "digest")
    assert [(c["assertion"], c["change"]) for c in found["changes"]] == [
        ("required_patterns", "now failing"), ("min_words", "now passing")]
    first = found["changes"][0]
    assert first["before"] is True and first["after"] is False and "Top" in first["message"]
    assert found["before"]["run_id"] != found["after"]["run_id"]


def test_an_unchanged_run_has_no_changes(store):
    run(store, OUTPUTS[2], 1)
    run(store, OUTPUTS[3], 2)
    assert assertion_changes(store, "digest")["changes"] == []


def test_assertions_added_by_a_new_manifest_version_are_new(store):
    run(store, OUTPUTS[0], 1)
    import_manifest(store, "evals.yaml", actor="bruno",
                    text=MANIFEST + '  forbidden_patterns: ["stories"]\n')
    evaluate(store, actor="run-52", skill="digest")  # the same run again, under v2
    changes = assertion_changes(store, "digest")["changes"]
    assert [(c["assertion"], c["change"], c["after"]) for c in changes] == [("forbidden_patterns", "new", False)]


def test_grid_of_assertions_over_runs_failing_now_on_top(store):
    for day, output in enumerate(OUTPUTS, start=1):
        run(store, output, day)
    grid = assertion_grid(store, "digest", runs=3)
    assert len(grid["evals"]) == 3  # the newest three, oldest first
    rows = {r["assertion"]: r["marks"] for r in grid["rows"]}
    assert rows == {"required_patterns": [True, False, False], "min_words": [False, True, True],
                    "max_words": [True, True, True]}
    assert grid["rows"][0]["assertion"] == "required_patterns"  # failing in the newest run


def test_detail_carries_the_changes_and_grid(store):
    run(store, OUTPUTS[1], 1)
    run(store, OUTPUTS[2], 2)
    detail = skill_detail(store, "digest")
    assert [c["assertion"] for c in detail["changes"]["changes"]] == ["required_patterns", "min_words"]
    assert len(detail["grid"]["evals"]) == 2


async def test_regressions_detail_leads_with_the_changes_and_shows_the_grid(store, store_path):
    from gatepost.app import GatepostApp
    from gatepost.widgets.line_detail import LineDetail

    run(store, OUTPUTS[1], 1)
    run(store, OUTPUTS[2], 2)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        screen = app.screen
        assert screen.shown == "digest"
        detail = screen.query_one(LineDetail)
        changes = detail.text("changes")
        lines = changes.splitlines()
        assert lines[0].startswith("Changed since the previous eval (digest-0001 → digest-0002)")
        assert lines[1].startswith("✔→✘ required_patterns now failing")
        assert lines[2].startswith("✘→✔ min_words now passing")
        grid = detail.text("grid").splitlines()
        assert [line.split() for line in grid[1:]] == [["required_patterns", "✔✘"], ["max_words", "✔✔"],
                                                        ["min_words", "✘✔"]]
        drawn = detail.drawn()
        assert drawn.index(lines[0]) < drawn.index(detail.text("failing").splitlines()[0])  # changes lead the detail


# --- evaluation runs: the tasks that changed against the previous run of the same suite lead ------------
def _suite(tmp_path, name="suite", skill_id="demo-skill"):
    from gatepost.store.evaluation import load_suite
    from tests.evaluator_helpers import contains_task, write_suite

    return load_suite(write_suite(tmp_path / name, [contains_task(t, f"task {t}?", [w]) for t, w in
                                                    (("a", "alpha"), ("b", "bravo"), ("c", "charlie"),
                                                     ("d", "delta"))], skill_id=skill_id))


def _evaluate(db, suite, candidate: str, day: int):
    from gatepost.store.evaluation import CommandExecutor, evaluate
    from tests.evaluator_helpers import executor

    return evaluate(db, suite, candidate_text=candidate, baseline_text="alpha", split="all",
                    settings=RunSettings(executor=CommandExecutor(executor("follow"))),
                    at=f"2026-11-{day:02d}T09:00:00.000000Z")["run_id"]


def test_tasks_that_changed_since_the_previous_run_lead_the_table(db, tmp_path):
    from gatepost.store.evaluation import previous_run, run_tasks

    suite = _suite(tmp_path)
    first = _evaluate(db, suite, "alpha bravo delta", 1)
    other = _evaluate(db, _suite(tmp_path, "other", skill_id="other-skill"), "charlie", 2)  # another suite
    second = _evaluate(db, suite, "alpha charlie delta", 3)
    assert previous_run(db, first) is None
    assert previous_run(db, second)["id"] == first and previous_run(db, other) is None
    rows = run_tasks(db, second)
    assert [r["task_id"] for r in rows] == ["b", "c", "d", "a"]  # changed (b, c), then differs (d), then the rest
    changed = {r["task_id"]: (r["changed_vs_previous"], r["previous_passed"]) for r in rows}
    assert changed == {"a": (False, True), "b": (True, True), "c": (True, False), "d": (False, True)}
    assert all(r["previous_run"] == first for r in rows)
    assert not any(r["changed_vs_previous"] for r in run_tasks(db, first))  # nothing to compare with


def test_pass_at_k_attempts_collapse_into_counts_and_expand(db, tmp_path, monkeypatch):
    import sys

    from gatepost.store.evaluation import (
        CommandExecutor,
        evaluate,
        load_suite,
        run_tasks,
        task_attempts,
    )
    from tests.evaluator_helpers import contains_task, write_suite

    monkeypatch.setenv("SEQUENCE_DIR", str(tmp_path))
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("t", "the word?", ["alpha"],
                                                                  timeout_seconds=0.5)]))
    command = f"{sys.executable} {FIXTURES / 'sequence.py'} hang,exit3,wrong,right"
    run_id = evaluate(db, suite, candidate_text="alpha", baseline_text="nothing",
                      settings=RunSettings(executor=CommandExecutor(command), pass_k=4))["run_id"]
    [row] = run_tasks(db, run_id)
    assert row["candidate"]["attempts_line"] == "4 attempts: 1 pass, 1 timeout, 1 exit 3, 1 fail"
    assert row["candidate"]["outcomes"] == {"pass": 1, "timeout": 1, "exit 3": 1, "fail": 1}
    assert row["baseline"]["attempts_line"] == "4 attempts: 2 fail, 1 timeout, 1 exit 3"  # most frequent first
    attempts = task_attempts(db, run_id, "t")["candidate"]
    assert [a["outcome"] for a in attempts] == ["timeout", "exit 3", "fail", "pass"]
    assert "timed out after 0.5 s" in attempts[0]["reason"] and attempts[3]["score"] == 1.0
    assert all(a["duration_ms"] is not None for a in attempts)


async def test_results_screen_leads_with_the_changed_tasks(db, store_path, tmp_path):
    from gatepost.app import GatepostApp
    from gatepost.widgets.paged_list import PagedList

    suite = _suite(tmp_path)
    first = _evaluate(db, suite, "alpha bravo delta", 1)
    second = _evaluate(db, suite, "alpha charlie delta", 3)
    app = GatepostApp(store_path, person="dara")
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        app.screen.open_item(second)
        await settle(pilot)
        tasks = app.screen.query_one("#run-tasks", PagedList)
        assert tasks.keys == ["b", "c", "d", "a"]
        marks = [str(tasks.table.get_row(k)[0]) for k in tasks.keys]
        assert marks == ["Δ", "Δ≠", "≠", " "]
        head = str(app.screen.query_one("#run-head").render())
        assert f"vs previous run {first}" in head and "Δ 2 tasks changed (1 now pass, 1 now fail)" in head
        app.screen.open_item(first)
        await settle(pilot)
        assert "first run of this suite and skill" in str(app.screen.query_one("#run-head").render())
