"""What every screen of the console shares: header, footer, the store and the person."""

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header

from gatepost.widgets.nav_bar import NavBar
from gatepost.widgets.paged_list import PagedList


class GatepostScreen(Screen):
    """A console screen. Subclasses compose `body()`; the store is `self.db`, the person `self.person`.

    A screen that lists things may implement `apply_filter(**filters)`: the
    overview and the command palette open lists already filtered through it,
    and `open_item(key)` to show one item's detail.
    """

    BINDINGS = [Binding("slash", "search", "Search", key_display="/")]
    DEFAULT_CSS = """
    GatepostScreen #bottom-bar { dock: bottom; height: 2; }
    GatepostScreen #bottom-bar Footer { dock: none; }
    """
    mode_name: str | None = None  # the app sets it: the NavBar marks this screen's key

    def compose(self) -> ComposeResult:
        yield Header()
        yield from self.body()
        with Vertical(id="bottom-bar"):
            yield NavBar()
            yield Footer()

    def body(self) -> ComposeResult:
        return iter(())

    @property
    def db(self):
        return self.app.db

    @property
    def person(self) -> str:
        return self.app.person

    def can(self, capability: str) -> bool:
        return capability in self.app.capabilities

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

    def refresh_data(self) -> None:
        for paged in self.query(PagedList):
            paged.reload(keep_key=paged.current_key)
