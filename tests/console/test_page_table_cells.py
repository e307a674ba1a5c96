"""A PagedList's table draws a one-line cell straight from its Text, not through Rich's whole render pipeline, and
works out its size without measuring every cell: what it draws and the size it takes must be what DataTable's
own code gives, cell for cell (every list screen of the demo, the cursor's row and the others, the header)."""

import pytest
from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.renderables.styled import Styled
from textual.widgets import DataTable

from gatepost.app import GatepostApp
from gatepost.render import one_line_cell
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle

# checks a fast path of console/render/: skipped when the console runs plain
pytestmark = pytest.mark.render_floor


def _drawn_both_ways(table, row: int, column: int, cursor: bool) -> tuple[object, object]:  # noqa: ANN001
    base = table._get_row_style(row, table.rich_style)
    width = table.ordered_columns[column].get_render_width(table)
    table._cell_render_cache.clear()  # both ways cache under the same key
    ours = table._render_cell(row, column, base, width, cursor=cursor)
    table._cell_render_cache.clear()
    theirs = DataTable._render_cell(table, row, column, base, width, cursor=cursor)
    return ours, theirs


@pytest.mark.slow
async def test_every_cell_of_every_list_is_drawn_as_datatable_draws_it(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    compared = 0
    async with app.run_test(size=(160, 50)) as pilot:
        for _mode, key, _label, _target in app.screen_specs:
            await pilot.press(key)
            await settle(pilot)
            for paged in app.screen.query(PagedList):
                table = paged.table
                for row in range(-1, min(table.row_count, 30)):
                    for column in range(len(table.ordered_columns)):
                        for cursor in (False, True):
                            ours, theirs = _drawn_both_ways(table, row, column, cursor)
                            assert ours == theirs, (paged.id, row, column, cursor)
                            compared += 1
                keys = list(table.rows)
                mine = table.virtual_size
                DataTable._update_dimensions(table, keys)  # DataTable's own: every cell measured
                assert table.virtual_size == mine, paged.id
    assert compared > 500  # the demo's lists were there to compare


def _rich(console: Console, cell: object, width: int, style: Style) -> list[list[Segment]]:
    """What DataTable._render_cell draws for `cell` in a one-line row (its call of Rich, as it makes it)."""
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    return console.render_lines(Styled(Padding(cell, (0, 1)), pre_style=style, post_style=Style()), options)


@pytest.mark.parametrize("cell", [
    Text("a" * 12), Text("Loop change 1234: tighten release guidance", style="bold"),
    Text.assemble(("⚠● ", "bold yellow"), ("a long title that runs on", "italic")),  # a span across the cut
    Text("日本語のタイトルです"),  # a wide character cut in half becomes a space
    Text("cut with an ellipsis here", overflow="ellipsis"), Text("cropped, not folded here", overflow="crop"),
])
def test_a_cell_longer_than_its_column_is_cut_as_rich_cuts_it(cell):
    console, style = Console(width=80), Style(color="red")
    for width in (4, 9, 10, 11):
        assert one_line_cell(console, cell, width, 1, style, Style()) == _rich(console, cell, width, style)


def test_a_cell_rich_would_wrap_or_justify_is_left_to_rich():
    console, style = Console(width=80), Style(color="red")
    assert one_line_cell(console, Text("a" * 12, no_wrap=False), 10, 1, style, Style()) is None  # it wraps
    assert one_line_cell(console, Text("a\nb"), 10, 1, style, Style()) is None
    assert one_line_cell(console, Text("1,234", justify="right"), 10, 1, style, Style()) is None
    assert one_line_cell(console, "plain str", 12, 1, style, Style()) is None
    drawn = one_line_cell(console, Text("ok", style="green"), 6, 1, style, Style())
    assert drawn is not None and "".join(segment.text for segment in drawn[0]) == " ok   "
    assert drawn[0][1].style == style + Style(color="green")  # the cell's own style over the row's


async def test_a_drawing_of_the_table_works_its_styles_out_once(demo_copy, monkeypatch):
    """DataTable worked out the table's style (every ancestor's background blended) and its row's again for each
    line; a drawing now does each once, and the next drawing (a theme changed meanwhile) works them out anew."""
    from textual.dom import DOMNode
    from textual.geometry import Region

    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        table = app.screen.query_one(PagedList).table
        counted = [0]
        style_of = DOMNode.rich_style.fget

        def counting(node):  # noqa: ANN001, ANN202
            if node is table:
                counted[0] += 1
            return style_of(node)

        monkeypatch.setattr(DOMNode, "rich_style", property(counting))

        def drawn() -> list[str]:
            table._row_render_cache.clear()
            table._line_cache.clear()
            table._styles_cache.clear()
            return [repr(list(strip)) for strip in table.render_lines(Region(0, 0, table.size.width, 20))]

        before = drawn()
        assert counted[0] <= 2  # 20 lines drawn, the style worked out once or twice, not once a line
        app.theme = "gatepost-light"
        await settle(pilot)
        assert drawn() != before  # the new theme's colours: nothing kept from the last drawing
