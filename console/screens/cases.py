"""The Cases screen: cases on the left; on the right the candidate, each claim with its why,
the evidence marked counting / stale / not independent, and only the decisions the person may take."""

import json
from typing import Any

from rich.text import Text
from textual import on

from gatepost.keymap import key_for
from gatepost.safe import literal, one_line
from gatepost.screens.decision import Decision, DecisionScreen, Done, decided_line
from gatepost.screens.list_detail import Filter
from gatepost.screens.queue import Work
from gatepost.store import cases as cases_mod
from gatepost.store.cases import (  # by name: loaded as the console starts, not in a first page
    case_view,
    list_cases,
)
from gatepost.store.kernel import GatepostError

# loaded as the console starts, not in the first item's read: a case's may-I rehearses a design review, whose act
# asks the loops' registry (and with it the evaluation runner) whether the candidate lies outside a registration
from gatepost.store.loops import outside_registration  # noqa: F401
from gatepost.store.protocol import Question, answers_text, protocol_for, short
from gatepost.widgets.case_claims import EVIDENCE_STYLE, claim_outline, claim_strip, mark, symbol
from gatepost.widgets.line_detail import Block, Choice, LineDetail
from gatepost.widgets.paged_list import Col, Row

# a case is decided by its status (◆: a reviewer can decide it now) and its claims: the status is never left out
# (cut to 8 at most: "inconclu"), and when the claims' strip does not fit (80 columns) the claims resting on
# claims (change.supported) stand in for it as a glyph; then the title; rev goes first
COLUMNS = [Col("id", 16), Col("", 3, instead="claims"), Col("rev", 6, drop=3), Col("claims", 9, drop=1),
           Col("status", 12, min=8), Col("title", 120, min=16)]


def _cap(outcome: str) -> str:
    return cases_mod.OUTCOME_CAPABILITY.get(outcome, cases_mod.CLOSE_CAPABILITY)


DESIGN = cases_mod.DESIGN_REVIEW_CAPABILITY
# a design review is evidence a person records (design_review passed / failed), not an outcome
DESIGN_RESULTS = {"design_passed": "passed", "design_failed": "failed"}
DECISIONS = (
    Decision("kept", "k", "keep", _cap("kept")),
    Decision("rejected", "r", "reject", _cap("rejected")),
    Decision("proposed", "p", "propose to a person", _cap("proposed")),
    Decision("inconclusive", "i", "close inconclusive", _cap("inconclusive"), prompt="Reason"),
    Decision("design_passed", "d", "pass design", DESIGN, required=False),
    Decision("design_failed", "D", "fail design", DESIGN, prompt="What is wrong with the design"),
)
STATUS = Filter("status", (("open", "open"), ("needs a decision", "needs_decision"),
                           ("waiting on a design review", "design_review"), ("⚠ contradicted later", "contradicted"),
                           ("kept, never landed", "kept_not_landed"), ("closed", "closed")),
                "any status", default="open")
OUTCOME = Filter("outcome", (("kept", "kept"), ("rejected", "rejected"), ("proposed", "proposed"),
                             ("inconclusive", "inconclusive")), "any outcome")


