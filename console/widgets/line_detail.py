"""A whole detail pane as ONE widget drawn with Textual's Line API: blocks of text, an outline and clickable
lines, updated in place, with only the lines on screen painted.

Why: a pane of many widgets (Statics, a Tree, a column of Buttons) is laid out again by Textual, with the whole
screen, whenever one block changes height, and every widget on the screen is painted again. Here a new item
changes the lines and the virtual height of one widget (set without asking for a layout: a ScrollView scrolls
its own lines); Textual paints the rows of this widget and nothing else. The vertical scrollbar is always
there (`overflow-y: scroll`): shown only when the item did not fit, it came and went between a skill that fits
and one that does not, and each time Textual laid out the whole screen again (10 layouts in 16 moves on
Regressions, a move's frame 9 ms).
"""

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rich import box
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from gatepost.render import kept_vertical_scrollbar, set_virtual_size
from gatepost.widgets.one_line import one_line


@dataclass(eq=False)
class Node:
    """One line of an outline: its label, the nodes under it, and whether they are shown."""

    label: Text
    children: list["Node"] = field(default_factory=list)
    expanded: bool = False


@dataclass(eq=False)
class Outline:
    """An outline (a tree drawn as lines with guides); `root` is not drawn, its children are."""

    root: Node


@dataclass(frozen=True)
class Choice:
    """A line that does something when clicked (e.g. a decision); a disabled one is drawn dim and does nothing."""

    name: str
    label: Text
    disabled: bool = False


@dataclass(frozen=True)
class Pair:
    """Two texts side by side, each in a rounded box (a draft's YAML beside the active version's)."""

    left: Text
    right: Text


Kind = Literal["text", "title", "boxed", "outline", "choices", "pair"]


@dataclass(eq=False)
class Block:
    """A part of the pane: `text` (wrapped), `title` (one accented line), `boxed` (text in a rounded box),
    `outline` (an Outline), `choices` (a sequence of Choice) or `pair` (a Pair); `gap` blank lines follow it."""

    name: str
    content: Any
    kind: Kind = "text"
    gap: int = 1


_UNDER_CURSOR = Style(reverse=True)  # the acting line the keys are on, while the pane is focused

# a line of text wrapped at a width (with a style under it): its strips; shared by every LineDetail
_WRAPPED: dict[tuple[Any, ...], list[Strip]] = {}

# a line made from another by the same steps (on the pane's colours, after a guide, padded): by the line it is made
# from (the very object: a wrapped line comes from _WRAPPED, so an equal line is the same one) and the steps; a
# new item's lines are mostly lines drawn before, and each Strip made builds its own caches. An entry holds the
# line it was made from, so that line's id names no other while the entry is there.
_DERIVED: dict[tuple[Any, ...], tuple[Strip, Strip]] = {}

# what a click on a line acts on: (block name, a node's path in its outline) or (block name, a choice's name);
# names and paths, not objects, so that lines kept from an equal earlier content still act on the current one
_Target = tuple[str, tuple[int, ...] | str] | None


