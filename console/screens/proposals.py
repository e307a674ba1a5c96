"""The Proposals screen: the queue of changes waiting for a person. On the right a proposal's path,
title, rationale, confidence, the before/after diff, the scorer gate's results and, for a case, its claims;
a accept · d decline · n needs changes, each with a note, only for a person holding proposal.review."""

from typing import Any

from rich.text import Text

from gatepost.keymap import bound
from gatepost.safe import literal, one_line
from gatepost.screens.decision import Decision, DecisionScreen, Done, decided_line
from gatepost.screens.list_detail import Filter
from gatepost.screens.queue import Work
from gatepost.store import proposals as proposals_mod
from gatepost.store.proposals import gate_status
from gatepost.widgets.case_claims import symbol
from gatepost.widgets.diff_view import unified_diff
from gatepost.widgets.line_detail import Block
from gatepost.widgets.paged_list import Col, Row

# the first: ⚠ ● → on a narrow column that stays at any width (the status column is the first left out),
# shown while a row of the page holds a marker; where the status's word does not fit, its glyph stands in for it
COLUMNS = [Col("", 3, marks=True), Col("", 1, instead="status"), Col("status", 9, drop=2), Col("gate", 10, drop=3),
           Col("path", 40, min=12, drop=4), Col("title", 100, min=16), Col("id", 24)]
STATUS_GLYPH = {"waiting": "◇", "needs_changes": "↺", "accepted": "✔", "declined": "✘"}
SHORT_STATUS = {"needs_changes": "needs chg"}
SHORT_GATE = {"not_targeted": "not targ."}
STATUS = Filter("status", (("waiting", "waiting"), ("needs changes", "needs_changes"), ("accepted", "accepted"),
                           ("declined", "declined"), ("⚠ contradicted later", "contradicted")), "any status",
                default="waiting")
# (status, key, label)
MARKS = [("accepted", "a", "accept"), ("declined", "d", "decline"), ("needs_changes", "n", "needs changes")]
STATUS_STYLE = {"waiting": "bold", "needs_changes": "yellow", "accepted": "green", "declined": "red"}
GATE_STYLE = {"passed": "green", "failed": "bold red", "not_targeted": "dim", "disabled": "dim"}
CAPABILITY = "proposal.review"


def gate_text(status: str | None, *, short: bool = False) -> Text:
    if not status:
        return Text("—" if short else "not gated", style="dim")
    label = SHORT_GATE.get(status, status) if short else status.replace("_", " ")
    return Text(label, style=GATE_STYLE.get(status, ""))


