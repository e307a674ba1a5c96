"""Render's touches on single widgets: a scrolled widget's new height without a layout, a scrollbar that keeps
the lines it drew, a field's cursor held still for a picture, and the keys a keymap bound."""

from collections.abc import Mapping
from typing import Any

from textual.app import App
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from gatepost.render.switch import plain


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """`view`'s new virtual size. Widget.virtual_size is a layout reactive: set, Textual lays the whole screen out
    again. A ScrollView scrolls its own lines, so only a scrollbar that appears or goes (placed by the compositor)
    needs a layout; the rest is Textual's own ScrollView._scroll_update. Run plain: the reactive, as Textual
    has it."""
    if plain():
        view.virtual_size = size
        return
    shown = (view.show_vertical_scrollbar, view.show_horizontal_scrollbar)
    view.set_reactive(Widget.virtual_size, size)
    view._scroll_update(size)
    if (view.show_vertical_scrollbar, view.show_horizontal_scrollbar) != shown:
        view.refresh(layout=True)


class KeptScrollBar(ScrollBar):
    """A scrollbar that keeps the lines it drew, by everything they show: the rows asked for, the thumb's size and
    place, hover and grab, the theme and the colours its widget's styles give it. A detail whose height changes
    with every item moves its thumb on almost every cursor move, and Textual drew the bar's every row again through
    the whole styling pipeline (44 rows, 1.5-2 ms of a move); the heights items take come back."""

    KEPT = 64  # looks kept at most

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept: dict[tuple[Any, ...], list[Strip]] = {}

    def render_lines(self, crop: Region) -> list[Strip]:
        owner = self.parent
        styles = owner.styles if isinstance(owner, Widget) else self.styles
        look = (crop, self.size, self.window_virtual_size, self.window_size, self.position, self.grabbed,
                self.mouse_over, self.app.theme, styles.scrollbar_color, styles.scrollbar_background,
                styles.scrollbar_color_hover, styles.scrollbar_background_hover, styles.scrollbar_color_active,
                styles.scrollbar_background_active, styles.background, self.screen.styles.scrollbar_color)
        lines = self.kept.get(look)
        if lines is None:
            if len(self.kept) >= self.KEPT:
                self.kept.clear()
            lines = self.kept[look] = super().render_lines(crop)
        return lines


def kept_vertical_scrollbar(view: Widget) -> ScrollBar:
    """`view`'s vertical scrollbar, made (on first use, as Textual makes its own) a KeptScrollBar. Run plain:
    Textual's own."""
    if plain():
        return Widget.vertical_scrollbar.fget(view)  # type: ignore[attr-defined,no-any-return]
    bar = view._vertical_scrollbar
    if bar is None:
        bar = view._vertical_scrollbar = KeptScrollBar(vertical=True, name="vertical",
                                                       thickness=view.scrollbar_size_vertical)
        bar.display = False
        view.app._start_widget(view, bar)
    return bar


def steady_cursor(field: Widget) -> None:
    """An Input's or TextArea's cursor, its blinking stopped (`cursor_blink`), shown where the field has the focus,
    so two pictures of the same screen are the same (a blink tick already queued may have hidden it). A TextArea
    caches its lines without the focus in the key: they are drawn again."""
    field._cursor_visible = field.has_focus  # type: ignore[attr-defined]
    cache = getattr(field, "_line_cache", None)
    if cache is not None:
        cache.clear()
    field.refresh()


def keymap_of(app: App[Any]) -> Mapping[str, str]:
    """The keys the app's keymap binds now (binding id: keys). Textual keeps them only in App._keymap; the
    console shows them in its footer and help."""
    return getattr(app, "_keymap", {}) or {}