class LineDetail(ScrollView, can_focus=True):
    """The blocks given to `show`, wrapped to the width and drawn line by line."""

    FOCUS_ON_CLICK = False  # a click on a line acts on it; the keys stay with the list (Tab focuses this)
    # Focused (Tab), the keys move a cursor over the lines that act (claims that open, decisions) and act on the
    # one under it: what a click does, from the keyboard. Ids as every binding (gatepost.keymap).
    BINDINGS = [
        Binding("down", "next_line", "Next line", show=False, id="detail.next"),
        Binding("up", "previous_line", "Previous line", show=False, id="detail.previous"),
        Binding("enter,space", "act", "Open / choose", show=False, id="detail.act"),
    ]

    class Chosen(Message):
        """A choice line was clicked (only when it is enabled)."""

        def __init__(self, detail: "LineDetail", choice: Choice) -> None:
            super().__init__()
            self.detail = detail
            self.choice = choice

        @property
        def control(self) -> "LineDetail":
            return self.detail

    COMPONENT_CLASSES = {"line-detail--title", "line-detail--guide", "line-detail--choice",
                         "line-detail--choice-disabled", "line-detail--box"}
    DEFAULT_CSS = """
    LineDetail { height: 1fr; overflow-x: hidden; overflow-y: scroll; }
    LineDetail > .line-detail--title { color: $accent; text-style: bold; }
    LineDetail > .line-detail--guide { color: $text-muted; }
    LineDetail > .line-detail--choice { background: $surface-lighten-1; text-style: bold; }
    LineDetail > .line-detail--choice-disabled { color: $text-disabled; background: $surface; }
    LineDetail > .line-detail--box { color: $panel-lighten-2; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._blocks: list[Block] = []
        # name: (what it showed, (width, base style), its lines, what a click on each line does)
        self._drawn: dict[str, tuple[Any, tuple[int, Style], list[Strip], list[_Target]]] = {}
        self._base = Style()
        self._components: dict[str, Style] = {}  # component styles as _relines read them
        self._lines: list[Strip] = []
        self._targets: list[_Target] = []
        self._pending: list[Block] = []  # blocks below the screen, not wrapped yet
        self._width = 0
        self._cursor: _Target = None  # the acting line the keys are on (shown while focused)
        # blocks drawn after those of every `show` (a part every screen adds the same way: an item's thread),
        # set before the screen shows its blocks, so the pane is drawn once
        self.tail: list[Block] = []

    # --- what a screen calls ----------------------------------------------------------------------
    def show(self, blocks: Sequence[Block]) -> None:
        """Draw `blocks`; a block whose content reads the same keeps its lines (they are not wrapped again). A text
        block with nothing to say (no marks, no linked case) is left out: it would be a blank line and a gap."""
        self._blocks = [b for b in [*blocks, *self.tail]
                        if b.kind != "text" or not isinstance(b.content, Text) or b.content.plain.strip()]
        self._relines()

    def block(self, name: str) -> Any:
        """What block `name` shows (None when it is not shown)."""
        return next((b.content for b in self._blocks if b.name == name), None)

    def text(self, name: str) -> str:
        """Block `name` as plain text: what a person reads there."""
        content = self.block(name)
        if isinstance(content, Text):
            return content.plain
        if isinstance(content, Outline):
            return "\n".join(_walk_labels(content.root))
        if isinstance(content, tuple | list):
            return "\n".join(c.label.plain for c in content)
        if isinstance(content, Pair):
            return f"{content.left.plain}\n{content.right.plain}"
        return "" if content is None else str(content)

    def plain(self) -> str:
        """Every block as plain text, in order: the whole pane as a person reads it."""
        return "\n".join(self.text(b.name) for b in self._blocks)

    def choice(self, name: str) -> Choice | None:
        """The choice line named `name`, in any choices block."""
        for b in self._blocks:
            if b.kind == "choices":
                for c in b.content:
                    if c.name == name:
                        return c  # type: ignore[no-any-return]
        return None

    def drawn(self) -> list[str]:
        """Every line as drawn (the outline shows only what is expanded), as plain text."""
        self._draw_to(sys.maxsize)
        return [strip.text.rstrip() for strip in self._lines]

    def _resolve(self, target: tuple[str, tuple[int, ...] | str]) -> Node | Choice | None:
        name, where = target
        content = self.block(name)
        if isinstance(where, str):
            return self.choice(where)
        if not isinstance(content, Outline):
            return None
        node = content.root
        for i in where:
            node = node.children[i]
        return node

    # --- the keyboard: a cursor over the lines that act -------------------------------------------------
    @property
    def cursor(self) -> Node | Choice | None:
        """What the keys act on while the pane is focused (None before the first move)."""
        return self._resolve(self._cursor) if self._cursor is not None else None

    def _acting_lines(self) -> list[int]:
        """The first line of each node that opens and each choice, top to bottom."""
        self._draw_to(sys.maxsize)
        t = self._targets
        return [i for i, target in enumerate(t) if target is not None and (i == 0 or t[i - 1] != target)]

    def _move(self, step: int) -> None:
        lines = self._acting_lines()
        at = next((i for i in lines if self._targets[i] == self._cursor), None)
        if not lines:
            (self.scroll_down if step > 0 else self.scroll_up)(animate=False)
            return
        if at is None:
            to = lines[0] if step > 0 else lines[-1]
        else:
            k = lines.index(at) + step
            if not 0 <= k < len(lines):  # past the last acting line: scroll the rest of the pane as before
                (self.scroll_down if step > 0 else self.scroll_up)(animate=False)
                return
            to = lines[k]
        self._cursor = self._targets[to]
        self.scroll_to_region(Region(0, to, 1, 1), animate=False, immediate=True)
        self.refresh()

    def action_next_line(self) -> None:
        self._move(1)

    def action_previous_line(self) -> None:
        self._move(-1)

    def action_act(self) -> None:
        self._act(self.cursor)

    def _act(self, target: Node | Choice | None) -> bool:
        """Open or close a node, or choose an enabled choice; whether anything was done."""
        if isinstance(target, Node) and target.children:
            self.toggle(target)
            return True
        if isinstance(target, Choice) and not target.disabled:
            self.post_message(self.Chosen(self, target))
            return True
        return False

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def toggle(self, node: Node) -> None:
        """Show or hide the nodes under `node` (a click on its line does this)."""
        if node.children:
            node.expanded = not node.expanded
            self._relines()

    # --- lines ----------------------------------------------------------------------------------------
    def _relines(self) -> None:
        """Lines for the blocks, wrapped only as far down as the screen shows: the blocks below are wrapped when
        scrolled to (a long candidate content is not wrapped on every cursor move), their height estimated."""
        width = self.scrollable_content_region.width
        if width <= 0:
            return  # not laid out yet: on_resize draws it
        self._width = width
        base = self.rich_style  # the pane's colours under every line (read once: it walks the DOM)
        if base != self._base:
            self._components = {}  # the component styles blend into the same colours: read again under new ones
        self._base = base
        for name in set(self._drawn) - {b.name for b in self._blocks}:
            del self._drawn[name]
        before = self._lines
        self._lines, self._targets, self._pending = [], [], list(self._blocks)
        self._draw_to(self.scroll_offset.y + self.size.height)
        self._refresh_changed(before, self._lines)

    def _draw_to(self, rows: int) -> None:
        """Wrap the pending blocks until `rows` lines are drawn (or none is left); set the virtual height."""
        width, base = self._width, self._base
        lines, targets = self._lines, self._targets
        while self._pending and len(lines) < rows:
            b = self._pending.pop(0)
            drawn = self._drawn.get(b.name)
            if drawn is None or drawn[1] != (width, base) or not _same(drawn[0], b.content):
                strips, hits = self._draw(b, width)
                strips = [_derived(strip, ("base", width, base), _on_base) for strip in strips]
                drawn = (_key(b.content), (width, base), strips, hits)
                self._drawn[b.name] = drawn
            lines.extend(drawn[2])
            targets.extend(drawn[3])
            if self._pending:  # a gap between blocks, none after the last
                lines.extend([Strip.blank(width, base)] * b.gap)
                targets.extend([None] * b.gap)
        estimate = sum(_rows(b, width) + b.gap for b in self._pending)
        self._set_virtual_size(Size(width, len(lines) + estimate))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if self._pending and new_value + self.size.height > len(self._lines):
            self._draw_to(int(new_value) + self.size.height)  # scrolled to blocks not wrapped yet
        super().watch_scroll_y(old_value, new_value)

    def _refresh_changed(self, before: list[Strip], after: list[Strip]) -> None:
        """Repaint only the rows on screen whose line changed: from one case to the next many read the same
        (titles, claim names, decisions), and each row Textual repaints costs as much as drawing it."""
        top = self.scroll_offset.y
        bottom = top + self.size.height
        start = None
        for y in range(top, bottom + 1):
            old = before[y] if y < len(before) else None
            new = after[y] if y < len(after) else None
            if old != new and y < bottom:
                start = y if start is None else start
            elif start is not None:
                self.refresh_lines(start, y - start)
                start = None

    def refresh_lines(self, y_start: int, line_count: int = 1) -> None:
        """Repaint lines `y_start`.. of the text, not the scrollbar beside them. ScrollView's own repaints the
        widget's whole width, the scrollbar's columns with it, and the compositor then drew the scrollbar on every
        row of a new item (as long as the text again: 44 rows, 1.5-2 ms a cursor move); the scrollbar repaints
        itself when the item's height moves its thumb."""
        if not self._width:
            super().refresh_lines(y_start, line_count)
            return
        self.refresh(Region(0, y_start - self.scroll_offset.y, self._width, line_count))

    def _component(self, name: str) -> Style:
        """A component style (a title's accent, a guide's colour), read once while the pane's styles and colours
        stay the same (a style update or other colours under the pane read them again): each read is a walk of the
        DOM, and a new item read the guide's style for every node of its outline and each choice's for every
        choice."""
        style = self._components.get(name)
        if style is None:
            style = self._components[name] = self.get_component_rich_style(name)
        return style

    def _set_virtual_size(self, size: Size) -> None:
        """The new height, without a layout unless a scrollbar appears or goes (render's set_virtual_size)."""
        if size != self.virtual_size:
            set_virtual_size(self, size)

    def _draw(self, b: Block, width: int) -> tuple[list[Strip], list[_Target]]:
        if b.kind == "outline":
            lines: list[Strip] = []
            targets: list[_Target] = []
            for i, node in enumerate(b.content.root.children):
                self._draw_node(node, (b.name, (i,)), "", "", width, lines, targets)
            return lines, targets
        if b.kind == "choices":
            lines, targets = [], []
            for c in b.content:
                style = self._component("line-detail--choice-disabled" if c.disabled else "line-detail--choice")
                label = Text(" ").append_text(c.label)
                for strip in self._text_lines(label, width - 1, style):
                    lines.append(_derived(strip, ("extend", width - 1, style), _extended))
                    targets.append((b.name, c.name))
            return lines, targets
        renderable: RenderableType = b.content
        if b.kind == "title":
            renderable = Text(b.content.plain if isinstance(b.content, Text) else str(b.content),
                              style=self._component("line-detail--title"), no_wrap=True)
        elif b.kind == "boxed":
            renderable = Panel(_stripped(b.content), box=box.ROUNDED, padding=(0, 1),
                               border_style=self._component("line-detail--box"))
        elif b.kind == "pair":
            border = self._component("line-detail--box")
            renderable = Table.grid(expand=True)
            renderable.add_column(ratio=1)
            renderable.add_column(ratio=1)
            renderable.add_row(*(Panel(_stripped(side), box=box.ROUNDED, padding=(0, 1), border_style=border)
                                 for side in (b.content.left, b.content.right)))
        elif isinstance(renderable, Text):  # a trailing newline is not a blank line of its own
            strips = self._text_lines(renderable, width, stripped=True)
            return strips, [None] * len(strips)
        strips = self._text_lines(renderable, width)
        return strips, [None] * len(strips)

    def _draw_node(self, node: Node, at: tuple[str, tuple[int, ...]], lead: str, rest: str, width: int,
                   lines: list[Strip], targets: list[_Target]) -> None:
        """`lead` starts the node's first line, `rest` every line below it (guides of the nodes above)."""
        guide = self._component("line-detail--guide")
        icon = ("▼ " if node.expanded else "▶ ") if node.children else ("  " if not lead else "")
        base = rest + " " * len(icon)  # under the label: its wrapped lines and its children's guides
        for i, strip in enumerate(self._text_lines(node.label, max(8, width - len(lead) - len(icon)))):
            lines.append(_derived(strip, ("guide", lead + icon if i == 0 else base, guide), _guided))
            targets.append(at if node.children else None)
        if node.expanded:
            for j, child in enumerate(node.children):
                last = j == len(node.children) - 1
                self._draw_node(child, (at[0], (*at[1], j)), base + ("└─ " if last else "├─ "),
                                base + ("   " if last else "│  "), width, lines, targets)

    def _text_lines(self, renderable: RenderableType, width: int, style: Style | None = None, *,
                    stripped: bool = False) -> list[Strip]:
        """`renderable` wrapped to `width`. Text is wrapped line by line through a cache: from one case to the
        next most lines read the same (claims, the outline's labels, the decisions) and are not wrapped again.
        `stripped`: without the whitespace at its end (_stripped), taken off its lines rather than off a copy of
        the whole text (a tenth of drawing a new item's blocks)."""
        if not isinstance(renderable, Text):
            return self._wrap_lines(renderable, width, style)
        lines = _lines_of(renderable, stripped=stripped)
        strips: list[Strip] = []
        for line in lines:
            key = (line.plain, tuple(line.spans), line.style, width, style)
            wrapped = _WRAPPED.get(key)
            if wrapped is None:
                if len(_WRAPPED) >= 4096:
                    _WRAPPED.clear()
                wrapped = _WRAPPED[key] = self._wrap_lines(line, width, style)
            strips.extend(wrapped)
        return strips

    def _wrap_lines(self, renderable: RenderableType, width: int, style: Style | None) -> list[Strip]:
        return wrap_lines(self.app.console, renderable, width, style)

    # --- Textual ---------------------------------------------------------------------------------------
    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The pane's scrollbar keeps the lines it drew for each place of its thumb (render's KeptScrollBar): the
        thumb moves with almost every item's height, and the heights come back."""
        return kept_vertical_scrollbar(self)

    def on_resize(self, event: events.Resize) -> None:
        if self.scrollable_content_region.width != self._width:
            self._relines()

    def render_line(self, y: int) -> Strip:
        """One row on screen: the line at the scroll offset plus `y`, styled and sized once when drawn."""
        index = self.scroll_offset.y + y
        if index < len(self._lines):
            if self._cursor is not None and self.has_focus and self._targets[index] == self._cursor:
                return self._lines[index].apply_style(_UNDER_CURSOR)
            return self._lines[index]
        return Strip.blank(self._width, self._base)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = offset.y + self.scroll_offset.y
        where = self._targets[index] if 0 <= index < len(self._targets) else None
        if self._act(self._resolve(where) if where is not None else None):
            event.stop()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()  # the theme or a component style changed: draw every block again
        self._components = {}
        self._relines()
        # the stylesheet updates a widget's component styles (a title's colour) after the widget's own: drawn
        # now, a title kept the old theme's accent, so it is drawn again once they are in
        self.call_later(self._restyled)

    def _restyled(self) -> None:
        super().notify_style_update()  # the component styles read again (Textual's cache of them dropped)
        self._drawn.clear()
        self._components = {}
        self._relines()


