"""A modal that asks for a note (or a reason) and a confirmation before a decision is written."""

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

from gatepost.safe import literal


class NoteDialog(ModalScreen[str | None]):
    """Dismisses with the note when confirmed, or None when cancelled.

    With `required`, an empty note is refused in place and the dialog stays
    open; ctrl+s confirms from the keyboard, Escape cancels.
    """

    DEFAULT_CSS = """
    NoteDialog { align: center middle; }
    NoteDialog > Vertical { width: 72; height: auto; border: thick $primary; background: $surface; padding: 1 2; }
    NoteDialog TextArea { height: 6; }
    NoteDialog .dialog-error { color: $error; height: auto; }
    NoteDialog Horizontal { height: auto; align-horizontal: right; }
    NoteDialog Button { margin-left: 1; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "confirm", "Confirm"),
    ]

    def __init__(self, title: str, prompt: str = "Note", *, required: bool = True,
                 confirm_label: str = "Confirm", initial: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prompt = prompt
        self.required = required
        self.confirm_label = confirm_label
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.title_text, style="bold"))
            yield Label(literal(self.prompt + (" (required)" if self.required else " (optional)")
                                + " · ctrl+s confirms, Escape cancels"))
            yield TextArea(self.initial, id="note-text")
            yield Label("", classes="dialog-error", id="note-error")
            with Horizontal():
                yield Button("Cancel", id="note-cancel")
                yield Button(self.confirm_label, variant="primary", id="note-confirm")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_confirm(self) -> None:
        note = self.query_one(TextArea).text.strip()
        if self.required and not note:
            self.query_one("#note-error", Label).update(f"{self.prompt} is required.")
            return
        self.dismiss(note)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#note-confirm")
    def _confirm(self) -> None:
        self.action_confirm()

    @on(Button.Pressed, "#note-cancel")
    def _cancel(self) -> None:
        self.action_cancel()
