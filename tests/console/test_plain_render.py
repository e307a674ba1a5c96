"""GATEPOST_PLAIN_RENDER=1 runs the console on stock Textual: its screens draw through Textual's own compositor
with Textual's own frame timing, its tables are stock DataTables; unset, the render floor is there. Either way
the lists page, the cursor moves and the detail follows it."""

import pytest
from textual._compositor import Compositor

from gatepost.app import GatepostApp
from gatepost.render import PLAIN_RENDER, FastRows, FrameControl, RowsCompositor
from gatepost.screens.base import GatepostScreen
from gatepost.widgets.paged_list import PagedList, PageTable
from tests.console_helpers import settle


@pytest.mark.parametrize("plain", [True, False], ids=["plain", "render floor"])
async def test_the_switch_runs_the_console_on_stock_textual(demo_copy, monkeypatch, plain: bool):
    if plain:
        monkeypatch.setenv(PLAIN_RENDER, "1")
    else:
        monkeypatch.delenv(PLAIN_RENDER, raising=False)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GatepostScreen)
        paged = screen.query_one(PagedList)
        table = paged.table
        assert isinstance(table, PageTable)
        if plain:
            assert type(screen._compositor) is Compositor
            assert not isinstance(screen, FrameControl) and not isinstance(table, FastRows)
        else:
            assert isinstance(screen._compositor, RowsCompositor)
            assert isinstance(screen, FrameControl) and isinstance(table, FastRows)
        first = paged.current_key
        await pilot.press("down")
        await settle(pilot)
        assert paged.current_key == paged.keys[1] != first
