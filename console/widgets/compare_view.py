"""Runs compared with a baseline, as lines of text: what `gatepost compare` prints and the console's compare view
shows (marking runs on Results, then `m`)."""

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from gatepost.keymap import bound
from gatepost.safe import literal, literal_line
from gatepost.store.evaluation import rate_words
from gatepost.store.kernel import GatepostError
from gatepost.store.views import compare_matrix
from gatepost.widgets.note_dialog import Dialog


def _cell(passed: bool, base: bool) -> str:
    if passed == base:
        return "pass" if passed else "fail"
    return "FAIL↓" if base else "PASS↑"


def matrix_lines(result: dict[str, Any]) -> list[str]:
    """The matrix as text: each run's rate and delta, then the tasks (regressions first), one line each."""
    runs = [r["run"] for r in result["runs"]]
    lines = [f"baseline {result['baseline']['run']}: {rate_words(result['baseline']['rate'])}"]
    for r in result["runs"]:
        lines.append(f"{r['run']}: {rate_words(r['rate'])}; delta {r['comparison']['words']}")
    width = max([len("task"), *(len(t["task"]) for t in result["tasks"])])
    cols = [max(len(run), 6) for run in runs]
    lines.append("")
    lines.append(f"{'task':<{width}}  {'baseline':<8}  " + "  ".join(f"{run:<{w}}" for run, w in zip(runs, cols,
                                                                                                    strict=True)))
    for t in result["tasks"]:
        lines.append(f"{t['task']:<{width}}  {'pass' if t['baseline'] else 'fail':<8}  "
                     + "  ".join(f"{_cell(t['runs'][run], t['baseline']):<{w}}" for run, w in zip(runs, cols,
                                                                                                   strict=True)))
    same = result["task_count"] - result["differing"]
    if same and result["differing"] == len(result["tasks"]):
        lines.append(f"… {same} task{'s' if same != 1 else ''} the same in every run as in the baseline "
                     "(--all-tasks lists them)")
    return [line.rstrip() for line in lines]


class CompareView(Dialog):
    """The marked runs against the first marked (the baseline), read in a worker; Escape or Enter closes."""

    BINDINGS = [bound("enter", "cancel", "Close", "compare.close")]
    DEFAULT_CSS = """
    CompareView { align: center middle; }
    CompareView > Vertical { width: 96%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    CompareView VerticalScroll { height: 1fr; }
    """

    def __init__(self, runs: list[str], baseline: str) -> None:
        super().__init__()
        self.runs = runs
        self.baseline = baseline
        self.result: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''} against {self.baseline} · "
                                "regressions first · Escape closes", style="bold"))
            with VerticalScroll():
                yield Static(Text("reading…", style="dim"), id="compare-matrix")

    def on_mount(self) -> None:
        self._read()

    @work(thread=True, exclusive=True, group="compare")
    def _read(self) -> None:
        worker = get_current_worker()
        try:
            with self.app.reading_long() as db:  # type: ignore[attr-defined]  # GatepostApp's second reader
                result: dict[str, Any] | str = compare_matrix(db, self.runs, self.baseline)
        except GatepostError as exc:
            result = str(exc)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, result)

    def _show(self, result: dict[str, Any] | str) -> None:
        if isinstance(result, str):
            self.query_one("#compare-matrix", Static).update(literal_line(result, "bold red"))
            return
        self.result = result
        text = Text()
        for line in matrix_lines(result):
            style = "red" if "FAIL↓" in line else "green" if "PASS↑" in line else ""
            text.append_text(literal(line + "\n", style=style))
        self.query_one("#compare-matrix", Static).update(text)

    def text(self) -> str:
        """The matrix as a person reads it."""
        return str(self.query_one("#compare-matrix", Static).render())

    def action_confirm(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
