"""A screen's frame control: when Textual draws a screen, and on which compositor.

`FrameControl` holds render's overrides of Textual's Screen (console/render/internals.py lists each private name
with why); `new_screen(cls)` makes a console screen with them before its class, unless the console runs plain.
The screen keeps its own hooks (`after_painted`, `hold_first_frame`, `release_first_frame`, `first_page_drawn`),
which on stock Textual draw when Textual draws and hold nothing back.
"""

import gc
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events
from textual.geometry import Size
from textual.screen import Screen

from gatepost.render.compositor import RowsCompositor
from gatepost.render.switch import fast, plain

if TYPE_CHECKING:  # a mixin: at run time its class is put before a console screen's (switch.fast)
    _Screen = Screen[Any]
else:
    _Screen = object

FIRST_PAGE_HOLD = 0.3  # seconds a new screen's first frame waits for its first page at most

S = TypeVar("S", bound=Screen[Any])


def new_screen(cls: type[S]) -> S:
    """A console screen of class `cls`, with render's frame control unless the console runs plain.

    It is styled when it mounts, from the stylesheet as it is now. Textual starts a screen's count at -1, so
    the first switch back to it ran App.refresh_css: the whole stylesheet reparsed, every widget restyled (each
    DataTable's rendered rows dropped) and laid out again. A theme change later still bumps the app's."""
    screen = fast(cls, FrameControl)()
    if not plain():
        screen._css_update_count = screen.app._css_update_count
    return screen


# new objects (net of those freed) between collections of the youngest generation while a console shows its screens:
# Python's 700 collected 3-4 times a cursor move, and every tenth promoted what lived into a collection of 1 ms
# (a tenth of the move went to the collector); nearly all of a move's objects are freed before 10,000 come
YOUNG_OBJECTS = 10_000
_threshold: tuple[int, int, int] | None = None  # Python's own, before a console raised it


def freeze_heap() -> None:
    """What exists now (modules, styles, a screen's widgets and rendered rows) lives as long as the console, so
    Python's collector stops walking it (gc.freeze). Full collections walked the whole heap, 100–400 ms each,
    and came every few cursor moves; they now walk only what was made since. Freed as before when no longer
    referenced; only a cycle among these objects would stay, and they are made once per screen. The youngest
    generation is collected every YOUNG_OBJECTS new objects from then on."""
    global _threshold
    gc.freeze()
    if _threshold is None:
        _threshold = gc.get_threshold()
        gc.set_threshold(max(_threshold[0], YOUNG_OBJECTS), *_threshold[1:])


def unfreeze_heap() -> None:
    """What the screens froze is collectable again, at Python's own pace (the app is gone)."""
    global _threshold
    if _threshold is not None:
        gc.set_threshold(*_threshold)
        _threshold = None
    gc.unfreeze()


class FrameControl(_Screen):
    """Render's overrides of a console screen: a partial update drawn on its rows only (RowsCompositor), a
    screen shown again drawn from what it rendered, a screen built behind a mode switch drawn once, and its
    first page kept out of full collections."""

    _heap_frozen = False  # first_page_drawn froze the heap for this screen
    _holding = False  # the screen holds the app's frames back until its first page is in (hold_first_frame)
    _laying_out = False  # within Screen._refresh_layout
    _put_off = 0  # layouts in a row whose frame was put off for the next (at most two)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = RowsCompositor()  # a partial update renders its rows only (compositor.py)
        self._after_frame: list[Callable[[], object]] = []  # after_painted's, while a mode switch holds frames back

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
    _layout_put_off: Size | None = None  # the size of the first layout, put off until the first page is in

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        """A new screen holding its frames for its first page (hold_first_frame) is not laid out until the page is
        in (release_first_frame), when its lists' widths are known without a layout (`widths_before_layout`): the
        screen shown again lays it out at once (Screen._on_screen_resume), empty, and the rows laid it out again
        (31 widgets for the Results screen, each with its Resize: a tenth of its first page)."""
        known = getattr(self, "widths_before_layout", None)  # a console screen's (GatepostScreen)
        if self._holding and size is not None and not self._size and callable(known) and known():
            self._layout_put_off = size
            return
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

    def hold_first_frame(self, lists: bool) -> None:
        """A list screen (`lists`) built behind a mode switch's hold (App.delay_update, 50 ms) keeps frames held
        until its first page is in (at most FIRST_PAGE_HOLD): that hold often ended first, and the screen was drawn
        whole with its lists empty, then whole again once the rows came (a third of the Results screen's first
        page)."""
        if self.app._batch_count and lists:
            self._holding = True
            self.app._begin_batch()
            self.set_timer(FIRST_PAGE_HOLD, self.release_first_frame)

    def release_first_frame(self) -> None:
        if self._holding:
            self._holding = False
            size, self._layout_put_off = self._layout_put_off, None
            if size is not None:  # the first layout, with the page in (or the hold's time up)
                self._refresh_layout(size)
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

    def first_page_drawn(self) -> None:
        """Once per screen, when its first page is in: the heap as it is now is frozen (freeze_heap)."""
        if not self._heap_frozen:
            self._heap_frozen = True
            freeze_heap()
