"""The page table's fast paths: a DataTable that keeps its rendered cells and rows through a resize and draws a
one-line cell straight from its Text.

`FastRows` holds render's overrides of DataTable (console/render/internals.py lists each private name with
why); `fast(PageTable, FastRows)` puts them before the PagedList's table unless the console runs plain, where the
table is the stock DataTable with the PagedList's keys. The rows it draws are DataTable's, cell for cell
(tests/console/test_page_table_cells.py).
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.css.styles import RenderStyles
from textual.geometry import Size

from gatepost.widgets.one_line import one_line

if TYPE_CHECKING:  # a mixin: at run time its class is put before a DataTable's (switch.fast)
    from textual.widgets import DataTable

    _Table = DataTable[Any]
else:
    _Table = object

_NO_STYLE = Style.null()  # the style of a cell's padding (Rich's Padding, style "none")


class _DrawnComponent:
    """A component's styles within one drawing of the table: its Rich style worked out once (RenderStyles works it
    out on each read, walking every ancestor: DataTable reads the header's on every line it draws); anything else
    is read from the styles themselves."""

    def __init__(self, styles: RenderStyles) -> None:
        self.styles = styles
        self.rich_style = styles.rich_style

    def __getattr__(self, name: str) -> Any:
        return getattr(self.styles, name)


def cut_line(console: Any, cell: object, width: int, overflow: str | None) -> list[Segment] | None:
    """The segments Rich draws for a one-line Text wider than `width` in a row that does not wrap (a title longer
    than its column): Text.wrap cuts each line with Text.truncate, by the text's overflow, else the options', else
    Rich's default (fold: cut at the width, no ellipsis). None when Rich would do anything else with it."""
    if not isinstance(cell, Text) or cell.justify not in (None, "default") or cell.no_wrap is False:
        return None
    plain = cell.plain
    method = cell.overflow or overflow or "fold"
    if "\n" in plain or "\t" in plain or cell.cell_len <= width or method == "ignore" or width < 1:
        return None
    line = cell.copy()
    line.truncate(width, overflow=method)  # type: ignore[arg-type]  # one of Rich's OverflowMethod names
    return one_line(console, line, width)


def one_line_cell(console: Any, cell: object, width: int, padding: int, pre_style: Style,
                  post_style: Style, overflow: str | None = None) -> list[list[Segment]] | None:
    """The segments DataTable draws for `cell` in a one-line row, `width` cells wide with `padding` each side
    (console.render_lines of the cell, Padding and Styled: Rich's whole render pipeline, ~470 calls a cell);
    None when the cell is not a one-line Text that fits (`one_line`) or is cut to the width as Rich cuts it
    (`cut_line`, `overflow`: the console options'), left as Rich lays it out."""
    inner = width - 2 * padding
    segments = one_line(console, cell, inner)
    if segments is None:
        segments = cut_line(console, cell, inner, overflow)
    if segments is None:
        return None
    line = [Segment(" " * padding, _NO_STYLE)] if padding else []
    line.extend(segments)
    length = Segment.get_line_length(segments)
    if length < inner:
        line.append(Segment(" " * (inner - length), _NO_STYLE))
    if padding:
        line.append(Segment(" " * padding, _NO_STYLE))
    return [list(Segment.apply_style(line, pre_style, post_style))]


