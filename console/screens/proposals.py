"""The Proposals screen: the queue of changes waiting for a person. On the right a proposal's path,
title, rationale, confidence, the before/after diff, the scorer gate's results and, for a case, its claims;
a accept · d decline · n needs changes, each with a note, only for a person holding proposal.review."""

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Select, Static

from gatepost.safe import literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.store import proposals as proposals_mod
from gatepost.store.kernel import GatepostError
from gatepost.store.proposals import gate_status
from gatepost.widgets.diff_view import unified_diff
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QUEUE_BINDINGS, QueueBar, QueueMixin

COLUMNS = [("status", 9), ("gate", 10), ("path", 24), ("title", 24), ("id", 18)]
SHORT_STATUS = {"needs_changes": "needs chg"}
SHORT_GATE = {"not_targeted": "not targ."}
STATUS_OPTIONS = [("waiting", "waiting"), ("needs changes", "needs_changes"), ("accepted", "accepted"),
                  ("declined", "declined")]
# (status, key, label)
MARKS = [("accepted", "a", "accept"), ("declined", "d", "decline"), ("needs_changes", "n", "needs changes")]
STATUS_STYLE = {"waiting": "bold", "needs_changes": "yellow", "accepted": "green", "declined": "red"}
GATE_STYLE = {"passed": "green", "failed": "bold red", "not_targeted": "dim", "disabled": "dim"}
CAPABILITY = "proposal.review"
CLAIM_MARK = {"TRUE": ("✔", "green"), "FALSE": ("✘", "red"), "UNKNOWN": ("?", "yellow")}


def gate_text(status: str | None, *, short: bool = False) -> Text:
    if not status:
        return Text("—" if short else "not gated", style="dim")
    label = SHORT_GATE.get(status, status) if short else status.replace("_", " ")
    return Text(label, style=GATE_STYLE.get(status, ""))


