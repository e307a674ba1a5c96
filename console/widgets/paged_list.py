"""A list that pages from SQL: one page of rows in a DataTable, never the whole table.

The owner supplies `fetch(db, search, offset, limit) -> (rows, total)` where each
row is `(key, [cell, ...])`. It runs in a thread worker on the app's read
connection (never on the event loop); a newer load cancels an older one and the
page is applied to the table in place (same keys: only changed cells redrawn).
Cells that are `str` are shown literally (never as Rich markup); pass a
`rich.text.Text` to style a cell yourself.

Columns fit the width they are given (`Col`): each is as wide as its content up to its `width`; when
the table is narrower than that, the columns that may shrink (`min`) give way first, then the lesser
columns (`drop`, highest first) are left out, so the ones that name a row (id, title) stay visible; a compact
column standing in for one left out (`instead`) takes its place, so what a row is decided by stays in a glyph.
`wanted_width()` is what every column needs: a screen sizes its list pane from it.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widgets import DataTable, Input, Static
from textual.worker import get_current_worker

from gatepost.render import FastRows, fast
from gatepost.safe import literal
from gatepost.widgets.in_place import put

Row = tuple[str, Sequence[object]]
Fetch = Callable[[Any, str, int, int], tuple[list[Row], int]]
PADDING = 2  # a DataTable cell's padding, one each side
SCROLLBAR = 2  # the vertical scrollbar's width, kept free so columns never hide under it


@dataclass(frozen=True)
class Col:
    """One column: as wide as its content up to `width` (None: no limit).

    `min`: it may shrink to this when space is short (None: it never shrinks below its content).
    `drop`: 0 never left out; otherwise left out when space is short, the highest first.
    `whole`: a name worth leaving lesser columns out for, so that it is shown whole (an event kind, a skill).
    `instead`: the label of the column this one stands in for: shown only while that one is left out (a
    severity beside the state's glyph when the state's name does not fit).
    """

    label: str
    width: int | None = None
    min: int | None = None
    drop: int = 0
    whole: bool = False
    marks: bool = False  # a marker column (⚠ ● →): left out while no row of the page holds a marker
    instead: str | None = None

    def least(self, natural: int) -> int:
        """The width it may shrink to, given its content's."""
        return min(natural, self.min) if self.min is not None else natural

    def present(self, natural: int) -> bool:
        """Whether it is there at all: a marker column with no marker on the page is not."""
        return bool(natural) or not self.marks


ColumnSpec = Col | tuple[str, int | None]


def as_col(spec: ColumnSpec) -> Col:
    """A `(label, width)` pair is a column of that fixed width that is never left out."""
    if isinstance(spec, Col):
        return spec
    label, width = spec
    return Col(label, width, min=None)


def text_width(value: object) -> int:
    """The cells a cell's widest line takes."""
    plain = value.plain if isinstance(value, Text) else str(value)
    return max((cell_len(line) for line in plain.split("\n")), default=0)


def natural_widths(cols: Sequence[Col], rows: Sequence[Sequence[object]]) -> list[int]:
    """Each column as wide as its label and widest cell, up to its width."""
    widths = []
    for i, col in enumerate(cols):
        content = max([cell_len(col.label), *(text_width(r[i]) for r in rows if i < len(r))])
        widths.append(min(content, col.width) if col.width is not None else content)
    return widths


