"""Regressions: installed skills by urgency, each with its history strip, failures, output and triage."""

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Select, Static

from gatepost.safe import literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.store.kernel import GatepostError, last_seq
from gatepost.store.skills import (
    FAILING_STATES,
    MEANING,
    STATES,
    SYMBOLS,
    acknowledge,
    flag_mismatch,
    list_skills,
    skill_detail,
)
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QUEUE_BINDINGS, QueueBar, QueueMixin

COLUMNS = [("", 1), ("skill", 22), ("state", 17), ("streak", 7), ("last run", 11), ("failing", 30)]
COLOURS = {"NEW_FAIL": "bold red", "CHRONIC": "bold magenta", "STABLE_FAIL": "yellow", "NEW_PASS": "cyan",
           "PASS": "green"}
SEVERITY_COLOURS = {"high": "bold red", "medium": "yellow", "low": "dim"}
ALL = "all"


def state_text(state: str | None, severity: str | None = None) -> Text:
    """A state as its symbol and name, coloured; the symbol carries the meaning without colour."""
    if state is None:
        return Text("· not evaluated", style="dim")
    text = Text(f"{SYMBOLS[state]} {state}", style=COLOURS[state])
    if severity:
        text.append(f" ({severity})", style=SEVERITY_COLOURS.get(severity, ""))
    return text


def strip_text(history: list[dict]) -> Text:
    """The run history as a strip of marks, oldest to newest: ✔ pass, ✘ fail."""
    text = Text()
    for entry in history:
        text.append("✔" if entry["passed"] else "✘", style="green" if entry["passed"] else "bold red")
    return text


