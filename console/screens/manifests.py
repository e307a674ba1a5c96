"""Manifests: drafts waiting for review, beside the active version, with their evidence and a diff."""

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

from gatepost.safe import literal, literal_line, one_line
from gatepost.screens.decision import Decision, DecisionScreen, Done
from gatepost.screens.list_detail import Filter
from gatepost.screens.queue import Work
from gatepost.store import skills as skills_mod
from gatepost.store.glyphs import DRAFT, FAIL, PASS, UNCHECKED
from gatepost.store.kernel import GatepostError
from gatepost.store.skills import (
    DRAFT_STATUSES,
    Draft,
    active_version,
    draft_history,
    get_draft,
    get_version,
    list_drafts,
    parse_draft_yaml,
)
from gatepost.store.views import fold_leases
from gatepost.widgets.assertion_diff import render_comparison
from gatepost.widgets.diff_view import unified_diff
from gatepost.widgets.line_detail import Block, Pair
from gatepost.widgets.note_dialog import Dialog
from gatepost.widgets.paged_list import Col, Row

# a draft is reviewed by its status: where its word does not fit (80 columns) its glyph stands in for it (✎ ✔ ✘)
COLUMNS = [Col("draft", 10), Col("", 1, instead="status"), Col("skill", 30, min=12, whole=True),
           Col("origin", 9, drop=2), Col("by", 8, drop=3), Col("status", 12, drop=1), Col("created", 11, drop=4)]
STATUS_STYLE = {"pending": "bold cyan", "approved": "green", "rejected": "red", "superseded": "dim"}
CAPABILITY = "manifest.review"
STATUS = Filter("status", tuple((f"{DRAFT[s]} {s}", s) for s in DRAFT_STATUSES)
                + (("⚠ contradicted later", "contradicted"),), "every status", default="pending")


@dataclass(frozen=True)
class DraftView:
    """A draft with what its detail shows beside it, read in one worker."""

    draft: Draft
    active: dict[str, Any] | None
    based: dict[str, Any] | None
    history: list[dict[str, Any]]
    failures: list[str]  # what the reviewer is warned of: runs it would fail, runs left out, review notes
    contradicted: dict[str, Any] | None = None  # a later run failing what the approved draft's sample passed


class EditDraftDialog(Dialog):
    """The draft's YAML in a TextArea, validated as it is typed; ctrl+s saves it as a new draft."""

    DEFAULT_CSS = """
    EditDraftDialog { align: center middle; }
    EditDraftDialog > Vertical { width: 90%; height: 85%; border: thick $primary; background: $surface; padding: 0 1; }
    EditDraftDialog Label { width: 100%; }
    EditDraftDialog TextArea { height: 1fr; min-height: 3; }
    EditDraftDialog #edit-status { height: auto; max-height: 3; }
    EditDraftDialog Horizontal { height: auto; align-horizontal: right; }
    EditDraftDialog Button { margin-left: 1; }
    """

    def __init__(self, draft: Draft, *, text: str | None = None, refused: str = "") -> None:
        super().__init__()
        self.draft = draft
        self.text = draft["yaml"] if text is None else text  # an edit refused comes back as it was typed
        self.refused = refused
        self.valid = True

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(f"Edit {self.draft['id']} · {self.draft['skill']} — saving makes a new draft by you "
                                f"({self.hint('saves')})", style="bold"))
            if self.refused:
                yield Label(literal(f"{FAIL} {self.refused}\nYour edit is kept below: save to try again on what is "
                                    "there now, or cancel.", style="bold red"), id="edit-refused")
            yield TextArea(self.text, id="edit-yaml", show_line_numbers=True, tab_behavior="indent")
            yield Label("", id="edit-status")
            with Horizontal():
                yield Button("Cancel", id="edit-cancel", classes="dialog-cancel", compact=True)
                yield Button("Save as new draft", variant="primary", id="edit-save", classes="dialog-confirm",
                             compact=True)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        lines = area.text.split("\n")
        if len(lines) > 1:  # on the first assertion's value, where an edit starts, not on the skill's name
            area.move_cursor((1, len(lines[1])))
        self._validate()

    def _validate(self) -> None:
        status = self.query_one("#edit-status", Label)
        text = self.query_one(TextArea).text
        try:
            assertions = parse_draft_yaml(text, self.draft["skill"], source="draft")
        except GatepostError as exc:
            self.valid = False
            status.update(literal_line(f"{FAIL} {exc}", "bold red"))
            return
        self.valid = True
        same = assertions == self.draft["assertions"]
        status.update(literal(f"{PASS} valid: {len(assertions)} assertions" + (" (unchanged)" if same else ""),
                              style="green"))

    @on(TextArea.Changed, "#edit-yaml")
    def _changed(self) -> None:
        self._asked = False
        self._validate()

    def typed(self) -> bool:
        return bool(self.query_one(TextArea).text != self.draft["yaml"])

    def ask_discard(self, message: str) -> None:
        self.query_one("#edit-status", Label).update(literal(f"⚠ your edit is not saved. {message}",
                                                             style="bold yellow"))

    def action_confirm(self) -> None:
        """Save as a new draft (only valid YAML)."""
        self._validate()
        if not self.valid:
            self.notify("Fix the YAML first: the line below the editor says what is wrong.", severity="error")
            return
        self.dismiss(self.query_one(TextArea).text)


