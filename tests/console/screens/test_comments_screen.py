"""Comments in the console: the thread at the end of an item's detail, `C` adds one through the act, and a
mention shows in the mentioned person's Overview, opening the item."""

import pytest
from textual.widgets import OptionList, TextArea

from gatepost.app import GatepostApp
from gatepost.store.cases import import_case
from gatepost.store.discussion import add_comment, thread
from gatepost.store.kernel import add_actor
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from tests.console_helpers import settle
from tests.store.discussion.test_comments import CASE


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "bruno", "person", ["item.comment"])
    add_actor(db, "dara", "person", [])
    import_case(db, CASE, actor="run-41")
    add_comment(db, "case", "case-0300", "@ana is the tone rule tested?", actor="bruno")
    return store_path, db


async def test_the_thread_shows_and_c_adds_a_comment(store):
    path, db = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item("case-0300")
        await settle(pilot)
        detail = app.screen.query_one(LineDetail)
        assert "Comments (1)" in detail.text("comments-title")
        assert "bruno at " in detail.text("comments") and "@ana is the tone rule tested?" in detail.text("comments")
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one(TextArea).text = "yes, @bruno: see run-52"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        await settle(pilot)
        text = app.screen.query_one(LineDetail).text("comments")
        assert text.index("@ana is the tone rule tested?") < text.index("yes, @bruno: see run-52")
    assert [r["author"] for r in thread(db, "case", "case-0300")] == ["bruno", "ana"]


async def test_a_person_who_only_browses_cannot_comment(store):
    path, db = store
    app = GatepostApp(path, person="dara")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item("case-0300")
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
    assert len(thread(db, "case", "case-0300")) == 1


async def test_a_mention_shows_in_the_overview_and_opens_the_item(store):
    path, _db = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        heading = next(i for i, label in enumerate(labels) if label.startswith("Mentions of you (1"))
        assert "case:case-0300" in labels[heading + 1] and "bruno: @ana is the tone rule tested?" in labels[heading + 1]
        options.highlighted = heading + 1
        options.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen" and app.screen.shown == "case-0300"
