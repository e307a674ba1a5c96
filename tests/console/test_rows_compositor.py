"""A partial update renders only the widgets with a cell in it, on its rows only (console/screens/compositor.py;
issue 15: a cursor move rendered some 650 widget lines to show 2 rows and 40 detail lines). What it writes to
the terminal must be what Textual's own compositor writes, byte for byte, whatever the rows and columns that
changed: on the lists, the detail, the header, the bars, across both panes, in part of a widget."""

import random
from functools import partial
from pathlib import Path

from textual._compositor import Compositor
from textual.geometry import Region

from gatepost.app import GatepostApp
from gatepost.screens.compositor import RowsCompositor
from tests.console_helpers import settle


def _written(app: GatepostApp, compositor: Compositor, regions: list[Region], *, textuals: bool) -> str:
    compositor._dirty_regions.clear()
    compositor._dirty_regions.update(regions)
    if textuals:  # the same compositor, drawing the way Textual draws
        compositor._get_renders = partial(Compositor._get_renders, compositor)  # type: ignore[method-assign]
    try:
        update = compositor.render_partial_update()
    finally:
        if textuals:
            del compositor._get_renders
    assert update is not None
    return update.render_segments(app.console)


def _updates(width: int, height: int) -> list[list[Region]]:
    """Rows and columns that change together: whole lines, the panes, a bar, and random parts of the screen."""
    fixed = [[Region(0, 0, width, 1)], [Region(0, height - 2, width, 2)], [Region(1, 7, width // 2 - 2, 2)],
             [Region(width // 2 + 2, 3, width // 2 - 4, 30)], [Region(1, 8, 60, 1), Region(width - 40, 20, 30, 9)],
             [Region(0, 0, width, height)], [Region(3, 0, 5, height)]]
    rng = random.Random(15)
    for _ in range(40):
        parts = []
        for _ in range(rng.randint(1, 3)):
            x, y = rng.randrange(width), rng.randrange(height)
            parts.append(Region(x, y, rng.randint(1, width - x), rng.randint(1, height - y)))
        fixed.append(parts)
    return fixed


async def test_a_partial_update_writes_what_textuals_compositor_writes(demo_copy: Path):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("2", "down", "down", "3", "down"):  # Cases with a detail, then Results with its run
            await pilot.press(key)
            await settle(pilot)
        for mode_key in ("2", "3"):
            await pilot.press(mode_key)
            await settle(pilot)
            compositor = app.screen._compositor
            assert isinstance(compositor, RowsCompositor)
            width, height = compositor.size
            for regions in _updates(width, height):
                ours = _written(app, compositor, regions, textuals=False)
                theirs = _written(app, compositor, regions, textuals=True)
                assert ours == theirs, regions


async def test_a_cursor_move_renders_its_rows_only(demo_copy: Path):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        compositor = app.screen._compositor
        rendered: list[int] = []
        renders = compositor._get_renders

        def counting(crop: Region | None = None):
            for region, clip, strips in renders(crop):
                rendered.append(len(strips))
                yield region, clip, strips

        compositor._get_renders = counting  # type: ignore[method-assign]
        await pilot.press("down")
        await settle(pilot)
        # two table rows, then the detail's lines (and the few widgets behind them), not every widget's every
        # line: Textual's own compositor renders about 650 lines here
        assert 0 < sum(rendered) < 300, rendered
