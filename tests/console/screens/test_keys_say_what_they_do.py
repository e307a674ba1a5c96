"""Keys that do what the screen says: Home and End move the list, help lists only keys that work there, `/`
only where there is a list, the clear key clears the search alone (and its box), a filter the person did not
set is announced, the queue's position moves on with skips, and a new item is read from its top."""

import re

from textual.widgets import Input

from gatepost.app import GatepostApp
from gatepost.screens.help import HelpScreen
from gatepost.screenshots import settle
from gatepost.widgets.filter_box import FilterBox
from gatepost.widgets.nav_bar import NavBar
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QueueBar


async def _at(pilot, key: str):
    await pilot.press(key)
    await settle(pilot)
    return pilot.app.screen


async def test_home_and_end_move_the_list_and_help_lists_only_what_works(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _at(pilot, "2")
        paged = screen.query_one(PagedList)
        await pilot.press("end")
        await settle(pilot)
        assert paged.table.cursor_row == len(paged.keys) - 1
        await pilot.press("home")
        await settle(pilot)
        assert paged.table.cursor_row == 0
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        keys = {key for key, _label, _on in app.screen.rows}
        labels = {label for _key, label, _on in app.screen.rows}
        assert "First row" in labels and "Last row" in labels
        assert not {"←", "→", "left", "right"} & keys
        assert "Page Left" not in labels and "Cursor right" not in labels


async def test_slash_is_not_offered_where_there_is_nothing_to_search(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        overview = await _at(pilot, "1")
        assert overview.check_action("search", ()) is False
        await pilot.press("question_mark")
        await settle(pilot)
        labels = {label for _key, label, _on in app.screen.rows}
        assert "Search" not in labels
        assert not {"Scroll Left", "Scroll Right", "Page Left", "Page Right"} & labels  # nothing sideways here
        await pilot.press("escape")
        await settle(pilot)
        cases = await _at(pilot, "2")
        assert cases.check_action("search", ()) is True


async def test_the_clear_key_clears_the_search_alone_and_empties_its_box(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _at(pilot, "6")
        await pilot.press("f")  # the next status: the person's own choice, kept
        await settle(pilot)
        status = screen.filters["status"]
        assert status and status != "waiting"
        await pilot.press("slash")
        await pilot.press(*"case")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.paged.search_text == "case"
        await pilot.press("backspace")
        await settle(pilot)
        assert screen.paged.search_text == ""
        assert screen.query_one(PagedList).query_one(Input).value == ""
        assert screen.filters["status"] == status  # the status filter stays
        assert screen.query_one("#proposals-status", FilterBox).value == status


async def test_a_filter_the_person_did_not_set_is_announced(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _at(pilot, "2")
        await pilot.press("w")  # the queue sets its own filter: said, and in the title
        await settle(pilot)
        said = [n.message for n in app._notifications if n.title == "Filter changed"]
        assert said and "needs a decision" in said[-1]
        assert "needs a decision" in str(screen.query_one("#cases-title").render())
        await pilot.press("x")
        await pilot.press("f")  # the person's own: no toast
        await settle(pilot)
        assert len([n for n in app._notifications if n.title == "Filter changed"]) == len(said)


async def test_the_queue_position_moves_on_with_each_skip(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _at(pilot, "2")
        await pilot.press("w")
        await settle(pilot)

        def position() -> tuple[int, int]:
            found = re.search(r"(\d+) of (\d+)", str(screen.query_one(QueueBar).render()))
            assert found, str(screen.query_one(QueueBar).render())
            return int(found[1]), int(found[2])

        first, total = position()
        assert first == 1 and total >= 3
        for step in (2, 3):
            await pilot.press("s")
            await settle(pilot)
            assert position() == (step, total)


async def test_a_new_item_is_shown_from_its_top(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await _at(pilot, "4")
        await screen.detail_settled.wait()
        lines = screen.lines
        lines.scroll_to(0, 12, animate=False, immediate=True)
        await settle(pilot)
        assert lines.scroll_offset.y > 0
        await pilot.press("down")
        await settle(pilot)
        await screen.detail_settled.wait()
        await settle(pilot)
        assert lines.scroll_offset.y == 0


async def _help_labels(pilot) -> set[str]:
    await pilot.press("question_mark")
    await settle(pilot)
    assert isinstance(pilot.app.screen, HelpScreen)
    labels = {label for _key, label, _on in pilot.app.screen.rows}
    await pilot.press("escape")
    await settle(pilot)
    return labels


async def test_help_on_every_screen_lists_only_keys_that_do_something_there(demo_copy):
    """Sideways keys mean nothing for row lists, `/` only where there is a list, and the queue's skip and stop
    only while the queue is worked (outside it `x` did nothing and `s` only said to press `w`)."""
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        for key in "1234567":
            screen = await _at(pilot, key)
            labels = await _help_labels(pilot)
            where = type(screen).__name__
            assert not {"Scroll Left", "Scroll Right", "Page Left", "Page Right", "Cursor right",
                        "Cursor left"} & labels, where
            assert ("Search" in labels) == bool(screen.check_action("search", ())), where
            nav = str(screen.query_one(NavBar).render())  # the bar naming the screens says `/ search` alike
            assert ("search" in nav) == bool(screen.check_action("search", ())), (where, nav)
            assert not {"Skip", "Stop queue"} & labels, where  # no queue worked
        await _at(pilot, "2")
        await pilot.press("w")
        await settle(pilot)
        assert {"Skip", "Stop queue"} <= await _help_labels(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert not {"Skip", "Stop queue"} & await _help_labels(pilot)
