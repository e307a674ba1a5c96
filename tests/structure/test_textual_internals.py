"""The console leans on a few of Textual's private names to draw less (issue 15: revisit, first pages, cursor
moves). pyproject.toml pins Textual to the series they were read from; this says, by name, which one a new
Textual lacks, instead of a screen quietly drawing stale rows or every row again."""

from textual._compositor import Compositor
from textual.app import App
from textual.events import ScreenResume
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.widgets import DataTable

# (what, the object, the names the console reads, calls or overrides)
USED = [
    ("App (console/app.py, console/screens/base.py)", App,
     ["_css_update_count", "_screen_stacks", "delay_update", "_batch_count", "_begin_batch", "_end_batch"]),
    ("ScreenResume (console/screens/base.py)", ScreenResume, ["refresh_styles"]),
    ("Screen (console/screens/base.py)", Screen,
     ["_on_screen_resume", "_screen_resized", "_size", "_css_update_count", "_compositor_refresh", "_refresh_layout",
      "_compositor", "_repaint_required", "_layout_required", "_dirty_widgets"]),
    ("DataTable (console/widgets/paged_list.py PageTable)", DataTable,
     ["_on_resize", "_repaint_required", "_repaint_regions", "_row_render_cache", "_cell_render_cache", "_row_renderable_cache", "_line_cache",
      "_row_locations", "_data", "refresh_row", "_render_cell", "_render_line_in_row", "_update_dimensions",
      "_header_row_key", "_column_locations", "_show_hover_cursor", "_update_count", "_pseudo_class_state",
      "_get_styles_to_render_cell", "_get_row_renderables", "_row_label_column_width", "_total_row_height",
      "_set_hover_cursor"]),
    ("ScrollView (console/widgets/line_detail.py)", ScrollView, ["_scroll_update"]),
    ("Compositor (console/screens/compositor.py)", Compositor,
     ["_get_renders", "_render_chops", "_dirty_regions", "visible_widgets", "render_partial_update"]),
]


def _instance(cls: type) -> object:
    if cls is App:
        return App()
    if cls is Screen:
        return Screen()
    if cls is ScreenResume:
        return ScreenResume()
    return cls()


def test_every_private_textual_name_the_console_uses_exists():
    missing = []
    for what, cls, names in USED:
        made = _instance(cls)
        missing += [f"{what}: {name}" for name in names if not hasattr(cls, name) and not hasattr(made, name)]
    assert missing == [], "this Textual lacks what the console overrides or reads: " + "; ".join(missing)
