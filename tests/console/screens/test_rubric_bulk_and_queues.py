"""The console's rubric beyond one case: one bulk decision on marked cases asks their protocol's rubric once (and
names the marked items it does not apply to; marked items of different rubrics are refused with the reason); a
queue's own rubric (proposals here) is asked by its decision dialog, single or bulk, and shown in the detail;
two runs of one suite marked on Results, `P` compares a task's output in both and records the preference."""

from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from gatepost.app import GatepostApp
from gatepost.store import batch, rubrics
from gatepost.store.cases import case_view, get_case
from gatepost.store.kernel import add_actor
from gatepost.store.preferences import pairwise
from gatepost.store.proposals import get_proposal
from gatepost.store.protocol import parse_rubric
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.pairwise_view import PairwiseView
from gatepost.widgets.rubric_dialog import RubricDialog
from tests.console.screens.test_bulk_marks import _mark
from tests.console_helpers import settle
from tests.store.preferences.test_rubrics_and_preferences import run_of
from tests.store.preferences.test_rubrics_and_preferences import store as rubric_store  # noqa: F401
from tests.store.rubrics.test_queue_rubrics import RUBRIC, proposal


@pytest.fixture
def here(rubric_store, store_path: Path):  # noqa: F811
    return store_path, rubric_store


async def _answer(pilot, dialog: RubricDialog, answers: dict[str, str], note: str) -> None:
    for key, value in answers.items():
        dialog.query_one(f"#rubric-{key}", Input).value = value
    dialog.query_one(TextArea).text = note
    await pilot.press("ctrl+s")
    await settle(pilot)
    await settle(pilot)


async def test_one_bulk_decision_asks_the_shared_rubric_once_and_names_the_items_it_does_not_apply_to(here):
    path, db = here
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await _mark(pilot, ["case-2", "case-1"])
        await pilot.press("i")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RubricDialog) and "2 marked cases" in dialog.title_text
        assert [q.key for q in dialog.questions] == ["read_outputs", "risk"]
        assert "does not apply to case-1" in str(dialog.query_one("#rubric-aside").render())
        await _answer(pilot, dialog, {"read_outputs": "no", "risk": "3"}, "the suite is being rebuilt")
        assert not isinstance(app.screen, NoteDialog)
    assert get_case(db, "case-2")["outcome"] == get_case(db, "case-1")["outcome"] == "inconclusive"
    assert case_view(db, "case-2")["decisions"][0]["rubric"] == {"read_outputs": "no", "risk": 3}
    assert case_view(db, "case-1")["decisions"][0]["rubric"] is None


async def test_marked_items_of_different_rubrics_are_refused_with_the_reason(here, monkeypatch):
    path, db = here
    other = parse_rubric([{"key": "ran_it", "question": "Ran it?"}], "other.yaml")
    real = batch.rubric_of
    # a second protocol revision with its own rubric: case-1 asks it (the shipped protocols carry one rubric)
    monkeypatch.setattr(batch, "rubric_of", lambda d, s, n, k: other if k == "case-1" else real(d, s, n, k))
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await _mark(pilot, ["case-2", "case-1"])
        await pilot.press("i")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        said = [str(n.message) for n in app._notifications]
        assert any("the marked items ask different rubrics (case-2: read_outputs, risk; case-1: ran_it)" in m
                   for m in said), said
    assert get_case(db, "case-2")["status"] == get_case(db, "case-1")["status"] == "open"


async def test_the_proposals_queue_rubric_is_asked_single_and_bulk_and_shown_in_the_detail(here):
    path, db = here
    add_actor(db, "root", "person", ["store.admin"])
    add_actor(db, "pia", "person", ["proposal.review"])
    pids = [proposal(db, n) for n in range(3)]
    rubrics.set_queue_rubric(db, "proposal", RUBRIC, actor="root")
    app = GatepostApp(path, person="pia")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("6")
        await settle(pilot)
        app.screen.open_item(pids[0])
        await settle(pilot)
        await app.screen.detail_settled.wait()
        assert "every decision answers read_diff, confidence" in app.screen.query_one(LineDetail).text("rubric")
        await pilot.press("d")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RubricDialog) and [q.key for q in dialog.questions] == ["read_diff", "confidence"]
        await _answer(pilot, dialog, {"read_diff": "yes", "confidence": "2"}, "duplicates the runbook")
        assert get_proposal(db, pids[0])["status"] == "declined"
        app.screen.open_item(pids[0])
        await settle(pilot)
        await app.screen.detail_settled.wait()
        assert "declined by pia" in app.screen.query_one(LineDetail).text("rubric")
        assert "read_diff yes · confidence 2/3" in app.screen.query_one(LineDetail).text("rubric")
        await _mark(pilot, pids[1:])
        await pilot.press("d")
        await settle(pilot)
        bulk = app.screen
        assert isinstance(bulk, RubricDialog) and not bulk.query("#rubric-aside")  # every marked item asks it
        await _answer(pilot, bulk, {"read_diff": "no", "confidence": "1"}, "out of scope")
    assert [get_proposal(db, p)["status"] for p in pids] == ["declined"] * 3
    assert [a["answers"] for p in pids[1:] for a in rubrics.answers_on(db, "proposal", p)] == [
        {"read_diff": "no", "confidence": 1}] * 2


async def test_two_marked_runs_of_one_suite_compare_a_tasks_output_in_both(here):
    path, db = here
    older, newer = run_of(db, "case-1"), run_of(db, None)
    app = GatepostApp(path, person="chen")
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        runs = app.screen.query_one("#results-list", PagedList)
        for run in (older, newer):  # the first marked is the baseline
            assert runs.move_to_key(run)
            await settle(pilot)
            await pilot.press("space")
            await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert app.screen.query_one("#run-tasks", PagedList).move_to_key("t1")
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        view = app.screen
        assert isinstance(view, PairwiseView)
        await settle(pilot)
        assert f"t1 in run {newer} against run {older}" in str(view.query_one("#pairwise-title").render())
        text = view.text()
        assert f"Run {newer}" in text and f"Run {older}" in text
        assert "across two runs it is no case's evidence" in text
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog) and f"run {older}'s output" in app.screen.title_text
        app.screen.query_one(TextArea).text = "the older answer is plainer"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert app.screen is view
        await settle(pilot)
        assert f"chen prefers run {older}'s output" in view.text()
    made = pairwise(db, newer, "t1", against=older)["preferences"]
    assert [(p["person"], p["choice"], p["against_run_id"], p["counted"]) for p in made] == [
        ("chen", "baseline", older, False)]
