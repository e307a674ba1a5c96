"""Regressions: installed skills by urgency, each with its history strip, failures, output and triage."""

from typing import Any

from rich.text import Text
from textual.binding import Binding

from gatepost.safe import literal, one_line
from gatepost.screens.decision import Decision, DecisionScreen, Done
from gatepost.screens.drafting import draft_task
from gatepost.screens.list_detail import Filter
from gatepost.screens.queue import Work
from gatepost.store.glyphs import ACKNOWLEDGED, FAIL, PASS, REGRESSION, UNCHECKED
from gatepost.store.skills import (
    MEANING,
    STATES,
    SkillDetail,
    skill_detail,
)
from gatepost.store.views import worst_first
from gatepost.widgets.add_task import AddTaskDialog
from gatepost.widgets.line_detail import Block
from gatepost.widgets.paged_list import Col, Row

# A skill is triaged by its state and severity: the state's glyph is never left out, and when the state's name
# does not fit (80 columns) its severity stays beside the glyph ("sev", standing in for it); the failing count is
# never cut nor left out; the lesser columns go first, the broken streak last (the severity says what it weighs).
# The failing checks are shown at least 20 wide, most checks' whole names (forbidden_patterns, required_sections):
# at 12 they read "forbidden_pa" at 200 columns, and the date of the last run, a lesser column, goes first for them
COLUMNS = [Col("", 1), Col("skill", 30, min=12, whole=True), Col("state", 13, drop=2), Col("sev", 4, instead="state"),
           Col("streak", 7, drop=4), Col("broke", 5, drop=1), Col("fails", 5), Col("run", 5, drop=3),
           Col("last run", 11, drop=6), Col("failing", 200, min=20, drop=5)]
SEVERITY_SHORT = {"high": "high", "medium": "med", "low": "low"}  # a list cell; the detail says it whole
CAPABILITY = "regression.triage"
COLOURS = {"NEW_FAIL": "bold red", "CHRONIC": "bold magenta", "STABLE_FAIL": "yellow", "NEW_PASS": "cyan",
           "PASS": "green"}
SEVERITY_COLOURS = {"high": "bold red", "medium": "yellow", "low": "dim"}
STATE = Filter("state", tuple((f"{REGRESSION[s]} {s}", s) for s in STATES), "every state")


def state_text(state: str | None, severity: str | None = None) -> Text:
    """A state as its symbol and name, coloured; the symbol carries the meaning without colour."""
    if state is None:
        return Text("· not evaluated", style="dim")
    text = Text(f"{REGRESSION[state]} {state}", style=COLOURS[state])
    if severity:
        text.append(f" ({severity})", style=SEVERITY_COLOURS.get(severity, ""))
    return text


def strip_text(history: list[dict[str, Any]]) -> Text:
    """The run history as a strip of marks, oldest to newest: ✔ pass, ✘ fail."""
    text = Text()
    for entry in history:
        text.append(PASS if entry["passed"] else FAIL, style="green" if entry["passed"] else "bold red")
    return text


