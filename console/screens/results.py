"""The Results screen: evaluation runs on the left; on the right the run, its tasks candidate vs
baseline (the tasks whose pass/fail differs first), and a task's two outputs side by side with their diff."""

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Select, Static
from textual.worker import Worker, get_current_worker

from gatepost.safe import literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.screens.drafting import draft_task
from gatepost.screens.reads import Read
from gatepost.store.discussion import thread
from gatepost.store.evaluation import (
    RunDetail,
    RunRow,
    TaskCounts,
    TaskRow,
    TaskSide,
    attempts_line,
    flaky_words,
    get_run,
    list_runs,
    previous_run,
    run_statistics,
    run_task_counts,
    run_task_page,
    task_attempts,
    task_outputs,
)
from gatepost.store.views import sparkline, suite_trend
from gatepost.widgets.add_task import AddTaskDialog
from gatepost.widgets.compare_view import CompareView
from gatepost.widgets.diff_view import side_by_side, unified_diff
from gatepost.widgets.filter_box import FilterBox, show_value
from gatepost.widgets.in_place import put
from gatepost.widgets.paged_list import Col, PagedList, Row
from gatepost.widgets.pairwise_view import PairwiseView
from gatepost.widgets.thread import COMMENT_BINDING, COMMENT_KEY, ask_comment, thread_text

# at 80 columns: the run's id (its first hex digits), skill, verdict (its glyph), the candidate and baseline rates and
# delta stay (the list pane takes a little more than half the width for them); flags go first, then the verdict's
# word (its glyph stays), the run's id and when it started. From 120 columns the id and the date tell runs with the
# same figures apart (from 200 whole)
RUN_COLUMNS = [Col("id", 4, instead="run"), Col("run", 15, min=7, drop=2), Col("started", 11, min=5, drop=1),
               Col("skill", 18, min=8),
               Col("", 1, instead="verdict"), Col("verdict", 7, drop=3), Col("cand.", 6), Col("base.", 6),
               Col("delta", 8), Col("flags", 40, min=6, drop=4)]
# Δ: the candidate's pass/fail changed since the previous run of the suite and skill; ≠: candidate ≠ baseline.
TASK_COLUMNS = [Col("", 3), Col("task", 30, min=10), Col("split", 7, drop=2), Col("candidate", 28, min=12),
                Col("baseline", 28, min=12), Col("attempts", 60, min=10, drop=1)]
OUTCOME_STYLE = {"pass": "green", "fail": "red", "timeout": "yellow", "crash": "bold red", "not judged": "yellow"}
VERDICT_GLYPH = {"pass": "✔", "fail": "✘"}  # the verdict where its word does not fit
VERDICT_OPTIONS = [("pass", "pass"), ("fail", "fail")]
SHOW_CHARS = 20_000  # of each output: a 1 MiB output would make the screen crawl
FLAKY_SHOWN = 1_000  # flaky tasks the run's figures list (and "f" filters to); all are counted
RUN_PAGE = 100  # runs a page of the list holds
TASK_PAGE = 50  # tasks a page of the run's list holds


@dataclass(frozen=True)
class RunView:
    """What a run shows, read at once so that it is drawn at once (one layout, one frame): the run, its task
    counts, the run it is compared with, the first page of its tasks and the outputs of the task the cursor
    lands on (with its attempts while they are shown). Its statistics follow, once this is drawn."""

    asked: int = 0  # the task list's loads begun when the read began (PagedList.apply_page)
    run: RunDetail | None = None
    counts: TaskCounts | None = None
    previous: RunRow | None = None
    rows: tuple[Row, ...] = ()
    total: int = 0
    task_id: str | None = None
    outputs: dict[str, Any] | None = None
    sides: dict[str, Any] | None = None
    trend: tuple[dict[str, Any], ...] = ()  # the suite's pass rate over its runs (suite_trend)
    comments: tuple[dict[str, Any], ...] = ()  # the run's thread, oldest first


def shown(side: dict[str, Any] | None) -> str:
    output: str = (side or {}).get("output", "")
    return output[:SHOW_CHARS]


def verdict_text(verdict: str | None) -> Text:
    return Text(verdict or "—", style={"pass": "green", "fail": "bold red"}.get(verdict or "", "yellow"))


def rate(value: float | None, digits: int = 4) -> str:
    """A pass rate in percent; the list's cells with 3 digits (91.7%), the detail's with 4 (91.67%)."""
    return "—" if value is None else f"{value * 100:.{digits}g}%"


def points(delta: float | None) -> str:
    """A difference of two rates in percentage points, as the rates beside it are in percent: +28.6 pp."""
    if delta is None:
        return "—"
    shown = f"{delta * 100:+.1f}".removesuffix(".0")
    return f"{'+0' if shown in ('-0', '+0') else shown} pp"


def flags(run: RunRow) -> Text:
    text = Text()
    if run.get("mock"):
        text.append("mock ", style="magenta")
    if (run.get("baseline_health") or {}).get("status") == "warning":
        text.append("weak ", style="yellow")
    others = len(run.get("warnings") or []) - bool(run.get("mock")) - \
        ((run.get("baseline_health") or {}).get("status") == "warning")
    if others > 0:
        text.append(f"⚠{others} ", style="yellow")
    if (run.get("pass_k") or 1) > 1:
        text.append(f"@{run['pass_k']} ", style="cyan")
    if run.get("case_id"):
        text.append_text(literal(f"{run['case_id']} {run.get('purpose') or ''}", style="bold"))
    elif run.get("purpose") == "imported":
        text.append("imported", style="dim")
    return text