def _lines_of(text: Text, *, stripped: bool = False) -> list[Text]:
    """The lines of `text` (`stripped`: of `_stripped(text)`, the whitespace at its end taken off its last lines
    instead of off a copy of the whole text)."""
    lines = list(text.split("\n", allow_blank=True)) if "\n" in text.plain else [text]
    if stripped:
        while len(lines) > 1 and not lines[-1].plain.rstrip():
            lines.pop()
        if lines[-1].plain != lines[-1].plain.rstrip():
            last = lines[-1].copy()  # the text itself when it has one line: never changed in place
            last.rstrip()
            lines[-1] = last
    return lines


def _stripped(content: Any) -> Any:
    """A Text without its trailing newline (a diff's, a file's): not a blank last line, in a box or out of one."""
    if not isinstance(content, Text):
        return content
    content = content.copy()
    content.rstrip()
    return content


def _derived(strip: Strip, how: tuple[Any, ...], make: Any) -> Strip:
    """`make(strip, *how[1:])`, kept by the line it is made from and `how` (see _DERIVED)."""
    key = (id(strip), *how)
    found = _DERIVED.get(key)
    if found is not None and found[0] is strip:
        return found[1]
    made: Strip = make(strip, *how[1:])
    if len(_DERIVED) >= 4096:
        _DERIVED.clear()
    _DERIVED[key] = (strip, made)
    return made


