"""One line of Text as Rich draws it, without Rich's render pipeline.

Rich draws a Text through wrapping, justification and line splitting (hundreds of calls for one short line).
Nearly every table cell and detail line is a single line that fits its width, which that pipeline leaves as it
is: its segments are the Text's own, rendered once. Both the paged lists' cells and the detail pane's lines
are drawn through here (a first page and a cursor move were mostly this)."""

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

# what Text.__rich_console__ joins a text's lines with: the text's own style becomes a span, which Text.render
# needs to draw it (a Text without spans is rendered without its style)
_JOIN = Text("\n")


def one_line(console: Console, text: object, width: int) -> list[Segment] | None:
    """The segments Rich draws for `text` at `width`, or None when Rich would change it: not a Text, more than
    one line, a tab to expand, wider than `width` (wrapped or cut), or justified (padded to the width)."""
    if not isinstance(text, Text) or text.justify not in (None, "default"):
        return None
    plain = text.plain
    if "\n" in plain or "\t" in plain or text.cell_len > width:
        return None
    if not text.spans:  # one run of one style (most cells): what Text.render makes of it
        if not plain:  # an empty cell: a styled one has nothing to draw
            return [] if text.style else [Segment("")]
        return [Segment(plain, console.get_style(text.style, default=Style.null()) if text.style else None)]
    return list(_JOIN.join((text,)).render(console, end=""))
