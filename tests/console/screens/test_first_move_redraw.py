"""The first cursor move on a list that was laid out again (a queue bar shown above it once the page was in)
redraws the rows the cursor left and reached, not the whole list: the resize had left every row marked for
repaint although the layout had drawn them, and the next key wrote them all to the terminal again (25 KB)."""

from gatepost.app import GatepostApp
from tests.console_helpers import settle


async def test_the_first_move_after_a_list_was_laid_out_again_redraws_two_rows(demo_copy):
    app = GatepostApp(demo_copy, person="bench")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        table = app.screen.paged.table
        compositor = app.screen._compositor
        render_update = compositor.render_update
        rows_drawn: list[int] = []  # the table's screen lines each frame redraws

        def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            lines = {y for r in compositor._dirty_regions if r.overlaps(table.region)
                     for y in range(r.y, r.y + r.height) if table.region.y <= y < table.region.bottom}
            rows_drawn.append(len(lines))
            return render_update(*args, **kwargs)

        compositor.render_update = counted  # type: ignore[method-assign]
        await pilot.press("down")
        await settle(pilot)
        assert rows_drawn and max(rows_drawn) <= 3, rows_drawn  # the row left, the row reached (and the hover)
        assert table.region.height > 10