class RegressionsScreen(QueueMixin, GatepostScreen):
    """Skills ordered by urgency (NEW_FAIL high→low, CHRONIC, STABLE_FAIL, NEW_PASS, PASS)."""

    DEFAULT_CSS = """
    RegressionsScreen .filters .pane-title { width: auto; padding: 1 1 0 0; height: 3; }
    RegressionsScreen .filters Select { width: 28; }
    RegressionsScreen #reg-detail > Static { height: auto; margin-bottom: 1; }
    RegressionsScreen #reg-output { border: round $surface-lighten-2; padding: 0 1; }
    """
    SCREENSHOT_STEPS = [("acknowledge", ["a"]), ("mismatch", ["m"])]
    BINDINGS = [
        Binding("a", "acknowledge", "Acknowledge"),
        Binding("m", "mismatch", "Manifest mismatch"),
        Binding("f", "cycle_filter", "Filter state"),
        *QUEUE_BINDINGS,
    ]
    QUEUE = "regressions"
    QUEUE_FILTER = {"state": "all"}
    QUEUE_CAPABILITIES = ("regression.triage",)
    QUEUE_EMPTY_HINT = ("STABLE_FAIL skills are not queued (the manifest may mismatch): f filters by state; "
                        "5 Manifests holds the drafts a mismatch started.")

    def __init__(self) -> None:
        super().__init__()
        self.state_filter: str | None = None
        self.key: str | None = None
        self.seen_seq: int | None = None

    def body(self) -> ComposeResult:
        yield QueueBar()
        with Horizontal(classes="split"):
            with Vertical(classes="list-pane"):
                with Horizontal(classes="filters"):
                    yield Static(Text("Regressions ", style="bold"), classes="pane-title")
                    yield Select([("every state", ALL)] + [(f"{SYMBOLS[s]} {s}", s) for s in STATES],
                                 value=self.state_filter or ALL, allow_blank=False, id="reg-state")
                yield PagedList(COLUMNS, self._fetch, empty="No skills here. Press f for another state; skills appear with gatepost skills record and skills eval.", id="reg-list")
            with VerticalScroll(classes="detail-pane", id="reg-detail"):
                yield Static(literal("Nothing selected."), id="reg-head")
                yield Static("", id="reg-changes")
                yield Static("", id="reg-strip")
                yield Static("", id="reg-grid")
                yield Static("", id="reg-failing")
                yield Static("", id="reg-triage")
                yield Static("", id="reg-output")

    def on_mount(self) -> None:
        for paged in self.query(PagedList):
            paged.table.focus()
        self.queue_render()

    def on_screen_resume(self) -> None:
        self.refresh_data()

    # --- the list ------------------------------------------------------------------------------
    def _fetch(self, search: str, offset: int, limit: int):
        rows, total = list_skills(self.db, state=self.state_filter, search=search or None, limit=limit,
                                  offset=offset)
        out = []
        for r in rows:
            symbol = Text(SYMBOLS.get(r["state"], "·"), style=COLOURS.get(r["state"], "dim"))
            state = Text(r["state"] or "—", style=COLOURS.get(r["state"], "dim"))
            if r["severity"]:
                state.append(f" {r['severity']}", style=SEVERITY_COLOURS.get(r["severity"], ""))
            if not r["state"]:
                streak = ""
            elif r["fail_streak"]:
                streak = f"✘ {r['fail_streak']}"
            else:
                streak = f"✔ {r['pass_streak']}"
            ack = "✓ack " if r["acknowledged"] else ("↺new " if r.get("returned_because") else "")
            out.append((r["skill"], [symbol, one_line(r["skill"], 22), state, streak,
                                     (r["last_run"] or "")[5:16].replace("T", " "),
                                     one_line(ack + ", ".join(r["failing"]), 40)]))
        return self.mark_rows(out), total

    @on(Select.Changed, "#reg-state")
    def _filter_changed(self, event: Select.Changed) -> None:
        value = None if event.value in (ALL, Select.NULL) else str(event.value)
        if value != self.state_filter:
            self.state_filter = value
            self.query_one(PagedList).reload()

    def apply_filter(self, **filters: str) -> None:
        """apply_filter(state="NEW_FAIL") shows only that state; state=None or "all" shows every skill."""
        state = filters.get("state")
        state = state if state in STATES else None
        self.state_filter = state
        for select in self.query("#reg-state").results(Select):
            select.value = state or ALL
        for paged in self.query(PagedList):
            paged.reload()

    def action_cycle_filter(self) -> None:
        order = [None, *STATES]
        self.apply_filter(state=order[(order.index(self.state_filter) + 1) % len(order)])

    def open_item(self, key: str) -> None:
        paged = self.query_one(PagedList)
        self.apply_filter(state=None)
        paged.set_search(key)
        paged.move_to_key(key)
        self._show(key)

    def refresh_data(self) -> None:
        super().refresh_data()
        if self.key:
            self._show(self.key)
        self.queue_render()

    # --- the detail ----------------------------------------------------------------------------
    @on(PagedList.Highlighted, "#reg-list")
    def _highlighted(self, event: PagedList.Highlighted) -> None:
        self._show(event.key)

    def _show(self, key: str | None) -> None:
        self.key = key
        self.queue_shown(key)
        detail = skill_detail(self.db, key) if key else None
        head = self.query_one("#reg-head", Static)
        parts = [self.query_one(f"#reg-{name}", Static)
                 for name in ("strip", "failing", "triage", "output", "changes", "grid")]
        if detail is None:
            head.update(literal("Nothing selected." if not key else f"No skill {key}."))
            for part in parts:
                part.update("")
            self.seen_seq = None
            return
        self.seen_seq = last_seq(self.db, "skill", key)
        head.update(self._head(detail))
        parts[0].update(self._strip(detail))
        parts[1].update(self._failing(detail))
        parts[2].update(self._triage(detail))
        parts[3].update(self._output(detail))
        parts[4].update(self._changes(detail))
        parts[5].update(self._grid(detail))

    show_detail = _show  # what the work queue calls to draw an item

    def _head(self, d: dict) -> Text:
        text = Text()
        text.append_text(literal(d["skill"], style="bold"))
        text.append("  ")
        text.append_text(state_text(d["state"], d["severity"]))
        text.append("\n")
        if d["state"]:
            text.append(MEANING[d["state"]], style="italic")
            text.append(f"\nfail streak {d['fail_streak']} · pass streak {d['pass_streak']}")
            if d["state"] == "NEW_FAIL" and d["broken_streak"] is not None:
                text.append(f" · broke a pass streak of {d['broken_streak']}")
        else:
            why = "no active manifest" if d["manifest"] is None else "not evaluated yet (gatepost skills eval)"
            text.append(why, style="italic")
        manifest = f"manifest v{d['manifest']['version']}" if d["manifest"] else "no manifest"
        text.append(f"\n{manifest} · {d['runs']} runs recorded")
        if d["last_run"]:
            text.append(" · last evaluated run ")
            text.append_text(literal(d["last_run_id"] or "?"))
            text.append(f" at {d['last_run'][:19].replace('T', ' ')}")
        if d["pending_drafts"]:
            text.append(f"\ndrafts waiting for review: {', '.join(d['pending_drafts'])} (5 Manifests)", style="cyan")
        if d.get("returned_because"):
            text.append("\nback in the queue: newly failing ", style="bold yellow")
            text.append_text(literal(", ".join(d["returned_because"]), style="yellow"))
            text.append(" (the acknowledgement covered only the assertions failing then)", style="yellow")
        elif d.get("acknowledged") and d["state"] in ("NEW_FAIL", "STABLE_FAIL", "CHRONIC"):
            text.append("\nacknowledged: stays quiet while the same assertions fail", style="dim")
        return text

    def _strip(self, d: dict) -> Text:
        text = Text("History ", style="bold")
        if not d["history"]:
            text.append("no evals yet", style="dim")
            return text
        text.append(f"(last {len(d['history'])} evals, oldest → newest)\n", style="dim")
        text.append_text(strip_text(d["history"]))
        passes = sum(1 for h in d["history"] if h["passed"])
        text.append(f"   {passes} ✔ pass · {len(d['history']) - passes} ✘ fail", style="dim")
        return text

    def _changes(self, d: dict) -> Text:
        """What changed between the last two evals leads the detail: that is what to look at first."""
        found = d["changes"]
        text = Text("Changed since the previous eval", style="bold")
        if found["before"] is None:
            text.append("\n" + ("first eval: nothing to compare yet" if found["after"] else "no evals yet"),
                        style="dim")
            return text
        text.append_text(literal(f" ({found['before']['run_id']} → {found['after']['run_id']})", style="dim"))
        if not found["changes"]:
            text.append("\nno assertion changed its result", style="dim")
            return text
        marks = {True: ("✔", "green"), False: ("✘", "bold red"), None: ("·", "dim")}
        for c in found["changes"]:
            text.append("\n")
            text.append(*marks[c["before"]])
            text.append("→", style="dim")
            text.append(*marks[c["after"]])
            text.append(" ")
            text.append_text(literal(c["assertion"], style="bold"))
            text.append(f" {c['change']}", style="bold red" if c["change"] == "now failing" else "")
            if c["message"]:
                text.append(": ")
                text.append_text(literal(c["message"], style="" if c["after"] is False else "dim"))
        return text

    def _grid(self, d: dict) -> Text:
        """Assertion × eval heat-map, oldest → newest: ✔ pass, ✘ fail, · not checked by that manifest."""
        grid = d["grid"]
        text = Text("Assertions by eval ", style="bold")
        if not grid["rows"]:
            text.append("none evaluated yet", style="dim")
            return text
        text.append(f"(last {len(grid['evals'])}, oldest → newest)", style="dim")
        width = min(28, max(len(r["assertion"]) for r in grid["rows"]))
        for row in grid["rows"]:
            text.append("\n")
            text.append_text(literal(one_line(row["assertion"], width).ljust(width)))
            text.append(" ")
            for mark in row["marks"]:
                if mark is None:
                    text.append("·", style="dim")
                else:
                    text.append("✔" if mark else "✘", style="green" if mark else "bold red")
        return text

    def _failing(self, d: dict) -> Text:
        text = Text("Assertions", style="bold")
        if not d["assertions"]:
            text.append("\n" + ("failing: " + ", ".join(d["failing"]) if d["failing"] else "none evaluated"),
                        style="dim")
            return text
        failing = [a for a in d["assertions"] if not a["passed"]]
        text.append(f" ({len(failing)} failing of {len(d['assertions'])})", style="dim")
        for a in failing + [a for a in d["assertions"] if a["passed"]]:
            text.append("\n")
            text.append("✘ " if not a["passed"] else "✔ ", style="bold red" if not a["passed"] else "green")
            text.append_text(literal(a["assertion"], style="bold" if not a["passed"] else ""))
            text.append(": ")
            text.append_text(literal(a["message"], style="" if not a["passed"] else "dim"))
        return text

    def _triage(self, d: dict) -> Text:
        text = Text("Triage", style="bold")
        if d["state"] == "CHRONIC":
            text.append("\nrecommendation: operator review — fix the skill or relax the assertion; "
                        "no new filing", style="magenta")
        elif d["state"] == "STABLE_FAIL":
            text.append("\nstill failing: the manifest may mismatch the skill's output", style="yellow")
        can = self.can("regression.triage")
        if d["state"] in FAILING_STATES:
            text.append("\n[a] acknowledge with a note" + ("" if can else " — you do not hold regression.triage"),
                        style="" if can else "dim")
        if d["state"]:
            text.append("\n[m] manifest mismatch: flag it and start a bootstrap draft"
                        + ("" if can else " — you do not hold regression.triage"), style="" if can else "dim")
        for event in d["triage"]:
            text.append("\n")
            kind = "acknowledged" if event["kind"] == "regression.acknowledged" else "mismatch flagged"
            text.append(f"{event['at'][:16].replace('T', ' ')} {kind} by ", style="dim")
            text.append_text(literal(event["actor"] or "?"))
            text.append(": ")
            text.append_text(literal(event["note"] or ""))
        return text

    def _output(self, d: dict) -> Text:
        run = d["evaluated_run"] or d["latest_run"]
        if run is None:
            return Text("no run recorded", style="dim")
        text = Text("Output of ", style="bold")
        text.append_text(literal(run["id"], style="bold"))
        text.append(f" · {run['status']} · {run['word_count']} words\n", style="dim")
        text.append_text(literal(run["output"] or "(empty output)"))
        return text

    # --- triage --------------------------------------------------------------------------------
    def _may_triage(self) -> bool:
        if not self.key:
            self.notify("Select a skill first.", severity="warning")
            return False
        if not self.can("regression.triage"):
            self.notify(f"{self.person} does not hold regression.triage: browsing only.", severity="error")
            return False
        return True

    def action_acknowledge(self) -> None:
        if not self._may_triage():
            return
        skill, seen = self.key, self.seen_seq

        def done(note: str | None) -> None:
            if note is None:
                return
            try:
                acknowledge(self.db, skill, actor=self.person, note=note, expected_seq=seen)
            except GatepostError as exc:
                self.notify(str(exc), severity="error")
                return
            self.notify(f"Acknowledged {skill}.")
            self.refresh_data()
            self.queue_completed(skill)

        self.app.push_screen(NoteDialog(f"Acknowledge {skill}", "What you saw and what happens next",
                                    confirm_label="Acknowledge"), done)

    def action_mismatch(self) -> None:
        if not self._may_triage():
            return
        skill, seen = self.key, self.seen_seq

        def done(note: str | None) -> None:
            if note is None:
                return
            try:
                _seq, draft, why = flag_mismatch(self.db, skill, actor=self.person, note=note, expected_seq=seen)
            except GatepostError as exc:
                self.notify(str(exc), severity="error")
                return
            if draft:
                self.notify(f"Mismatch flagged; draft {draft['id']} waits for review (5 Manifests).")
            else:
                self.notify(f"Mismatch flagged; no draft: {why}", severity="warning")
            self.refresh_data()
            self.queue_completed(skill)

        self.app.push_screen(NoteDialog(f"Manifest mismatch on {skill}", "Why the manifest, not the skill, looks wrong",
                                    confirm_label="Flag and draft"), done)