def fit_columns(cols: Sequence[Col], natural: Sequence[int], available: int) -> list[tuple[int, int]]:
    """(column index, width) of the columns shown in `available` cells, in their order.

    The shrinkable columns give way to their `min` first; while even that does not fit, the column with
    the highest `drop` is left out. The room left goes to the shrunk columns never left out, then to the
    lesser ones (within each, to the `whole` ones first), shared in proportion to what each lacks. A lesser
    column is also left out while a `whole` column is cut and the columns never left out lack at least half the
    room it takes (an event's kind and outcome whole before its revision, a skill's name before a run's date)."""
    least = [c.least(n) for c, n in zip(cols, natural, strict=True)]
    shown = [i for i, c in enumerate(cols) if c.present(natural[i]) and c.instead is None]

    def leave_out(i: int) -> None:
        shown.remove(i)
        stand_ins = [k for k, c in enumerate(cols) if c.instead == cols[i].label and c.present(natural[k])]
        shown.extend(stand_ins)
        shown.sort()

    def cost(widths: Sequence[int] | dict[int, int]) -> int:
        return sum(widths[i] + PADDING for i in shown)

    def spread() -> dict[int, int]:
        widths = {i: least[i] for i in shown}
        room = available - cost(least)
        # the columns never left out first, then the lesser; within each, the whole ones first
        for tier, whole in sorted({(cols[i].drop, not cols[i].whole) for i in shown}):
            short = {i: natural[i] - widths[i] for i in shown
                     if cols[i].drop == tier and cols[i].whole != whole and natural[i] > widths[i]}
            wanted = sum(short.values())
            if room <= 0 or not wanted:
                continue
            for i, deficit in short.items():  # shared in proportion to what each shrunk column lacks
                widths[i] += deficit if wanted <= room else deficit * room // wanted
            room -= min(wanted, room)
        return widths

    droppable = sorted((i for i, c in enumerate(cols) if c.drop and c.instead is None and i in shown),
                       key=lambda i: (-cols[i].drop, -i))
    while cost(least) > available and droppable:
        leave_out(droppable.pop(0))
    widths = spread()
    while droppable:
        whole = sum(natural[i] - widths[i] for i in shown if cols[i].whole)
        lacking = sum(natural[i] - widths[i] for i in shown if not cols[i].drop)
        if not whole or 2 * lacking < widths[droppable[0]] + PADDING:
            break
        leave_out(droppable.pop(0))
        widths = spread()
    if len(shown) < len(cols) and available > cost(widths):  # a column left out: its room goes to the last
        widths[shown[-1]] += available - cost(widths)       # shown, so the table is as wide as its pane
    return [(i, widths[i]) for i in shown]


def _cell(value: object) -> object:
    if isinstance(value, Text):
        return value
    if value is None:
        return Text("")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Text(f"{value:.4g}" if isinstance(value, float) else f"{value:,}", justify="right")
    return literal(value)


class PageTable(DataTable[Any], inherit_bindings=False):
    """A PagedList's table: a DataTable with a list's keys. Made through `fast(PageTable, FastRows)`: render's
    fast paths (console/render/table.py) go before it unless the console runs plain."""

    # a list of rows: the keys move between rows (Home and End included, to the first and the last); the
    # column keys a DataTable has (left, right, Home and End scrolling sideways) mean nothing here
    BINDINGS = [
        Binding("enter", "select_cursor", "Open the row", show=False),
        Binding("up", "cursor_up", "Previous row", show=False),
        Binding("down", "cursor_down", "Next row", show=False),
        Binding("pageup", "page_up", "A screen up", show=False),
        Binding("pagedown", "page_down", "A screen down", show=False),
        Binding("home,ctrl+home", "first_row", "First row", show=False),
        Binding("end,ctrl+end", "last_row", "Last row", show=False),
    ]

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)

    def set_row_cells(self, row: int, values: dict[int, object]) -> None:
        """Put `values` (column index: value) in row `row` (render's FastRows redraws that row alone)."""
        for col, value in values.items():
            self.update_cell_at(Coordinate(row, col), value)


class ListMessage(Message):
    """A message from a PagedList about one row (`key`), or about the list (`key` None)."""

    def __init__(self, paged: "PagedList", key: str | None = None) -> None:
        super().__init__()
        self.paged = paged
        self.key = key

    @property
    def control(self) -> "PagedList":
        return self.paged