class ManifestsScreen(DecisionScreen):
    """Drafts of assertion manifests; only a person's approval makes one the active version."""

    NOUN = "draft"
    NAME, TITLE, COLUMNS, FILTERS = "man", "Manifest drafts", COLUMNS, (STATUS,)
    DECISIONS = (
        Decision("approve", "a", "approve", CAPABILITY, required=False),
        Decision("reject", "r", "reject", CAPABILITY, prompt="What is wrong with it"),
        Decision("edit", "e", "edit", CAPABILITY),
    )
    EMPTY = "No drafts here. Press f for another status; drafts come from gatepost bootstrap --skill NAME."
    WORK = Work("drafts", "draft", {"status": "pending"}, "New drafts come from bootstrap and from a flagged mismatch (4 Regressions, m).")
    SCREENSHOT_STEPS = [("edit", ["e"]), ("reject", ["r"])]


    # --- the list ------------------------------------------------------------------------------
    def fetch_rows(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        if self.filters["status"] == "contradicted":  # approved drafts a later run contradicts
            rows, total = skills_mod.contradicted_drafts(db, search=search or None, limit=limit, offset=offset)
        else:
            rows, total = list_drafts(db, status=self.filters["status"], search=search or None, limit=limit,
                                      offset=offset)
        return self.mark_rows(db, [(r["id"], [one_line(r["id"], 10),
                           Text(DRAFT.get(r["status"], UNCHECKED), style=STATUS_STYLE.get(r["status"], "")),
                           one_line(r["skill"], 30), r["origin"] or "",
                           one_line(r["author"], 8),
                           Text(f"{DRAFT.get(r['status'], '')} {r['status']}",
                                style=STATUS_STYLE.get(r["status"], "")),
                           (r["created_at"] or "")[5:16].replace("T", " ")]) for r in rows]), total

    # --- the detail ----------------------------------------------------------------------------
    def fetch_detail(self, db: Any, key: str) -> DraftView | None:
        draft = get_draft(db, key)
        if draft is None:
            return None
        active = active_version(db, draft["skill"])
        based = get_version(db, draft["based_on_version_id"]) if draft["based_on_version_id"] else None
        return DraftView(draft, active, based, draft_history(db, draft["id"]),
                         skills_mod.draft_review_lines(db, draft), skills_mod.draft_contradiction(db, draft))

    def contradicted(self, db: Any, keys: list[str]) -> set[str]:
        return set(skills_mod.contradicted_draft_ids(db, keys))

    def title_of(self, detail: Any) -> str | None:
        return detail.draft["skill"] if detail else None

    def render_detail(self, view: "DraftView | None") -> None:
        lines = self.lines
        if view is None:
            lines.show([Block("head", literal("Nothing selected." if not self.wanted else f"No draft {self.wanted}."))])
            return
        draft, active = view.draft, view.active
        shown = self._head(draft, active, view.based, view.history)
        if view.contradicted:
            shown.append_text(literal(f"\n⚠ contradicted later: {view.contradicted['line']}: "
                                      f"{view.contradicted.get('message') or ''}", style="bold yellow"))
        assertions = render_comparison(active["assertions"] if active else None, draft["assertions"],
                                       before_name=f"active v{active['version']}" if active else "no manifest yet")
        left = Text("Draft\n", style="bold")
        left.append_text(literal(draft["yaml"]))
        right = Text(f"Active v{active['version']}\n" if active else "Active version\n", style="bold")
        right.append_text(literal(active["yaml"]) if active else Text("none: the skill has no manifest yet",
                                                                      style="dim"))
        diff = Text("Diff (active → draft)\n", style="bold")
        diff.append_text(unified_diff(active["yaml"] if active else "", draft["yaml"],
                                      before_name=f"active v{active['version']}" if active else "no manifest",
                                      after_name=draft["id"]))
        if draft["status"] != "pending":
            actions = Text(f"This draft is {draft['status']}: nothing to decide.", style="dim")
        else:
            actions = self.actions_text()
            for line in view.failures:
                actions.append("⚠ ", style="yellow")
                actions.append_text(literal(line, style="yellow"))
                actions.append("\n")
        # assertion by assertion above the YAML and its diff
        lines.show([Block("head", shown), Block("assertions", assertions), Block("yaml", Pair(left, right), "pair"),
                    Block("diff", diff), Block("evidence", self._evidence(draft)), Block("actions", actions)])

    def _head(self, draft: Draft, active: dict[str, Any] | None, based: dict[str, Any] | None,
              history: list[dict[str, Any]]) -> Text:
        text = Text()
        text.append_text(literal(draft["id"], style="bold"))
        text.append(" · ")
        text.append_text(literal(draft["skill"], style="bold"))
        text.append(" · ")
        text.append(f"{DRAFT.get(draft['status'], '')} {draft['status']}",
                    style=STATUS_STYLE.get(draft["status"], ""))
        text.append(f"\n{draft['origin']} draft by ")
        text.append_text(literal(draft["author"] or "?"))
        text.append(f" at {draft['created_at'][:19].replace('T', ' ')}")
        if draft["parent_id"]:
            text.append(" · edit of ")
            text.append_text(literal(draft["parent_id"]))
        if based and active and based["id"] != active["id"]:
            text.append(f"\ndrafted against v{based['version']}; the active version is now v{active['version']}",
                        style="yellow")
        history, opened = fold_leases(history)
        if opened:
            text.append(f"\n{opened}", style="dim")
        for event in history:
            if event["kind"] == "draft.created" and not event["note"]:
                continue
            text.append(f"\n{event['at'][:16].replace('T', ' ')} {event['kind'].split('.')[-1]} by ", style="dim")
            text.append_text(literal(event["actor"] or "?"))
            if event["note"]:
                text.append(": ")
                text.append_text(literal(event["note"]))
        return text

    def _evidence(self, draft: Draft) -> Text:
        ev = draft["evidence"]
        text = Text("Bootstrap evidence", style="bold")
        if not ev:
            text.append("\nnone: this draft was not drawn from runs", style="dim")
            return text
        mw = ev.get("min_words", {})
        text.append(f"\n{len(ev.get('runs', []))} successful runs sampled (newest first); word counts "
                    f"{ev.get('word_counts')} → p25 {mw.get('value', 0):g} (linear) → min_words "
                    f"{mw.get('rounded_down')}")
        for run in ev.get("runs", []):
            text.append("\n  ")
            text.append_text(literal(run["id"]))
            text.append(f"  {run['word_count']:>5} words  ", style="dim")
            text.append_text(literal(", ".join(run["headings"]) or "no headings"))
        needed = ev.get("headings_needed")
        text.append(f"\nheadings (kept when in ≥ {needed} of {len(ev.get('runs', []))} runs):")
        for heading, runs in ev.get("headings", {}).items():
            kept = needed is not None and len(runs) >= needed
            text.append(f"\n  {PASS} " if kept else f"\n  {UNCHECKED} ", style="green" if kept else "dim")
            text.append_text(literal(heading, style="" if kept else "dim"))
            text.append(f"  in {len(runs)}", style="dim")
        dropped = ev.get("forbidden_dropped") or {}
        for pattern, runs in dropped.items():
            text.append("\ndefault forbidden ")
            text.append_text(literal(f'"{pattern}"'))
            text.append(f" left out: the sample contains it ({len(runs)} runs)", style="dim")
        return text

    # --- decisions -----------------------------------------------------------------------------
    def dialog(self, decision: Decision, key: str, *, note: str = "", refused: str = "") -> ModalScreen[Any]:
        if decision.name == "edit":
            return EditDraftDialog(self.detail.draft, text=note or None, refused=refused)
        return super().dialog(decision, key, note=note, refused=refused)

    def done(self, name: str, key: str, result: Any) -> Done:
        if name == "approve":
            return Done(f"Approved {key}: it is {result.get('skill', 'the skill')}'s active manifest.")
        if name == "reject":
            return Done(f"Rejected {key}.")
        return Done(f"Saved {result['id']}, a new draft by you; {key} is superseded.", follow=result["id"])
