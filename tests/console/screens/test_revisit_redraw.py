"""A screen shown again is drawn from what its widgets already rendered: not restyled (which empties every
DataTable's rendered rows), not laid out at the same size, and not held back like a screen being built; and what a
screen's first page made is left out of Python's full collections while the app runs (they paused it 100-400 ms)."""

import gc

import pytest

from gatepost.app import GatepostApp
from gatepost.render import YOUNG_OBJECTS
from tests.console_helpers import settle

# checks a fast path of console/render/: skipped when the console runs plain
pytestmark = pytest.mark.render_floor


async def test_a_screen_shown_again_is_not_restyled_laid_out_or_held_back(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        cases = app.screen
        rows = list(cases.paged.keys)
        await pilot.press("1")
        await settle(pilot)
        restyled: list[str] = []
        laid_out: list[object] = []
        table, refresh_layout = cases.paged.table, cases._refresh_layout
        notify = table.notify_style_update
        table.notify_style_update = lambda: (restyled.append("table"), notify())  # type: ignore[method-assign]
        cases._refresh_layout = lambda *a, **k: (laid_out.append(a), refresh_layout(*a, **k))  # type: ignore[method-assign]
        app.switch_mode("cases")
        assert not app._batch_count  # drawn at once: nothing to hide, it was built before
        await settle(pilot)
        assert app.screen is cases and cases.paged.keys == rows and cases.shown
        assert restyled == [] and laid_out == []


async def test_a_screens_first_page_is_left_out_of_full_collections_until_the_app_ends(demo_copy):
    gc.unfreeze()
    before = gc.get_threshold()
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert gc.get_freeze_count() > 0  # a full collection no longer walks the widgets and rows it holds
        # the youngest generation collected every YOUNG_OBJECTS new objects, not 3-4 times a cursor move
        assert gc.get_threshold()[0] == max(YOUNG_OBJECTS, before[0]) and gc.get_threshold()[1:] == before[1:]
    assert gc.get_freeze_count() == 0  # gone with the app: nothing of it stays uncollectable
    assert gc.get_threshold() == before  # and the collector at Python's own pace again
