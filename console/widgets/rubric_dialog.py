"""The decision dialog of an item whose decision asks a rubric (a case's protocol's, or its queue's): its
questions first, then the note; and the rubric's blocks at the end of an item's detail.

Each question is answered in its own field (yes/no, or 1..N); confirming checks every answer's form in place
and dismisses with an `Answered` note: the note's text carrying the answers, so a screen's decision flow (the
note passed to its act, a refused note offered again) carries them unchanged. The store checks them again: a
decision without every answer is refused (rule `rubric`).
"""

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, TextArea

from gatepost.safe import literal
from gatepost.store.glyphs import FAIL
from gatepost.store.kernel import InputError
from gatepost.store.protocol import Question, answers_text
from gatepost.widgets.line_detail import Block
from gatepost.widgets.note_dialog import NoteDialog


class Answered(str):
    """A decision's note, with the rubric's answers it was given with (question key → what was typed)."""

    answers: dict[str, str]

    def __new__(cls, note: str, answers: dict[str, str]) -> "Answered":
        made = super().__new__(cls, note)
        made.answers = dict(answers)
        return made


def answers_of(note: Any) -> dict[str, str] | None:
    """The rubric answers a dialog's note carries (None: it asked no rubric)."""
    return note.answers if isinstance(note, Answered) else None


class RubricDialog(NoteDialog):
    """The rubric's questions, one field each, then the note; ctrl+s confirms once every answer has its form."""

    DEFAULT_CSS = """
    RubricDialog Input { width: 100%; }
    RubricDialog .rubric-question { margin-top: 1; }
    """

    def __init__(self, title: str, questions: list[Question], prompt: str = "Note", *, required: bool = True,
                 confirm_label: str = "Confirm", initial: str = "", refused: str = "", aside: str = "") -> None:
        super().__init__(title, prompt, required=required, confirm_label=confirm_label, initial=str(initial),
                         refused=refused)
        self.questions = questions
        self.given = answers_of(initial) or {}
        self.aside = aside  # what else the person should know (a bulk decision: the items it does not apply to)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(self.title_text, style="bold"))
            if self.refused:
                yield Label(literal(f"{FAIL} {self.refused}\nYour answers and note are kept below: confirm to decide "
                                    "again on what is there now, or cancel.", style="bold"), classes="dialog-error",
                            id="note-refused")
            yield Label(literal(f"The rubric: answer every question ({len(self.questions)}) · " + self.hint()))
            if self.aside:
                yield Label(literal(self.aside, style="italic"), id="rubric-aside")
            for q in self.questions:
                yield Label(literal(f"{q.question} ({q.expects})"), classes="rubric-question")
                yield Input(self.given.get(q.key, ""), placeholder=q.expects, id=f"rubric-{q.key}",
                            compact=True)
            yield Label(literal(self.prompt + (" (required)" if self.required else " (optional)")),
                        classes="rubric-question")
            yield from self.note_and_buttons()

    def on_mount(self) -> None:
        self.call_after_refresh(self._focus_first)  # after NoteDialog's own mount handler focused the note

    def _focus_first(self) -> None:
        """The first unanswered question takes the focus, not the note."""
        first = next((q for q in self.questions if not self.given.get(q.key)), None)
        if first is not None:
            self.query_one(f"#rubric-{first.key}", Input).focus()
        else:
            self.query_one(TextArea).focus()

    def answers(self) -> dict[str, str]:
        return {q.key: self.query_one(f"#rubric-{q.key}", Input).value.strip() for q in self.questions}

    def typed(self) -> bool:
        return super().typed() or any(self.answers().values())

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        """Enter in an answer moves to the next field (the note after the last one)."""
        event.stop()
        self.focus_next()

    def action_confirm(self) -> None:
        given = self.answers()
        error = self.query_one("#note-error", Label)
        for q in self.questions:
            if not given[q.key]:
                error.update(f"Answer: {q.question} ({q.expects})")
                self.query_one(f"#rubric-{q.key}", Input).focus()
                return
            try:
                q.answer(given[q.key], field="answer")
            except InputError as exc:
                error.update(str(exc))
                self.query_one(f"#rubric-{q.key}", Input).focus()
                return
        note = self.query_one(TextArea).text.strip()
        if self.required and not note:
            error.update(f"{self.prompt} is required.")
            return
        self.dismiss(Answered(note, given))


def rubric_blocks(questions: tuple[Question, ...] | list[Question], answered: list[dict[str, Any]]) -> list[Block]:
    """At the end of an item's detail: the answers its decisions gave to its queue's rubric (each decision's
    against the questions it was asked), and the questions the queue asks now."""
    if not questions and not answered:
        return []
    text = Text()
    for a in answered:
        text.append_text(literal(f"{a['decision']} by {a['person'] or '?'} at {a['at'][:16].replace('T', ' ')}: ",
                                 style="bold"))
        text.append_text(literal(answers_text(a["answers"], a["questions"]) + "\n"))
    if questions:
        text.append_text(literal("every decision answers " + ", ".join(q.key for q in questions)
                                 + " (a dialog asks them)", style="dim"))
    return [Block("rubric-title", Text("Rubric"), "title", gap=0), Block("rubric", text)]
