"""A partial update drawn on the rows it updates (a cursor move's two frames).

For a partial update Textual renders every widget whose clip overlaps the update's crop on all of its lines, and
then keeps the lines that changed: a cursor move rendered the header, the key bar, the screen and its containers
and all 41 rows of the table, about 650 widget lines for the two rows and 40 detail lines it shows. Here only
the widgets with a visible cell in the update's regions are rendered, on the rows of those regions only. Columns are left whole, so
where widgets' edges divide a line (Textual's cuts) nothing changes; a full update is Textual's own.
`tests/console/test_rows_compositor.py` checks that what it writes is what Textual's compositor writes.
"""

from collections.abc import Iterable
from typing import Any

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowsCompositor(Compositor):
    """Textual's compositor, rendering a partial update's widgets on the update's rows only."""

    _updated: list[Region] = []  # noqa: RUF012 - the regions of the partial update being rendered (none outside one)

    def render_partial_update(self) -> Any:
        """The update's regions kept while it renders: a widget is rendered on the rows of the regions it has a
        cell in, not on every row of the box around them all (a detail and the footer changed together drew the
        whole list pane beside the detail, 41 table rows and their scrollbar, for nothing it writes)."""
        self._updated = list(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._updated = []

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None or crop == self.size.region:
            return super()._get_renders(crop)
        return self._renders_on_rows(crop)

    def _renders_on_rows(self, crop: Region) -> Iterable[tuple[Region, Region, list[Strip]]]:
        updated = self._updated or [crop]
        width = self.size.width
        # the widgets whose visible part has a cell in the update (one beside it has none: the update writes only
        # its regions' cells), each with its clip cut to the rows of the regions it has cells in: what it renders,
        # and where
        widgets = []
        for widget, (region, clip) in self.visible_widgets.items():
            visible = region.intersection(clip)
            touched = [r for r in updated if visible.overlaps(r)]
            if touched:
                top = max(crop.y, min(r.y for r in touched))
                bottom = min(crop.bottom, max(r.bottom for r in touched))
                widgets.append((widget, region, clip.intersection(Region(0, top, width, bottom - top))))
        for widget, region, clip in widgets:
            x, y, width, height = region.intersection(clip)
            if width and height:
                yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))
