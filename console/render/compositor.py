"""A partial update drawn on the rows it updates (a cursor move's two frames).

For a partial update Textual renders every widget whose clip overlaps the update's crop on all of its lines, and
then keeps the lines that changed: a cursor move rendered the header, the key bar, the screen and its containers
and all 41 rows of the table, about 650 widget lines for the two rows and 40 detail lines it shows. Here only
the widgets with a visible cell in the crop are rendered, on the crop's rows only. Columns are left whole, so
where widgets' edges divide a line (Textual's cuts) nothing changes; a full update is Textual's own.
`tests/console/test_rows_compositor.py` checks that what it writes is what Textual's compositor writes.
"""

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowsCompositor(Compositor):
    """Textual's compositor, rendering a partial update's widgets on the update's rows only."""

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None or crop == self.size.region:
            return super()._get_renders(crop)
        return self._renders_on_rows(crop)

    def _renders_on_rows(self, crop: Region) -> Iterable[tuple[Region, Region, list[Strip]]]:
        rows = Region(0, crop.y, self.size.width, crop.height)
        overlaps = crop.overlaps
        # the widgets whose visible part is in the crop (one beside it has no cell in the update, which writes
        # the crop's cells only), each with its clip cut to the crop's rows: what it renders, and where
        widgets = [(widget, region, clip.intersection(rows))
                   for widget, (region, clip) in self.visible_widgets.items() if overlaps(region.intersection(clip))]
        for widget, region, clip in widgets:
            x, y, width, height = region.intersection(clip)
            if width and height:
                yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))
