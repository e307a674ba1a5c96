"""The Cases screen: cases on the left; on the right the candidate, each claim with its why,
the evidence marked counting / stale / not independent, and only the decisions the person may take."""

import json

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.widgets import Button, Select, Static

from gatepost.safe import literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.store import cases as cases_mod
from gatepost.store import flows
from gatepost.store.kernel import GatepostError
from gatepost.store.protocol import protocol_for, short
from gatepost.widgets.case_claims import EVIDENCE_STYLE, ClaimTree, claim_strip, symbol
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QUEUE_BINDINGS, QueueBar, QueueMixin

COLUMNS = [("id", 12), ("rev", 6), ("claims", 9), ("status", 12), ("title", 40)]
# (outcome, key, label, what the dialog asks for)
DECISIONS = [
    ("kept", "k", "keep", "Note"),
    ("rejected", "r", "reject", "Note"),
    ("proposed", "p", "propose to a person", "Note"),
    ("inconclusive", "i", "close inconclusive", "Reason"),
]
STATUS_OPTIONS = [("open", "open"), ("needs a decision", "needs_decision"), ("closed", "closed")]
OUTCOME_OPTIONS = [("kept", "kept"), ("rejected", "rejected"), ("proposed", "proposed"),
                   ("inconclusive", "inconclusive")]