class RegressionsScreen(DecisionScreen):
    """Skills worst first: state, severity, the streak broken, failing assertions, a run error."""

    NOUN = "skill"
    NAME, TITLE, COLUMNS, FILTERS = "reg", "Regressions", COLUMNS, (STATE,)
    DECISIONS = (
        Decision("acknowledge", "a", "acknowledge", CAPABILITY, prompt="What you saw and what happens next"),
        Decision("mismatch", "m", "manifest mismatch", CAPABILITY,
                 prompt="Why the manifest, not the skill, looks wrong", confirm="Flag and draft"),
    )
    EMPTY = "No skills here. Press f for another state; skills appear with gatepost skills record and skills eval."
    WORK = Work("regressions", "skill", {"state": "all"}, ("STABLE_FAIL skills are not queued (the manifest may mismatch): f filters by state; "
                        "5 Manifests holds the drafts a mismatch started."))
    # the bulk step last: its marks stay after Escape
    SCREENSHOT_STEPS = [("acknowledge", ["a"]), ("mismatch", ["m"]), ("add-to-suite", ["S"]),
                        ("bulk", ["space", "down", "space", "down", "space", "a"])]
    BINDINGS = [Binding("S", "add_to_suite", "Add to suite", id="regressions.add_to_suite", show=False)]

    def action_add_to_suite(self) -> None:
        """S: the skill's newest failing output drafted into a suite as a new task, a case for the suite's owner."""
        skill = self.shown
        if skill is None:
            self.notify("No skill selected.", severity="warning")
            return
        dialog = AddTaskDialog(f"Add {skill}'s failing output to a suite as a task", ask_source=True)
        draft_task(self, dialog, skill=skill)


    # --- the list ------------------------------------------------------------------------------
    def fetch_rows(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        rows, total = worst_first(db, state=self.filters["state"], search=search or None, limit=limit,
                                  offset=offset)
        out: list[Row] = []
        for r in rows:
            symbol = Text(REGRESSION.get(r["state"] or "", UNCHECKED), style=COLOURS.get(r["state"] or "", "dim"))
            state = Text(r["state"] or "—", style=COLOURS.get(r["state"] or "", "dim"))
            severity = Text(SEVERITY_SHORT.get(r["severity"] or "", r["severity"] or ""),
                            style=SEVERITY_COLOURS.get(r["severity"] or "", ""))
            if r["severity"]:
                state.append(" ")
                state.append_text(severity)
            if not r["state"]:
                streak = ""
            elif r["fail_streak"]:
                streak = f"{FAIL} {r['fail_streak']}"
            else:
                streak = f"{PASS} {r['pass_streak']}"
            broke = Text(str(r["broken_streak"]), justify="right") if r["broken_streak"] else Text("")
            ack = f"{ACKNOWLEDGED}ack " if r["acknowledged"] else ("↺new " if r["returned_because"] else "")
            failing = Text(str(len(r["failing"])), justify="right", style="bold red") if r["failing"] else Text("")
            error = Text("error", style="bold red") if r["run_error"] else Text("")
            out.append((r["skill"], [symbol, one_line(r["skill"], 30), state, severity, streak, broke, failing, error,
                                     (r["last_run"] or "")[5:16].replace("T", " "),
                                     one_line(ack + ", ".join(r["failing"]), 200)]))
        return self.mark_rows(db, out), total

    # --- the detail ----------------------------------------------------------------------------
    def fetch_detail(self, db: Any, key: str) -> SkillDetail | None:
        return skill_detail(db, key)

    def title_of(self, detail: Any) -> str | None:
        return detail["state"] if detail else None

    def render_detail(self, detail: SkillDetail | None) -> None:
        lines = self.lines
        if detail is None:
            lines.show([Block("head", literal("Nothing selected." if not self.wanted else f"No skill {self.wanted}."))])
            return
        # what changed since the previous eval leads: that is what to look at first
        lines.show([Block("head", self._head(detail)), Block("changes", self._changes(detail)),
                    Block("strip", self._strip(detail)), Block("grid", self._grid(detail)),
                    Block("failing", self._failing(detail)), Block("triage", self._triage(detail)),
                    Block("output", self._output(detail), "boxed")])

    def _head(self, d: SkillDetail) -> Text:
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

    def _strip(self, d: SkillDetail) -> Text:
        text = Text("History ", style="bold")
        if not d["history"]:
            text.append("no evals yet", style="dim")
            return text
        text.append(f"(last {len(d['history'])} evals, oldest → newest)\n", style="dim")
        text.append_text(strip_text(d["history"]))
        passes = sum(1 for h in d["history"] if h["passed"])
        text.append(f"   {passes} {PASS} pass · {len(d['history']) - passes} {FAIL} fail", style="dim")
        return text

    def _changes(self, d: SkillDetail) -> Text:
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
        marks = {True: (PASS, "green"), False: (FAIL, "bold red"), None: (UNCHECKED, "dim")}
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

    def _grid(self, d: SkillDetail) -> Text:
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
                    text.append(UNCHECKED, style="dim")
                else:
                    text.append(PASS if mark else FAIL, style="green" if mark else "bold red")
        return text

    def _failing(self, d: SkillDetail) -> Text:
        text = Text("Assertions", style="bold")
        if not d["assertions"]:
            text.append("\n" + ("failing: " + ", ".join(d["failing"]) if d["failing"] else "none evaluated"),
                        style="dim")
            return text
        failing = [a for a in d["assertions"] if not a["passed"]]
        text.append(f" ({len(failing)} failing of {len(d['assertions'])})", style="dim")
        for a in failing + [a for a in d["assertions"] if a["passed"]]:
            text.append("\n")
            text.append(f"{FAIL} " if not a["passed"] else f"{PASS} ", style="bold red" if not a["passed"] else "green")
            text.append_text(literal(a["assertion"], style="bold" if not a["passed"] else ""))
            text.append(": ")
            text.append_text(literal(a["message"], style="" if not a["passed"] else "dim"))
        return text

    def _triage(self, d: SkillDetail) -> Text:
        text = Text("Triage", style="bold")
        if d["state"] == "CHRONIC":
            text.append("\nrecommendation: operator review — fix the skill or relax the assertion; "
                        "no new filing", style="magenta")
        elif d["state"] == "STABLE_FAIL":
            text.append("\nstill failing: the manifest may mismatch the skill's output", style="yellow")
        text.append("\n")
        text.append_text(self.actions_text())
        for event in d["triage"]:
            text.append("\n")
            kind = "acknowledged" if event["kind"] == "regression.acknowledged" else "mismatch flagged"
            text.append(f"{event['at'][:16].replace('T', ' ')} {kind} by ", style="dim")
            text.append_text(literal(event["actor"] or "?"))
            text.append(": ")
            text.append_text(literal(event["note"] or ""))
        return text

    def _output(self, d: SkillDetail) -> Text:
        run = d["evaluated_run"] or d["latest_run"]
        if run is None:
            return Text("no run recorded", style="dim")
        text = Text("Output of ", style="bold")
        text.append_text(literal(run["id"], style="bold"))
        text.append(f" · {run['status']} · {run['word_count']} words\n", style="dim")
        text.append_text(literal(run["output"] or "(empty output)"))
        return text

    # --- triage --------------------------------------------------------------------------------
    def done(self, name: str, key: str, result: Any) -> Done:
        if name == "acknowledge":
            return Done(f"Acknowledged {key}.")
        _seq, draft, why = result
        if draft:
            return Done(f"Mismatch flagged; draft {draft['id']} waits for review (5 Manifests).")
        return Done(f"Mismatch flagged; no draft: {why}", severity="warning")
