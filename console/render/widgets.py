"""Render's touches on single widgets: a scrolled widget's new height without a layout, a field's cursor held
still for a picture, and the keys a keymap bound."""

from collections.abc import Mapping
from typing import Any

from textual.app import App
from textual.geometry import Size
from textual.scroll_view import ScrollView
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
