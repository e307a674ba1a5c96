"""Updating the detail pane in place: a Static that did not change is left alone, and one whose
height did not change is repainted without laying the whole screen out again.

Textual's `Static.update()` asks for a layout by default, and a layout reflows every widget of the
screen; a cursor move that changed six Statics laid the screen out several times.
"""

from rich.text import Text
from textual.visual import VisualType
from textual.widgets import Static


def put(widget: Static, content: VisualType) -> bool:
    """Show `content` in `widget`; True when it changed. A layout only when its height changes."""
    if _same(widget.content, content):
        return False
    styles = widget.styles
    before = widget.content_size
    widget.update(content, layout=False)
    if not before.width or not widget.is_mounted:
        widget.refresh(layout=True)  # never laid out yet: its first layout decides its size
    elif styles.width is not None and styles.width.is_auto:
        widget.refresh(layout=True)
    elif styles.height is not None and styles.height.is_auto:
        height = widget.get_content_height(widget.container_size, widget.app.size, before.width)
        if styles.min_height is not None and styles.min_height.is_cells:  # the box keeps at least this height
            height = max(height, int(styles.min_height.value) - styles.gutter.height)
        if height != before.height:
            widget.refresh(layout=True)
    return True


def _same(old: object, new: object) -> bool:
    if isinstance(old, Text) and isinstance(new, Text):
        return old.plain == new.plain and old.spans == new.spans and old.style == new.style
    return type(old) is type(new) and isinstance(new, str) and old == new