def side_cell(side: TaskSide | None) -> Text:
    if side is None:
        return Text("not run", style="dim")
    if side["passed"]:
        word, style = "pass", "green"
    elif not side["judged"]:
        word, style = "not judged", "yellow"
    else:
        word, style = "FAIL", "red"
    text = Text(word, style=style)
    if side["attempts"] > 1:  # pass@k: how many of the tries passed, and the best score among them
        passed = side.get("outcomes", {}).get("pass", 1 if side["passed"] else 0)
        text.append(f" {passed} of {side['attempts']}", style="cyan")
        if side["score"] is not None and side["judged"]:
            text.append(f" best {side['score']:.2g}", style="dim")
    elif side["score"] is not None and side["judged"]:
        text.append(f" score {side['score']:.2g}", style="dim")
    return text


def mark_cell(task: TaskRow) -> Text:
    """Δ when the candidate's pass/fail changed since the previous run, ≠ when candidate and baseline differ,
    ~ when the task is flaky (passed and failed on the same inputs)."""
    text = Text()
    if task.get("changed_vs_previous"):
        text.append("Δ", style="bold magenta")
    if task["differs"]:
        text.append("≠", style="bold yellow")
    if task.get("flaky"):
        text.append("~", style="bold cyan")
    return text if text.plain else Text(" ")


def attempts_cell(task: TaskRow) -> Text:
    """With pass@k: the candidate's attempts collapsed to the count of each outcome (Enter expands them)."""
    side = task["candidate"]
    if side is None or side["attempts"] <= 1:
        return Text("")
    text = Text(f"{side['attempts']} attempts: ", style="cyan")
    for i, (word, count) in enumerate(side["outcomes"].items()):
        if i:
            text.append(", ", style="dim")
        text.append(f"{count} {word}", style=OUTCOME_STYLE.get(word, "yellow"))
    text.append(" ▸", style="dim")
    return text


