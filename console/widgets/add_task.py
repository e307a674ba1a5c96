"""The "add to suite" dialog: who owns the suite, the expected answer (optional) and what the failure shows."""

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label

from gatepost.safe import literal
from gatepost.widgets.note_dialog import Dialog


class AddTaskDialog(Dialog):
    """Dismisses with the note (required) or None; `owner` and `expected` hold the other two fields."""

    DEFAULT_CSS = """
    AddTaskDialog { align: center middle; }
    AddTaskDialog > Vertical { width: 80; max-width: 100%; height: auto; border: thick $primary;
                               background: $surface; padding: 0 1; }
    AddTaskDialog Label { width: 100%; }
    AddTaskDialog .dialog-error { color: $error; height: auto; }
    AddTaskDialog Horizontal { height: auto; align-horizontal: right; }
    AddTaskDialog Button { margin-left: 1; }
    """

    def __init__(self, title: str, *, ask_source: bool = False) -> None:
        """`ask_source`: the failure carries no suite nor prompt (a skill's output): ask for both."""
        super().__init__()
        self.title_text = title
        self.ask_source = ask_source
        self.owner = ""
        self.expected = ""
        self.suite = ""
        self.prompt = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.title_text, style="bold"))
            yield Label(literal("The suite file is not changed: the suite with the task is a case for its owner · "
                                + self.hint()))
            if self.ask_source:
                yield Label("Suite file (its path in the repository; read, never written)")
                yield Input(id="task-suite")
                yield Label("The new task's prompt")
                yield Input(id="task-prompt")
            yield Label("Owner of the suite (a person; the case's comment mentions them)")
            yield Input(id="task-owner")
            yield Label("Expected answer (optional: without it the note becomes the judge's rubric)")
            yield Input(id="task-expected")
            yield Label("What the failure shows (required)")
            yield Input(id="task-note")
            yield Label("", classes="dialog-error", id="task-error")
            with Horizontal():
                yield Button("Cancel", classes="dialog-cancel", compact=True)
                yield Button("Draft the task", variant="primary", classes="dialog-confirm", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def typed(self) -> bool:
        return any(w.value.strip() for w in self.query(Input).results(Input))

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_confirm()

    def action_confirm(self) -> None:
        self.owner = self.query_one("#task-owner", Input).value.strip()
        self.expected = self.query_one("#task-expected", Input).value.strip()
        note = self.query_one("#task-note", Input).value.strip()
        if self.ask_source:
            self.suite = self.query_one("#task-suite", Input).value.strip()
            self.prompt = self.query_one("#task-prompt", Input).value.strip()
        if not self.owner or not note or (self.ask_source and not (self.suite and self.prompt)):
            self.query_one("#task-error", Label).update(
                ("The suite, the prompt, " if self.ask_source else "") + "the owner and what the failure shows "
                "are required.")
            return
        self.dismiss(note)
