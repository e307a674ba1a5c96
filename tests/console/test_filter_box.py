"""A list's filter is drawn by one FilterBox until it is used: the box shows the same cells as the compact Select it
stands for (in both themes), and a click or Tab puts that Select in its place, which filters the list as before."""

import pytest
from textual.widgets import Input, Select

from gatepost.app import GatepostApp
from gatepost.widgets.filter_box import FilterBox
from tests.console_helpers import settle


def row(app, y: int) -> list[tuple[str, str]]:
    """Row `y` of the screen as `gatepost screenshots` writes it: each segment, its text and its style."""
    strips = app.screen._compositor.render_update(full=True, simplify=False).strips
    return [(text, repr(style)) for strip in strips[y] for text, style, _ in strip]


@pytest.mark.parametrize("theme", ["gatepost-dark", "gatepost-light"])
@pytest.mark.parametrize("keys,size", [("2", (120, 40)), ("3", (120, 40)), ("4", (120, 40)), ("6", (120, 40)),
                                       ("2ff", (80, 24))])  # at 80 columns "waiting on a design review" wraps
async def test_a_filter_box_draws_as_the_select_it_stands_for(demo_copy, keys, size, theme):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=size) as pilot:
        app.theme = theme
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        boxes = list(app.screen.query(FilterBox))
        assert boxes and not app.screen.query(Select)
        y = boxes[0].region.y
        drawn = [row(app, y + i) for i in range(3)]
        for box in boxes:
            await box.open(expand=False)
        app.screen.query_one("PageTable").focus()
        await settle(pilot)
        assert len(app.screen.query(Select)) == len(boxes) and not app.screen.query(FilterBox)
        assert [row(app, y + i) for i in range(3)] == drawn


async def test_a_click_on_a_filter_box_opens_its_select_and_a_choice_filters_the_list(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        assert screen.filters["status"] == "open"
        await pilot.click("#cases-status")
        await settle(pilot)
        select = screen.query_one("#cases-status", Select)
        assert select.expanded and select.has_focus_within and select.value == "open"  # its options focused
        await pilot.press("down", "enter")  # the option after "open"
        await settle(pilot)
        assert screen.filters["status"] == "needs_decision"
        assert "needs a decision" in str(screen.query_one("#cases-title").render())


async def test_tab_onto_a_filter_box_focuses_its_select_and_f_moves_the_box_shown(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("6")
        await settle(pilot)
        screen = app.screen
        await pilot.press("f")
        await settle(pilot)
        box = screen.query_one("#proposals-status", FilterBox)
        assert box.value == screen.filters["status"] and box.value != "waiting"
        assert screen.query_one("#proposals-status").region  # still drawn where it was
        while not list(screen.query("#proposals-status").results(Select)):
            await pilot.press("shift+tab")
            await settle(pilot)
        select = screen.query_one("#proposals-status", Select)
        assert select.has_focus and not select.expanded and select.value == screen.filters["status"]


async def test_a_lists_search_box_is_made_when_the_person_first_searches(demo_copy):
    """Hidden until `/`, the search box is not a widget of the first page; `/` makes it, focused, and it searches."""
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        paged = app.screen.paged
        assert paged.search_box is None and not app.screen.query(Input)
        await pilot.press("slash", *"loop", "enter")
        await settle(pilot)
        assert paged.search_text == "loop" and paged.search_box is not None and paged.search_box.value == "loop"
        assert paged.keys and all("loop" in key or "loop" in app.screen.paged.table.get_row(key)[-1].plain.lower()
                                  for key in paged.keys[:3])
        await pilot.press("slash", "escape")
        await settle(pilot)
        assert paged.search_text == "" and not paged.has_class("searching") and paged.table.has_focus