class ResultsScreen(GatepostScreen):
    """Enter on a run goes to its tasks; moving through the tasks shows each task's two outputs and their diff.

    Its reads come back as `Read` messages (gatepost.screens.reads), as every screen's do: a run (the first page of
    runs with its first run, or one run) answers `_run_reading`, its statistics `_figures_reading`, a task's outputs
    `_task_reading`; a read whose worker is no longer the one waited on is dropped."""

    class FirstRead(Read):
        """The first page of runs and the run the cursor lands on, read together (_read_first)."""

        WAITING = "_run_reading"

        def __init__(self, screen: "ResultsScreen", worker: Worker[None], rows: list[Row], total: int, asked: int,
                     view: RunView) -> None:
            super().__init__(screen, worker)
            self.rows, self.total, self.asked, self.view = rows, total, asked, view

    class RunRead(Read):
        """One run, with its first page of tasks and the outputs of the task the cursor lands on (_read_run)."""

        WAITING = "_run_reading"

        def __init__(self, screen: "ResultsScreen", worker: Worker[None], view: RunView) -> None:
            super().__init__(screen, worker)
            self.view = view

    class FiguresRead(Read):
        """A run's statistics, read once its rows are drawn (_read_figures)."""

        WAITING = "_figures_reading"

        def __init__(self, screen: "ResultsScreen", worker: Worker[None], run: RunDetail,
                     figures: dict[str, Any] | None) -> None:
            super().__init__(screen, worker)
            self.run, self.figures = run, figures

    class TaskRead(Read):
        """A task's two outputs (and its attempts while they are shown) (_read_task)."""

        WAITING = "_task_reading"

        def __init__(self, screen: "ResultsScreen", worker: Worker[None], task_id: str | None,
                     outputs: dict[str, Any] | None, sides: dict[str, Any] | None) -> None:
            super().__init__(screen, worker)
            self.task_id, self.outputs, self.sides = task_id, outputs, sides

    TITLE = "Results"  # the header names the screen, as on the list screens
    AUTO_FOCUS = ""  # on_mount focuses the runs' table (see ListDetailScreen.AUTO_FOCUS)
    # the demo's newest run and two older runs of the same suite's tasks (rows 1, 7 and 15), compared
    # then the newest run's first task against the fourth run's (the same suite): the compared marks undone, the
    # fourth run marked first (the baseline), then the newest
    SCREENSHOT_STEPS = [("compare", ["space", *["down"] * 6, "space", *["down"] * 8, "space", "m"]),
                        ("add-to-suite", ["t", "S"]), ("pairwise", ["l", "home", "t", "home", "P"]),
                        ("pairwise-runs", ["l", "home", "space", *["down"] * 6, "space", *["down"] * 8, "space",
                                           "home", *["down"] * 3, "space", "home", "space", "t", "home", "P"])]

    DEFAULT_CSS = """
    ResultsScreen .filters Select { width: 1fr; }
    ResultsScreen .filters FilterBox { width: 1fr; }
    ResultsScreen #results-detail { height: 1fr; overflow-y: auto; }
    ResultsScreen #run-head { height: auto; max-height: 16; }
    ResultsScreen #run-tasks { height: 12; }
    ResultsScreen #task-attempts { height: auto; max-height: 14; display: none; border: round $accent; padding: 0 1; }
    ResultsScreen #task-attempts.-open { display: block; }
    ResultsScreen #outputs { height: 2fr; min-height: 8; }
    ResultsScreen #outputs > VerticalScroll { width: 1fr; border: round $panel; padding: 0 1; }
    ResultsScreen #diff-scroll { height: 1fr; min-height: 8; border: round $panel; padding: 0 1; }
    /* attempts open: the head and the task list give up room, so the outputs and the diff keep theirs */
    ResultsScreen.-attempts-open #run-head { max-height: 8; }
    ResultsScreen.-attempts-open #run-tasks { height: 8; }
    """

    BINDINGS = [
        Binding("v", "cycle_verdict", "Verdict filter"),
        Binding("t", "focus_tasks", "Tasks"),
        Binding("l", "focus_runs", "Runs"),
        Binding("c", "open_case", "Open case"),
        Binding("f", "toggle_flaky", "Flaky only"),
        # `?` lists these; the footer is full at 80 columns
        Binding("space", "mark_run", "Mark run", key_display="Space", id="results.mark", show=False),
        Binding("m", "compare_marked", "Compare marked", id="results.compare", show=False),
        Binding(COMMENT_KEY, "comment", "Comment", id=COMMENT_BINDING, show=False),
        Binding("S", "add_to_suite", "Add to suite", id="results.add_to_suite", show=False),
        Binding("P", "pairwise", "Pairwise: prefer an output", id="results.pairwise", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.verdict: str | None = None
        self.case_id: str | None = None
        self.run_id: str | None = None
        self.task_id: str | None = None
        self._runs: dict[str, RunRow] = {}
        self._counts: TaskCounts | None = None  # the run's task counts; its tasks are paged from the store
        self._previous: RunRow | None = None  # the run this one is compared with
        self._expanded: str | None = None  # the task whose attempts are shown (Enter on a task)
        self._figures: dict[str, Any] | None = None  # the run's intervals, paired delta and flaky tasks
        self.flaky_only = False
        self._flaky: set[str] = set()  # the run's flaky tasks (run_statistics)
        self._figures_pending: RunDetail | None = None  # the run drawn: its statistics are read once its rows are up
        self._run_drawn: RunDetail | None = None  # the run drawn last (each read of it a new one)
        self._run_wanted: str | None = None  # the run being read (the cursor's), drawn when it arrives
        # the newest request of each kind of read (gatepost.screens.reads): what another worker read is dropped
        self._run_reading: Worker[None] | None = None
        self._figures_reading: Worker[None] | None = None
        self._task_reading: Worker[None] | None = None
        self._drawn: tuple[str | None, str | None] | None = None  # (run, task) whose outputs are shown
        self.marked_runs: list[str] = []  # marked with Space, in order: the first is the baseline of `m`
        self._trend: tuple[dict[str, Any], ...] = ()
        self._comments: tuple[dict[str, Any], ...] = ()

    def body(self) -> ComposeResult:
        with Horizontal(classes="split"):
            with Vertical(classes="list-pane"):
                yield Static(id="results-title", classes="pane-title")
                with Horizontal(classes="filters"):
                    yield FilterBox(VERDICT_OPTIONS, prompt="any verdict", id="results-verdict")
                # the first page comes with its first run (_read_first), not read on its own when it mounts
                yield PagedList(RUN_COLUMNS, self._fetch_runs, page_size=RUN_PAGE, empty="No evaluation runs yet "
                                "(gatepost suite run).", id="results-list", autoload=False)
            with Vertical(classes="detail-pane", id="results-detail"):
                yield Static(id="run-head")
                # its pages come with their run (RunView), not read on their own when it mounts
                yield PagedList(TASK_COLUMNS, self._fetch_tasks, page_size=TASK_PAGE, empty="No tasks in this run.",
                                id="run-tasks", autoload=False)
                with Horizontal(id="outputs"):
                    with VerticalScroll(id="out-candidate-scroll"):
                        yield Static(id="out-candidate")
                    with VerticalScroll(id="out-baseline-scroll"):
                        yield Static(id="out-baseline")
                with VerticalScroll(id="diff-scroll"):
                    yield Static(id="out-diff")

    def on_mount(self) -> None:
        self._title()
        runs = self.query_one("#results-list", PagedList)
        self.set_focus(runs.table)  # at once (see ListDetailScreen.on_mount)
        self._run_reading = self._read_first(runs.asked, self.query_one("#run-tasks", PagedList).asked)

    @work(thread=True, exclusive=True, group="run")
    def _read_first(self, runs_asked: int, tasks_asked: int) -> None:
        """The first page of runs and the run the cursor lands on (its first), read together and drawn together:
        read one after the other, each was laid out and drawn on its own (the run's head, its tasks, the task's
        outputs: four layouts and frames for a first page)."""
        worker = get_current_worker()
        with self.gp_app.reading() as db:
            rows, total = self._fetch_runs(db, "", 0, RUN_PAGE)
            view = self._read_view(db, rows[0][0], "", None, tasks_asked, flaky_only=False, attempts=False) \
                if rows else RunView(tasks_asked)
        if not worker.is_cancelled:
            self.post_message(self.FirstRead(self, worker, rows, total, runs_asked, view))

    @on(FirstRead)
    def _first_arrived(self, event: FirstRead) -> None:
        runs = self.query_one("#results-list", PagedList)
        if not event.newest() or not runs.apply_page(event.rows, event.total, asked=event.asked):
            return  # the list was asked for again (a filter, a search, a link) or a run shown: theirs is newer
        self._run_reading = None  # answered
        self._run_wanted = runs.current_key  # its announcement (Highlighted) finds it drawn
        view = event.view
        if self._run_wanted == (view.run["id"] if view.run else None):
            self._run_arrived(view)
        else:
            self.show_run(self._run_wanted)

    def on_screen_resume(self) -> None:
        self.refresh_if_changed()

    def widths_before_layout(self) -> bool:
        return True  # one read: the runs, the first run, its tasks and the task's outputs; widths from fit_list_for

    def fit_list_for(self, paged: PagedList) -> int | None:
        """The run's tasks take the width the runs leave: known before the two are laid out (the tasks, fitted
        to the width they had before the runs' pane was fitted, were drawn, fitted again and drawn again). Before
        the screen's first layout the split is the app's width, as it will be."""
        width = super().fit_list_for(paged)
        if width is not None or paged.id != "run-tasks":
            return width
        detail, runs = self.query_one("#results-detail"), self.query_one(".split > .list-pane")
        split = (detail.parent.size.width or self.app.size.width) if isinstance(detail.parent, Widget) else 0
        if not split or runs.styles.width is None or not runs.styles.width.cells:
            return None
        scrollbar = detail.styles.scrollbar_size_vertical if detail.show_vertical_scrollbar else 0
        return split - int(runs.styles.width.cells) - detail.styles.gutter.width - scrollbar

    # --- runs ------------------------------------------------------------------------------
    def _fetch_runs(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        rows, total = list_runs(db, search=search or None, verdict=self.verdict, case_id=self.case_id,
                                limit=limit, offset=offset)
        self._runs = {r["id"]: r for r in rows}
        cells: list[Row] = []
        for r in rows:
            delta = r["delta"]
            mark = "■ " if r["id"] in self.marked_runs else ""
            verdict = verdict_text(r["verdict"])
            # the rates and the delta are numbers formatted here (no stored text): made Texts as they are; one_line's
            # text is inert already (safe.clean)
            cells.append((r["id"], [
                literal(r["id"].split("-", 1)[-1][:4]),  # where the id does not fit: its first hex digits
                literal(r["id"]),
                literal((r["started_at"] or "")[5:16].replace("T", " ")),
                Text(mark + one_line(r["skill_id"] or "—", 18)),  # the mark where every width shows it
                Text(VERDICT_GLYPH.get(r["verdict"] or "", "·"), style=verdict.style),
                verdict,
                Text(rate(r["execution_pass_rate"], 3)),
                Text(rate(r["baseline_pass_rate"], 3)),
                Text(points(delta),
                     style="red" if (delta or 0) < 0 else "green" if (delta or 0) > 0 else ""),
                flags(r),
            ]))
        return cells, total

    def _title(self) -> None:
        parts = ["Evaluation runs"]
        if self.verdict:
            parts.append(f"verdict {self.verdict}")
        if self.case_id:
            parts.append(f"case {self.case_id}")
        self.query_one("#results-title", Static).update(literal(" · ".join(parts) + "   / search  v verdict"))

    def apply_filter(self, **filters: str) -> None:
        """verdict=pass|fail|any, case_id=<case> (the runs of one case's evaluation). A change the person did not
        make with v or the verdict's box (a case's runs, an overview line) is announced, as the title says it."""
        before = (self.verdict, self.case_id)
        self._set_filter(**filters)
        if (self.verdict, self.case_id) != before:
            shown = ", ".join(p for p in (f"verdict {self.verdict}" if self.verdict else "any verdict",
                                          f"case {self.case_id}" if self.case_id else "") if p)
            self.notify(f"Evaluation runs now shows: {shown}", title="Filter changed")

    def _set_filter(self, **filters: str) -> None:
        """apply_filter, unannounced: the person's own change (v, the verdict's box)."""
        if "verdict" in filters:
            self.verdict = filters["verdict"] if filters["verdict"] in ("pass", "fail") else None
            show_value(self, "#results-verdict", self.verdict)
        if "case_id" in filters:
            self.case_id = filters["case_id"] or None
        self._title()
        paged = self.query_one("#results-list", PagedList)
        paged.page_offset = 0
        paged.reload(keep_key=self.run_id)

    @on(Select.Changed, "#results-verdict")
    def _verdict_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else str(event.value)
        if value != self.verdict:
            self._set_filter(verdict=value or "any")

    def action_cycle_verdict(self) -> None:
        order = [None, "pass", "fail"]
        self._set_filter(verdict=order[(order.index(self.verdict) + 1) % len(order)] or "any")

    def open_item(self, key: str) -> None:
        paged = self.query_one("#results-list", PagedList)
        if not paged.move_to_key(key):
            self.verdict, self.case_id = None, None
            show_value(self, "#results-verdict", None)
            self._title()
            paged.set_search(key)
            paged.move_to_key(key)
            self.notify(f"Evaluation runs now shows: any verdict, search {key!r}, to show {key}",
                        title="Filter changed")
        self.show_run(key)

    def refresh_data(self) -> None:
        paged = self.query_one("#results-list", PagedList)
        paged.reload(keep_key=self.run_id or paged.current_key)

    @on(PagedList.Highlighted, "#results-list")
    def _run_highlighted(self, event: PagedList.Highlighted) -> None:
        event.stop()
        if event.key != self._run_wanted or event.key is None:
            self.show_run(event.key)

    @on(PagedList.Chosen, "#results-list")
    def _run_chosen(self, event: PagedList.Chosen) -> None:
        event.stop()
        self.action_focus_tasks()

    def action_focus_tasks(self) -> None:
        self.query_one("#run-tasks", PagedList).table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_case":
            return True if self._run_case() else None
        return super().check_action(action, parameters)

    def _run_case(self) -> str | None:
        run = self._runs.get(self.run_id or "")
        return run.get("case_id") if run else None

    def action_open_case(self) -> None:
        case_id = self._run_case()
        if not case_id:
            self.notify("This run belongs to no case.", severity="warning")
            return
        self.gp_app.open_item("cases", case_id)

    def action_focus_runs(self) -> None:
        self.query_one("#results-list", PagedList).table.focus()

    # --- one run ---------------------------------------------------------------------------
    def show_run(self, run_id: str | None) -> None:
        """Read the run in a worker (its statistics read every task: never on the event loop), then draw it."""
        self._run_wanted = run_id
        tasks = self.query_one("#run-tasks", PagedList)
        if run_id is None:  # nothing to read; a read under way is of a run left
            self._run_reading = None
            self._run_arrived(RunView(tasks.asked))
            return
        self._run_reading = self._read_run(run_id, tasks.search_text, tasks.current_key, tasks.asked,
                                           self.flaky_only, self._expanded is not None)

    @work(thread=True, exclusive=True, group="run")
    def _read_run(self, run_id: str, search: str, keep_task: str | None, asked: int, flaky_only: bool,
                  attempts: bool) -> None:
        worker = get_current_worker()
        with self.gp_app.reading() as db:
            if worker.is_cancelled:
                return
            view = self._read_view(db, run_id, search, keep_task, asked, flaky_only=flaky_only, attempts=attempts)
            if worker.is_cancelled:
                return
        self.post_message(self.RunRead(self, worker, view))

    @on(RunRead)
    def _run_read(self, event: RunRead) -> None:
        if event.newest():  # else the cursor moved on while this run was read
            self._run_arrived(event.view)

    def _read_view(self, db: Any, run_id: str, search: str, keep_task: str | None, asked: int, *, flaky_only: bool,
                   attempts: bool) -> RunView:
        """The run, its first page of tasks and the outputs of the task the cursor lands on (`keep_task` when
        that run has it: the cursor stays on a task from run to run), in a worker. Not its statistics: they read
        every task of the run, so they are read once this is drawn (_tasks_loaded)."""
        run = get_run(db, run_id, with_results=False)
        if run is None:
            return RunView(asked)
        # the run's flaky tasks come with its statistics: "flaky only" lists none until then
        rows, total = ([], 0) if flaky_only else self._task_rows(db, run["id"], search, 0, TASK_PAGE, set())
        keys = [key for key, _cells in rows]
        task = keep_task if keep_task in keys else keys[0] if keys else None
        return RunView(asked, run, run_task_counts(db, run["id"]), previous_run(db, run["id"]), tuple(rows), total, task,
                       task_outputs(db, run["id"], task) if task else None,
                       task_attempts(db, run["id"], task) if task and attempts else None,
                       tuple(suite_trend(db, run["suite_id"], skill=run["skill_id"])), tuple(thread(db, "run", run["id"])))

    @on(PagedList.Loaded, "#run-tasks")
    def _tasks_loaded(self) -> None:
        """The run's first rows are loaded: once they are painted, its statistics (read while the rows load and
        paint, they slowed them 2x on a run of 100,000 tasks, the two sharing two cores and the GIL)."""
        pending, self._figures_pending = self._figures_pending, None
        if pending is not None:
            self.after_painted(self._ask_figures, pending)

    def _ask_figures(self, run: RunDetail) -> None:
        if run is self._run_drawn:  # else another run (or this one read again) was drawn meanwhile
            self._figures_reading = self._read_figures(run)

    @work(thread=True, exclusive=True, group="figures")
    def _read_figures(self, run: RunDetail) -> None:
        """The run's statistics, on their own connection: a page read meanwhile never queues behind them."""
        worker = get_current_worker()
        try:
            with self.gp_app.reading_long() as db:
                figures = run_statistics(db, run["id"], flaky_limit=FLAKY_SHOWN)
        except Exception:
            if self.gp_app.closing:
                return  # the app quit during the read and interrupted it: nothing is left to draw
            raise
        if not worker.is_cancelled:
            self.post_message(self.FiguresRead(self, worker, run, figures))

    @on(FiguresRead)
    def _figures_arrived(self, event: FiguresRead) -> None:
        if not event.newest() or self.gp_app.closing or not self.is_attached:
            return  # another run shown since, or the app quit as they arrived: its widgets may be gone
        run, figures = event.run, event.figures
        self._figures = figures
        self._flaky = {f["task_id"] for f in (figures or {}).get("flaky", [])}
        put(self.query_one("#run-head", Static), self._head(run))  # in the lines kept for them: no layout
        if self._flaky or self.flaky_only:  # the flaky marks (and the "flaky only" list) come with them
            self.query_one("#run-tasks", PagedList).reload()

    def _run_arrived(self, view: RunView) -> None:
        """Draw the run, its tasks and the outputs of the task the cursor is on, all at once."""
        run = view.run
        self._run_drawn = run
        self._figures_reading = None  # statistics read under way are of the run drawn before
        self.run_id = run["id"] if run else None
        self._counts = view.counts
        self._previous = view.previous  # the run this one is compared with
        self._trend, self._comments = view.trend, view.comments
        self._figures, self._flaky = None, set()  # the run's statistics follow its rows (_tasks_loaded)
        put(self.query_one("#run-head", Static), self._head(run, reading=True) if run else literal("No run selected."))
        tasks = self.query_one("#run-tasks", PagedList)
        self._figures_pending = run
        self._drawn = None
        if not tasks.apply_page(list(view.rows), view.total, asked=view.asked):
            tasks.page_offset = 0  # a search of the tasks began meanwhile: read again, for this run
            tasks.reload()
        self.refresh_bindings_if_changed()
        if tasks.current_key == view.task_id and tasks.loaded:  # else the cursor's row is read when announced
            self._task_reading = None  # a task read under way is of the run left
            self.task_id = view.task_id
            if self._expanded is not None:
                self._expanded = view.task_id
            self._draw_task(view.task_id, view.outputs, view.sides)

    def _head(self, run: RunDetail, *, reading: bool = False) -> Text:
        """`reading`: its statistics are being read; their lines are kept for them (filled without a layout)."""
        text = literal(f"{run['id']} · {run['skill_id'] or 'suite'}", style="bold")
        text.append("  ")
        text.append_text(verdict_text(run["verdict"]))
        if run["mock"]:
            text.append("  mock: results from the built-in mock, not a real AI", style="magenta")
        text.append("\n")
        text.append_text(literal(
            f"candidate {rate(run['execution_pass_rate'])}  baseline {rate(run['baseline_pass_rate'])}  "
            f"delta {points(run['delta'])}  split {run['split'] or '—'}  pass@{run['pass_k'] or 1}  "
            f"{run['purpose'] or ''}" + (f" of case {run['case_id']}" if run["case_id"] else "")))
        text.append_text(self._weighed() if not reading else
                         Text("\ncandidate …\nbaseline  …\n(the statistics of every task are being read)", style="dim"))
        if (run["pass_k"] or 1) > 1:
            text.append(f"\npass@{run['pass_k']}: a task passes when any of its {run['pass_k']} tries passes; "
                        f"'pass 1 of {run['pass_k']}' is how many passed, 'best' the best score; Enter lists each try",
                        style="cyan")
        suite = (run.get("artifact") or {}).get("suite")
        text.append("\n")
        text.append_text(literal(f"suite     {suite or '—'}" + (f" ({run['suite_id'][:12]})" if run["suite_id"] else ""),
                                 style="dim"))
        if len(self._trend) > 1:
            text.append("\n")
            text.append_text(self._trend_line(run["id"]))
        text.append("\n")
        text.append_text(literal(f"candidate {run['candidate_path'] or '(case content)'}", style="dim"))
        text.append("\n")
        text.append_text(literal(f"baseline  {run['baseline_path'] or '(empty skill)'}", style="dim"))
        text.append("\n")
        text.append_text(literal(f"executor  {run['executor'] or '—'} · {(run['started_at'] or '')[:19]}",
                                 style="dim"))
        anchor = (run.get("artifact") or {}).get("truth_anchor")
        if anchor:
            text.append("\n")
            text.append_text(literal(f"artifact  {anchor}", style="dim"))
        for warning in run["warnings"]:
            text.append("\n")
            text.append_text(literal(f"⚠ {warning}", style="yellow"))
        text.append("\n")
        text.append_text(self._compared())
        if self._comments:
            text.append(f"\nComments ({len(self._comments)})\n", style="bold")
            text.append_text(thread_text(list(self._comments)))
        return text

    def _trend_line(self, run_id: str) -> Text:
        """`trend     ▃▇▅▅▄ 19 runs of the suite, this one 57 % (95 % CI 25 to 84)`: its pass rate over its runs."""
        here = next((p for p in self._trend if p["run"] == run_id), None)
        text = Text("trend     ", style="bold")
        text.append(sparkline(list(self._trend)), style="cyan")
        rates = [p["rate"]["rate"] for p in self._trend]
        text.append_text(literal(f"  {len(self._trend)} runs of the suite, {round(min(rates) * 100)}–"
                                 f"{round(max(rates) * 100)} %"
                                 + (f"; this one {round(here['rate']['rate'] * 100)} % (CI "
                                    f"{round(here['rate']['low'] * 100)} to {round(here['rate']['high'] * 100)})"
                                    if here else ""), style="dim"))
        return text

    # --- marked runs, compared; comments on a run ------------------------------------------------
    def action_mark_run(self) -> None:
        """Space on a run: mark it (or unmark it); the first marked is the baseline `m` compares the others with."""
        runs = self.query_one("#results-list", PagedList)
        key = runs.current_key
        if key is None:
            return
        if key in self.marked_runs:
            self.marked_runs.remove(key)
        else:
            self.marked_runs.append(key)
        runs.reload(keep_key=key, quiet=True, keep_row=True)
        if self.marked_runs:
            self.notify(f"marked: {', '.join(self.marked_runs)} (the first is the baseline; m compares)",
                        title="Compare")

    def action_compare_marked(self) -> None:
        if len(self.marked_runs) < 2:
            self.notify("Mark the baseline run, then the runs to compare with it (Space), then m.",
                        severity="warning")
            return
        self.app.push_screen(CompareView(self.marked_runs[1:], self.marked_runs[0]))

    def action_add_to_suite(self) -> None:
        """S on a task: draft it into its suite as a new task, a case for the suite's owner (failures.add_to_suite)."""
        run_id, task_id = self.run_id, self.task_id
        if not run_id or not task_id:
            self.notify("No task selected: t goes to the run's tasks.", severity="warning")
            return
        dialog = AddTaskDialog(f"Add task {task_id} of {run_id} to its suite")
        draft_task(self, dialog, run_id=run_id, task_id=task_id)

    def action_pairwise(self) -> None:
        """P on a task: its two outputs side by side, and the person's preference between them. With exactly two
        runs marked: the task's output in the second marked run against the first's (the baseline `m` compares
        with)."""
        if not self.run_id or not self.task_id:
            self.notify("No task selected: t goes to the run's tasks.", severity="warning")
            return
        if len(self.marked_runs) == 2:  # exactly two: one task across them; else the shown run's own two sides
            baseline, candidate = self.marked_runs
            self.app.push_screen(PairwiseView(candidate, self.task_id, self.person, against=baseline))
            return
        self.app.push_screen(PairwiseView(self.run_id, self.task_id, self.person))

    def action_comment(self) -> None:
        ask_comment(self, "run", self.run_id, noun="run",
                    after=lambda key: self.show_run(key) if self.run_id == key else None)

    def _weighed(self) -> Text:
        """The rates with their intervals, pass^k, the paired delta in words, the flaky tasks."""
        figures = self._figures
        if not figures:
            return Text("")
        text = Text()
        k = figures["pass_k"]
        for side in ("candidate", "baseline"):
            text.append(f"\n{side:<9} ", style="bold")
            text.append_text(literal(figures[side]["words"]))
            if k > 1:
                hat = figures[side]["pass_hat_k"]
                text.append(f"  pass^{k} " + (f"{hat:.0%}" if hat is not None else "not measured"), style="cyan")
        comparison = figures["comparison"]
        text.append("\ndelta     ", style="bold")
        style = "yellow" if figures["inside_noise"] else ("green" if comparison["decided"] == "better" else "red")
        text.append_text(literal(comparison["words"], style=style))
        flaky = figures.get("flaky") or []
        total = figures.get("flaky_total", len(flaky))
        if flaky:
            text.append(f"\n~ flaky   {total}: ", style="bold cyan")
            text.append_text(literal("; ".join(flaky_words(f) for f in flaky[:3])
                                     + (f"; +{total - 3} more (f: flaky only)" if total > 3 else "")))
        return text

    def action_toggle_flaky(self) -> None:
        """Show only the flaky tasks of the run (again: every task)."""
        self.flaky_only = not self.flaky_only
        tasks = self.query_one("#run-tasks", PagedList)
        tasks.page_offset = 0
        tasks.reload()
        self.notify("Flaky tasks only." if self.flaky_only else "All tasks.")

    def _compared(self) -> Text:
        """How this run differs from the previous run of the same suite and skill (those tasks lead, marked Δ)."""
        previous = self._previous
        if previous is None:
            return Text("first run of this suite and skill: nothing to compare with", style="dim")
        changed = self._counts["changed"] if self._counts else 0
        text = Text("vs previous run ", style="bold")
        text.append_text(literal(f"{previous['id']} ({(previous['started_at'] or '')[:16].replace('T', ' ')}): "))
        if not changed:
            text.append("no task changed its pass/fail", style="dim")
            return text
        gained = self._counts["changed_now_pass"] if self._counts else 0
        text.append(f"Δ {changed} task{'s' if changed != 1 else ''} changed", style="bold magenta")
        text.append(f" ({gained} now pass, {changed - gained} now fail) — listed first", style="magenta")
        return text

    # --- tasks -----------------------------------------------------------------------------
    def _fetch_tasks(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        if not self.run_id or (self.flaky_only and not self._flaky):
            return [], 0
        return self._task_rows(db, self.run_id, search, offset, limit, self._flaky,
                               only=self._flaky if self.flaky_only else None)

    @staticmethod
    def _task_rows(db: Any, run_id: str, search: str, offset: int, limit: int, flaky: set[str],
                   only: set[str] | None = None) -> tuple[list[Row], int]:
        page = run_task_page(db, run_id, search=search or None, offset=offset, limit=limit, tasks=only)
        for t in page["rows"]:
            t["flaky"] = t["task_id"] in flaky  # flaky as the run's statistics pool it, across runs
        return [(t["task_id"], [mark_cell(t), literal(one_line(t["task_id"], 30)), literal(t["split"] or "—"),
                                side_cell(t["candidate"]), side_cell(t["baseline"]), attempts_cell(t)])
                for t in page["rows"]], page["total"]

    @on(PagedList.Highlighted, "#run-tasks")
    def _task_highlighted(self, event: PagedList.Highlighted) -> None:
        event.stop()
        if self._drawn == (self.run_id, event.key):
            return  # drawn with its run (or the same page read again): nothing to read
        self.show_task(event.key)

    @on(PagedList.Chosen, "#run-tasks")
    def _task_chosen(self, event: PagedList.Chosen) -> None:
        """Enter on a task expands its attempts (each with its outcome, reason, score, duration); again hides them."""
        event.stop()
        panel = self._attempts_panel()
        if panel.has_class("-open") and self._expanded == event.key:
            panel.remove_class("-open")
            self.remove_class("-attempts-open")
            self._expanded = None
            return
        self._expanded = event.key
        panel.add_class("-open")
        self.add_class("-attempts-open")
        self._show_attempts(event.key)

    def _show_attempts(self, task_id: str | None) -> None:
        """Read the task's attempts (with its outputs) in a worker; drawn by _draw_attempts."""
        self.show_task(task_id)

    def _attempts_panel(self) -> Static:
        """The attempts' panel under the run's tasks, mounted the first time a task's attempts are asked for: mounted
        hidden at once, it would be a widget of every first page."""
        found = self.query("#task-attempts")
        if found:
            return found.first(Static)
        panel = Static(id="task-attempts")
        self.query_one("#results-detail").mount(panel, after=self.query_one("#run-tasks"))
        return panel

    def _draw_attempts(self, task_id: str | None, sides: dict[str, Any] | None) -> None:
        panel = self._attempts_panel()
        if not task_id or not self.run_id or sides is None:
            put(panel, "")
            return
        text = literal(f"Attempts of {task_id}", style="bold")
        text.append("  (Enter hides)", style="dim")
        for side in ("candidate", "baseline"):
            attempts = sides.get(side) or []
            text.append(f"\n{side}", style="bold")
            text.append_text(literal(f" · {attempts_line(attempts)}" if attempts else " · not run", style="dim"))
            for a in attempts:
                text.append(f"\n  #{a['attempt']} ")
                text.append(f"{a['outcome']:<10}", style=OUTCOME_STYLE.get(a["outcome"], "yellow"))
                score = "—" if a["score"] is None else f"{a['score']:.2g}"
                text.append(f" score {score:<5} {(a['duration_ms'] or 0) / 1000:>6.2f} s  ", style="dim")
                if a["reason"]:
                    text.append_text(literal(one_line(a["reason"], 120)))
        put(panel, text)

    def show_task(self, task_id: str | None) -> None:
        """Read the task's two outputs (and its attempts while they are shown) in a worker, then draw them."""
        self.task_id = task_id
        self._drawn = None
        if self._expanded is not None:  # the attempts panel follows the cursor while it is open
            self._expanded = task_id
        self._task_reading = self._read_task(self.run_id, task_id, self._expanded is not None)

    @work(thread=True, exclusive=True, group="task")
    def _read_task(self, run_id: str | None, task_id: str | None, attempts: bool) -> None:
        worker = get_current_worker()
        outputs: dict[str, Any] | None = None
        sides: dict[str, Any] | None = None
        if task_id and run_id:
            with self.gp_app.reading() as db:
                if worker.is_cancelled:
                    return
                outputs = task_outputs(db, run_id, task_id)
                sides = task_attempts(db, run_id, task_id) if attempts else None
        if not worker.is_cancelled:
            self.post_message(self.TaskRead(self, worker, task_id, outputs, sides))

    @on(TaskRead)
    def _task_arrived(self, event: TaskRead) -> None:
        if event.newest():  # else the cursor moved on while this task was read
            self._draw_task(event.task_id, event.outputs, event.sides)

    def _draw_task(self, task_id: str | None, outputs: dict[str, Any] | None, sides: dict[str, Any] | None) -> None:
        """The task's two outputs side by side and their diff (and its attempts while they are shown)."""
        self._drawn = (self.run_id, task_id)
        if self._expanded is not None:
            self._draw_attempts(task_id, sides)
        cand_w = self.query_one("#out-candidate", Static)
        base_w = self.query_one("#out-baseline", Static)
        diff_w = self.query_one("#out-diff", Static)
        if not task_id or not self.run_id or outputs is None:
            for widget in (cand_w, base_w, diff_w):
                put(widget, "")
            return
        cand, base = outputs["candidate"], outputs["baseline"]
        left, right = side_by_side(shown(cand), shown(base))
        put(cand_w, self._side("Candidate", cand, left))
        put(base_w, self._side("Baseline", base, right))
        diff = Text(f"Diff of {task_id}: baseline → candidate\n", style="bold")
        diff.append_text(unified_diff(shown(base), shown(cand), before_name="baseline", after_name="candidate"))
        put(diff_w, diff)

    @staticmethod
    def _side(label: str, side: dict[str, Any] | None, body: Text) -> Text:
        text = Text(label, style="bold")
        if side is None:
            text.append("  not run\n", style="dim")
            return text
        text.append_text(Text(f"  {'pass' if side['passed'] else 'fail'}",
                              style="green" if side["passed"] else "red"))
        text.append(f"  attempt {side['attempt']} of {side['attempts']}", style="dim")
        if side["reason"]:
            text.append("\n")
            text.append_text(literal(side["reason"], style="yellow"))
        if len(side["output"]) > SHOW_CHARS:
            text.append(f"\nshowing the first {SHOW_CHARS:,} of {len(side['output']):,} characters", style="dim")
        text.append("\n")
        text.append_text(body)
        return text
