"""The queue bar of a deciding screen: progress while working its queue, and who holds the item shown.

The queue itself (leases taken and released on the writer, skip, stop, next) is
`gatepost.screens.queue.Queue`; this is only the line that shows it.
"""


from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from gatepost.store.kernel import Held, Lease
from gatepost.widgets.in_place import put


def until(lease: Lease | Held) -> str:
    """A lease's expiry as a person reads it: 14:32 UTC."""
    return f"{lease['expires_at'][11:16]} UTC"


class QueueBar(Static):
    """`▶ Queue · cases needing a decision: 12 of 40 · 11 done · 2 held by others` and who holds this item."""

    DEFAULT_CSS = """
    QueueBar { height: auto; padding: 0 1; background: $boost; }
    QueueBar.-working { background: $accent 25%; }
    """

    def __init__(self) -> None:
        super().__init__("", id="queue-bar")
        self.progress = Text()
        self.holding = Text()

    def show(self, progress: Text | None = None, holding: Text | None = None) -> None:
        if progress is not None:
            self.progress = progress
        if holding is not None:
            self.holding = holding
        text = self.progress.copy()
        if self.holding.plain:
            room = self._width() - cell_len(self.progress.plain.split("\n")[-1]) - 3
            text.append("   " if 0 < cell_len(self.holding.plain) <= room else "\n")
            text.append_text(self.holding)
        put(self, text)  # unchanged on most cursor moves: then nothing is redrawn
        self._keep_height()

    def _width(self) -> int:
        """Its text's width: the screen's (it spans the screen) less its padding, laid out yet or not."""
        return self.size.width or self.app.size.width - self.styles.padding.width

    def _keep_height(self) -> None:
        """The bar never shrinks while shown: who holds the item (or what changed since you looked) comes and goes
        from one row to the next, and each time the bar's height changed, the whole screen below it moved and was
        laid out and repainted (a 70 KB write in a terminal for one cursor move)."""
        width = self._width()
        if width <= 0:
            return
        height = self.get_content_height(self.app.size, self.app.size, width)
        least = self.styles.min_height
        if least is None or (least.cells or 0) < height:
            self.styles.min_height = height
