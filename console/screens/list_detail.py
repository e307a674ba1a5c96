"""ListDetailScreen: a paged list on the left, the item under the cursor on the right.

A screen configures it with class attributes and four hooks:
- NAME (ids: `#NAME-list`, `#NAME-title`, `#NAME-detail`), TITLE, COLUMNS, EMPTY and FILTERS
  (each a `Filter`: shown as a Select and in the list's title, cleared with one key);
- `fetch_rows(db, search, offset, limit)` and `fetch_detail(db, key)` run in thread workers on
  the read connection; `render_detail(detail)` draws what was read into the pane, one LineDetail
  (`self.lines`, `#NAME-lines`): blocks redrawn in place, nothing remounted or laid out as the cursor moves.

The item shown has one name everywhere: `shown` (its key) and `detail` (what was read for it).
The detail follows the cursor after a short idle, so holding a key down does not read every row.
"""

import asyncio
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Select, Static
from textual.worker import Worker, get_current_worker

from gatepost.keymap import bound, key_for
from gatepost.safe import literal
from gatepost.screens.base import GatepostScreen
from gatepost.screens.reads import Read
from gatepost.widgets.filter_box import FilterBox, show_value
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.paged_list import ColumnSpec, PagedList, Row

# Seconds the cursor rests before the detail is read: moves already queued (a burst, a slow frame) are taken
# first, so only the row they stop on is read. Short, so one move settles within 33 ms in a terminal (15 ms
# of rest were half of it); a key held down repeats every 30-40 ms, and a read the next move overtakes is
# dropped.
FOLLOW_IDLE = 0.005


@dataclass(frozen=True)
class Filter:
    """One filter of a list: its name (apply_filter's keyword), its choices and what none means."""

    name: str
    options: tuple[tuple[str, str], ...]  # (label, value)
    any_label: str  # what the list shows with no value: "any status"
    default: str | None = None

    def label(self, value: str | None) -> str:
        return next((lbl for lbl, v in self.options if v == value), value or self.any_label)


