"""A modal that asks for a note (or a reason) and a confirmation before a decision is written."""

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

from gatepost.keymap import bound, key_for
from gatepost.safe import literal
from gatepost.store.glyphs import FAIL


class Dialog(ModalScreen[str | None]):
    """A dialog that confirms (its `confirm()`; ctrl+s or the primary button) or cancels (Escape or Cancel).

    Both keys are priority bindings, so one press works even while a text area has the focus.
    """

    BINDINGS = [
        bound("escape", "cancel", "Cancel", "dialog.cancel", priority=True),
        bound("ctrl+s", "confirm", "Confirm", "dialog.confirm", priority=True),
    ]

    def hint(self, confirms: str = "confirms") -> str:
        """`ctrl+s confirms, Escape cancels` with the keys the keymap gives."""
        return (f"{key_for(self.app, 'dialog.confirm', 'ctrl+s')} {confirms}, "
                f"{key_for(self.app, 'dialog.cancel', 'escape')} cancels")

    _asked = False  # Escape once asked whether to drop what was typed

    def action_confirm(self) -> None:
        raise NotImplementedError

    def typed(self) -> bool:
        """Whether the person typed something that cancelling would lose (a dialog says; nothing by default)."""
        return False

    def ask_discard(self, message: str) -> None:
        """Say, in the dialog, that the next Escape drops what was typed."""
        self.notify(message, severity="warning")

    def action_cancel(self) -> None:
        """Cancel; when something typed would be lost, the first Escape asks and the second drops it."""
        if self.typed() and not self._asked:
            self._asked = True
            key = key_for(self.app, "dialog.cancel", "escape")
            self.ask_discard(f"Discard what you typed? {key} again discards it, "
                             f"{key_for(self.app, 'dialog.confirm', 'ctrl+s')} keeps going.")
            return
        self.dismiss(None)

    @on(Button.Pressed, ".dialog-confirm")
    def _confirm(self) -> None:
        self.action_confirm()

    @on(Button.Pressed, ".dialog-cancel")
    def _cancel(self) -> None:
        self.action_cancel()


class NoteDialog(Dialog):
    """Dismisses with the note when confirmed, or None when cancelled.

    With `required`, an empty note is refused in place and the dialog stays
    open; ctrl+s confirms from the keyboard, Escape cancels.
    """

    DEFAULT_CSS = """
    NoteDialog { align: center middle; }
    NoteDialog > Vertical { width: 72; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                            background: $surface; padding: 0 1; }
    NoteDialog Label { width: 100%; }
    NoteDialog TextArea { height: 6; min-height: 3; }
    NoteDialog .dialog-error { color: $error; height: auto; }
    NoteDialog Horizontal { height: auto; align-horizontal: right; }
    NoteDialog Button { margin-left: 1; }
    """
    def __init__(self, title: str, prompt: str = "Note", *, required: bool = True,
                 confirm_label: str = "Confirm", initial: str = "", refused: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prompt = prompt
        self.required = required
        self.confirm_label = confirm_label
        self.initial = initial
        self.refused = refused  # the refusal a note typed before met: shown above it

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.title_text, style="bold"))
            if self.refused:
                yield Label(literal(f"{FAIL} {self.refused}\nYour note is kept below: confirm to decide again on what "
                                    "is there now, or cancel.", style="bold"), classes="dialog-error",
                            id="note-refused")
            yield Label(literal(self.prompt + (" (required)" if self.required else " (optional)")
                                + " · " + self.hint()))
            yield from self.note_and_buttons()

    def note_and_buttons(self) -> ComposeResult:
        """The note, its error line and the two buttons: the end of every note dialog (a rubric's too)."""
        yield TextArea(self.initial, id="note-text")
        yield Label("", classes="dialog-error", id="note-error")
        with Horizontal():
            yield Button("Cancel", id="note-cancel", classes="dialog-cancel", compact=True)
            yield Button(self.confirm_label, variant="primary", id="note-confirm", classes="dialog-confirm",
                         compact=True)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def typed(self) -> bool:
        return bool(self.query_one(TextArea).text.strip())

    @on(TextArea.Changed, "#note-text")
    def _typing(self) -> None:
        self._asked = False  # typed more since Escape asked: the next Escape asks again

    def ask_discard(self, message: str) -> None:
        self.query_one("#note-error", Label).update(message)

    def action_confirm(self) -> None:
        note = self.query_one(TextArea).text.strip()
        if self.required and not note:
            self.query_one("#note-error", Label).update(f"{self.prompt} is required.")
            return
        self.dismiss(note)
