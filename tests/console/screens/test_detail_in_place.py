"""Every deciding screen draws its detail in place, as one LineDetail (issue 15): drawing the same item again
paints no line, and moving to another item repaints only the lines on screen that read differently."""

import pytest

from gatepost.app import GatepostApp
from gatepost.widgets.line_detail import LineDetail
from tests.console_helpers import settle

SCREENS = pytest.mark.parametrize("key", ["2", "4", "5", "6"], ids=["cases", "regressions", "manifests", "proposals"])


@pytest.fixture
def painted(monkeypatch) -> list[tuple[int, int]]:
    """(first row, rows) of every repaint a LineDetail asks for."""
    seen: list[tuple[int, int]] = []
    refresh_lines = LineDetail.refresh_lines

    def counted(self, y_start: int, line_count: int = 1):  # noqa: ANN202
        seen.append((y_start, line_count))
        return refresh_lines(self, y_start, line_count)

    monkeypatch.setattr(LineDetail, "refresh_lines", counted)
    return seen


async def open_screen(pilot, key: str):
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    screen = pilot.app.screen
    detail = screen.query_one(LineDetail)
    assert screen.shown and detail.drawn()
    return screen, detail


@pytest.mark.slow
@SCREENS
async def test_the_same_item_drawn_again_paints_no_line(demo_copy, key, painted):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_screen(pilot, key)
        before = detail.drawn()
        painted.clear()
        screen.show(screen.shown)  # read and drawn again: the same item, nothing changed in the store
        await settle(pilot)
        assert painted == [] and detail.drawn() == before


@pytest.mark.slow
@SCREENS
async def test_moving_to_the_next_item_repaints_only_the_lines_that_differ(demo_copy, key, painted):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_screen(pilot, key)
        first, height = screen.shown, detail.size.height
        before = detail.drawn()[:height]
        painted.clear()
        await pilot.press("down")
        await settle(pilot)
        after = detail.drawn()[:height]
        assert screen.shown != first and painted  # another item: its lines are painted
        rows = {y for start, count in painted for y in range(start, start + count)}
        changed = {y for y in range(height) if before[y:y + 1] != after[y:y + 1]}
        assert changed <= rows  # every line that reads differently is painted: nothing stale stays
        same = set(range(min(len(before), len(after)))) - changed
        assert not same or same - rows  # and a line that reads the same (a title, a decision) is kept


@pytest.mark.slow
@pytest.mark.render_floor  # a fast path of console/render/ (widgets.set_virtual_size)
@SCREENS
async def test_moving_through_items_that_fit_and_items_that_do_not_lays_nothing_out(demo_copy, key, monkeypatch):
    """The detail's scrollbar came and went between an item that fits the pane and one that does not, and each
    time the detail asked Textual to lay out the whole screen (10 layouts in 16 moves on Regressions)."""
    layouts: list[object] = []
    refresh = LineDetail.refresh

    def counted(self, *args, layout: bool = False, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if layout:
            layouts.append(self)
        return refresh(self, *args, layout=layout, **kwargs)

    monkeypatch.setattr(LineDetail, "refresh", counted)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_screen(pilot, key)
        fits = set()
        layouts.clear()
        for i in range(16):
            await pilot.press("down" if i < 8 else "up")
            await settle(pilot)
            fits.add(detail.virtual_size.height <= detail.size.height)
        assert layouts == []
        if key == "4":
            assert fits == {True, False}  # the demo's skills: some fit the pane, some do not


@pytest.mark.slow
@SCREENS
async def test_a_new_item_repaints_its_text_and_not_the_scrollbar_beside_it(demo_copy, key, monkeypatch):
    """ScrollView repaints a line across the widget's whole width, the scrollbar's columns with it: the scrollbar was
    then drawn again on every row of each new item. It repaints itself when the item's height moves its thumb."""
    regions: list[object] = []
    refresh = LineDetail.refresh

    def counted(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        regions.extend(args)
        return refresh(self, *args, **kwargs)

    monkeypatch.setattr(LineDetail, "refresh", counted)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_screen(pilot, key)
        regions.clear()
        await pilot.press("down")
        await settle(pilot)
        text = detail.scrollable_content_region.width
        assert regions and text < detail.size.width  # the item's lines were repainted; a scrollbar is beside them
        assert all(region.right <= text for region in regions), (text, regions)


@pytest.mark.slow
async def test_an_items_lines_drawn_again_are_the_lines_drawn_before(demo_copy):
    """From one item to the next most lines read the same (titles, claims, the decisions): a line drawn before
    comes back as it was drawn (on the pane's colours, after its guides), not made again."""
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_screen(pilot, "2")
        first = list(detail._lines[:detail.size.height])
        for key in ("down", "up"):
            await pilot.press(key)
            await settle(pilot)
        again = detail._lines[:detail.size.height]
        assert [line.text for line in again] == [line.text for line in first]
        boxed = {i for i, line in enumerate(first) if line.text.lstrip().startswith(("╭", "│", "╰"))}
        assert all(a is b for i, (a, b) in enumerate(zip(first, again, strict=True)) if i not in boxed)
