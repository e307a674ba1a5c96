"""A list that pages from SQL: one page of rows in a DataTable, never the whole table.

The owner supplies `fetch(search, offset, limit) -> (rows, total)` where each
row is `(key, [cell, ...])`. Cells that are `str` are shown literally (never
as Rich markup); pass a `rich.text.Text` to style a cell yourself.
"""

from collections.abc import Callable, Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from gatepost.safe import literal

Row = tuple[str, Sequence[object]]
Fetch = Callable[[str, int, int], tuple[list[Row], int]]


def _cell(value: object) -> object:
    if isinstance(value, Text):
        return value
    if value is None:
        return Text("")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Text(f"{value:.4g}" if isinstance(value, float) else f"{value:,}", justify="right")
    return literal(value)


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

    class Highlighted(Message):
        """The cursor moved to the row with this key."""

        def __init__(self, paged: "PagedList", key: str | None) -> None:
            super().__init__()
            self.paged = paged
            self.key = key

        @property
        def control(self) -> "PagedList":
            return self.paged

    class Chosen(Message):
        """Enter on the row with this key."""

        def __init__(self, paged: "PagedList", key: str) -> None:
            super().__init__()
            self.paged = paged
            self.key = key

        @property
        def control(self) -> "PagedList":
            return self.paged

    def __init__(
        self,
        columns: Sequence[tuple[str, int | None]],
        fetch: Fetch,
        *,
        page_size: int = 100,
        empty: str = "Nothing here yet.",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.fetch = fetch
        self.page_size = page_size
        self.empty = empty
        self.page_offset = 0
        self.total = 0
        self.search_text = ""
        self.keys: list[str] = []
        self.loaded = False  # True once the first page has been fetched and shown

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search… (Enter to apply, Escape to clear)", classes="paged-search")
        table: DataTable = DataTable(cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", classes="paged-status")

    @property
    def table(self) -> DataTable:
        return self.query_one(DataTable)

    def on_mount(self) -> None:
        for label, width in self.columns:
            self.table.add_column(label, width=width)
        self.reload()

    # --- loading -----------------------------------------------------------------
    def reload(self, *, keep_key: str | None = None) -> None:
        """Fetch the current page again (after a decision, a filter or a search)."""
        rows, self.total = self.fetch(self.search_text, self.page_offset, self.page_size)
        if not rows and self.page_offset and self.total:
            self.page_offset = max(0, (self.total - 1) // self.page_size * self.page_size)
            rows, self.total = self.fetch(self.search_text, self.page_offset, self.page_size)
        table = self.table
        table.clear()
        self.keys = []
        for key, cells in rows:
            table.add_row(*[_cell(c) for c in cells], key=key)
            self.keys.append(key)
        if keep_key in self.keys:
            table.move_cursor(row=self.keys.index(keep_key))
        self._status()
        self.loaded = True
        self.post_message(self.Highlighted(self, self.current_key))

    def _status(self) -> None:
        status = self.query_one(".paged-status", Static)
        if not self.total:
            hint = f" (no match for {self.search_text!r})" if self.search_text else ""
            status.update(literal(self.empty + hint))
            return
        first, last = self.page_offset + 1, self.page_offset + len(self.keys)
        more = "  ] next page" if last < self.total else ""
        less = "  [ previous" if self.page_offset else ""
        found = f" matching {self.search_text!r}" if self.search_text else ""
        status.update(literal(f"Showing {first:,}–{last:,} of {self.total:,}{found}{less}{more}"))

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

    def move_to_key(self, key: str) -> bool:
        if key in self.keys:
            self.table.move_cursor(row=self.keys.index(key))
            return True
        return False

    # --- paging ------------------------------------------------------------------
    def action_next_page(self) -> None:
        if self.page_offset + self.page_size < self.total:
            self.page_offset += self.page_size
            self.reload()
            self.table.move_cursor(row=0)

    def action_previous_page(self) -> None:
        if self.page_offset:
            self.page_offset = max(0, self.page_offset - self.page_size)
            self.reload()
            self.table.move_cursor(row=len(self.keys) - 1)

    def start_search(self) -> None:
        self.add_class("searching")
        search = self.query_one(Input)
        search.value = self.search_text
        search.focus()

    # --- events ------------------------------------------------------------------
    @on(Input.Submitted, ".paged-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.set_search(event.value)
        self.table.focus()

    def on_key(self, event) -> None:
        if event.key == "escape" and self.has_class("searching") and self.query_one(Input).has_focus:
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
            self.action_previous_page()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self, event.row_key.value))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Chosen(self, event.row_key.value))