def _extended(strip: Strip, width: int, style: Style) -> Strip:
    return strip.extend_cell_length(width, style)


def _guided(strip: Strip, guides: str, style: Style) -> Strip:
    return Strip.join([Strip([Segment(guides, style)]), strip])


def _on_base(strip: Strip, width: int, base: Style) -> Strip:
    """`strip` on the pane's colours, padded or cut to `width`: one new Strip where apply_style, extend and crop
    made three (each Strip builds its own caches, a fifth of a new item's drawing)."""
    if strip.cell_length > width:
        return strip.crop(0, width).apply_style(base)
    segments = list(Segment.apply_style(strip, base))
    if strip.cell_length < width:
        segments.append(Segment(" " * (width - strip.cell_length), base))
    return Strip(segments, width)


def wrap_lines(console: Console, renderable: RenderableType, width: int, style: Style | None = None) -> list[Strip]:
    """`renderable` as lines of at most `width` cells with `style` under them, as Rich's `render_lines` draws them
    (unpadded). A Text of one line that fits, most of a detail, is drawn by `one_line`: a new item's lines took
    half the time; one that does not fit (a claim's why, a refused decision) is cut into rows by `_wrapped`."""
    segments = one_line(console, renderable, width)
    if segments is not None:
        return [Strip(Segment.apply_style(segments, style) if style else segments, Segment.get_line_length(segments))]
    rows = _wrapped(console, renderable, width)
    if rows is not None:
        return [Strip(Segment.apply_style(row, style) if style else row, length) for row, length in rows]
    options = console.options.update(width=width, height=None, highlight=False)
    return [Strip(line) for line in console.render_lines(renderable, options, style=style, pad=False)]