class ProposalsScreen(QueueMixin, GatepostScreen):
    """a accept · d decline · n needs changes (with a note) · f status filter · / search."""

    DEFAULT_CSS = """
    ProposalsScreen .filters Select { width: 1fr; }
    ProposalsScreen #proposal-detail > Static { height: auto; margin-bottom: 1; }
    ProposalsScreen #proposal-diff { border: round $panel; padding: 0 1; }
    """

    BINDINGS = [
        Binding("a", "mark('accepted')", "Accept"),
        Binding("d", "mark('declined')", "Decline"),
        Binding("n", "mark('needs_changes')", "Needs changes"),
        Binding("f", "cycle_status", "Status filter"),
        Binding("c", "open_case", "Open case"),
        *QUEUE_BINDINGS,
    ]
    QUEUE = "proposals"
    QUEUE_FILTER = {"status": "waiting"}
    QUEUE_CAPABILITIES = (CAPABILITY,)
    QUEUE_EMPTY_HINT = ("Proposals marked needs changes wait on their author: f shows them; "
                        "new ones come from proposed cases and gatepost proposal import.")

    def __init__(self) -> None:
        super().__init__()
        self.status: str | None = "waiting"
        self.proposal: dict | None = None
        self.proposal_id: str | None = None
        self._from_dialog = False

    def body(self) -> ComposeResult:
        yield QueueBar()
        with Horizontal(classes="split"):
            with Vertical(classes="list-pane"):
                yield Static(id="proposals-title", classes="pane-title")
                with Horizontal(classes="filters"):
                    yield Select(STATUS_OPTIONS, prompt="any status", value="waiting", id="proposals-status")
                yield PagedList(COLUMNS, self._fetch, empty="No proposals here. Press f for another status, or import one: gatepost proposal import FILE.", id="proposals-list")
            with VerticalScroll(classes="detail-pane", id="proposal-detail"):
                yield Static(id="proposal-head")
                yield Static(id="proposal-actions")
                yield Static(id="proposal-gate")
                yield Static(id="proposal-case")
                yield Static(id="proposal-marks")
                yield Static(Text("Before → after", style="bold"), classes="pane-title")
                yield Static(id="proposal-diff")

    def on_mount(self) -> None:
        self._title()
        self.query_one(PagedList).table.focus()
        self.queue_render()

    def on_screen_resume(self) -> None:
        if self._from_dialog:
            self._from_dialog = False
            return
        self.refresh_data()

    # --- the list ----------------------------------------------------------------------------
    def _fetch(self, search: str, offset: int, limit: int):
        rows, total = proposals_mod.list_proposals(self.db, status=self.status, search=search or None,
                                                   limit=limit, offset=offset)
        return self.mark_rows([(r["id"], [Text(SHORT_STATUS.get(r["status"], r["status"]), style=STATUS_STYLE.get(r["status"], "")),
                           gate_text(r["gate"], short=True), literal(one_line(r["path"] or "—", 40)),
                           literal(one_line(r["title"] or "", 60)), literal(one_line(r["id"], 24))])
                for r in rows]), total

    def _title(self) -> None:
        label = dict((v, k) for k, v in STATUS_OPTIONS).get(self.status or "", "any status")
        self.query_one("#proposals-title", Static).update(literal(f"Proposals · {label}   / search  f filter"))

    def apply_filter(self, **filters: str) -> None:
        """status=waiting|needs_changes|accepted|declined|any."""
        if "status" in filters:
            value = filters["status"]
            self.status = value if value in proposals_mod.STATUSES else None
            with self.prevent(Select.Changed):
                self.query_one("#proposals-status", Select).value = self.status or Select.NULL
        self._title()
        paged = self.query_one(PagedList)
        paged.page_offset = 0
        paged.reload(keep_key=self.proposal_id)

    @on(Select.Changed, "#proposals-status")
    def _status_changed(self, event: Select.Changed) -> None:
        value = None if event.value is Select.NULL else str(event.value)
        if value != self.status:
            self.apply_filter(status=value or "any")

    def action_cycle_status(self) -> None:
        order = ["waiting", "needs_changes", "accepted", "declined", None]
        self.apply_filter(status=order[(order.index(self.status) + 1) % len(order)] or "any")

    def open_item(self, key: str) -> None:
        paged = self.query_one(PagedList)
        if not paged.move_to_key(key):
            self.status = None
            with self.prevent(Select.Changed):
                self.query_one("#proposals-status", Select).value = Select.NULL
            self._title()
            paged.set_search(key)
            paged.move_to_key(key)
        self.show_proposal(key)

    def refresh_data(self) -> None:
        paged = self.query_one(PagedList)
        paged.reload(keep_key=self.proposal_id or paged.current_key)
        if self.proposal_id:
            self.show_proposal(self.proposal_id)
        self.queue_render()

    @on(PagedList.Highlighted, "#proposals-list")
    def _highlighted(self, event: PagedList.Highlighted) -> None:
        event.stop()
        self.show_proposal(event.key)

    # --- the detail --------------------------------------------------------------------------
    def show_proposal(self, pid: str | None) -> None:
        found = proposals_mod.get_proposal(self.db, pid) if pid else None
        self.proposal, self.proposal_id = found, (found["id"] if found else None)
        self.queue_shown(self.proposal_id)
        widgets = {name: self.query_one(f"#proposal-{name}", Static)
                   for name in ("head", "actions", "gate", "case", "marks", "diff")}
        if found is None:
            widgets["head"].update(literal("No proposal selected."))
            for name in ("actions", "gate", "case", "marks", "diff"):
                widgets[name].update("")
            self.refresh_bindings()
            return
        widgets["head"].update(self._head(found))
        widgets["actions"].update(self._actions())
        widgets["gate"].update(self._gate(found))
        widgets["case"].update(self._case(found))
        widgets["marks"].update(self._marks(found))
        widgets["diff"].update(unified_diff(found["before_body"], found["after_body"],
                                            before_name=f"{found['path'] or 'before'} (before)",
                                            after_name=f"{found['path'] or 'after'} (after)"))
        self.refresh_bindings()

    show_detail = show_proposal  # what the work queue calls to draw an item

    def _head(self, p: dict) -> Text:
        text = literal(f"{p['id']} · {p['title'] or '(untitled)'}", style="bold")
        text.append_text(Text(f"  {p['status'].replace('_', ' ')}", style=STATUS_STYLE.get(p["status"], "")))
        text.append("\n")
        text.append_text(literal(f"{p['path'] or '(no path)'}  {p['operation'] or '?'} · {p['edit_mode'] or '?'}"
                                 + (f" · kind {p['kind']}" if p["kind"] else "")))
        text.append("\n")
        confidence = "—" if p["confidence"] is None else f"{p['confidence']:.2f}"
        text.append_text(literal(f"confidence {confidence} · received {p['created_at'][:16].replace('T', ' ')}",
                                 style="dim"))
        if p["expected_base_body_sha256"]:
            text.append_text(literal(f" · base sha256 {p['expected_base_body_sha256'][:12]}…", style="dim"))
        text.append("\n")
        text.append("Rationale: ", style="bold")
        text.append_text(literal(p["rationale"] or "(none given)"))
        return text

    def _gate(self, p: dict) -> Text:
        text = Text("Scorer gate\n", style="bold")
        if not p["gate_results"]:
            text.append("not gated: no scorer has seen this proposal\n", style="dim")
        for g in p["gate_results"]:
            status = gate_status(g)
            text.append_text(gate_text(status))
            scores = ""
            if g["score_before"] is not None or g["score_after"] is not None:
                fmt = lambda v: "—" if v is None else f"{v:g}"  # noqa: E731
                scores = f"  score {fmt(g['score_before'])} → {fmt(g['score_after'])}"
            text.append_text(literal(f"{scores}  {g['at'][:16].replace('T', ' ')}", style="dim"))
            text.append("\n  ")
            text.append_text(literal(g["reason"] or ""))
            if g["command"]:
                text.append("\n  ")
                text.append_text(literal(f"$ {g['command']}", style="dim"))
            text.append("\n")
        return text

    def _case(self, p: dict) -> Text:
        if not p.get("case_id"):
            return Text("")
        view = p.get("case")
        text = literal(f"Case {p['case_id']}", style="bold")
        if not view:
            text.append("\n(the case cannot be shown)", style="dim")
            return text
        text.append_text(literal(f"  {view.get('outcome') or view.get('status')} · by {view.get('author')}",
                                 style="dim"))
        text.append("\n")
        order = view.get("claim_order") or list(view["claims"])
        explanations = view.get("explanations") or {}
        for name in order:
            value = view["claims"].get(name)
            mark, style = CLAIM_MARK.get(value, ("·", "dim"))
            text.append(f"{mark} ", style=f"bold {style}")
            text.append_text(literal(f"{name}  "))
            text.append_text(literal(explanations.get(name, ""), style="dim"))
            text.append("\n")
        return text

    def _marks(self, p: dict) -> Text:
        text = Text()
        for m in p["marks"]:
            text.append_text(literal(f"{(m['status'] or '').replace('_', ' ')} by {m['actor']} at "
                                     f"{m['at'][:16].replace('T', ' ')}", style="bold"))
            text.append_text(literal(f": {m['note']}" if m["note"] else ""))
            text.append("\n")
        return text

    def _actions(self) -> Text:
        text = Text()
        for status, key, label in MARKS:
            allowed, why = self.legal(status)
            text.append(f"[{key}] {label}", style="bold" if allowed else "dim")
            if not allowed:
                text.append_text(literal(f" — {why}", style="dim"))
            text.append("\n")
        return text

    # --- marking -----------------------------------------------------------------------------
    def legal(self, status: str) -> tuple[bool, str]:
        """Whether the person may mark the shown proposal so, and if not, why."""
        if self.proposal is None:
            return False, "no proposal selected"
        if not self.can(CAPABILITY):
            return False, f"needs {CAPABILITY}, which {self.person} does not hold"
        if self.proposal["status"] in proposals_mod.FINAL:
            return False, f"already {self.proposal['status']}; a decision is never edited"
        return True, ""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mark" and parameters:
            return True if self.legal(str(parameters[0]))[0] else None
        if action == "open_case":
            return True if self.proposal and self.proposal.get("case_id") else None
        return True

    def action_open_case(self) -> None:
        if not (self.proposal and self.proposal.get("case_id")):
            self.notify("This proposal is not a case.", severity="warning")
            return
        self.app.open_item("cases", self.proposal["case_id"])

    def action_mark(self, status: str) -> None:
        allowed, why = self.legal(status)
        label = next(lbl for s, _k, lbl in MARKS if s == status)
        if not allowed:
            self.notify(f"{label}: {why}", title="Not allowed", severity="warning", markup=False)
            return
        pid, seq = self.proposal_id, self.proposal["last_seq"]
        dialog = NoteDialog(f"{label.capitalize()} {pid}?  ({one_line(self.proposal['title'] or '', 40)})",
                            "Note", required=True, confirm_label=label.capitalize())

        def done(note: str | None) -> None:
            if note is not None:
                self.write_mark(pid, status, note, seq)

        self._from_dialog = True
        self.app.push_screen(dialog, done)

    def write_mark(self, pid: str, status: str, note: str, seq: int | None) -> None:
        try:
            proposals_mod.mark_proposal(self.db, pid, status, actor=self.person, note=note, expected_seq=seq)
        except GatepostError as exc:
            self.notify(str(exc), title="Refused", severity="error", markup=False, timeout=10)
        else:
            self.notify(f"{pid}: {status.replace('_', ' ')} by {self.person}", title="Marked", markup=False)
            self.query_one(PagedList).reload(keep_key=pid)
            self.show_proposal(pid)
            self.queue_completed(pid)
            return
        paged = self.query_one(PagedList)
        paged.reload(keep_key=pid)
        self.show_proposal(pid)