class CasesScreen(DecisionScreen):
    """k keep · r reject · p propose · i inconclusive — each only when the protocol and your authority allow it."""

    NOUN = "case"
    NAME, TITLE, COLUMNS, FILTERS, DECISIONS = "cases", "Cases", COLUMNS, (STATUS, OUTCOME), DECISIONS
    # the rubric: the demo's open eval.gated_change/2 case, fourth from the end of the open cases (oldest change last)
    SCREENSHOT_STEPS = [("comment", ["C"]), ("rubric", ["end", "up", "up", "up", "i"])]
    EMPTY = "No cases here. Press f for another status, or import one: gatepost case import FILE."
    WORK = CASE_WORK = Work("cases", "case", {"status": "needs_decision"}, (
        "Open cases still waiting on evidence are not in it: f shows them; "
        "6 Proposals holds what was proposed to a person."))
    DESIGN_WORK = Work(cases_mod.DESIGN_QUEUE, "case", {"status": "design_review"}, (
        "Cases waiting on other evidence too are not in it: f shows every open case."))

    def __init__(self) -> None:
        super().__init__()
        self._strips: dict[str, tuple[list[str], list[str]]] = {}
        self._marks_drawn: dict[tuple[Any, ...], tuple[Text, Text, Text]] = {}  # _marks, by what they show

    # --- layout -------------------------------------------------------------------------

    # --- the list -------------------------------------------------------------------------
    def fetch_rows(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        rows, total = list_cases(db, status=self.filters["status"], outcome=self.filters["outcome"],
                                           search=search or None, limit=limit, offset=offset)
        return self.mark_rows(db, [(r["id"], self._cells(r)) for r in rows]), total

    def _cells(self, r: cases_mod.CaseRow) -> list[Any]:
        status, supported, strip = self._marks(r)
        # one_line's text is already inert (safe.clean): made a Text as it is, not cleaned a second time
        return [Text(one_line(r["id"], 16)), supported, literal(short(r["current_revision"], 6)), strip, status,
                Text(one_line(r["title"], 120))]

    def _marks(self, r: cases_mod.CaseRow) -> tuple[Text, Text, Text]:
        """A row's status and claim marks. A page's cases share a few patterns of claims and statuses: each is
        drawn once and its Texts shared by the rows (no cell is changed in place: a marker makes a new one)."""
        order, derived = self._claim_layout(r["protocol"])
        claims = r["claims"]
        key = (r["protocol"], r["outcome"], bool(r["needs_decision"]), tuple(claims.get(name) for name in order))
        marks = self._marks_drawn.get(key)
        if marks is None:
            if r["outcome"]:
                status = Text(r["outcome"], style={"kept": "green", "rejected": "red"}.get(r["outcome"], "cyan"))
            elif r["needs_decision"]:
                status = Text("open ◆", style="bold")  # a reviewer can decide it now
            else:
                status = Text("open")
            supported = Text()
            for name in order:
                if name in derived:
                    supported.append(*mark(claims.get(name)))
            if len(self._marks_drawn) >= 4096:
                self._marks_drawn.clear()
            marks = self._marks_drawn[key] = (status, supported, claim_strip(claims, order, derived))
        return marks

    def _claim_layout(self, ref: str) -> tuple[list[str], list[str]]:
        if ref not in self._strips:
            proto = protocol_for(ref)
            self._strips[ref] = (list(proto.claim_order), [n for n in proto.claims if proto.derived(n)])
        return self._strips[ref]

    def normalize_filters(self, changed: dict[str, str | None]) -> None:
        """Open cases have no outcome yet; an outcome means closed. Cases waiting on a design review are
        worked as the design reviewers' queue (w)."""
        if changed.get("status") in ("open", "needs_decision", "design_review") and "outcome" not in changed:
            self.filters["outcome"] = None
        if changed.get("outcome") and self.filters["status"] in ("open", "needs_decision", "design_review"):
            self.filters["status"] = "closed"
        if "status" in changed and not self.queue.active:
            self.WORK = self.DESIGN_WORK if self.filters["status"] == "design_review" else self.CASE_WORK

    def action_work_queue(self) -> None:
        """The design reviewers' queue on its filter, or for a person who holds only eval_design.review."""
        outcomes = [d.capability for d in DECISIONS if d.name not in DESIGN_RESULTS]
        design = self.filters["status"] == "design_review" or (self.can(DESIGN) and not any(map(self.can, outcomes)))
        self.WORK = self.DESIGN_WORK if design else self.CASE_WORK
        super().action_work_queue()

    def contradicted(self, db: Any, keys: list[str]) -> set[str]:
        return set(cases_mod.contradicted_case_ids(db, keys))

    # --- the detail -------------------------------------------------------------------------
    def fetch_detail(self, db: Any, key: str) -> cases_mod.CaseView | None:
        try:
            return case_view(db, key, actor=self.person)
        except GatepostError:
            return None

    def seq_of(self, db: Any, key: str, detail: cases_mod.CaseView) -> int | None:
        return detail["last_seq"]

    def render_detail(self, view: cases_mod.CaseView | None) -> None:
        detail = self.lines
        if view is None:
            detail.show([Block("head", literal("No case selected."))])
            return
        content = view["candidate"]["content"]
        shown = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
        choices = []
        for d in DECISIONS:
            legal, why = self.legal(d.name)
            label = literal(f"[{key_for(self.app, f'cases.{d.name}', d.key)}] {d.label}" + ("" if legal else f" — {why}"))
            choices.append(Choice(d.name, label, disabled=not legal))
        detail.show([
            Block("head", self._head(view)),
            Block("claims", self._claims(view)),
            Block("tree-title", Text("What each claim rests on"), "title", gap=0),
            Block("tree", claim_outline(view), "outline"),
            Block("evidence", self._evidence(view)),
            Block("decisions-title", Text("Decisions"), "title", gap=0),
            Block("decisions", self.browsing_text()) if self.browsing_only() else Block("decisions", tuple(choices), "choices"),
            Block("history", self._history(view)),
            Block("content-title", Text("Candidate content"), "title", gap=0),
            Block("content", literal(shown), "boxed"),
        ])

    def _head(self, view: cases_mod.CaseView) -> Text:
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
        for line, style in self._flags(view):
            text.append("\n")
            text.append_text(literal(line, style=style))
        return text

    def _flags(self, view: cases_mod.CaseView) -> list[tuple[str, str]]:
        """What someone must look at: a decision contradicted later, a stale base, a design review awaited."""
        flags = []
        found = view.get("contradicted")
        if found:
            turned = ", ".join(f"{n} {then} → {now}" for n, (then, now) in found["claims"].items())
            flags.append((f"⚠ contradicted later: {found['line']}" + (f" ({turned})" if turned else ""),
                          "bold yellow"))
        base = view.get("base") or {}
        if base.get("stale"):
            why = str(base["why"])
            flags.append((f"⚑ {why if why.startswith('stale') else 'stale: ' + why}", "yellow"))
        if view["status"] == "open" and cases_mod.waits_on_design_review(view["protocol"], view["claims"]):
            design = view["candidate"]["basis"].get("design")
            flags.append((f"◇ waits only on a design review of {design}: "
                          f"{key_for(self.app, 'cases.design_passed', 'd')} passes it, "
                          f"{key_for(self.app, 'cases.design_failed', 'D')} fails it ({DESIGN})", "cyan"))
        return flags

    def _claims(self, view: cases_mod.CaseView) -> Text:
        text = Text("Claims\n", style="bold")
        width = max(len(n) for n in view["claim_order"]) + 2
        for name in view["claim_order"]:
            text.append_text(symbol(view["claims"][name]))
            text.append(f" {name:<{width}}")
            text.append_text(literal(view["explanations"][name], style="dim" if view["claims"][name] == "TRUE"
                                     else ""))
            text.append("\n")
        return text

    def _evidence(self, view: cases_mod.CaseView) -> Text:
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

    def _history(self, view: cases_mod.CaseView) -> Text:
        text = Text()
        for d in view["decisions"]:
            text.append_text(decided_line(d["outcome"], d["actor"], d["at"], d["note"],
                                          f" on rev {cases_mod.short_revision(d['revision'], 7)}"))
            if d.get("rubric"):
                text.append_text(literal(f"  rubric: {answers_text(d['rubric'], self._rubric())}\n", style="dim"))
        if view["rubric"] and view["status"] == "open":
            text.append_text(literal("rubric: every decision answers " + ", ".join(q["key"] for q in view["rubric"])
                                     + "\n", style="dim"))
        if not view["decisions"] and view["status"] == "open":
            text.append(f"you decide as {self.person}", style="dim")
        return text

    def allowed_note(self, name: str) -> str:
        """What an allowed decision rests on: the protocol's why, or what a design review records."""
        view: cases_mod.CaseView = self.detail
        if name in DESIGN_RESULTS:
            return f"records design_review {DESIGN_RESULTS[name]} about {view['candidate']['basis'].get('design')}"
        rule = view["outcomes"].get(name)
        return str(rule["why"]) if rule else ""

    def _rubric(self) -> list[Question]:
        view: cases_mod.CaseView | None = self.detail
        return [Question(q["key"], q["question"], q["scale"]) for q in (view["rubric"] if view else [])]

    def questions(self, decision: Decision) -> list[Question]:
        """A decision closing a case whose protocol carries a rubric asks its questions (a design review asks none:
        it records evidence, it decides nothing)."""
        return self._rubric() if decision.name not in DESIGN_RESULTS else []

    def done(self, name: str, key: str, result: Any) -> Done:
        if name in DESIGN_RESULTS:
            return Done(f"{key}: design review {DESIGN_RESULTS[name]} by {self.person}")
        return Done(f"{key}: {name} by {self.person}")

    @on(LineDetail.Chosen)
    def _chosen(self, event: LineDetail.Chosen) -> None:
        """A decision line clicked: the same as its key."""
        self.action_decide(event.choice.name)
