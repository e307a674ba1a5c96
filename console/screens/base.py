"""What every screen of the console shares: header, footer, the store and the person."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual import events, on, work
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Header

from gatepost.keymap import bound
from gatepost.store.views import change_seq
from gatepost.widgets.key_bar import KeyFooter
from gatepost.widgets.nav_bar import NavBar
from gatepost.widgets.paged_list import PagedList

if TYPE_CHECKING:  # the app imports every screen: only the type checker imports it back
    from gatepost.app import GatepostApp

DETAIL_LEAST = 30  # columns the detail pane keeps when a list needs more than half the width
# on a wide screen a list whose columns want more than half (a case's title) takes it while the detail keeps this:
# a line of text as most people read one (its frame and padding in it)
DETAIL_READABLE = 80
HEADER_ICON = "≡"  # in every common monospace font (⭘ rendered as a missing-glyph box)


class GatepostScreen(Screen[Any]):
    """A console screen. Subclasses compose `body()`; the person is `self.person`.

    Screens read the store in thread workers through `self.app.reading()` and write through
    `await self.app.write(fn, …)`; nothing here touches SQLite on the event loop.
    A screen that lists things may implement `apply_filter(**filters)`: the
    overview opens lists already filtered through it, and `open_item(key)` to show one item.
    """

    BINDINGS = [bound("slash", "search", "Search", "list.search")]
    DEFAULT_CSS = """
    GatepostScreen #bottom-bar { dock: bottom; height: auto; max-height: 8; }
    """
    mode_name: str | None = None  # the app sets it: the NavBar marks this screen's key
    shown_change: int | None = None  # the store's change_seq when the screen was last shown

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield from self.body()
        with Vertical(id="bottom-bar"):
            yield NavBar()
            yield KeyFooter()

    def body(self) -> ComposeResult:
        return iter(())

    # --- when it is drawn: hooks render's frame control fills (gatepost.render.FrameControl) -----------------
    def after_painted(self, callback: Callable[..., object], *args: Any) -> None:
        """`callback(*args)` once what the screen shows now is drawn."""
        self.call_after_refresh(callback, *args)

    def hold_first_frame(self, lists: bool) -> None:
        """Mounted (`lists`: it shows a PagedList): frames may be held until its first page is in."""

    def release_first_frame(self) -> None:
        """Its first page is in: frames held for it are let through."""

    def first_page_drawn(self) -> None:
        """Once its first page is in: what it made lives as long as the console."""

    def widths_before_layout(self) -> bool:
        """Whether render's frame control may lay the new screen out first once its first page is in (not empty
        before it): the screen's first page is one read, the lists and what they show beside them, and the lists'
        widths are known from the screen's width (fit_list_for). Not for the deciding screens: their first item's
        detail and the queue's bar come from a read of their own after the page, and laid out with the page alone
        the detail was drawn at the height it has without the bar, then again with it (seen under load)."""
        return False

    _lists = False  # it shows a PagedList (composed with it: asked on every check of the `/` binding)

    @on(events.Mount)
    def _mounted(self) -> None:
        self._lists = bool(self.query(PagedList))
        self.hold_first_frame(self._lists)

    # --- layout: the list pane takes what its columns need, up to half the width -----------------
    def fit_list_panes(self) -> None:
        """Size each `.split > .list-pane` to its list's columns, at most half the screen, or what is left beside
        a detail of DETAIL_READABLE columns when that is more (200 columns: 120); more only when the columns
        never left out (a run's skill, verdict, rates and delta) need it, the detail keeping DETAIL_LEAST columns.
        A screen not laid out yet (its first page in before its first layout) takes the app's width, as it will."""
        screen = self.size.width or self.app.size.width
        half = max(screen // 2, screen - DETAIL_READABLE)
        for pane in self.query(".split > .list-pane"):
            lists = list(pane.query(PagedList))
            if not lists or not half:
                continue
            chrome = pane.styles.border.spacing.width + pane.styles.padding.width
            wanted = lists[0].wanted_width() + chrome
            most = max(half, min(lists[0].least_width() + chrome, screen - DETAIL_LEAST))
            width = min(wanted, most)
            if pane.styles.width is None or pane.styles.width.cells != width:
                pane.styles.width = width

    def fit_list_for(self, paged: PagedList) -> int | None:
        """Called by `paged` when its rows arrive, before they are drawn: the list panes fitted to them, and
        the width `paged`'s table takes in its pane (None: it is not in a fitted pane, or nothing is laid out)."""
        self.fit_list_panes()
        for pane in self.query(".split > .list-pane"):
            if paged in pane.query(PagedList) and pane.styles.width is not None and pane.styles.width.cells:
                chrome = pane.styles.border.spacing.width + pane.styles.padding.width
                return int(pane.styles.width.cells) - chrome
        return None

    @on(PagedList.Loaded)
    def _fit_after_load(self) -> None:
        self.fit_list_panes()
        self.first_page_drawn()
        self.release_first_frame()

    def on_resize(self, event: events.Resize) -> None:
        self.fit_list_panes()

    @property
    def gp_app(self) -> "GatepostApp":
        """`self.app`, typed: a console screen only ever runs inside the GatepostApp."""
        return cast("GatepostApp", self.app)

    @property
    def person(self) -> str:
        return self.gp_app.person

    def can(self, capability: str) -> bool:
        return capability in self.gp_app.capabilities

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "search":  # `/` only where there is a list to search: not in help, not answered "nothing"
            return self._lists
        return True

    def action_search(self) -> None:
        lists = list(self.query(PagedList))
        focused = next((p for p in lists if p.has_focus_within), None)
        target = focused or (lists[0] if lists else None)
        if target is None:
            self.notify("Nothing to search on this screen.", severity="warning")
            return
        target.start_search()

    def apply_filter(self, **filters: str) -> None:  # overridden by list screens
        """Show the list filtered; screens without filters ignore it."""

    def open_item(self, key: str) -> None:  # overridden by list screens
        """Show one item's detail."""

    def refresh_bindings_if_changed(self) -> None:
        """Tell the footer about the keys only when one was enabled or disabled: the footer rebuilds
        all its keys on every refresh_bindings, which cost more than drawing the detail itself.

        Only the screen's own keys are asked (its check_action): what it shows changes what it allows, never what
        the app's or a widget's keys do, and Textual refreshes the keys itself when the focus moves. Asking every
        key of the focus chain (Screen.active_bindings, 44 of them) would cost a tenth of drawing a new item."""
        state = tuple(self.check_action(name, args) for name, args in self._own_actions())
        if state != getattr(self, "_bindings_state", None):
            self._bindings_state = state
            self.refresh_bindings()

    _actions: "list[tuple[str, tuple[object, ...]]] | None" = None

    def _own_actions(self) -> list[tuple[str, tuple[object, ...]]]:
        """The actions the screen's own keys run (from every class's BINDINGS), as check_action is asked them."""
        if self._actions is None:
            found: dict[str, tuple[str, tuple[object, ...]]] = {}
            for cls in type(self).__mro__:
                for binding in cls.__dict__.get("BINDINGS", ()):
                    action = binding.action if isinstance(binding, Binding) else binding[1]
                    namespace, name, args = parse_action(action)
                    if not namespace:
                        found[action] = (name, args)
            self._actions = list(found.values())
        return self._actions

    def refresh_data(self) -> None:
        for paged in self.query(PagedList):
            paged.reload(keep_key=paged.current_key)

    @work(thread=True, exclusive=True, group="version")
    def refresh_if_changed(self) -> None:
        """A screen shown again redraws only when the store changed since it was last shown (its change_seq:
        a decision, an import or a lease moves it; a person opening an item, a read receipt, does not)."""
        with self.gp_app.reading() as db:
            seq = change_seq(db)
        before, self.shown_change = self.shown_change, seq
        if before is not None and seq != before:  # first shown: composing it has just read everything
            self.app.call_from_thread(self.refresh_data)