class FastRows(_Table):
    """A DataTable whose rendered cells outlive a resize.

    DataTable throws every rendered cell away when its size changes, but a PagedList gives each column a
    fixed width, so only the padding after the last column depends on the table's width: that is in the
    rendered rows and lines (the lines are keyed by width), the cells stay. A list pane fitted to its first
    page resizes the table once the rows are in: its cells were rendered twice.

    A resize is drawn by the layout that made it (the screen repaints every region it moved), yet Textual also
    leaves the whole table marked for repaint (Widget._size_updated), flushed with the next change of the table
    alone: the first cursor move after a list was laid out again (a queue bar shown above it) redrew and wrote
    every row (25 KB to the terminal), and a table's first layout drew its rows, then drew them all again. The
    rows drawn are kept for the width they were drawn at (a new width changes the padding in them, and DataTable
    keys them by row alone), so the layout's frame draws them right: what Textual marked is dropped."""

    _rows_width: int | None = None  # the width the rows in the row cache were rendered at
    _pass_styles: dict[object, Any] | None = None  # within one render_lines: the table's styles, worked out once

    # --- one drawing of the table: its styles worked out once -------------------------------------------
    def render_lines(self, crop: Any) -> Any:
        """Textual draws the table's lines one by one, and DataTable works out its style (rich_style: every
        ancestor's background blended) and its row's component style again for each line (a third of a first
        page's table). Nothing can restyle the table while it draws, so within one drawing each is worked out
        once."""
        self._pass_styles = {}
        try:
            return super().render_lines(crop)
        finally:
            self._pass_styles = None

    def _once(self, key: object, compute: Callable[[], Any]) -> Any:
        """`compute()` worked out once for `key` within one drawing (render_lines), every time outside one."""
        styles = self._pass_styles
        if styles is None:
            return compute()
        found = styles.get(key)
        if found is None:
            found = styles[key] = compute()
        return found

    @property
    def rich_style(self) -> Style:
        return cast(Style, self._once("table", lambda: super(FastRows, self).rich_style))

    @property
    def size(self) -> Size:
        """Read four times a line drawn, each working out the content region from the screen's map."""
        return cast(Size, self._once("size", lambda: super(FastRows, self).size))

    @property
    def ordered_columns(self) -> list[Any]:
        """Read three times a line drawn, each a new list looked up column by column."""
        return cast(list[Any], self._once("columns", lambda: super(FastRows, self).ordered_columns))

    @property
    def background_colors(self) -> tuple[Color, Color]:
        """Read on every line drawn (the padding after the last column), walking every ancestor."""
        return cast("tuple[Color, Color]", self._once("background", lambda: super(FastRows, self).background_colors))

    def get_component_styles(self, *names: str) -> RenderStyles:
        """Within a drawing, a component's styles with their Rich style worked out once (_DrawnComponent)."""
        return cast(RenderStyles, self._once(
            ("component", names), lambda: _DrawnComponent(super(FastRows, self).get_component_styles(*names))))

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        if row_index >= self.fixed_rows and not self.zebra_stripes:
            return super()._get_row_style(row_index, base_style)  # the base style itself
        kind = "header" if row_index == -1 else "fixed" if row_index < self.fixed_rows else row_index % 2
        return cast(Style, self._once(kind, lambda: super(FastRows, self)._get_row_style(row_index, base_style)))

    def _render_line_in_row(self, row_key: Any, line_no: int, base_style: Style, cursor_location: Any,
                            hover_location: Any) -> Any:
        width = self.size.width
        if width != self._rows_width:  # DataTable keys its rows by row, not width: rendered again at a new one
            self._row_render_cache.clear()
            self._rows_width = width
        return super()._render_line_in_row(row_key, line_no, base_style, cursor_location, hover_location)

    def _on_resize(self, event: events.Resize) -> None:
        event.prevent_default()  # DataTable._on_resize: a new _update_count, which every cache is keyed by
        if not self._repaint_required:  # the layout's frame draws (or drew) the resized table; nothing else asked
            self._repaint_regions.clear()

    def _update_dimensions(self, new_rows: Any) -> None:
        """DataTable measures every cell of every new row for the columns' content widths (Rich's Measurement, a
        page's 650 cells), which only a column without a width of its own reads: a PagedList gives each its
        width, so only the table's size is worked out."""
        rows = [self.rows.get(key) for key in new_rows]
        if any(c.auto_width for c in self.columns.values()) or any(
                r is not None and (r.label is not None or r.auto_height) for r in rows):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values()) + self._row_label_column_width
        self.virtual_size = Size(width, self._total_row_height + (self.header_height if self.show_header else 0))

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int, cursor: bool = False,
                     hover: bool = False) -> list[list[Segment]]:
        """DataTable._render_cell, drawing a one-line cell that fits (nearly every cell of a page: the columns
        are fitted to them) straight from its Text (one_line_cell): the same segments, a quarter of the work.
        A page's first frame was mostly this (the Results screen draws 370 cells)."""
        header = row_index == -1
        row_key = self._header_row_key if header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = None if header or row_key is None else self.rows.get(row_key)
        if row_key is None or column_key is None or (self.header_height if header else row.height if row else 0) != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        key = (row_key, column_key, base_style, cursor, hover, self._show_hover_cursor, self._update_count,
               self._pseudo_class_state)
        cached = self._cell_render_cache.get(key)
        if cached is not None:
            return cached
        fixed_rows, fixed_columns, show_cursor, css_fg, css_bg, padding, console, overflow = self._cell_settings()
        fixed = not header and (row_index < fixed_rows or column_index < fixed_columns)
        component_style, post_style = self._get_styles_to_render_cell(
            header, False, fixed, hover, cursor, show_cursor, self._show_hover_cursor, css_fg, css_bg)
        cell = self._get_row_renderables(row_index).cells[column_index]
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        lines = one_line_cell(console, cell, width, padding, pre_style, post_style, overflow)
        if lines is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        self._cell_render_cache[key] = lines
        return lines

    def _cell_settings(self) -> tuple[int, int, bool, bool, bool, int, Any, str | None]:
        """What drawing a cell reads of the table and the app besides the cell: each a reactive or a property
        (the app's console options are built anew each time), read once within one drawing (render_lines)."""
        styles = self._pass_styles
        found = styles.get("cell") if styles is not None else None
        if found is None:
            found = (self.fixed_rows, self.fixed_columns, self.show_cursor, self.cursor_foreground_priority == "css",
                     self.cursor_background_priority == "css", self.cell_padding, self.app.console,
                     self.app.console_options.overflow)
            if styles is not None:
                styles["cell"] = found
        return found

    def _set_hover_cursor(self, active: bool) -> None:
        """DataTable turns the mouse's hover cursor off on every cursor key and repaints the hovered row each
        time, though it was off already: a third row drawn on every move (row 0, where nobody hovered)."""
        if not active and not self._show_hover_cursor:
            return
        super()._set_hover_cursor(active)

    def set_row_cells(self, row: int, values: dict[int, object]) -> None:
        """Put `values` (column index: value) in row `row` and redraw that row alone. DataTable.update_cell_at
        throws away every rendered cell and redraws the whole table: a ● read away redrew 40 rows."""
        row_key = self._row_locations.get_key(row)
        if row_key is None:
            return
        columns = self.ordered_columns
        for col, value in values.items():
            self._data[row_key][columns[col].key] = value
        for row_cached in [k for k in self._row_render_cache.keys() if k[0] == row_key]:
            self._row_render_cache.discard(row_cached)
        for cell_cached in [k for k in self._cell_render_cache.keys() if k[0] == row_key]:
            self._cell_render_cache.discard(cell_cached)
        for renderable in [k for k in self._row_renderable_cache.keys() if k[1] == row]:
            self._row_renderable_cache.discard(renderable)
        self._line_cache.clear()  # keyed by screen line: rebuilt from the rows rendered, which are kept
        self.refresh_row(row)
