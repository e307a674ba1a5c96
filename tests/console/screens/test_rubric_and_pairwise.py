"""The console asks a case's rubric before the note and decides with the answers; `P` on a task of Results shows
its two outputs side by side and records the person's preference through the act."""

from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from gatepost.app import GatepostApp
from gatepost.store.cases import case_view, get_case
from gatepost.store.preferences import preferences_of
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.pairwise_view import PairwiseView
from gatepost.widgets.rubric_dialog import RubricDialog
from tests.console_helpers import settle
from tests.store.preferences.test_rubrics_and_preferences import run_of
from tests.store.preferences.test_rubrics_and_preferences import store as rubric_store  # noqa: F401


@pytest.fixture
def here(rubric_store, store_path: Path):  # noqa: F811
    return store_path, rubric_store


async def test_the_decision_dialog_asks_the_rubric_before_the_note(here):
    path, db = here
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item("case-2")
        await settle(pilot)
        assert "rubric: every decision answers read_outputs, risk" in app.screen.query_one(LineDetail).text("history")
        await pilot.press("i")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RubricDialog)
        assert app.focused is dialog.query_one("#rubric-read_outputs", Input)  # the questions come first
        dialog.query_one("#rubric-read_outputs", Input).value = "yes"
        dialog.query_one("#rubric-risk", Input).value = "9"
        dialog.query_one(TextArea).text = "the runs settle nothing"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is dialog and "risk expects 1..5, got '9'" in str(dialog.query_one("#note-error").render())
        dialog.query_one("#rubric-risk", Input).value = "4"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert not isinstance(app.screen, RubricDialog)
        app.screen.open_item("case-2")  # closed now: the open cases' list moved on
        await settle(pilot)
        assert "rubric: read_outputs yes · risk 4/5" in app.screen.query_one(LineDetail).text("history")
    assert get_case(db, "case-2")["outcome"] == "inconclusive"
    assert case_view(db, "case-2")["decisions"][0]["rubric"] == {"read_outputs": "yes", "risk": 4}


async def test_a_protocol_without_a_rubric_asks_only_the_note(here):
    path, _db = here
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item("case-1")
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog) and not isinstance(app.screen, RubricDialog)


async def _open_pairwise(pilot, app, run: str) -> PairwiseView:
    await pilot.press("3")
    await settle(pilot)
    runs = app.screen.query_one("#results-list", PagedList)
    assert runs.move_to_key(run)
    await settle(pilot)
    await pilot.press("t")
    await settle(pilot)
    tasks = app.screen.query_one("#run-tasks", PagedList)
    assert tasks.move_to_key("t1")
    await settle(pilot)
    await pilot.press("P")
    await settle(pilot)
    view = app.screen
    assert isinstance(view, PairwiseView)
    await settle(pilot)
    return view


async def test_p_shows_both_outputs_and_records_a_preference_that_counts(here):
    path, db = here
    run = run_of(db, "case-2")
    app = GatepostApp(path, person="chen")
    async with app.run_test(size=(180, 50)) as pilot:
        view = await _open_pairwise(pilot, app, run)
        text = view.text()
        assert "counts as preference evidence on case case-2" in text
        assert "Candidate" in text and "Baseline" in text and "No preference yet." in text
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one(TextArea).text = "names the word"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert app.screen is view
        await settle(pilot)
        assert "chen prefers candidate  counts as evidence" in view.text()
    made = preferences_of(db, run, "t1")
    assert [(p["person"], p["choice"], p["note"], p["counted"]) for p in made] == [
        ("chen", "candidate", "names the word", True)]
    assert get_case(db, "case-2")["claims"]["people.prefer_candidate"] == "TRUE"


async def test_a_preference_on_a_run_without_a_case_is_said_to_count_for_nothing(here):
    path, db = here
    run = run_of(db, None)
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        view = await _open_pairwise(pilot, app, run)
        assert "recorded and counts for nothing: the run belongs to no case" in view.text()
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
    assert [(p["choice"], p["counted"]) for p in preferences_of(db, run)] == [("tie", False)]


async def test_a_person_who_only_browses_cannot_prefer(here):
    path, db = here
    app = GatepostApp(path, person="dara")
    async with app.run_test(size=(180, 50)) as pilot:
        view = await _open_pairwise(pilot, app, run_of(db, "case-2"))
        await pilot.press("c")
        await settle(pilot)
        assert app.screen is view
    assert preferences_of(db, run_of(db, "case-2")) == []
