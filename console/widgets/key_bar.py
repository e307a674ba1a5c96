"""Bars of keys that wrap between entries, never inside one, so every key stays visible at any width.

Textual's Footer is one line that clips what does not fit (at 80 columns `7 Audit`, `? help`, `w`, `s`
were cut off). `KeyBar` lays its entries (`w Work queue`, `s Skip`, …) out in as many lines as the
width needs; `KeyFooter` is the screen's active bindings as such a bar, each entry clickable.
"""

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

GAP = 2  # cells between two entries on a line


def pack(entries: Sequence[Text], width: int, gap: int = GAP) -> list[list[Text]]:
    """Entries in lines of at most `width` cells, in order; an entry wider than a line gets a line of its own."""
    lines: list[list[Text]] = [[]]
    used = 0
    for entry in entries:
        size = cell_len(entry.plain)
        if lines[-1] and used + gap + size > width:
            lines.append([])
            used = 0
        used += (gap if lines[-1] else 0) + size
        lines[-1].append(entry)
    return lines if lines[0] else []


class KeyBar(Widget):
    """Entries packed into lines at the widget's width (its height follows)."""

    DEFAULT_CSS = """
    KeyBar { height: auto; padding: 0 1; }
    """

    def entries(self) -> list[Text]:
        return []

    def _lines(self, width: int) -> list[list[Text]]:
        return pack(self.entries(), max(width, 1))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(len(self._lines(width)), 1)

    def render(self) -> Text:
        out = Text(no_wrap=True, overflow="crop")
        for n, line in enumerate(self._lines(self.content_region.width or self.size.width)):
            if n:
                out.append("\n")
            for i, entry in enumerate(line):
                if i:
                    out.append(" " * GAP)
                out.append_text(entry)
        return out


class KeyFooter(KeyBar):
    """The keys of the screen's active bindings (those shown in a footer), wrapped; a click presses the key."""

    COMPONENT_CLASSES = {"key-footer--key"}
    DEFAULT_CSS = """
    KeyFooter { background: $footer-background; color: $footer-foreground; }
    KeyFooter > .key-footer--key { color: $footer-key-foreground; text-style: bold; }
    """

    _entries: list[Text] | None = None  # what entries() read from the screen's bindings, until they change
    _looking = False  # a look at the bindings is queued (_bindings_changed)

    def on_mount(self) -> None:
        self.auto_links = False  # clickable entries, drawn as keys (not underlined as links)
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Any) -> None:
        """The screen's bindings may have changed: looked at once the signals of this turn are in (a screen
        switch, a focus and a detail shown each send one, a first page eight; each look walked the screen's
        active bindings)."""
        self._entries = None
        if not self._looking:
            self._looking = True
            self.call_later(self._look)

    def _look(self) -> None:
        """Redrawn when what it shows changed, laid out (with the whole screen) only when its height did: the
        signal comes on every screen switch and most of the time nothing changed."""
        self._looking = False
        entries = self.entries()
        shown = [(e.plain, tuple(e.spans), e.style) for e in entries]
        if shown == getattr(self, "_shown", None):
            return
        self._shown = shown
        width = self.content_region.width or self.size.width
        if len(pack(entries, max(width, 1))) != self.size.height:
            self.refresh(layout=True)
        else:
            self.refresh()

    # the lines drawn for each look of the bar (its entries as shown, the rows asked for, its size, the theme): from
    # one item to the next the decisions' keys are enabled or dimmed in a few ways that come back, and drawing the
    # bar's line again goes through Textual's whole styling pipeline (a millisecond, on half the cursor moves)
    _kept: dict[tuple[Any, ...], list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._kept is None or len(self._kept) >= 32:
            self._kept = {}
        look = (tuple((e.plain, tuple(e.spans), e.style) for e in self.entries()), crop, self.size, self.app.theme)
        lines = self._kept.get(look)
        if lines is None:
            lines = self._kept[look] = super().render_lines(crop)
        return lines

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._entries = None  # the key's style is the theme's
        self._kept = None

    def entries(self) -> list[Text]:
        """The entries, read from the screen's active bindings once until they change (each layout and each
        render asks for them)."""
        if self._entries is None:
            self._entries = self._read_entries()
        return self._entries

    def _read_entries(self) -> list[Text]:
        key_style = self.get_component_rich_style("key-footer--key", partial=True)
        out: list[Text] = []
        seen: set[str] = set()
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not binding.show or not binding.description or binding.action in seen:
                continue
            seen.add(binding.action)
            entry = Text(style=Style.from_meta({"@click": f"app.simulate_key({key!r})"}))
            entry.append(self.app.get_key_display(binding), style=key_style)
            entry.append(" " + binding.description)
            if not active.enabled:  # shown as the footer shows it: there, but not usable now
                entry.stylize("dim")
            out.append(entry)
        return out