_JOIN = Text("\n")  # what Text.__rich_console__ joins a text's rows with (the text's own style becomes a span)


_ONE_CELL: dict[str, bool] = {}  # a character: whether it takes one cell (what the detail's lines hold, a few hundred)


def _one_cell_each(plain: str) -> bool:
    """Every character of `plain` one cell wide (a printable ASCII one is; others as Rich measures them)."""
    if plain.isascii() and plain.isprintable():
        return True
    for ch in set(plain):
        one = _ONE_CELL.get(ch)
        if one is None:
            if len(_ONE_CELL) >= 4096:
                _ONE_CELL.clear()
            one = _ONE_CELL[ch] = cell_len(ch) == 1
        if not one:
            return False
    return True


_WORD = re.compile(r"\S+\s*")  # a word and the spaces after it (the first also takes the spaces before it, as in Rich)


def _breaks(plain: str, width: int) -> list[int]:
    """Where Rich's divide_line (rich._wrap, folding) breaks `plain`, a character a cell: before each word that
    does not fit in what is left of the row, and every `width` characters through a word longer than a row."""
    breaks: list[int] = []
    used = 0  # cells of the row so far
    for n, word in enumerate(_WORD.finditer(plain)):
        start = 0 if n == 0 else word.start()  # Rich's words regex reads the spaces the line starts with too
        text = plain[start:word.end()]
        length = len(text.rstrip())
        if width - used >= length:
            used += len(text)
        elif length > width:  # folded across rows
            for at in range(0, len(text), width):
                if start + at:
                    breaks.append(start + at)
                used = len(text) - at
        elif used and start:
            breaks.append(start)
            used = len(text)
    return breaks


