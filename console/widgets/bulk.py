"""Acting on marked items: the marker a marked row carries, who to assign them to, and what each item's act said.

A deciding screen marks rows with Space; one decision (or one assignment) then goes to every marked item,
each through its own act (store.batch). These are the pieces that are not the screen's own.
"""

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from gatepost.keymap import bound
from gatepost.safe import literal
from gatepost.widgets.note_dialog import Dialog

MARK = "■"  # a marked row, before the other markers
MARK_KEY, MARK_BINDING = "space", "list.mark"
ASSIGN_KEY, ASSIGN_BINDING = "A", "item.assign"
# not in the footer (it is full at 80 columns): `?` lists them, and the title says them once a row is marked
BINDINGS = [bound(MARK_KEY, "toggle_mark", "Mark", MARK_BINDING, key_display="Space", show=False),
            bound(ASSIGN_KEY, "assign", "Assign", ASSIGN_BINDING, show=False)]


def marked_text(count: int, noun: str) -> Text:
    """`■ 3 cases marked: a decision key takes it on each; Space unmarks`."""
    if not count:
        return Text()
    return literal(f"{MARK} {count} {noun}{'' if count == 1 else 's'} marked: a decision's key takes it on each, "
                   f"A assigns them; Space on a marked row unmarks it", style="bold magenta")


class AssignDialog(Dialog):
    """Who to assign the marked items to (a person's name) and why; dismisses with the name (the note is
    `note`), or None when cancelled."""

    DEFAULT_CSS = """
    AssignDialog { align: center middle; }
    AssignDialog > Vertical { width: 72; max-width: 100%; height: auto; border: thick $primary;
                              background: $surface; padding: 0 1; }
    AssignDialog Label { width: 100%; }
    AssignDialog .dialog-error { color: $error; height: auto; }
    AssignDialog Horizontal { height: auto; align-horizontal: right; }
    AssignDialog Button { margin-left: 1; }
    """

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = title
        self.note = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.title_text, style="bold"))
            yield Label(literal("Assign to (a person holding the items' capability) · " + self.hint()))
            yield Input(id="assign-to", placeholder="name")
            yield Label("Note (optional)")
            yield Input(id="assign-note")
            yield Label("", classes="dialog-error", id="assign-error")
            with Horizontal():
                yield Button("Cancel", classes="dialog-cancel", compact=True)
                yield Button("Assign", variant="primary", classes="dialog-confirm", compact=True)

    def on_mount(self) -> None:
        self.query_one("#assign-to", Input).focus()

    def typed(self) -> bool:
        return bool(self.query_one("#assign-to", Input).value.strip())

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_confirm()

    def action_confirm(self) -> None:
        name = self.query_one("#assign-to", Input).value.strip()
        if not name:
            self.query_one("#assign-error", Label).update("A name is required.")
            return
        self.note = self.query_one("#assign-note", Input).value.strip()
        self.dismiss(name)


class BulkReport(Dialog):
    """What each marked item's act said: the refused first, with their refusal; Enter or Escape closes."""

    DEFAULT_CSS = """
    BulkReport { align: center middle; }
    BulkReport > Vertical { width: 100; max-width: 100%; height: auto; max-height: 90%; border: thick $warning;
                            background: $surface; padding: 0 1; }
    BulkReport VerticalScroll { height: auto; max-height: 20; }
    BulkReport Horizontal { height: auto; align-horizontal: right; }
    """

    def __init__(self, title: str, results: list[dict[str, Any]]) -> None:
        super().__init__()
        self.title_text = title
        self.results = sorted(results, key=lambda r: r["done"])  # the refused first

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.title_text, style="bold"))
            with VerticalScroll():
                for r in self.results:
                    line = Text("✔ " if r["done"] else "✘ ", style="green" if r["done"] else "bold red")
                    line.append_text(literal(r["message"]))
                    yield Static(line, classes="bulk-item")
            with Horizontal():
                yield Button("Close", variant="primary", classes="dialog-confirm", compact=True)

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def action_confirm(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def lines(self) -> list[str]:
        """Each item's line as a person reads it."""
        return [str(w.render()) for w in self.query(".bulk-item").results(Static)]
