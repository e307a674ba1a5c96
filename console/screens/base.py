"""What every screen of the console shares: header, footer, the store and the person."""

import gc
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Header

from gatepost.keymap import bound
from gatepost.screens.compositor import RowsCompositor
from gatepost.store.views import change_seq
from gatepost.widgets.key_bar import KeyFooter
from gatepost.widgets.nav_bar import NavBar
from gatepost.widgets.paged_list import PagedList

if TYPE_CHECKING:  # the app imports every screen: only the type checker imports it back
    from gatepost.app import GatepostApp

DETAIL_LEAST = 30  # columns the detail pane keeps when a list needs more than half the width
FIRST_PAGE_HOLD = 0.3  # seconds a new screen's first frame waits for its first page at most
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
    _heap_frozen = False  # first_page_drawn froze the heap for this screen
    _holding = False  # the screen holds the app's frames back until its first page is in (_hold_first_frame)

    def __init__(self) -> None:
        super().__init__()
        self._compositor = RowsCompositor()  # a partial update renders its rows only (compositor.py)
        self._after_frame: list[Callable[[], object]] = []  # after_painted's, while a mode switch holds frames back

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield from self.body()
        with Vertical(id="bottom-bar"):
            yield NavBar()
            yield KeyFooter()

    def body(self) -> ComposeResult:
        return iter(())

    # --- shown again: what Textual redoes that a screen only hidden does not need ---------------------
    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Shown again (a mode switch or a dialog closed): Textual's own handler (Screen._on_screen_resume, which
        runs after this one) restyles every widget of the screen when the event asks it to, which empties each
        DataTable's rendered rows, and the repaint then draws every row again (a revisit cost about a first
        frame). Nothing about the styles changed while it was hidden: a theme or CSS change is applied by
        `App.switch_mode` (refresh_css) before this. So the event asks for no restyle; the screen is repainted
        from what its widgets already rendered, and laid out again only when the size changed."""
        event.refresh_styles = False

    def _screen_resized(self, size: Size) -> None:
        """`App.switch_mode` calls this on every switch and Textual lays the whole screen out again even at the
        same size; only a new size needs it."""
        if size != self._size:
            super()._screen_resized(size)

    # --- built behind a mode switch: one frame, when the switch shows it -----------------------------
    _laying_out = False  # within Screen._refresh_layout
    _put_off = 0  # layouts in a row whose frame was put off for the next (at most two)

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self._laying_out = True
        try:
            super()._refresh_layout(size, scroll)
        finally:
            self._laying_out = False

    def _compositor_refresh(self) -> None:
        """Frames Textual draws only to draw them again.

        `App.switch_mode` holds frames back while a new screen is built (App.delay_update), yet the layout made
        meanwhile (the screen resumed) rendered a whole frame anyway, which App._display then dropped: a first
        page was rendered twice (70 ms of the Results screen's). While frames are held back the screen is only
        marked for a repaint, drawn once they are let through.

        A frame is put off while a widget has asked for a layout (the layout just made showed a scrollbar or
        moved a scrolled content: Textual lays out again at once), at most twice in a row: what is to be drawn
        stays in the compositor, and the frame after the last layout draws it all once (the Results screen's
        first page was drawn, then its scrollbars and what they moved in two more frames).

        Then the end of the hold asks for the whole screen (a repaint) while the rows that came meanwhile ask for a
        layout: Textual drew the layout's frame, then the whole screen again in a second one (Screen.
        _on_timer_update). A layout's frame takes the whole screen in when it is asked for: one frame."""
        if self is not self.app.screen:
            super()._compositor_refresh()
            return
        if self.app._batch_count:
            self.refresh()
            return
        if self._put_off < 2 and any(w._layout_required for w in self._compositor.visible_widgets if w is not self):
            self._put_off += self._laying_out
            return  # the layout asked for draws it (Widget._check_refresh asks the screen for it)
        self._put_off = 0
        if self._repaint_required:
            self._repaint_required = False
            self._compositor.update_widgets({self})
        super()._compositor_refresh()
        if self._after_frame:
            waiting, self._after_frame = self._after_frame, []
            for callback in waiting:
                self.call_after_refresh(callback)

    @on(events.Mount)
    def _hold_first_frame(self) -> None:
        """A list screen built behind a mode switch's hold (App.delay_update, 50 ms) keeps frames held until its
        first page is in (at most FIRST_PAGE_HOLD): that hold often ended first, and the screen was drawn whole
        with its lists empty, then whole again once the rows came (a third of the Results screen's first page)."""
        if self.app._batch_count and self.query(PagedList):
            self._holding = True
            self.app._begin_batch()
            self.set_timer(FIRST_PAGE_HOLD, self._release_first_frame)

    def _release_first_frame(self) -> None:
        if self._holding:
            self._holding = False
            self.app._end_batch()
            if not self.app._batch_count:
                self.refresh()

    def after_painted(self, callback: Callable[..., object], *args: Any) -> None:
        """`callback(*args)` once what the screen shows now is drawn: Textual's call_after_refresh runs it at once
        while a mode switch holds frames back, or when a frame put off for a layout (_compositor_refresh) left the
        screen idle a moment, so work meant to follow the first frame shared its time."""
        if self.app._batch_count or self._frame_coming():
            self._after_frame.append(partial(callback, *args))
        else:
            self.call_after_refresh(callback, *args)

    def _frame_coming(self) -> bool:
        """Whether the screen or one of its widgets asked for a repaint or a layout not drawn yet."""
        return bool(self._layout_required or self._repaint_required or self._dirty_widgets) or any(
            w._layout_required or w._repaint_required for w in self._compositor.widgets)

    # --- layout: the list pane takes what its columns need, up to half the width -----------------
    def fit_list_panes(self) -> None:
        """Size each `.split > .list-pane` to its list's columns, at most half the screen; more only when
        the columns never left out (a run's skill, verdict, rates and delta) need it, the detail keeping
        DETAIL_LEAST columns."""
        half = self.size.width // 2
        for pane in self.query(".split > .list-pane"):
            lists = list(pane.query(PagedList))
            if not lists or not half:
                continue
            chrome = pane.styles.border.spacing.width + pane.styles.padding.width
            wanted = lists[0].wanted_width() + chrome
            most = max(half, min(lists[0].least_width() + chrome, self.size.width - DETAIL_LEAST))
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
        self._release_first_frame()

    def first_page_drawn(self) -> None:
        """Once per screen, when its first page is in: what exists now (modules, styles, the screen's widgets and
        rendered rows) lives as long as the console, so Python's collector stops walking it (gc.freeze). Full
        collections walked the whole heap, 100–400 ms each, and came every few cursor moves; they now walk only
        what was made since. Freed as before when no longer referenced; only a cycle among these objects would
        stay, and they are made once per screen."""
        if not self._heap_frozen:
            self._heap_frozen = True
            gc.freeze()

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
            return bool(self.query(PagedList))
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
        all its keys on every refresh_bindings, which cost more than drawing the detail itself."""
        state = tuple((key, b.binding.action, b.enabled) for key, b in self.active_bindings.items())
        if state != getattr(self, "_bindings_state", None):
            self._bindings_state = state
            self.refresh_bindings()

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
