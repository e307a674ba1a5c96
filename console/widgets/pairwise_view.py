"""The pairwise view: a task's candidate and baseline outputs of a run side by side, and a person's preference
between them (`P` on a task of Results; `c` candidate, `b` baseline, `t` tie, then an optional note). With two
runs of one suite marked on Results, `P` compares the task's output in the two runs instead: the second marked
is the candidate side, the first (the baseline `m` compares with) the baseline side.

The preference is the store's act (preferences.record_preference, through the guarded pipeline, on the run as
this view read it): it counts as evidence only where the run's case's protocol lists the kind, and the view says
which before anyone presses a key.
"""

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from gatepost.keymap import bound, key_for
from gatepost.safe import literal, literal_line
from gatepost.store.kernel import GatepostError, last_seq
from gatepost.store.preferences import (
    PREFERRERS,
    counting_words,
    pairwise,
    preferred,
    record_preference,
    side_name,
)
from gatepost.widgets.note_dialog import Dialog, NoteDialog

SHOW_CHARS = 20_000  # of each output; the CLI's --json has all of it
CHOICE_KEYS = (("candidate", "c"), ("baseline", "b"), ("tie", "t"))


def preference_text(rows: list[dict[str, Any]]) -> Text:
    """Each preference on a line: who, which, whether it counts, when, why."""
    text = Text()
    for p in rows:
        text.append_text(literal(f"{p['person']} prefers {preferred(p)}", style="bold"))
        text.append_text(literal(f"  {'counts as evidence' if p['counted'] else 'recorded, not counted'} · "
                                 f"{p['at'][:16].replace('T', ' ')}", style="dim"))
        if p["note"]:
            text.append_text(literal(f": {p['note']}"))
        text.append("\n")
    return text


class PairwiseView(Dialog):
    """Both outputs side by side, read in a worker; a choice key asks for a note, then records the preference."""

    BINDINGS = [bound(key, f"prefer('{choice}')", f"Prefer {choice}", f"pairwise.{choice}")
                for choice, key in CHOICE_KEYS]
    DEFAULT_CSS = """
    PairwiseView { align: center middle; }
    PairwiseView > Vertical { width: 98%; height: 94%; border: thick $primary; background: $surface; padding: 0 1; }
    PairwiseView #pairwise-sides { height: 1fr; }
    PairwiseView #pairwise-sides > VerticalScroll { width: 1fr; border: round $panel; padding: 0 1; }
    PairwiseView #pairwise-preferences { height: auto; max-height: 8; }
    """

    def __init__(self, run_id: str, task_id: str, person: str | None, *, against: str | None = None) -> None:
        super().__init__()
        self.run_id = run_id
        self.task_id = task_id
        self.person = person
        self.against = against  # another run of the suite: its output is the baseline side
        self.view: dict[str, Any] | None = None
        self.seen_seq: int | None = None

    def compose(self) -> ComposeResult:
        keys = " · ".join(f"{key_for(self.app, f'pairwise.{c}', k)} {c}" for c, k in CHOICE_KEYS)
        with Vertical():
            what = (f"{self.task_id} in run {self.run_id} against run {self.against}" if self.against
                    else f"{self.task_id} of {self.run_id}")
            yield Label(literal(f"{what}: which output is better? {keys} · "
                                f"{key_for(self.app, 'dialog.cancel', 'escape')} closes", style="bold"),
                        id="pairwise-title")
            yield Static(Text("reading…", style="dim"), id="pairwise-counts")
            with Horizontal(id="pairwise-sides"):
                with VerticalScroll():
                    yield Static(id="pairwise-candidate")
                with VerticalScroll():
                    yield Static(id="pairwise-baseline")
            yield Static(id="pairwise-preferences")

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="pairwise")
    def _read(self) -> None:
        worker = get_current_worker()
        seq: int | None = None
        try:
            with self.app.reading_long() as db:  # type: ignore[attr-defined]  # GatepostApp's second reader
                result: dict[str, Any] | str = pairwise(db, self.run_id, self.task_id, against=self.against)
                seq = last_seq(db, "run", self.run_id)
        except GatepostError as exc:
            result = str(exc)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, result, seq)

    def _show(self, result: dict[str, Any] | str, seq: int | None) -> None:
        if isinstance(result, str):
            self.query_one("#pairwise-counts", Static).update(literal_line(result, "bold red"))
            return
        self.view, self.seen_seq = result, seq
        self.query_one("#pairwise-counts", Static).update(literal_line(f"A preference here {counting_words(result)}.",
                                                                       "cyan"))
        for side in ("candidate", "baseline"):
            self.query_one(f"#pairwise-{side}", Static).update(self._side(side_name(result, side),
                                                                          result["outputs"][side]))
        rows = result["preferences"]
        text = Text(f"Preferences ({len(rows)})\n", style="bold") if rows else Text("No preference yet.",
                                                                                       style="dim")
        text.append_text(preference_text(rows))
        self.query_one("#pairwise-preferences", Static).update(text)

    @staticmethod
    def _side(side: str, out: dict[str, Any] | None) -> Text:
        text = literal(side[:1].upper() + side[1:], style="bold")
        if out is None:
            text.append("  not run\n", style="dim")
            return text
        text.append_text(Text(f"  {'pass' if out['passed'] else 'fail'}", style="green" if out["passed"] else "red"))
        if out["reason"]:
            text.append_text(literal(f"  {out['reason']}", style="yellow"))
        body = out["output"] or ""
        if len(body) > SHOW_CHARS:
            text.append(f"\nshowing the first {SHOW_CHARS:,} of {len(body):,} characters "
                        "(gatepost pairwise --json has all)", style="dim")
        text.append("\n")
        text.append_text(literal(body[:SHOW_CHARS]))
        return text

    def text(self) -> str:
        """What the view shows, as a person reads it."""
        return "\n".join(str(self.query_one(f"#{name}", Static).render())
                         for name in ("pairwise-counts", "pairwise-candidate", "pairwise-baseline",
                                      "pairwise-preferences"))

    def action_prefer(self, choice: str) -> None:
        if self.view is None:
            return
        if not set(getattr(self.app, "capabilities", ()) or ()) & set(PREFERRERS):
            self.notify(f"{self.person} holds none of {', '.join(PREFERRERS)}: browsing only.",
                        title="Browsing only", severity="warning")
            return
        run_id, task_id, seen, against = self.run_id, self.task_id, self.seen_seq, self.against

        async def write(note: str) -> None:
            try:
                made = await self.app.write(  # type: ignore[attr-defined]  # GatepostApp's one writer
                    record_preference, run_id, task_id, choice, actor=self.person, note=note or None,
                    based_on_seq=seen, against=against)
            except GatepostError as exc:
                self.notify(str(exc), title="Refused", severity="error", timeout=10)
                self._read()
                return
            self.notify(f"{task_id}: {made['person']} prefers {preferred(made)}"
                        + (" (counts as evidence)" if made["counted"] else " (recorded, not counted)"),
                        title="Preference recorded")
            self._read()

        def done(typed: str | None) -> None:
            if typed is not None:
                self.run_worker(write(typed), group="prefer")

        which = side_name(self.view, choice) if choice != "tie" else "neither"
        self.app.push_screen(NoteDialog(f"Prefer {which}'s output of {task_id}?" if choice != "tie"
                                        else f"Neither output of {task_id} is better?", "Why",
                                        required=False, confirm_label="Record"), done)

    def action_confirm(self) -> None:
        self.dismiss(None)
