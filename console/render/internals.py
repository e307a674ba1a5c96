"""Every private Textual name the render floor uses, with why: the list tests/structure/test_textual_internals.py
reads. It fails when one used in console/render/ is missing here, when one listed is no longer used, and when
the Textual installed lacks one (then see README.md beside this file).

`owner` is where Textual defines the name (a class, or a module for its module-level names); `how` is what
render does with it: "overrides" (a method of Textual's replaced, calling Textual's own around it), "reads",
"calls", "writes", "imports", or "rebinds" (a module constant set as the console starts; public names, listed
so that an upgrade that drops them says so).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Private:
    owner: str
    name: str
    how: str
    where: str
    why: str


_APP = "textual.app.App"
_SCREEN = "textual.screen.Screen"
_TABLE = "textual.widgets.DataTable"
_COMPOSITOR = "textual._compositor.Compositor"

PRIVATE: list[Private] = [
    # --- the rows compositor (compositor.py)
    Private("textual", "_compositor", "imports", "compositor.py",
            "RowsCompositor is Textual's Compositor; Textual offers no public way to give a screen another"),
    Private(_COMPOSITOR, "_get_renders", "overrides", "compositor.py",
            "a partial update renders only the widgets with a cell in it, on its rows (Textual renders every "
            "widget it meets on all its lines: ~650 lines for a cursor move)"),
    Private(_COMPOSITOR, "_render_chops", "overrides", "compositor.py",
            "Textual's loop filling each line's cuts front to back, with the lines it fills open to _get_renders: a "
            "widget is rendered only on the rows where a cut it spans is still empty (the screen and the boxes "
            "under their children are covered on most lines)"),
    Private(_COMPOSITOR, "_dirty_regions", "reads", "compositor.py RowsCompositor.render_partial_update",
            "the update's regions: a widget is rendered on the rows of the regions it has a cell in"),
    # --- the screen's frame control (frames.py)
    Private(_SCREEN, "_compositor", "writes", "frames.py FrameControl.__init__",
            "the screen draws through RowsCompositor"),
    Private(_SCREEN, "_css_update_count", "writes", "frames.py new_screen",
            "a new screen starts at the app's count: Textual's -1 restyled every widget on the first revisit"),
    Private(_APP, "_css_update_count", "reads", "frames.py new_screen", "the count a new screen starts at"),
    Private(_SCREEN, "_on_screen_resume", "overrides", "frames.py FrameControl",
            "a screen shown again is not restyled (which empties each DataTable's rendered rows)"),
    Private(_SCREEN, "_screen_resized", "overrides", "frames.py FrameControl",
            "App.switch_mode calls it on every switch; laid out again only at a new size"),
    Private(_SCREEN, "_size", "reads", "frames.py FrameControl._screen_resized, _refresh_layout",
            "the size it was laid out at (none yet: a new screen)"),
    Private(_SCREEN, "_refresh_layout", "overrides", "frames.py FrameControl",
            "marks a layout under way, so a frame put off counts layouts in a row (_compositor_refresh); a new "
            "screen's first layout waits for its first page (not the empty screen laid out, then again with it)"),
    Private(_SCREEN, "_compositor_refresh", "overrides", "frames.py FrameControl",
            "no frame while a mode switch holds frames back or a widget asked for another layout: one frame "
            "instead of two or three for a new screen's first page"),
    Private(_SCREEN, "_repaint_required", "reads", "frames.py FrameControl",
            "a repaint asked for is taken into the layout's frame"),
    Private(_SCREEN, "_layout_required", "reads", "frames.py FrameControl",
            "a widget (or the screen) that asked for a layout: its frame is coming"),
    Private(_SCREEN, "_dirty_widgets", "reads", "frames.py FrameControl._frame_coming",
            "widgets waiting to be drawn: a frame is coming"),
    Private(_APP, "_batch_count", "reads", "frames.py FrameControl",
            "whether App.switch_mode (delay_update) holds frames back now"),
    Private(_APP, "_begin_batch", "calls", "frames.py FrameControl.hold_first_frame",
            "a new list screen holds frames until its first page is in (at most FIRST_PAGE_HOLD)"),
    Private(_APP, "_end_batch", "calls", "frames.py FrameControl.release_first_frame", "the hold let go"),
    # --- the app (app.py)
    Private(_APP, "_screen_stacks", "reads", "app.py ConsoleApp.switch_mode",
            "whether the screen switched to exists already: then it is drawn at once (no 50 ms delay_update)"),
    Private("textual.constants", "MAX_FPS", "rebinds", "app.py set_frame_rate",
            "Textual's frame rate, read from TEXTUAL_FPS when Textual is first imported"),
    Private("textual.screen", "UPDATE_PERIOD", "rebinds", "app.py set_frame_rate",
            "each screen's update timer period, read when the screen first draws"),
    # --- the page table (table.py FastRows)
    Private(_TABLE, "_render_line_in_row", "overrides", "table.py",
            "rendered rows are kept for the width they were drawn at (DataTable keys them by row alone)"),
    Private(_TABLE, "_row_render_cache", "reads", "table.py", "dropped at a new width, or for one row changed"),
    Private(_TABLE, "_on_resize", "overrides", "table.py",
            "a resize keeps the rendered cells (DataTable throws them all away: columns have fixed widths)"),
    Private(_TABLE, "_repaint_required", "reads", "table.py _on_resize",
            "a repaint asked for besides the resize is kept"),
    Private(_TABLE, "_repaint_regions", "writes", "table.py _on_resize",
            "the whole-table repaint Textual marks on a resize is dropped: the layout's frame drew it"),
    Private(_TABLE, "_update_dimensions", "overrides", "table.py",
            "the table's size from the columns' fixed widths, without measuring every cell of a page"),
    Private(_TABLE, "_row_label_column_width", "reads", "table.py _update_dimensions", "part of the width"),
    Private(_TABLE, "_total_row_height", "reads", "table.py _update_dimensions", "the height"),
    Private(_TABLE, "_render_cell", "overrides", "table.py",
            "a one-line cell that fits is drawn straight from its Text: the same segments, a quarter of the work"),
    Private(_TABLE, "_header_row_key", "reads", "table.py _render_cell", "the header's row key"),
    Private(_TABLE, "_row_locations", "reads", "table.py", "a row's key from its index"),
    Private(_TABLE, "_column_locations", "reads", "table.py _render_cell", "a column's key from its index"),
    Private(_TABLE, "_show_hover_cursor", "reads", "table.py", "part of DataTable's cell cache key; hover state"),
    Private(_TABLE, "_update_count", "reads", "table.py _render_cell", "part of DataTable's cell cache key"),
    Private(_TABLE, "_pseudo_class_state", "reads", "table.py _render_cell", "part of DataTable's cell cache key"),
    Private(_TABLE, "_cell_render_cache", "reads", "table.py", "the cells drawn, under DataTable's own key"),
    Private(_TABLE, "_get_styles_to_render_cell", "calls", "table.py _render_cell", "a cell's styles, as DataTable"),
    Private(_TABLE, "_get_row_renderables", "calls", "table.py _render_cell", "a row's cells, as DataTable"),
    Private(_TABLE, "_get_row_style", "overrides", "table.py",
            "a row's component style worked out once a drawing (DataTable works it out again for every line)"),
    Private(_TABLE, "_set_hover_cursor", "overrides", "table.py",
            "the hover cursor turned off only when it is on (DataTable repainted row 0 on every cursor key)"),
    Private(_TABLE, "_data", "writes", "table.py set_row_cells",
            "a row's cells replaced without update_cell_at, which redraws the whole table"),
    Private(_TABLE, "_row_renderable_cache", "reads", "table.py set_row_cells", "one row's renderables dropped"),
    Private(_TABLE, "_line_cache", "reads", "table.py set_row_cells; widgets.py steady_cursor",
            "screen lines rebuilt from the rows kept (a TextArea's: drawn again with the cursor shown)"),
    # --- single widgets (widgets.py)
    Private("textual.scroll_view.ScrollView", "_scroll_update", "calls", "widgets.py set_virtual_size",
            "a detail's new height sets its scrollbars and scroll without a layout of the whole screen"),
    Private("textual.widget.Widget", "_vertical_scrollbar", "writes", "widgets.py kept_vertical_scrollbar",
            "a detail's vertical scrollbar is a KeptScrollBar (Textual makes a ScrollBar; no public way to give another)"),
    Private(_APP, "_start_widget", "calls", "widgets.py kept_vertical_scrollbar",
            "the scrollbar started as Textual starts its own"),
    Private("textual.widgets.Input", "_cursor_visible", "writes", "widgets.py steady_cursor",
            "a picture shows a field's cursor where it has the focus, whatever the blink timer did"),
    Private(_APP, "_keymap", "reads", "widgets.py keymap_of",
            "the keys a keymap bound, shown in the footer and help (Textual keeps them only there)"),
]