class ProposalsScreen(DecisionScreen):
    """a accept · d decline · n needs changes (with a note) · f status filter · / search."""

    NOUN = "proposal"
    NAME, TITLE, COLUMNS, FILTERS = "proposals", "Proposals", COLUMNS, (STATUS,)
    SCREENSHOT_STEPS = [("rubric", ["d"])]  # the demo's proposals ask their queue's rubric
    DECISIONS = tuple(Decision(status, key, label, CAPABILITY) for status, key, label in MARKS)
    EMPTY = "No proposals here. Press f for another status, or import one: gatepost proposal import FILE."
    WORK = Work("proposals", "proposal", {"status": "waiting"}, ("Proposals marked needs changes wait on their author: f shows them; "
                        "new ones come from proposed cases and gatepost proposal import."))
    BINDINGS = [
        bound("c", "open_case", "Open case", "proposals.open_case"),
    ]


    # --- the list ----------------------------------------------------------------------------
    def fetch_rows(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        rows, total = proposals_mod.list_proposals(db, status=self.filters["status"], search=search or None,
                                                   limit=limit, offset=offset)
        return self.mark_rows(db, [(r["id"], ["", Text(STATUS_GLYPH.get(r["status"], "·"),
                                                        style=STATUS_STYLE.get(r["status"], "")),
                                              Text(SHORT_STATUS.get(r["status"], r["status"]), style=STATUS_STYLE.get(r["status"], "")),
                           gate_text(r["gate"], short=True), literal(one_line(r["path"] or "—", 40)),
                           literal(one_line(r["title"] or "", 100)), literal(one_line(r["id"], 24))])
                for r in rows]), total

    # --- the detail --------------------------------------------------------------------------
    def fetch_detail(self, db: Any, key: str) -> proposals_mod.ProposalView | None:
        return proposals_mod.get_proposal(db, key)

    def seq_of(self, db: Any, key: str, detail: proposals_mod.ProposalView) -> int | None:
        return detail["last_seq"]

    def render_detail(self, found: proposals_mod.ProposalView | None) -> None:
        lines = self.lines
        if found is None:
            lines.show([Block("head", literal("No proposal selected."))])
            return
        diff = unified_diff(found["before_body"], found["after_body"],
                            before_name=f"{found['path'] or 'before'} (before)",
                            after_name=f"{found['path'] or 'after'} (after)")
        lines.show([Block("head", self._head(found)), Block("actions", self.actions_text()),
                    Block("gate", self._gate(found)), Block("case", self._case(found)),
                    Block("marks", self._marks(found)), Block("diff-title", Text("Before → after"), "title", gap=0),
                    Block("diff", diff, "boxed")])

    def contradicted(self, db: Any, keys: list[str]) -> set[str]:
        return set(proposals_mod.contradicted_proposal_ids(db, keys))

    def _head(self, p: proposals_mod.ProposalView) -> Text:
        text = literal(f"{p['id']} · {p['title'] or '(untitled)'}", style="bold")
        text.append_text(Text(f"  {p['status'].replace('_', ' ')}", style=STATUS_STYLE.get(p["status"], "")))
        text.append("\n")
        if p["contradicted"]:
            text.append_text(literal(f"⚠ contradicted later: {p['contradicted']['line']}", style="bold yellow"))
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

    def _gate(self, p: proposals_mod.ProposalView) -> Text:
        text = Text("Scorer gate\n", style="bold")
        if not p["gate_results"]:
            text.append("not gated: no scorer has seen this proposal\n", style="dim")
        for g in p["gate_results"]:
            status = gate_status(g)
            text.append_text(gate_text(status))
            scores = ""
            if g["score_before"] is not None or g["score_after"] is not None:

                def fmt(v: float | None) -> str:
                    return "—" if v is None else f"{v:g}"

                scores = f"  score {fmt(g['score_before'])} → {fmt(g['score_after'])}"
            text.append_text(literal(f"{scores}  {g['at'][:16].replace('T', ' ')}", style="dim"))
            text.append("\n  ")
            text.append_text(literal(g["reason"] or ""))
            if g["command"]:
                text.append("\n  ")
                text.append_text(literal(f"$ {g['command']}", style="dim"))
            text.append("\n")
        return text

    def _case(self, p: proposals_mod.ProposalView) -> Text:
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
            value = view["claims"].get(name, "")
            mark = symbol(value)
            mark.append(" ")
            text.append_text(mark)
            text.append_text(literal(f"{name}  "))
            text.append_text(literal(explanations.get(name, ""), style="dim"))
            text.append("\n")
        return text

    def _marks(self, p: proposals_mod.ProposalView) -> Text:
        text = Text()
        for m in p["marks"]:
            text.append_text(decided_line((m["status"] or "").replace("_", " "), m["actor"], m["at"], m["note"]))
        return text

    # --- marking -----------------------------------------------------------------------------
    def done(self, name: str, key: str, result: Any) -> Done:
        return Done(f"{key}: {name.replace('_', ' ')} by {self.person}")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_case":
            return True if self.detail and self.detail.get("case_id") else None
        return super().check_action(action, parameters)

    def action_open_case(self) -> None:
        if not (self.detail and self.detail.get("case_id")):
            self.notify("This proposal is not a case.", severity="warning")
            return
        self.gp_app.open_item("cases", self.detail["case_id"])