def _wrapped(console: Console, text: object, width: int) -> list[tuple[list[Segment], int]] | None:
    """The rows Rich wraps a one-line Text into, each with its width: Text.wrap's rows (cut before the word that
    does not fit, a word wider than the row folded, the spaces past the row's end dropped) cut from the line's
    segments, drawn once (Rich's own path makes a Text of every row, joins them, draws the whole and splits it
    into lines again). None for what Rich would do otherwise: not a Text, more than one line, a tab, a character that is
    not one cell wide, a justified line, one that is not folded or not wrapped."""
    if not isinstance(text, Text) or width < 1:
        return None
    options = console.options
    if (text.justify or options.justify or "default") != "default" or \
            (text.overflow or options.overflow or "fold") != "fold" or \
            (text.no_wrap if text.no_wrap is not None else options.no_wrap):
        return None
    plain = text.plain
    if "\n" in plain or "\t" in plain or not _one_cell_each(plain):
        return None
    bounds: list[tuple[int, int]] = []
    start = 0
    for end in [*_breaks(plain, width), len(plain)]:
        # only spaces go past a row's end (a longer word is folded): Text.rstrip_end drops them, Text.truncate
        # would cut at the width
        bounds.append((start, min(end, start + width)))
        start = end
    drawn: list[tuple[int, int, Segment]] = []
    at = 0
    for segment in _JOIN.join((text,)).render(console, end=""):
        drawn.append((at, at + len(segment.text), segment))
        at += len(segment.text)
    rows: list[tuple[list[Segment], int]] = []
    for start, stop in bounds:
        row = [seg if start <= a and b <= stop else Segment(seg.text[max(a, start) - a:min(b, stop) - a], seg.style)
               for a, b, seg in drawn if a < stop and b > start]
        rows.append((row, stop - start))
    return rows


