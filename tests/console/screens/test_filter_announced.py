"""A list's filter never changes unsaid: `w`, a palette jump and `c` say the new filter in the list's title and a
toast; saving an edit keeps the filter the new draft is on (it reset Manifests to every status); the clear key
empties the search box and the search, and leaves the other filters."""

import re

from textual.widgets import Input, TextArea

from gatepost.app import GatepostApp
from tests.console_helpers import settle


def toasts(app, title: str = "Filter changed") -> list[str]:
    return [n.message for n in app._notifications if n.title == title]


def title_of(screen) -> str:
    return str(screen.query_one(f"#{screen.NAME}-title").render())


async def cases_closed(app, pilot):
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    screen = app.screen
    screen.set_filters({"status": "closed"}, announce=False)  # the person's own choice (f): not announced
    await settle(pilot)
    assert not toasts(app) and "closed" in title_of(screen)
    return screen


async def test_w_says_the_queue_s_filter(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await cases_closed(app, pilot)
        await pilot.press("w")
        await settle(pilot)
        assert screen.filters["status"] == "needs_decision"
        assert any("needs a decision" in t for t in toasts(app))
        assert "needs a decision" in title_of(screen)


async def test_a_palette_jump_says_the_filter_it_cleared(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await cases_closed(app, pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"case-0001")
        await settle(pilot)
        await pilot.pause(0.3)  # the palette searches as it is typed, in its own worker
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and screen.shown == "case-0001" and screen.paged.current_key == "case-0001"
        assert screen.filters["status"] is None
        assert any("to show case-0001" in t for t in toasts(app))
        assert "any status" in title_of(screen)


async def test_c_says_the_filter_it_cleared(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        cases = app.screen
        assert cases.filters["status"] == "open"  # a case proposed to a person is closed: not on it
        await pilot.press("6")
        await settle(pilot)
        proposals = app.screen
        key = next(k for k in proposals.paged.keys if k.startswith("case:"))
        proposals.paged.move_to_key(key)
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        case_id = key.removeprefix("case:")
        assert app.screen is cases and cases.shown == case_id and cases.paged.current_key == case_id
        assert any(f"to show {case_id}" in t for t in toasts(app))
        assert "any status" in title_of(cases)


async def test_saving_an_edit_keeps_the_filter_and_shows_the_new_draft(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        screen = app.screen
        assert screen.filters["status"] == "pending"
        await pilot.press("down")  # the first pending draft is held by a colleague
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        area = app.screen.query_one(TextArea)
        area.load_text(re.sub(r"min_words: (\d+)", lambda m: f"min_words: {int(m.group(1)) + 1}", area.text, count=1))
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen
        [saved] = [n.message for n in app._notifications if n.title == "Decided"]
        new = re.search(r"Saved (draft-\d+)", saved).group(1)
        assert screen.filters["status"] == "pending" and "pending" in title_of(screen)  # it read "every status"
        assert not toasts(app)
        assert screen.shown == new and screen.paged.current_key == new


async def test_the_clear_key_empties_the_box_and_the_search_and_keeps_the_filters(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await cases_closed(app, pilot)
        await pilot.press("slash")
        await pilot.press(*"Lower", "enter")
        await settle(pilot)
        assert screen.paged.search_text == "Lower" and "'Lower'" in title_of(screen)
        await pilot.press("backspace")
        await settle(pilot)
        box = screen.paged.query_one(Input)
        assert box.value == "" and screen.paged.search_text == ""
        assert screen.filters["status"] == "closed" and "Lower" not in title_of(screen)
        await pilot.press("slash")  # the box opens empty, not with the old text
        await settle(pilot)
        assert box.value == ""


async def test_a_jump_to_a_run_the_verdict_filter_hides_says_so(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        runs = screen.query_one("#results-list")
        verdict = next(i for i, c in enumerate(runs.columns) if c.label == "verdict")
        passed = next(k for k in runs.keys if runs._cells[runs.keys.index(k)][verdict].plain == "pass")
        await pilot.press("v", "v")  # the person's own change: fail only, not announced
        await settle(pilot)
        assert screen.verdict == "fail" and passed not in runs.keys and not toasts(app)
        app.open_item("results", passed)  # what the palette does
        await settle(pilot)
        assert screen.verdict is None and runs.current_key == passed
        assert any(f"to show {passed}" in t for t in toasts(app))
