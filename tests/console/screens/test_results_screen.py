"""The Results screen, headless: runs with pass rates and flags, tasks candidate vs baseline, outputs and diff."""

import shutil
from pathlib import Path

import pytest
from textual.widgets import Static

from gatepost.app import GatepostApp
from gatepost.store.evaluation import (
    CommandExecutor,
    MockExecutor,
    RunSettings,
    evaluate,
    load_suite,
)
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle
from tests.evaluator_helpers import contains_task, executor, write_suite


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """One store with three runs, built once; each test gets its own copy."""
    folder = tmp_path_factory.mktemp("results")
    path = folder / "template.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["proposal.review"])
    suite = load_suite(write_suite(folder / "suite", [
        contains_task("same", "word zero?", ["alpha"]),
        contains_task("gained", "word one?", ["[bold]bravo[/bold]"]),
        contains_task("held", "word two?", ["golf"], split="heldout"),
    ], skill_id="tiers-skill"))
    follow = CommandExecutor(executor("follow"))
    runs = {
        "good": evaluate(db, suite, candidate_text="alpha\n[bold]bravo[/bold]\n\x1b[31mred\x1b[0m", baseline_text="alpha",
                         settings=RunSettings(executor=follow), split="tuning", at="2026-11-20T09:00:00.000000Z")["run_id"],
        "bad": evaluate(db, suite, candidate_text="", baseline_text="alpha golf", settings=RunSettings(executor=follow),
                        at="2026-11-21T09:00:00.000000Z")["run_id"],
        "mock": evaluate(db, suite, candidate_text="golf", settings=RunSettings(executor=MockExecutor()), split="heldout",
                         at="2026-11-22T09:00:00.000000Z")["run_id"],
    }
    db.close()
    return path, runs


@pytest.fixture
def store(template, store_path):
    path, runs = template
    shutil.copyfile(path, store_path)
    return store_path, runs


def rendered(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_results(pilot):
    await pilot.press("3")
    await settle(pilot)
    return pilot.app.screen


async def test_runs_list_newest_first_with_rates_verdicts_and_flags(store):
    path, runs = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_results(pilot)
        assert type(screen).__name__ == "ResultsScreen"
        paged = screen.query_one("#results-list", PagedList)
        assert paged.total == 3 and paged.keys == [runs["mock"], runs["bad"], runs["good"]]
        cells = [str(c) for c in paged.table.get_row(runs["mock"])]
        assert cells[0] == runs["mock"]  # the run's id: runs with the same figures told apart
        assert "mock" in cells[7] and "weak" in cells[7] and cells[3] == "pass"
        bad = [str(c) for c in paged.table.get_row(runs["bad"])]
        assert bad[3] == "fail" and bad[6].startswith("-")
        head = rendered(app, "#run-head")
        assert "mock: results from the built-in mock" in head and "weak baseline" in head


async def test_a_run_shows_differing_tasks_first_and_outputs_side_by_side_literally(store):
    path, runs = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_results(pilot)
        screen.open_item(runs["good"])
        await settle(pilot)
        head = rendered(app, "#run-head")
        assert "candidate 100%" in head and "baseline 50%" in head and "delta +50 pp" in head  # issue 15 item 8: percentage points, not +0.5
        tasks = screen.query_one("#run-tasks", PagedList)
        assert tasks.keys == ["gained", "same"]
        row = [str(c) for c in tasks.table.get_row("gained")]
        assert row[0] == "≠" and row[3].startswith("pass") and row[4].startswith("FAIL")
        await pilot.press("enter")  # into the tasks
        await settle(pilot)
        assert tasks.table.has_focus
        candidate = rendered(app, "#out-candidate")
        baseline = rendered(app, "#out-baseline")
        assert "[bold]bravo[/bold]" in candidate  # markup in data stays text
        assert "\x1b" not in candidate and "red" in candidate  # escapes stripped
        assert "missing: '[bold]bravo[/bold]'" in baseline  # the judge's reason, literally
        assert baseline.rstrip().endswith("alpha") and "\n[bold]bravo[/bold]" not in baseline
        diff = rendered(app, "#out-diff")
        assert "+[bold]bravo[/bold]" in diff
        await pilot.press("down")
        await settle(pilot)
        assert screen.task_id == "same"
        assert rendered(app, "#out-candidate").count("alpha") >= 1


async def test_verdict_filter_search_and_unknown_person_can_browse(store):
    path, runs = store
    app = GatepostApp(path, person="mallory")
    async with app.run_test(size=(180, 50)) as pilot:
        await settle(pilot)
        app.open_list("results", verdict="fail")  # the overview's way: before the screen is composed
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one("#results-list", PagedList)
        assert paged.keys == [runs["bad"]]
        await pilot.press("v")  # cycles fail -> any
        await settle(pilot)
        assert paged.total == 3
        paged.set_search(runs["good"][:8])
        await settle(pilot)
        assert paged.keys == [runs["good"]]


async def test_empty_store_says_how_to_get_runs(db, store_path):
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_results(pilot)
        status = str(screen.query_one("#results-list .paged-status", Static).render())
        assert "gatepost suite run" in status
        assert "No run selected" in rendered(app, "#run-head")


async def test_the_runs_of_a_case_evaluation_lead_to_the_case(db, store_path, tmp_path: Path):
    from gatepost.store.cases import import_case
    from gatepost.store.flows import evaluate_case

    add_actor(db, "ana", "person", ["case.close"])
    import_case(db, {"protocol": "eval.gated_change/1", "id": "case-0300", "title": "Tiers skill",
                     "author": "run-41", "candidate": {"path": "skills/tiers.md", "content": "word alpha",
                                                       "basis": {"baseline": "b", "question_set": "q",
                                                                 "data_revision": "d", "design": "d1"}},
                     "independent": {"different_agent_run": ["run-52"]}}, actor="ana")
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("t", "which word?", ["alpha"]),
                                                    contains_task("h", "which word?", ["alpha"], split="heldout")]))
    report = evaluate_case(db, "case-0300", suite, settings=RunSettings(executor=MockExecutor()), producer="run-52",
                           surface=["skills/*"])
    assert [r["purpose"] for r in report["runs"]] == ["tuning-1", "tuning-2", "heldout"]
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_results(pilot)
        paged = screen.query_one("#results-list", PagedList)
        assert paged.total == 3
        assert "case-0300" in str(paged.table.get_row(paged.keys[0])[7])
        await pilot.press("c")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen" and app.screen.shown == "case-0300"


async def test_a_huge_output_is_shown_in_part_and_says_so(db, store_path, tmp_path: Path):
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("big", "say a lot", ["never"], timeout_seconds=20)]))
    artifact = evaluate(db, suite, candidate_text="x", settings=RunSettings(executor=CommandExecutor(executor("huge"))))
    assert "truncated" in artifact["candidate_results"][0]["reason"]
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        await open_results(pilot)
        candidate = rendered(app, "#out-candidate")
        assert "output exceeded 1,048,576 bytes" in candidate
        assert "showing the first 20,000 of 1,048,576 characters" in candidate