class CasesScreen(QueueMixin, GatepostScreen):
    """k keep · r reject · p propose · i inconclusive — each only when the protocol and your authority allow it."""

    DEFAULT_CSS = """
    CasesScreen .filters Select { width: 1fr; }
    CasesScreen #case-detail > Static { height: auto; margin-bottom: 1; }
    CasesScreen #case-decisions { height: auto; }
    CasesScreen #case-decisions Button { width: 100%; height: auto; content-align: left middle;
                                         text-align: left; padding: 0 1; }
    CasesScreen #case-content { border: round $panel; padding: 0 1; }
    CasesScreen ClaimTree { margin-bottom: 1; }
    """

    BINDINGS = [
        Binding("k", "decide('kept')", "Keep"),
        Binding("r", "decide('rejected')", "Reject"),
        Binding("p", "decide('proposed')", "Propose"),
        Binding("i", "decide('inconclusive')", "Inconclusive"),
        Binding("f", "cycle_status", "Status filter"),
        *QUEUE_BINDINGS,
    ]
    QUEUE = "cases"
    QUEUE_FILTER = {"status": "needs_decision"}
    QUEUE_CAPABILITIES = ("loop_change.keep", "case.close")
    QUEUE_EMPTY_HINT = ("Open cases still waiting on evidence are not in it: f shows them; "
                        "6 Proposals holds what was proposed to a person.")

    def __init__(self) -> None:
        super().__init__()
        self.status: str | None = "open"
        self.outcome: str | None = None
        self.view: dict | None = None
        self.case_id: str | None = None
        self.seen_seq: int | None = None
        self._strips: dict[str, tuple[list[str], list[str]]] = {}
        self._from_dialog = False

    # --- layout -------------------------------------------------------------------------
    def body(self) -> ComposeResult:
        yield QueueBar()
        with Horizontal(classes="split"):
            with Vertical(classes="list-pane"):
                yield Static(id="cases-title", classes="pane-title")
                with Horizontal(classes="filters"):
                    yield Select(STATUS_OPTIONS, prompt="any status", value=self.status or Select.NULL,
                                 id="cases-status")
                    yield Select(OUTCOME_OPTIONS, prompt="any outcome", value=self.outcome or Select.NULL,
                                 id="cases-outcome")
                yield PagedList(COLUMNS, self._fetch, empty="No cases here. Press f for another status, or import one: gatepost case import FILE.", id="cases-list")
            with VerticalScroll(classes="detail-pane", id="case-detail"):
                yield Static(id="case-head")
                yield Static(id="case-claims")
                yield Static(Text("What each claim rests on", style="bold"), classes="pane-title")
                yield ClaimTree(id="case-tree")
                yield Static(id="case-evidence")
                yield Static(Text("Decisions", style="bold"), classes="pane-title")
                with Vertical(id="case-decisions"):
                    for outcome, _key, label, _prompt in DECISIONS:
                        yield Button(label, id=f"decide-{outcome}", disabled=True, compact=True)
                yield Static(id="case-history")
                yield Static(Text("Candidate content", style="bold"), classes="pane-title")
                yield Static(id="case-content")

    def on_mount(self) -> None:
        self._title()
        self.queue_render()
        self.query_one(PagedList).table.focus()

    def on_screen_resume(self) -> None:
        if self._from_dialog:  # back from our own dialog: the decision already redrew what changed
            self._from_dialog = False
            return
        self.refresh_data()

    # --- the list -------------------------------------------------------------------------
    def _fetch(self, search: str, offset: int, limit: int):
        rows, total = cases_mod.list_cases(self.db, status=self.status, outcome=self.outcome,
                                           search=search or None, limit=limit, offset=offset)
        return [(r["id"], self._cells(r)) for r in rows], total

    def _cells(self, r: dict) -> list:
        order, derived = self._claim_layout(r["protocol"])
        if r["outcome"]:
            status = Text(r["outcome"], style={"kept": "green", "rejected": "red"}.get(r["outcome"], "cyan"))
        elif r["needs_decision"]:
            status = Text("open ◆", style="bold")  # a reviewer can decide it now
        else:
            status = Text("open")
        return [literal(one_line(r["id"], 16)), literal(short(r["current_revision"], 6)),
                claim_strip(r["claims"], order, derived), status, literal(one_line(r["title"], 60))]

    def _update_row(self, case_id: str) -> None:
        """Redraw one row in place, so a decided case stays where the person was looking."""
        paged = self.query_one(PagedList)
        if case_id not in paged.keys:
            return
        row = paged.keys.index(case_id)
        for col, cell in enumerate(self._cells(cases_mod.get_case(self.db, case_id))):
            paged.table.update_cell_at(Coordinate(row, col), cell)

    def _claim_layout(self, ref: str) -> tuple[list[str], list[str]]:
        if ref not in self._strips:
            proto = protocol_for(ref)
            self._strips[ref] = (list(proto.claim_order), [n for n in proto.claims if proto.derived(n)])
        return self._strips[ref]

    def _title(self) -> None:
        parts = [dict((v, k) for k, v in STATUS_OPTIONS).get(self.status, "all") if self.status else "any status"]
        if self.outcome:
            parts.append(self.outcome)
        self.query_one("#cases-title", Static).update(literal("Cases · " + " · ".join(parts) + "   / search"))

    def _reload(self) -> None:
        self._title()
        paged = self.query_one(PagedList)
        paged.page_offset = 0
        paged.reload(keep_key=self.case_id)

    @on(Select.Changed, "#cases-status")
    def _status_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else str(event.value)
        if value != self.status:
            self.status = value
            self._reload()

    @on(Select.Changed, "#cases-outcome")
    def _outcome_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else str(event.value)
        if value != self.outcome:
            self.outcome = value
            if value and self.status in ("open", "needs_decision"):
                self.status = "closed"
                self.query_one("#cases-status", Select).value = "closed"
            self._reload()

    def apply_filter(self, **filters: str) -> None:
        """status=open|closed|needs_decision|any, outcome=kept|rejected|proposed|inconclusive."""
        if "status" in filters:
            self.status = filters["status"] if filters["status"] in ("open", "closed", "needs_decision") else None
            if self.status in ("open", "needs_decision") and "outcome" not in filters:
                self.outcome = None  # open cases have no outcome yet
        if "outcome" in filters:
            self.outcome = filters["outcome"] or None
            if self.outcome and "status" not in filters:
                self.status = "closed"
        if not self.query("#cases-list"):
            return  # composing reads these filters
        status_select = self.query_one("#cases-status", Select)
        outcome_select = self.query_one("#cases-outcome", Select)
        with self.prevent(Select.Changed):
            status_select.value = self.status if self.status else Select.NULL
            outcome_select.value = self.outcome if self.outcome else Select.NULL
        self._reload()

    def action_cycle_status(self) -> None:
        order = ["open", "needs_decision", "closed", None]
        self.apply_filter(status=order[(order.index(self.status) + 1) % len(order)] or "any")

    def open_item(self, key: str) -> None:
        paged = self.query_one(PagedList)
        if not paged.move_to_key(key):
            self.status, self.outcome = None, None
            with self.prevent(Select.Changed):
                self.query_one("#cases-status", Select).value = Select.NULL
                self.query_one("#cases-outcome", Select).value = Select.NULL
            self._title()
            paged.set_search(key)
            paged.move_to_key(key)
        self.show_case(key)

    def refresh_data(self) -> None:
        paged = self.query_one(PagedList)
        paged.reload(keep_key=self.case_id or paged.current_key)
        if self.case_id:
            self.show_case(self.case_id)
        self.queue_render()

    @on(PagedList.Highlighted, "#cases-list")
    def _highlighted(self, event: PagedList.Highlighted) -> None:
        self.show_case(event.key)

    # --- the detail -------------------------------------------------------------------------
    def show_case(self, case_id: str | None) -> None:
        try:
            view = cases_mod.case_view(self.db, case_id, actor=self.person) if case_id else None
        except GatepostError:
            view = None
        self.view, self.case_id = view, (view["id"] if view else None)
        self.seen_seq = view["last_seq"] if view else None
        self.queue_shown(self.case_id)
        head = self.query_one("#case-head", Static)
        if view is None:
            head.update(literal("No case selected."))
            for wid in ("#case-claims", "#case-evidence", "#case-history", "#case-content"):
                self.query_one(wid, Static).update("")
            self.query_one(ClaimTree).show(None)
            for button in self.query("#case-decisions Button").results(Button):
                button.disabled = True
            return
        head.update(self._head(view))
        self.query_one("#case-claims", Static).update(self._claims(view))
        self.query_one(ClaimTree).show(view)
        self.query_one("#case-evidence", Static).update(self._evidence(view))
        self.query_one("#case-history", Static).update(self._history(view))
        content = view["candidate"]["content"]
        shown = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
        self.query_one("#case-content", Static).update(literal(shown))
        for outcome, key, label, _prompt in DECISIONS:
            legal, why = self.legal(outcome)
            button = self.query_one(f"#decide-{outcome}", Button)
            button.disabled = not legal
            button.label = literal(f"[{key}] {label}" + ("" if legal else f" — {why}"))

    show_detail = show_case  # what the work queue calls to draw an item

    def _head(self, view: dict) -> Text:
        text = literal(f"{view['id']} · {view['title']}", style="bold")
        state = view["outcome"] or view["status"]
        text.append_text(literal(f"  ({state})", style="italic"))
        cand = view["candidate"]
        text.append("\n")
        text.append_text(literal(f"{cand['path'] or '(no path)'}  rev {short(view['revision'], 12)}…  "
                                 f"by {view['author']}"))
        basis = cand["basis"]
        text.append("\n")
        text.append_text(literal("basis " + "  ".join(f"{k} {basis[k]}" for k in
                                                      ("baseline", "question_set", "data_revision", "design")
                                                      if k in basis), style="dim"))
        listed = view["independent"].get("different_agent_run", [])
        text.append("\n")
        text.append_text(literal("independent (different_agent_run): " + (", ".join(listed) or "nobody"),
                                 style="dim"))
        return text

    def _claims(self, view: dict) -> Text:
        text = Text("Claims\n", style="bold")
        width = max(len(n) for n in view["claim_order"]) + 2
        for name in view["claim_order"]:
            text.append_text(symbol(view["claims"][name]))
            text.append(f" {name:<{width}}")
            text.append_text(literal(view["explanations"][name], style="dim" if view["claims"][name] == "TRUE"
                                     else ""))
            text.append("\n")
        return text

    def _evidence(self, view: dict) -> Text:
        c = view["evidence_counts"]
        text = Text(f"Evidence ({c['counting']} counting, {c['not independent']} not independent, "
                    f"{c['stale']} stale)\n", style="bold")
        if not view["evidence"]:
            text.append("none yet: every claim waits on evidence\n", style="dim")
        for e in view["evidence"]:
            text.append_text(Text(f"{e['status']:<16}", style=EVIDENCE_STYLE.get(e["status"], "")))
            text.append_text(literal(f"#{e['id']} {e['kind']} {e['result']} · {e['producer']} "
                                     f"about {cases_mod.short_revision(e['about'])} · {e['observed_at'][:16].replace('T', ' ')}"))
            note = cases_mod.evidence_note(e)
            if note != e["status"]:
                text.append_text(literal(f"  ({note[len(e['status']):].lstrip(': ')})", style="dim"))
            if e["decides"]:
                text.append_text(literal(f"  decides {', '.join(e['decides'])}", style="dim"))
            text.append("\n")
        for warning in view.get("noise") or []:
            text.append_text(literal(f"⚠ {warning}\n", style="yellow"))
        for note in (view.get("undecided") or {}).values():
            text.append_text(literal(f"∅ {note}\n", style="yellow"))
        return text

    def _history(self, view: dict) -> Text:
        text = Text()
        for d in view["decisions"]:
            text.append_text(literal(f"{d['outcome']} by {d['actor']} at {d['at'][:16].replace('T', ' ')} "
                                     f"on rev {cases_mod.short_revision(d['revision'], 7)}", style="bold"))
            if d["note"]:
                text.append_text(literal(f": {d['note']}"))
            text.append("\n")
        if not view["decisions"] and view["status"] == "open":
            text.append(f"you decide as {self.person}", style="dim")
        return text

    def legal(self, outcome: str) -> tuple[bool, str]:
        """Whether the person may take this decision now, and if not, why."""
        view = self.view
        if view is None:
            return False, "no case selected"
        rule = view["outcomes"].get(outcome)
        if rule is None:
            return False, f"{view['protocol']} has no outcome {outcome}"
        if not rule["allowed"]:
            return False, f"blocked: {rule['why']}"
        capability = cases_mod.OUTCOME_CAPABILITY.get(outcome, cases_mod.CLOSE_CAPABILITY)
        if not self.can(capability):
            return False, f"needs {capability}, which {self.person} does not hold"
        return True, rule["why"]

    # --- deciding -----------------------------------------------------------------------------
    @on(Button.Pressed, "#case-decisions Button")
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_decide((event.button.id or "").removeprefix("decide-"))

    def action_decide(self, outcome: str) -> None:
        legal, why = self.legal(outcome)
        label = next(lbl for o, _k, lbl, _p in DECISIONS if o == outcome)
        if not legal:
            self.notify(f"{label}: {why}", title="Not allowed", severity="warning", markup=False)
            return
        case_id, seq = self.case_id, self.seen_seq
        prompt = next(p for o, _k, _l, p in DECISIONS if o == outcome)
        dialog = NoteDialog(f"{label.capitalize()} {case_id}?  ({one_line(self.view['title'], 40)})",
                            prompt, required=True, confirm_label=label.capitalize())

        def done(note: str | None) -> None:
            if note is None:
                return
            self.write_decision(case_id, outcome, note, seq)

        self._from_dialog = True
        self.app.push_screen(dialog, done)

    def write_decision(self, case_id: str, outcome: str, note: str, seq: int | None) -> None:
        try:
            flows.decide(self.db, case_id, outcome, actor=self.person, note=note, based_on_seq=seq)
        except GatepostError as exc:
            self.notify(str(exc), title="Refused", severity="error", markup=False, timeout=10)
        else:
            self.notify(f"{case_id}: {outcome} by {self.person}", title="Decided", markup=False)
            self._update_row(case_id)
            self.show_case(case_id)
            self.queue_completed(case_id)
            return
        self._update_row(case_id)
        self.show_case(case_id)