class PagedList(Vertical):
    """Search box, one page of a DataTable, and a 'Showing a–b of n' line."""

    DEFAULT_CSS = """
    PagedList { height: 1fr; }
    PagedList > Input { display: none; height: 3; }
    PagedList.searching > Input { display: block; }
    PagedList > DataTable { height: 1fr; }
    PagedList > .paged-status { height: 1; color: $text-muted; padding: 0 1; }
    """

    BINDINGS = [
        Binding("right_square_bracket", "next_page", "Next page", show=False),
        Binding("left_square_bracket", "previous_page", "Prev page", show=False),
    ]

    class Highlighted(ListMessage):
        """The cursor moved to the row with this key (None: the list is empty)."""

    class Loaded(ListMessage):
        """A page was applied to the table; `key` is the row the cursor was on before."""

    class SearchChanged(ListMessage):
        """The search text changed (the owner's title shows it)."""

    class Chosen(ListMessage):
        """Enter on the row with this key."""

    def __init__(
        self,
        columns: Sequence[ColumnSpec],
        fetch: Fetch,
        *,
        page_size: int = 100,
        empty: str = "Nothing here yet.",
        id: str | None = None,
        autoload: bool = True,
    ) -> None:
        """`autoload` False: the owner gives the first page (`apply_page`) or asks for it (`reload`)."""
        super().__init__(id=id)
        self.autoload = autoload
        self.asked = 0  # loads begun: a page the owner read before the latest is not shown (apply_page)
        self._given = 0  # pages the owner gave (apply_page): a load begun before the latest is dropped
        self.columns = [as_col(c) for c in columns]
        self.shown_columns: list[tuple[int, int]] = []  # (column index, width) of the columns the table shows
        self.fetch = fetch
        self.page_size = page_size
        self.empty = empty
        self.page_offset = 0
        self.total = 0
        self.search_text = ""
        self.keys: list[str] = []
        self._cells: list[list[object]] = []
        self._natural: list[int] = natural_widths(self.columns, [])  # the content widths the columns are fitted to
        self._quiet_key: str | None = None
        self.initial_key: str | None = None  # the row the first page puts the cursor on
        self.follow: Callable[[], str | None] | None = None  # the owner's item: the cursor stays on it
        self.loaded = False  # True once the first page has been fetched and shown

    def compose(self) -> ComposeResult:
        # the search box is mounted the first time the person searches (start_search): hidden until then, it
        # would be a widget of every list's first page, with the styles of an Input to parse and apply
        yield fast(PageTable, FastRows)(cursor_type="row", zebra_stripes=True)
        yield Static("", classes="paged-status")

    @property
    def search_box(self) -> Input | None:
        """The search box, once the person has searched here (start_search mounts it)."""
        found = self.query_children(Input)
        return found.first() if found else None

    @property
    def table(self) -> PageTable:
        return self.query_one(PageTable)

    def on_mount(self) -> None:
        # the columns are put in the table with the first page (_apply), fitted to it: put in empty at mount and
        # again at the first layout, they would be built twice for a table nobody sees (frames are held for that page)
        if self.autoload:
            self.reload(keep_key=self.initial_key)

    # --- columns -----------------------------------------------------------------
    def wanted_width(self) -> int:
        """The cells the table needs to show every column as wide as its content (and its scrollbar)."""
        natural = self._natural
        return sum(w + PADDING for c, w in zip(self.columns, natural, strict=True)
                   if c.present(w) and c.instead is None) + SCROLLBAR

    def least_width(self) -> int:
        """The cells the table needs to show the columns never left out, each shrunk to its `min`, and the compact
        columns standing in for those that are."""
        natural = self._natural
        droppable = {c.label for c in self.columns if c.drop}
        return sum(c.least(n) + PADDING for c, n in zip(self.columns, natural, strict=True)
                   if not c.drop and c.present(n) and (c.instead is None or c.instead in droppable)) + SCROLLBAR

    def _same_page_fits(self, natural: Sequence[int]) -> bool:
        """Whether the same page read again fits the columns as shown: each shown column holds its new content
        and no marker column left out has a marker now. Then the columns keep their widths (a ● read away made
        the marker column narrower: the pane and the table were resized and every row drawn again)."""
        widths = dict(self.shown_columns)
        return all(natural[i] <= w for i, w in widths.items()) and not any(
            c.marks and natural[i] for i, c in enumerate(self.columns) if i not in widths)

    def _fitted(self, width: int | None = None) -> list[tuple[int, int]]:
        natural = self._natural
        width = width or self.table.size.width or self.size.width
        if not width:  # not laid out yet: every column as wide as its content
            return list(enumerate(natural))
        return fit_columns(self.columns, natural, width - SCROLLBAR)

    def _relayout(self, *, force: bool = False, width: int | None = None) -> bool:
        """Fit the columns to the table's width (`width`: the one it is about to take); rebuild the table if
        that changed what it shows."""
        layout = self._fitted(width)
        if layout == self.shown_columns and not force:
            return False
        self.shown_columns = layout
        table = self.table
        row = table.cursor_row
        table.clear(columns=True)
        for i, width in layout:
            # a Text: a str label is parsed as Rich markup (and its emoji codes) each time the table is rebuilt
            table.add_column(Text(self.columns[i].label), width=width)
        for key, cells in zip(self.keys, self._cells, strict=True):
            table.add_row(*[cells[i] for i, _w in layout], key=key)
        if self.keys:
            self._quiet_key = self.keys[min(max(row, 0), len(self.keys) - 1)]  # the same row: not a move
            table.move_cursor(row=min(max(row, 0), len(self.keys) - 1))
        return True

    def _coming_width(self) -> int | None:
        """The screen sizes this list's pane to the rows just in (`fit_list_for`, when it has one) before they
        are drawn: the width the table is about to take. Fitting the pane after the rows were drawn resized the
        table, which threw its rendered rows away: the first page was drawn two or three times."""
        fit = getattr(self.screen, "fit_list_for", None)
        return fit(self) if callable(fit) else None

    def on_resize(self) -> None:
        # the table (a child) takes its new size in the same layout pass, after this event: fit to the size
        # it ends with, not the one it had (a column a cell off, depending on timing)
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        if self.loaded:  # before its first page the table has no columns yet: that page fits them
            self._relayout()

    # --- loading -----------------------------------------------------------------
    def reload(self, *, keep_key: str | None = None, quiet: bool = False, keep_row: bool = False,
               cursor: int | None = None) -> None:
        """Fetch the current page again (after a decision, a filter or a search), in a worker.

        `quiet`: the cursor's row is not announced (after a decision the detail stays on the decided item).
        `keep_row`: when `keep_key` left the list, the cursor stays on its row, now the next item's, and that
        row is announced (quiet or not): the cursor and the owner's detail show one item.
        `cursor`: the row the cursor goes to, whatever it was on (the newest, at the top).
        """
        self._load(self.search_text, self.page_offset, keep_key, cursor, quiet, keep_row)

    def apply_page(self, rows: list[Row], total: int, *, asked: int) -> bool:
        """Show `rows`, the first page as `fetch` reads it, read by the owner with what it shows beside them (drawn
        together: one layout, one frame, no round trip of its own). `asked`: `self.asked` when the owner began
        reading; a load begun since is newer and the page is not shown (False)."""
        if asked != self.asked:
            return False
        self._given += 1
        self.workers.cancel_group(self, "page")
        self._apply([k for k, _row in rows], [[_cell(c) for c in row] for _key, row in rows], total, 0, None, None)
        return True

    def _load(self, search: str, offset: int, keep_key: str | None, cursor: int | None, quiet: bool = False,
              keep_row: bool = False) -> None:
        self.asked += 1
        # the cursor's item as the page is asked for: a move made before it arrives wins over `keep_key`
        self._read_page(search, offset, keep_key, cursor, quiet, keep_row, self.current_key)

    @work(thread=True, exclusive=True, group="page")
    def _read_page(self, search: str, offset: int, keep_key: str | None, cursor: int | None,
                   quiet: bool = False, keep_row: bool = False, asked_on: str | None = None) -> None:
        worker = get_current_worker()
        given = self._given
        with self.app.reading() as db:  # type: ignore[attr-defined]
            rows, total = self.fetch(db, search, offset, self.page_size)
            if not rows and offset and total:
                offset = max(0, (total - 1) // self.page_size * self.page_size)
                rows, total = self.fetch(db, search, offset, self.page_size)
        cells = [[_cell(c) for c in row] for _key, row in rows]
        if not worker.is_cancelled:
            self.app.call_from_thread(self._apply, [k for k, _row in rows], cells, total, offset, keep_key, cursor,
                                      quiet, given, keep_row, asked_on)

    def _apply(self, keys: list[str], cells: list[list[object]], total: int, offset: int,
               keep_key: str | None, cursor: int | None, quiet: bool = False, given: int | None = None,
               keep_row: bool = False, asked_on: str | None = None) -> None:
        if given is not None and given != self._given:
            return  # read before the owner gave a newer page
        table = self.table
        before = self.current_key
        before_row = table.cursor_row
        same = keys == self.keys and self.loaded
        old_cells = self._cells
        self.keys, self._cells, self.total, self.page_offset = keys, cells, total, offset
        natural = natural_widths(self.columns, cells)
        keep = same and self._same_page_fits(natural)
        if not keep:
            self._natural = natural
        if not keep and self._relayout(width=self._coming_width()):  # new widths: the table was rebuilt
            pass
        elif same:  # same rows: redraw only the cells that changed
            for row, (old, new) in enumerate(zip(old_cells, cells, strict=True)):
                changed = {col: new[i] for col, (i, _w) in enumerate(self.shown_columns) if old[i] != new[i]}
                if changed:
                    table.set_row_cells(row, changed)
        else:
            table.clear()
            for key, row_cells in zip(keys, cells, strict=True):
                table.add_row(*[row_cells[i] for i, _w in self.shown_columns], key=key)
        followed = self.follow() if self.follow else None
        if keep_key is not None and before != asked_on:
            # the cursor moved while the page was read (a key pressed): the row moved to is the one shown,
            # not the one the reload was asked to keep (the cursor went back to it, quietly, the detail not)
            keep_key = None
        target = next((k for k in (keep_key, followed, before) if k is not None and k in keys), None)
        if keep_row and target is None:  # the kept item left the list: its row goes to the next, announced
            cursor, quiet = before_row, False
        if cursor is not None and keys:
            table.move_cursor(row=min(max(cursor, 0), len(keys) - 1))
        elif target is not None:
            table.move_cursor(row=keys.index(target))
        self._status()
        self.loaded = True
        self.post_message(self.Loaded(self, before))
        self._quiet_key = self.current_key if quiet else None
        if not quiet:
            self.post_message(self.Highlighted(self, self.current_key))

    def _status(self) -> None:
        status = self.query_one(".paged-status", Static)
        if not self.total:
            hint = f" (no match for {self.search_text!r})" if self.search_text else ""
            put(status, literal(self.empty + hint))
            return
        first, last = self.page_offset + 1, self.page_offset + len(self.keys)
        more = "  ] next page" if last < self.total else ""
        less = "  [ previous" if self.page_offset else ""
        found = f" matching {self.search_text!r}" if self.search_text else ""
        put(status, literal(f"Showing {first:,}–{last:,} of {self.total:,}{found}{less}{more}"))

    @property
    def current_key(self) -> str | None:
        if not self.keys:
            return None
        row = self.table.cursor_row
        return self.keys[row] if 0 <= row < len(self.keys) else None

    def set_search(self, text: str) -> None:
        self.search_text = text.strip()
        self.page_offset = 0
        self.reload()
        self.post_message(self.SearchChanged(self))

    def clear_search(self, *, reload: bool = True) -> None:
        """The search off and its box emptied (and closed)."""
        box = self.search_box
        if box is not None:
            box.value = ""
        self.remove_class("searching")
        if self.search_text:
            if reload:
                self.set_search("")
            else:
                self.search_text = ""
                self.post_message(self.SearchChanged(self))
        if not self.table.has_focus and reload:
            self.table.focus()

    def move_to_key(self, key: str) -> bool:
        if key in self.keys:
            self.table.move_cursor(row=self.keys.index(key))
            return True
        return False

    # --- paging ------------------------------------------------------------------
    def action_next_page(self) -> None:
        if self.page_offset + self.page_size < self.total:
            self._load(self.search_text, self.page_offset + self.page_size, None, 0)

    def action_previous_page(self, last_row: bool = False) -> None:
        """The previous page, the cursor on its first row (`last_row`: on its last, as moving up reaches it)."""
        if self.page_offset:
            self._load(self.search_text, max(0, self.page_offset - self.page_size), None,
                       self.page_size - 1 if last_row else 0)

    def start_search(self) -> None:
        search = self.search_box
        if search is None:
            search = Input(placeholder="search… (Enter to apply, Escape to clear)", classes="paged-search")
            self.mount(search, before=self.table)
        self.add_class("searching")
        search.value = self.search_text
        search.focus()

    # --- events ------------------------------------------------------------------
    @on(Input.Submitted, ".paged-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.set_search(event.value)
        self.table.focus()

    def on_key(self, event: events.Key) -> None:
        box = self.search_box
        if event.key == "escape" and self.has_class("searching") and box is not None and box.has_focus:
            event.stop()
            self.remove_class("searching")
            if self.search_text:
                self.set_search("")
            self.table.focus()
        elif event.key == "down" and self.table.has_focus and self.keys and \
                self.table.cursor_row == len(self.keys) - 1 and self.page_offset + self.page_size < self.total:
            event.stop()
            self.action_next_page()
        elif event.key == "up" and self.table.has_focus and self.keys and self.table.cursor_row == 0 and self.page_offset:
            event.stop()
            self.action_previous_page(last_row=True)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key.value != self.current_key:
            # the cursor has moved on since: a page put in the table highlights its first row, then the kept
            # one (after a decision, the first row's detail was read, then the kept one's again)
            return
        if self._quiet_key is not None and event.row_key.value == self._quiet_key:
            return  # the quiet reload's own highlight: the person did not move
        self._quiet_key = None
        self.post_message(self.Highlighted(self, event.row_key.value))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Chosen(self, event.row_key.value))
