"""Widgets that keep the lines they drew for each look: the detail's scrollbar (render's KeptScrollBar) and the key
footer. From one item to the next the detail's height moves the scrollbar's thumb, and the decisions' keys are
enabled or dimmed; the looks come back, and each was drawn again through Textual's whole styling pipeline. What
they keep must be what Textual draws for that look."""

import pytest
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from gatepost.app import GatepostApp
from gatepost.render import KeptScrollBar
from gatepost.widgets.key_bar import KeyBar, KeyFooter
from gatepost.widgets.line_detail import LineDetail
from tests.console_helpers import settle


async def _moves(pilot, seen) -> None:  # noqa: ANN001
    """Down and back up over the first items of Cases, calling `seen()` after each move."""
    await pilot.press("2")
    await settle(pilot)
    for i in range(12):
        await pilot.press("down" if i < 6 else "up")
        await settle(pilot)
        seen()


@pytest.mark.render_floor  # a fast path of console/render/ (widgets.KeptScrollBar)
async def test_the_details_scrollbar_draws_each_place_of_its_thumb_once_as_textual_draws_it(demo_copy, monkeypatch):
    drawn: list[object] = []
    render_lines = ScrollBar.render_lines

    def counted(self, crop):  # noqa: ANN001, ANN202
        drawn.append((self.window_virtual_size, crop))
        return render_lines(self, crop)

    monkeypatch.setattr(ScrollBar, "render_lines", counted)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        shown: list[tuple[KeptScrollBar, object]] = []

        def seen() -> None:
            bar = app.screen.query_one(LineDetail).vertical_scrollbar
            assert isinstance(bar, KeptScrollBar)
            shown.append((bar, bar.window_virtual_size))

        await _moves(pilot, seen)
        bar = shown[0][0]
        heights = [h for _b, h in shown]
        assert len(set(heights)) < len(heights)  # heights came back: the demo's cases
        mine = [d for d in drawn if d[0] in set(heights)]
        assert len(mine) <= len(set(heights)) * 2  # each look drawn once (a crop of the thumb's rows at most again)
        # what it keeps for a look is what Textual draws for it, at the bar's size now (under load a look can be
        # kept at the height the detail had before the queue's bar came in: drawn again at another height, it differs)
        for crop, lines in [(c, v) for c, v in bar.kept.items() if c[1] == bar.size][:4]:
            kept_crop = crop[0]
            bar.window_virtual_size = crop[2]
            bar.refresh()
            assert Widget.render_lines(bar, kept_crop) == lines


async def test_the_key_footer_draws_each_set_of_its_entries_once_as_textual_draws_it(demo_copy, monkeypatch):
    drawn: list[object] = []
    render_lines = KeyBar.render_lines

    def counted(self, crop):  # noqa: ANN001, ANN202
        if isinstance(self, KeyFooter):
            drawn.append((tuple((e.plain, tuple(e.spans)) for e in self.entries()), crop))
        return render_lines(self, crop)

    monkeypatch.setattr(KeyBar, "render_lines", counted)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        looks: list[object] = []

        def seen() -> None:
            bar = app.screen.query_one(KeyFooter)
            looks.append(tuple((e.plain, tuple(e.spans)) for e in bar.entries()))

        await _moves(pilot, seen)
        footer = app.screen.query_one(KeyFooter)
        assert len(set(looks)) < len(looks)
        assert len(drawn) == len(set(drawn))  # a set of entries shown before is not drawn again
        crop = footer.size.region
        kept = footer.render_lines(crop)
        footer._kept = None
        assert kept == footer.render_lines(crop)  # what it kept is what it draws afresh
