"""A partial update renders only the widgets with a cell in it, on its rows only (console/render/compositor.py;
issue 15: a cursor move rendered some 650 widget lines to show 2 rows and 40 detail lines). What it writes to
the terminal must be what Textual's own compositor writes, byte for byte, whatever the rows and columns that
changed: on the lists, the detail, the header, the bars, across both panes, in part of a widget."""

import random
from functools import partial
from pathlib import Path

import pytest
from textual._compositor import Compositor
from textual.geometry import Region

from gatepost.app import GatepostApp
from gatepost.render import RowsCompositor
from tests.console_helpers import settle

# checks a fast path of console/render/: skipped when the console runs plain
pytestmark = pytest.mark.render_floor


def _written(app: GatepostApp, compositor: Compositor, regions: list[Region], *, textuals: bool,
             full: bool = False) -> str:
    compositor._dirty_regions.clear()
    compositor._dirty_regions.update(regions)
    if textuals:  # the same compositor, drawing the way Textual draws
        compositor._get_renders = partial(Compositor._get_renders, compositor)  # type: ignore[method-assign]
        compositor._render_chops = partial(Compositor._render_chops, compositor)  # type: ignore[method-assign]
    try:
        update = compositor.render_full_update() if full else compositor.render_partial_update()
    finally:
        if textuals:
            del compositor._get_renders
            del compositor._render_chops
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


async def test_a_cursor_move_renders_under_two_thirds_of_the_lines_textual_renders(demo_copy: Path):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        compositor = app.screen._compositor
        lines: dict[str, int] = {"ours": 0, "textual's": 0}

        def counting(renders, who: str):  # noqa: ANN001
            def count(crop: Region | None = None):
                for region, clip, strips in renders(crop):
                    lines[who] += len(strips)
                    yield region, clip, strips
            return count

        ours, textuals = compositor._get_renders, partial(Compositor._get_renders, compositor)
        for who, renders in [("ours", ours), ("textual's", textuals)] * 3:  # alternating: moves differ
            compositor._get_renders = counting(renders, who)  # type: ignore[method-assign]
            await pilot.press("down")  # two table rows, then the next case's detail
            await settle(pilot)
            del compositor._get_renders
        # Textual renders every widget that meets the update on all its lines; ours, the widgets with a cell
        # in it on its rows (about half as many lines here)
        assert 0 < 3 * lines["ours"] < 2 * lines["textual's"], lines


async def test_a_detail_and_the_footer_changed_together_render_nothing_of_the_list_pane(demo_copy: Path):
    """The box around a detail's rows and the footer's line spans the whole screen's width: every widget in it was
    rendered on its rows, the whole list pane beside the detail with them, for nothing the update writes."""
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        compositor = screen._compositor
        detail = screen.query_one("#cases-detail")
        table = screen.paged.table
        width, height = compositor.size
        regions = [Region(detail.region.x, detail.region.y, detail.region.width, 10), Region(0, height - 1, width, 1)]
        rendered: list[object] = []
        renders = compositor._get_renders

        def counting(crop: Region | None = None):  # noqa: ANN202
            for region, clip, strips in renders(crop):
                rendered.extend(w for w, (r, _c) in compositor.visible_widgets.items() if r == region and strips)
                yield region, clip, strips

        compositor._get_renders = counting  # type: ignore[method-assign]
        ours = _written(app, compositor, regions, textuals=False)
        del compositor._get_renders
        assert table not in rendered and rendered  # the detail and the footer are, the list beside them is not
        assert ours == _written(app, compositor, regions, textuals=True)


def _full_update(app: GatepostApp, compositor: Compositor, *, textuals: bool) -> tuple[str, int]:
    """What a full update writes, and how many widget lines it rendered."""
    rendered = [0]

    def counting(drawn):  # noqa: ANN001, ANN202
        def render_lines(crop: Region) -> list:  # noqa: ANN001
            rendered[0] += crop.height
            return drawn(crop)
        return render_lines

    for widget in compositor.visible_widgets:
        widget.render_lines = counting(widget.render_lines)  # type: ignore[method-assign]
    try:
        written = _written(app, compositor, [compositor.size.region], textuals=textuals, full=True)
    finally:
        for widget in compositor.visible_widgets:
            del widget.render_lines
    return written, rendered[0]


async def test_a_full_update_writes_what_textuals_compositor_writes_without_the_widgets_covered(demo_copy: Path):
    """A new screen's first frame is a full update: Textual rendered every widget on all its lines, the screen and
    the boxes under their children too, and dropped what those in front covered. Only where a cut is still
    empty is a widget rendered now, and every screen writes what Textual's compositor writes."""
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        lines = {"ours": 0, "textual's": 0}
        for _mode, key, _label, _target in app.screen_specs:
            await pilot.press(key)
            await settle(pilot)
            compositor = app.screen._compositor
            assert isinstance(compositor, RowsCompositor)
            ours, ours_lines = _full_update(app, compositor, textuals=False)
            theirs, their_lines = _full_update(app, compositor, textuals=True)
            assert ours == theirs, key
            lines["ours"] += ours_lines
            lines["textual's"] += their_lines
        assert 0 < lines["ours"] < lines["textual's"] * 0.9, lines