def _rows(b: Block, width: int) -> int:
    """About how many lines block `b` takes at `width` (its lines, each wrapped), without wrapping it."""
    if b.kind == "outline":
        return sum(1 for _ in _walk_shown(b.content.root))
    if b.kind == "choices":
        return len(b.content)
    if b.kind == "pair":
        half = max(1, width // 2)
        return max(_rows(Block(b.name, side, "boxed"), half) for side in (b.content.left, b.content.right))
    plain = b.content.plain if isinstance(b.content, Text) else str(b.content)
    rows = sum(max(1, -(-len(line) // max(1, width - 4))) for line in plain.rstrip("\n").split("\n"))
    return rows + (2 if b.kind == "boxed" else 0)


def _walk_shown(node: Node) -> Iterable[Node]:
    for child in node.children:
        yield child
        if child.expanded:
            yield from _walk_shown(child)


def _walk_labels(node: Node, depth: int = 0) -> Iterable[str]:
    for child in node.children:
        yield "  " * depth + child.label.plain
        yield from _walk_labels(child, depth + 1)


def _key(content: object) -> object:
    """What to compare a block's content by next time: an outline by its labels and what is expanded (its nodes
    are changed in place by a click)."""
    if isinstance(content, Outline):
        return _shape(content.root)
    return content


def _shape(node: Node) -> tuple[Any, ...]:
    return (node.label.plain, tuple(node.label.spans), node.expanded, tuple(_shape(c) for c in node.children))


def _same(old: object, new: object) -> bool:
    if isinstance(new, Outline):
        return old == _shape(new.root)
    if isinstance(old, Text) and isinstance(new, Text):
        return old.plain == new.plain and old.spans == new.spans and old.style == new.style
    if isinstance(old, Pair) and isinstance(new, Pair):
        return _same(old.left, new.left) and _same(old.right, new.right)
    if isinstance(old, tuple | list) and isinstance(new, tuple | list):
        return len(old) == len(new) and all(
            a.name == b.name and a.disabled == b.disabled and _same(a.label, b.label) for a, b in zip(old, new, strict=True))
    return type(old) is type(new) and isinstance(new, str) and old == new
