"""A partial update drawn on the rows it updates (a cursor move's two frames); no widget drawn where those in front
of it cover it.

For a partial update Textual renders every widget whose clip overlaps the update's crop on all of its lines, and
then keeps the lines that changed: a cursor move rendered the header, the key bar, the screen and its containers
and all 41 rows of the table, about 650 widget lines for the two rows and 40 detail lines it shows. Here only
the widgets with a visible cell in the update's regions are rendered, on the rows of those regions only. Columns are left whole, so
where widgets' edges divide a line (Textual's cuts) nothing changes.

Textual fills each line's cuts front to back and keeps the first strip for a cut; a widget behind others (the
screen itself, a split's box and a list's box under their children) would be rendered on every line all the same
and then dropped. A widget is rendered on the rows where a cut it spans is still empty.
`tests/console/test_rows_compositor.py` checks that what it writes is what Textual's compositor writes.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
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

    # the lines being filled (_render_chops): each line's strips by cut, and the lines the update writes
    _filling: tuple[list[dict[int, Strip | None]], Callable[[int], bool]] | None = None

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]) -> Sequence[Mapping[int, Strip]]:
        """Textual's Compositor._render_chops, with the lines it fills open to `_get_renders`, which renders each
        widget on the rows where a cut it spans is still empty (what Textual would keep of it)."""
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        self._filling = (chops, is_rendered_line)
        try:
            for region, clip, strips in self._get_renders(crop):
                render_region = region.intersection(clip)
                render_x = render_region.x
                first_cut, last_cut = render_region.column_span
                for y, strip in zip(render_region.line_range, strips, strict=False):
                    if not is_rendered_line(y):
                        continue
                    chops_line = chops[y]
                    final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                    for cut, piece in zip(final_cuts, strip.divide([cut - render_x for cut in final_cuts[1:]]),
                                          strict=False):
                        if chops_line.get(cut) is None:  # front to back: the first strip for a cut wins
                            chops_line[cut] = piece
        finally:
            self._filling = None
        return chops  # type: ignore[return-value]  # every cut filled: the screen's widgets cover it

    def _uncovered(self, region: Region, clip: Region) -> Region:
        """`clip` cut to the rows (first to last) where a cut of the widget's visible part is still empty: the
        widgets in front of it fill the others (no cut, while no lines are being filled)."""
        if self._filling is None:
            return clip
        chops, is_rendered_line = self._filling
        cuts = self.cuts
        visible = region.intersection(clip)
        first_cut, last_cut = visible.column_span
        rows = [y for y in visible.line_range if is_rendered_line(y) and any(
            chops[y].get(cut, "") is None for cut in cuts[y] if first_cut <= cut < last_cut)]
        if not rows:
            return Region(clip.x, clip.y, clip.width, 0)
        return clip.intersection(Region(clip.x, rows[0], clip.width, rows[-1] + 1 - rows[0]))

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None or crop == self.size.region:
            return self._renders_uncovered(crop)
        return self._renders_on_rows(crop)

    def _renders_uncovered(self, crop: Region | None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        """Textual's _get_renders, each widget on its rows not covered yet (_uncovered); asked for one by one, as the
        lines are filled."""
        for widget, (region, whole) in list(self.visible_widgets.items()):
            if crop is not None and not crop.overlaps(whole):
                continue
            clip = self._uncovered(region, whole)
            x, y, width, height = region.intersection(clip)
            if width and height:
                yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))

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
        for widget, region, rows in widgets:
            clip = self._uncovered(region, rows)
            x, y, width, height = region.intersection(clip)
            if width and height:
                yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))
