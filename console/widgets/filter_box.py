"""A filter's box as ONE widget that looks like a compact Select, and becomes that Select when the person reaches
for it (a click, or Tab onto it).

Why: a compact Select is six widgets (the Select, its current value's row of three Statics, and the hidden list
of its options) whose styles Textual parses at their first mount and applies one by one; a screen's two filters
were a fifth of the Cases screen's first page. The box draws the same cells (same prompt, same colours, the same
arrow) in one widget; the Select, with its list of options, is made only once it is used.
"""

from collections.abc import Hashable, Sequence
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Select


def _starts(text: str, lines: list[str]) -> list[int]:
    """Where each of `text`'s wrapped `lines` starts in it (the spaces a wrap dropped are skipped)."""
    starts, at = [], 0
    for line in lines:
        shown = line.rstrip()
        at = text.find(shown, at) if shown else at
        starts.append(at)
        at += len(shown)
    return starts


def show_value(screen: Widget, selector: str, value: Any) -> None:
    """The filter `selector` (a FilterBox, or the Select it became) shows `value` (None: its prompt), without the
    Select saying it changed: the screen set it."""
    value = Select.NULL if value is None else value
    for box in screen.query(selector).results(FilterBox):
        box.value = value
    for select in screen.query(selector).results(Select):
        with screen.prevent(Select.Changed):
            select.value = value


class FilterBox(Widget, can_focus=True):
    """What a compact `Select(options, prompt=prompt, value=value, id=id, compact=True)` shows, until it is used."""

    COMPONENT_CLASSES = {"filter-box--label", "filter-box--arrow"}
    # the cells of a compact Select: its current value's row (SelectCurrent) on $surface, padded one cell on the
    # right; the label (Static#label) as wide as it may be; the arrow (.arrow) one cell after a one-cell pad
    DEFAULT_CSS = """
    FilterBox {
        width: 1fr;
        height: auto;
        color: $foreground;
        background: $surface;
        pointer: pointer;
    }
    FilterBox > .filter-box--label { color: $foreground 50%; }
    FilterBox.-has-value > .filter-box--label { color: $foreground; }
    FilterBox > .filter-box--arrow { color: $foreground 50%; }
    """

    def __init__(self, options: Sequence[tuple[str, Hashable]], *, prompt: str, value: Any = Select.NULL,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.options = list(options)
        self.prompt = prompt
        self._value: Any = Select.NULL
        self._select: Select[Any] | None = None  # the Select put in its place (open)
        self._wrapped: tuple[tuple[str, int], list[str]] = (("", -1), [])  # (label, width): its lines
        self._asked: bool | None = None  # the swap is asked for (True: with the options shown)
        self.value = value

    @property
    def value(self) -> Any:
        """The value shown (Select.NULL: none, the prompt is shown), as a Select's."""
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = Select.NULL if value is None or value is Select.BLANK else value
        self.set_class(self._value is not Select.NULL, "-has-value")
        self.refresh(layout=True)  # a longer label may take another line

    def label(self) -> str:
        return next((str(lbl) for lbl, v in self.options if v == self._value), self.prompt)

    def _label_lines(self, width: int) -> list[str]:
        """The label wrapped as the Select's label (a Static as wide as the row leaves it) wraps it."""
        key = (self.label(), width)
        if self._wrapped[0] != key:
            self._wrapped = (key, [line.plain for line in Content(key[0]).wrap(max(1, width))] or [""])
        return self._wrapped[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._label_lines(width - 3))

    def render_line(self, y: int) -> Strip:
        """The Select's row as Textual draws it: the label (wrapped as a Static wraps it), blank cells to the arrow
        and one after it; blank cells carry the background alone, as a Static's padding does."""
        width = self.size.width
        blank = Style(bgcolor=self.rich_style.bgcolor)
        lines = self._label_lines(width - 3)
        if width < 3 or y >= len(lines):
            return Strip.blank(width, blank)
        label = lines[y].rstrip()
        # a Static's text carries where it stands in its content (Textual's text selection): the same here
        at = _starts(self.label(), lines)[y]
        segments = [Segment(label, self.get_component_rich_style("filter-box--label")
                            + Style.from_meta({"offset": (at, 0)}))] if label else []
        # cut where the Select's widgets meet (the label's Static, the arrow's padding and glyph, the row's right
        # padding): the segments of a screenshot read the same
        segments.append(Segment(" " * (width - 3 - cell_len(label)), blank))
        if y:  # the arrow is on the first line alone
            segments += [Segment("  ", blank), Segment(" ", blank)]
        else:
            segments += [Segment(" ", blank), Segment("▼", self.get_component_rich_style("filter-box--arrow")
                                                      + Style.from_meta({"offset": (0, 0)})),
                         Segment(" ", blank)]
        return Strip([s for s in segments if s.text], width)

    def select(self) -> Select[Any]:
        """The Select this box stands for, with its value."""
        return Select(self.options, prompt=self.prompt, value=self._value, id=self.id, classes=" ".join(self.classes),
                      compact=True)

    async def open(self, *, expand: bool) -> Select[Any]:
        """Put the Select in this box's place (focused; `expand`: its list of options shown)."""
        if self._select is not None:  # a click focuses the box too: one Select
            return self._select
        parent = self.parent
        assert isinstance(parent, Widget)
        at = list(parent.children).index(self)
        select = self._select = self.select()
        await self.remove()
        await parent.mount(select, before=at if at < len(parent.children) else None)
        select.focus()
        if expand:
            select.expanded = True
        return select

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self._open_soon(expand=True)

    def on_focus(self, event: events.Focus) -> None:
        self._open_soon(expand=False)

    def _open_soon(self, *, expand: bool) -> None:
        """open, from the parent's turn: the box cannot wait on its own removal while it handles an event."""
        if self._asked is None or expand > self._asked:
            self._asked = expand
            parent = self.parent
            assert isinstance(parent, Widget)
            parent.call_later(self._open_asked)

    async def _open_asked(self) -> None:
        select = await self.open(expand=bool(self._asked))
        if self._asked and not select.expanded:  # a click came after a Tab's focus had begun the swap
            select.expanded = True