class ListDetailScreen(GatepostScreen):
    """List + detail, read in workers; see the module docstring for what a screen configures."""

    class DetailRead(Read):
        """What the detail worker read for `key`, posted to the screen from the worker's thread. Only a read
        that answers the screen's newest request is drawn: it replaces the reads waiting before it, and an
        older one is dropped (the person moved on, or the item was asked for again, while it was read)."""

        WAITING = "_reading"

        def __init__(self, screen: "ListDetailScreen", worker: Worker[None], key: str | None, detail: Any) -> None:
            super().__init__(screen, worker)
            self.key, self.detail = key, detail

    class DetailShown(Message):
        """The detail pane now shows `key` (None: nothing); stale reads never post it."""

        bubble = False

        def __init__(self, key: str | None) -> None:
            super().__init__()
            self.key = key

    # on_mount focuses the list's table: Textual's own auto focus took the first focusable widget (a filter's
    # Select) first, and its focus and blur restyled the Select's widgets twice on every first page
    AUTO_FOCUS = ""
    NAME: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    COLUMNS: ClassVar[Sequence[ColumnSpec]] = ()
    EMPTY: ClassVar[str] = "Nothing here yet."
    FILTERS: ClassVar[tuple[Filter, ...]] = ()
    BINDINGS = [
        bound("f", "cycle_filter", "Filter", "list.filter"),
        bound("backspace", "clear_filters", "Clear the search", "list.clear", show=False),
    ]
    DEFAULT_CSS = """
    ListDetailScreen .filters Select { width: 1fr; }
    ListDetailScreen .filters FilterBox { width: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.filters: dict[str, str | None] = {f.name: f.default for f in self.FILTERS}
        self.shown: str | None = None  # the key of the item shown in the detail
        self.detail: Any = None  # what fetch_detail read for it
        self.wanted: str | None = None  # the key the detail is being read for
        self._opening: str | None = None  # an item asked for (open_item) not on the list's page: looked for
        self.follow_idle = FOLLOW_IDLE
        self._follow_timer: Timer | None = None
        self._reading: Worker[None] | None = None  # the newest detail request: what another worker read is dropped
        self._asked = False  # a detail was asked for: the first page's row is shown at once, later ones follow
        self.detail_settled = asyncio.Event()  # clear while a detail is pending (tests and benchmarks wait on it)
        self.detail_settled.set()

    # --- what a screen provides -----------------------------------------------------------
    def fetch_rows(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        raise NotImplementedError

    def fetch_detail(self, db: Any, key: str) -> Any:
        raise NotImplementedError

    def read_item(self, db: Any, key: str) -> Any:
        """What the detail worker reads for `key` (a DecisionScreen adds its seq, lease and queue)."""
        return self.fetch_detail(db, key)

    def read_nothing(self, db: Any) -> Any:
        """What the detail worker reads when no item is shown."""
        return None

    def render_detail(self, detail: Any) -> None:
        raise NotImplementedError

    def normalize_filters(self, changed: dict[str, str | None]) -> None:
        """Adjust the other filters after `changed` (e.g. an outcome implies closed)."""

    # --- layout -------------------------------------------------------------------------------
    def top(self) -> Iterator[Widget]:
        return iter(())

    def body(self) -> ComposeResult:
        yield from self.top()
        with Horizontal(classes="split"):
            with Vertical(classes="list-pane"):
                yield Static(id=f"{self.NAME}-title", classes="pane-title")
                if self.FILTERS:
                    with Horizontal(classes="filters"):
                        for f in self.FILTERS:
                            yield FilterBox(f.options, prompt=f.any_label,
                                            value=self.filters[f.name] or Select.NULL, id=f"{self.NAME}-{f.name}")
                paged = PagedList(self.COLUMNS, self.fetch_rows, empty=self.EMPTY, id=f"{self.NAME}-list")
                paged.initial_key = self.wanted
                paged.follow = lambda: self.wanted
                yield paged
            with Vertical(classes="detail-pane", id=f"{self.NAME}-detail"):
                # one widget drawn line by line: Statics were each laid out again with the screen
                # on every move, and a move on Regressions or Manifests cost twice one on Cases
                yield LineDetail(id=f"{self.NAME}-lines")

    # the list and the detail, found once: composed with the screen and never replaced (a move asked for each
    # several times, each a walk of the screen's widgets)
    _detail_widget: LineDetail | None = None
    _list_widget: PagedList | None = None

    @property
    def lines(self) -> LineDetail:
        """The detail pane's one widget, which `render_detail` draws the item into."""
        if self._detail_widget is None:
            self._detail_widget = self.query_one(f"#{self.NAME}-lines", LineDetail)
        return self._detail_widget

    @property
    def paged(self) -> PagedList:
        if self._list_widget is None:
            self._list_widget = self.query_one(f"#{self.NAME}-list", PagedList)
        return self._list_widget

    def on_mount(self) -> None:
        self.render_title()
        # at once: Widget.focus waits its turn in the app's queue, and a first page drawn unfocused was drawn again
        self.set_focus(self.paged.table)
        if self.wanted:
            self.show(self.wanted)  # a deep link: read at once; otherwise the first page's row is shown

    def on_screen_suspend(self) -> None:
        self._covered = isinstance(self.app.screen, ModalScreen)  # a dialog or help over this screen

    def on_screen_resume(self) -> None:
        if getattr(self, "_covered", False):  # back from a dialog: what it changed is redrawn by its write
            self._covered = False
            return
        self.refresh_if_changed()

    # --- the title: every filter and the search, and how to clear them -----------------------
    def render_title(self) -> None:
        text = Text(self.TITLE, style="bold")
        active = [f"{f.label(self.filters[f.name])}" for f in self.FILTERS if self.filters[f.name]]
        search = self.paged.search_text if self.query(f"#{self.NAME}-list") else ""
        if search:
            active.append(f"search {search!r}")
        for part in active:
            text.append(" · ")
            text.append_text(literal(part, style="bold reverse"))
        if not active and self.FILTERS:
            text.append(" · " + " · ".join(f.any_label for f in self.FILTERS), style="dim")
        text.append_text(self.title_extra())

        def k(binding_id: str, default: str) -> str:
            return key_for(self.app, binding_id, default)

        hints = f"   {k('list.search', 'slash')} search"
        if self.FILTERS:
            hints += f"  {k('list.filter', 'f')} filter"
        if search:
            hints += f"  {k('list.clear', 'backspace')} clears the search"
        text.append(hints, style="dim")
        self.query_one(f"#{self.NAME}-title", Static).update(text)

    def title_extra(self) -> Text:
        """What a screen adds to its title after the filters (the marked rows of a deciding screen); nothing here."""
        return Text()

    @on(PagedList.SearchChanged)
    def _search_changed(self) -> None:
        self.render_title()

    # --- filters ------------------------------------------------------------------------------
    def apply_filter(self, **filters: str) -> None:
        """name=value for each Filter; a value not among its choices ("any", "all") clears it. A change the
        person did not make on the filter itself (a queue, a jump, an overview line) is announced: a toast says
        what the list shows now, as its title does."""
        self.set_filters(filters, announce=True)

    def set_filters(self, filters: dict[str, str], *, announce: bool) -> None:
        """apply_filter; `announce` False for the person's own change (f, a filter's box)."""
        changed: dict[str, str | None] = {}
        for f in self.FILTERS:
            if f.name in filters:
                value = filters[f.name]
                changed[f.name] = value if value in {v for _l, v in f.options} else None
        before = dict(self.filters)
        self.filters.update(changed)
        self.normalize_filters(changed)
        if announce and self.filters != before:
            self.announce_filters()
        if not self.query(f"#{self.NAME}-list"):
            return  # not composed yet: composing reads the filters
        self._sync_selects()
        self.reload_list(first_page=True)

    def filters_label(self) -> str:
        """What the filters show, as the list's title says it: "needs a decision · any outcome"."""
        return " · ".join(f.label(self.filters[f.name]) for f in self.FILTERS)

    def announce_filters(self) -> None:
        if self.FILTERS:
            self.notify(f"{self.TITLE} now shows: {self.filters_label()}", title="Filter changed")

    def _sync_selects(self) -> None:
        for f in self.FILTERS:
            show_value(self, f"#{self.NAME}-{f.name}", self.filters[f.name])

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        name = (event.select.id or "").removeprefix(f"{self.NAME}-")
        if name not in self.filters:
            return
        value = None if event.value in (Select.NULL, Select.BLANK) else str(event.value)
        if value != self.filters[name]:
            self.set_filters({name: value or "any"}, announce=False)

    def action_cycle_filter(self) -> None:
        """The first filter's next value (none after the last)."""
        if not self.FILTERS:
            return
        f = self.FILTERS[0]
        order: list[str | None] = [v for _l, v in f.options] + [None]
        current = self.filters[f.name]
        nxt = order[(order.index(current) + 1) % len(order)] if current in order else order[0]
        self.set_filters({f.name: nxt or "any"}, announce=False)

    def action_clear_filters(self) -> None:
        """The text search off, its box emptied; the other filters stay (f and their boxes change them)."""
        paged = self.paged
        if not paged.search_text:
            self.notify("No search to clear: f changes the other filters.", severity="warning")
            return
        paged.clear_search()
        self.render_title()

    def reload_list(self, *, first_page: bool = False) -> None:
        paged = self.paged
        if first_page:
            paged.page_offset = 0
        self.render_title()
        paged.reload()  # the cursor stays on the item wanted when the page arrives

    # --- the detail -----------------------------------------------------------------------------
    def open_item(self, key: str) -> None:
        """Show `key`: on the list as it is when it is there, else on the whole list (no filter left behind)."""
        if not self.query(f"#{self.NAME}-list"):
            self.filters = {f.name: None for f in self.FILTERS}
            self.wanted = key  # composing loads the list; on_mount shows it
            return
        paged = self.paged
        if not paged.move_to_key(key):
            # the list read again as it is filtered: an item just made (a saved edit's new draft) is there, and
            # the filters stay; only when it is not are they cleared, and that is said (_open_on_the_list)
            self._opening = key
            paged.reload(keep_key=key)
        self.show(key)

    @on(PagedList.Loaded)
    def _open_on_the_list(self, event: PagedList.Loaded) -> None:
        key, self._opening = self._opening, None
        paged = self.paged
        if key is None or event.paged is not paged or key in paged.keys:
            return
        cleared = any(self.filters.values()) or bool(paged.search_text)
        self.filters = {f.name: None for f in self.FILTERS}
        self._sync_selects()
        paged.clear_search(reload=False)
        paged.page_offset = 0
        self.render_title()
        paged.reload(keep_key=key)
        if cleared:
            self.notify(f"{self.TITLE} now shows: {self.filters_label() or 'everything'}, to show {key}",
                        title="Filter changed")

    def refresh_data(self) -> None:
        """The list and the item read again (the store changed while the screen was away): the item the person
        asked for last, which a move waiting to be read has already made the cursor's row (not the one shown
        before, which would take the cursor back and undo the move)."""
        self.reload_list()
        if self.wanted or self.shown:
            self.show(self.wanted or self.shown)

    @on(PagedList.Highlighted)
    def _highlighted(self, event: PagedList.Highlighted) -> None:
        if event.paged.id != f"{self.NAME}-list":
            return
        event.stop()
        if not self._asked:
            self.show(event.key)  # the first page's row: drawn at once, nobody is moving yet
        elif event.key != self.wanted:
            self.follow(event.key)

    def follow(self, key: str | None) -> None:
        """Show `key` once the cursor rests `follow_idle` seconds: each move restarts a Textual timer,
        so holding a key down reads and draws only the row it stops on."""
        self.wanted = key
        self._asked = True
        self._reading = None  # a read already under way is for a row the person left
        if self._follow_timer is not None:
            self._follow_timer.stop()
        self.detail_settled.clear()
        self._follow_timer = self.set_timer(self.follow_idle, self._follow_now, name="follow")

    def _follow_now(self) -> None:
        self._follow_timer = None
        self.show(self.wanted)

    def show(self, key: str | None) -> None:
        """Read `key`'s detail in a worker and draw it; a newer request drops this one's result."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        self.wanted = key
        self._asked = True
        self.detail_settled.clear()
        self._reading = self._read_detail(key)

    @work(thread=True, exclusive=True, group="detail")
    def _read_detail(self, key: str | None) -> None:
        worker = get_current_worker()
        with self.gp_app.reading() as db:
            if worker.is_cancelled:
                return  # a newer request came while this one waited for the connection
            detail = self.read_item(db, key) if key else self.read_nothing(db)
        if not worker.is_cancelled:
            self.post_message(self.DetailRead(self, worker, key, detail))

    @on(DetailRead)
    def _arrived(self, event: DetailRead) -> None:
        if not event.newest():
            return  # stale: the person moved on (or the item was asked for again) while it was read
        key, detail = event.key, event.detail
        self._apply_detail(key, detail)
        self.detail_settled.set()
        self.post_message(self.DetailShown(key))

    def _apply_detail(self, key: str | None, detail: Any) -> None:
        if key != self.wanted:
            return  # the person moved on while it was read
        new_item = key != self.shown
        self.shown = key if detail is not None else None
        self.detail = detail
        self.render_detail(detail)
        if new_item and self.lines.scroll_offset.y:
            self.lines.scroll_to(0, 0, animate=False, immediate=True)  # a new item is read from its top
        self.refresh_bindings_if_changed()
