"""Manifests: drafts waiting for review, beside the active version, with their evidence and a diff."""

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Select, Static, TextArea

from gatepost.safe import literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.store.kernel import GatepostError, last_seq
from gatepost.store.skills import (
    DRAFT_STATUSES,
    active_version,
    approve_draft,
    draft_history,
    edit_draft,
    failure_lines,
    get_draft,
    get_version,
    list_drafts,
    parse_draft_yaml,
    reject_draft,
    sample_failures,
)
from gatepost.widgets.diff_view import unified_diff
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QUEUE_BINDINGS, QueueBar, QueueMixin

COLUMNS = [("draft", 10), ("skill", 22), ("origin", 9), ("by", 8), ("status", 12), ("created", 11)]
STATUS_STYLE = {"pending": "bold cyan", "approved": "green", "rejected": "red", "superseded": "dim"}
STATUS_SYMBOL = {"pending": "✎", "approved": "✔", "rejected": "✘", "superseded": "↷"}
ALL = "all"


class EditDraftDialog(ModalScreen[str | None]):
    """The draft's YAML in a TextArea, validated as it is typed; ctrl+s saves it as a new draft."""

    DEFAULT_CSS = """
    EditDraftDialog { align: center middle; }
    EditDraftDialog > Vertical { width: 90%; height: 85%; border: thick $primary; background: $surface; padding: 1 2; }
    EditDraftDialog TextArea { height: 1fr; }
    EditDraftDialog #edit-status { height: auto; }
    EditDraftDialog Horizontal { height: auto; align-horizontal: right; }
    EditDraftDialog Button { margin-left: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Save as a new draft")]

    def __init__(self, draft: dict) -> None:
        super().__init__()
        self.draft = draft
        self.valid = True

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(literal(f"Edit {self.draft['id']} · {self.draft['skill']} — saving makes a new draft by you "
                                "(ctrl+s saves, Escape cancels)", style="bold"))
            yield TextArea(self.draft["yaml"], id="edit-yaml", show_line_numbers=True, tab_behavior="indent")
            yield Label("", id="edit-status")
            with Horizontal():
                yield Button("Cancel", id="edit-cancel")
                yield Button("Save as new draft", variant="primary", id="edit-save")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()
        self._validate()

    def _validate(self) -> None:
        status = self.query_one("#edit-status", Label)
        text = self.query_one(TextArea).text
        try:
            assertions = parse_draft_yaml(text, self.draft["skill"], source="draft")
        except GatepostError as exc:
            self.valid = False
            status.update(literal(f"✘ {exc}", style="bold red"))
            return
        self.valid = True
        same = assertions == self.draft["assertions"]
        status.update(literal(f"✔ valid: {len(assertions)} assertions" + (" (unchanged)" if same else ""),
                              style="green"))

    @on(TextArea.Changed, "#edit-yaml")
    def _changed(self) -> None:
        self._validate()

    def action_save(self) -> None:
        self._validate()
        if not self.valid:
            self.notify("Fix the YAML first: the line below the editor says what is wrong.", severity="error")
            return
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#edit-save")
    def _save(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#edit-cancel")
    def _cancel(self) -> None:
        self.action_cancel()


class ManifestsScreen(QueueMixin, GatepostScreen):
    """Drafts of assertion manifests; only a person's approval makes one the active version."""

    DEFAULT_CSS = """
    ManifestsScreen .filters .pane-title { width: auto; padding: 1 1 0 0; height: 3; }
    ManifestsScreen .filters Select { width: 24; }
    ManifestsScreen #man-detail > * { height: auto; margin-bottom: 1; }
    ManifestsScreen .yaml-pair { height: auto; }
    ManifestsScreen .yaml-pair > Static { width: 1fr; border: round $surface-lighten-2; padding: 0 1; height: auto; }
    """
    SCREENSHOT_STEPS = [("edit", ["e"]), ("reject", ["r"])]
    BINDINGS = [
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("e", "edit", "Edit"),
        Binding("f", "cycle_filter", "Filter status"),
        *QUEUE_BINDINGS,
    ]
    QUEUE = "drafts"
    QUEUE_FILTER = {"status": "pending"}
    QUEUE_CAPABILITIES = ("manifest.review",)
    QUEUE_EMPTY_HINT = "New drafts come from bootstrap and from a flagged mismatch (4 Regressions, m)."

    def __init__(self) -> None:
        super().__init__()
        self.status_filter: str | None = "pending"
        self.key: str | None = None
        self.seen_seq: int | None = None

    def body(self) -> ComposeResult:
        yield QueueBar()
        with Horizontal(classes="split"):
            with Vertical(classes="list-pane"):
                with Horizontal(classes="filters"):
                    yield Static(Text("Manifest drafts ", style="bold"), classes="pane-title")
                    yield Select([(f"{STATUS_SYMBOL[s]} {s}", s) for s in DRAFT_STATUSES] + [("every status", ALL)],
                                 value=self.status_filter or ALL, allow_blank=False, id="man-status")
                yield PagedList(COLUMNS, self._fetch, empty="No drafts here. Press f for another status; drafts come from gatepost bootstrap --skill NAME.", id="man-list")
            with VerticalScroll(classes="detail-pane", id="man-detail"):
                yield Static(literal("Nothing selected."), id="man-head")
                with Horizontal(classes="yaml-pair"):
                    yield Static("", id="man-draft")
                    yield Static("", id="man-active")
                yield Static("", id="man-diff")
                yield Static("", id="man-evidence")
                yield Static("", id="man-actions")

    def on_mount(self) -> None:
        for paged in self.query(PagedList):
            paged.table.focus()
        self.queue_render()

    def on_screen_resume(self) -> None:
        self.refresh_data()

    # --- the list ------------------------------------------------------------------------------
    def _fetch(self, search: str, offset: int, limit: int):
        rows, total = list_drafts(self.db, status=self.status_filter, search=search or None, limit=limit,
                                  offset=offset)
        return self.mark_rows([(r["id"], [one_line(r["id"], 10), one_line(r["skill"], 22), r["origin"] or "",
                           one_line(r["author"], 8),
                           Text(f"{STATUS_SYMBOL.get(r['status'], '')} {r['status']}",
                                style=STATUS_STYLE.get(r["status"], "")),
                           (r["created_at"] or "")[5:16].replace("T", " ")]) for r in rows]), total

    @on(Select.Changed, "#man-status")
    def _filter_changed(self, event: Select.Changed) -> None:
        value = None if event.value in (ALL, Select.NULL) else str(event.value)
        if value != self.status_filter:
            self.status_filter = value
            self.query_one(PagedList).reload()

    def apply_filter(self, **filters: str) -> None:
        """apply_filter(status="pending"|"approved"|"rejected"|"superseded"); status="all" shows every draft."""
        status = filters.get("status", "pending")
        status = status if status in DRAFT_STATUSES else None
        self.status_filter = status
        for select in self.query("#man-status").results(Select):
            select.value = status or ALL
        for paged in self.query(PagedList):
            paged.reload()

    def action_cycle_filter(self) -> None:
        order = [*DRAFT_STATUSES, None]
        self.apply_filter(status=order[(order.index(self.status_filter) + 1) % len(order)] or ALL)

    def open_item(self, key: str) -> None:
        draft = get_draft(self.db, key)
        paged = self.query_one(PagedList)
        self.apply_filter(status=draft["status"] if draft else ALL)
        paged.set_search(key)
        paged.move_to_key(key)
        self._show(key)

    def refresh_data(self) -> None:
        super().refresh_data()
        if self.key:
            self._show(self.key)
        self.queue_render()

    # --- the detail ----------------------------------------------------------------------------
    @on(PagedList.Highlighted, "#man-list")
    def _highlighted(self, event: PagedList.Highlighted) -> None:
        self._show(event.key)

    def _show(self, key: str | None) -> None:
        self.key = key
        self.queue_shown(key)
        draft = get_draft(self.db, key) if key else None
        ids = ("draft", "active", "diff", "evidence", "actions")
        parts = {name: self.query_one(f"#man-{name}", Static) for name in ids}
        head = self.query_one("#man-head", Static)
        if draft is None:
            head.update(literal("Nothing selected." if not key else f"No draft {key}."))
            for part in parts.values():
                part.update("")
            self.seen_seq = None
            return
        self.seen_seq = last_seq(self.db, "draft", key)
        active = active_version(self.db, draft["skill"])
        based = get_version(self.db, draft["based_on_version_id"]) if draft["based_on_version_id"] else None
        head.update(self._head(draft, active, based))
        left = Text("Draft\n", style="bold")
        left.append_text(literal(draft["yaml"]))
        parts["draft"].update(left)
        right = Text(f"Active v{active['version']}\n" if active else "Active version\n", style="bold")
        right.append_text(literal(active["yaml"]) if active else Text("none: the skill has no manifest yet",
                                                                      style="dim"))
        parts["active"].update(right)
        diff = Text("Diff (active → draft)\n", style="bold")
        diff.append_text(unified_diff(active["yaml"] if active else "", draft["yaml"],
                                      before_name=f"active v{active['version']}" if active else "no manifest",
                                      after_name=draft["id"]))
        parts["diff"].update(diff)
        parts["evidence"].update(self._evidence(draft))
        parts["actions"].update(self._actions(draft))

    show_detail = _show  # what the work queue calls to draw an item

    def _head(self, draft: dict, active: dict | None, based: dict | None) -> Text:
        text = Text()
        text.append_text(literal(draft["id"], style="bold"))
        text.append(" · ")
        text.append_text(literal(draft["skill"], style="bold"))
        text.append(" · ")
        text.append(f"{STATUS_SYMBOL.get(draft['status'], '')} {draft['status']}",
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
        for event in draft_history(self.db, draft["id"]):
            if event["kind"] == "draft.created" and not event["note"]:
                continue
            text.append(f"\n{event['at'][:16].replace('T', ' ')} {event['kind'].split('.')[-1]} by ", style="dim")
            text.append_text(literal(event["actor"] or "?"))
            if event["note"]:
                text.append(": ")
                text.append_text(literal(event["note"]))
        return text

    def _evidence(self, draft: dict) -> Text:
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
            text.append("\n  ✔ " if kept else "\n  · ", style="green" if kept else "dim")
            text.append_text(literal(heading, style="" if kept else "dim"))
            text.append(f"  in {len(runs)}", style="dim")
        dropped = ev.get("forbidden_dropped") or {}
        for pattern, runs in dropped.items():
            text.append("\ndefault forbidden ")
            text.append_text(literal(f'"{pattern}"'))
            text.append(f" left out: the sample contains it ({len(runs)} runs)", style="dim")
        return text

    def _actions(self, draft: dict) -> Text:
        if draft["status"] != "pending":
            return Text(f"This draft is {draft['status']}: nothing to decide.", style="dim")
        if not self.can("manifest.review"):
            return Text(f"{self.person} does not hold manifest.review: browsing only.", style="dim")
        text = Text("[a] approve: make it the active version · [r] reject with a note · "
                    "[e] edit: save a new draft by you")
        for line in failure_lines(sample_failures(self.db, draft)):
            text.append("\n⚠ ", style="yellow")
            text.append_text(literal(line, style="yellow"))
        return text

    # --- decisions -----------------------------------------------------------------------------
    def _pending_draft(self) -> dict | None:
        draft = get_draft(self.db, self.key) if self.key else None
        if draft is None:
            self.notify("Select a draft first.", severity="warning")
            return None
        if not self.can("manifest.review"):
            self.notify(f"{self.person} does not hold manifest.review: browsing only.", severity="error")
            return None
        if draft["status"] != "pending":
            self.notify(f"{draft['id']} is {draft['status']}: nothing to decide.", severity="warning")
            return None
        return draft

    def _run(self, fn, message: str, key: str) -> None:
        try:
            fn()
        except GatepostError as exc:
            self.notify(str(exc), severity="error")
            return
        self.notify(message)
        self.refresh_data()
        self.queue_completed(key)

    def action_approve(self) -> None:
        draft = self._pending_draft()
        if not draft:
            return
        seen = self.seen_seq

        def done(note: str | None) -> None:
            if note is not None:
                self._run(lambda: approve_draft(self.db, draft["id"], actor=self.person, note=note or None,
                                                expected_seq=seen),
                          f"Approved {draft['id']}: it is {draft['skill']}'s active manifest.", draft["id"])

        self.app.push_screen(NoteDialog(f"Approve {draft['id']} for {draft['skill']}", "Note", required=False,
                                    confirm_label="Approve"), done)

    def action_reject(self) -> None:
        draft = self._pending_draft()
        if not draft:
            return
        seen = self.seen_seq

        def done(note: str | None) -> None:
            if note is not None:
                self._run(lambda: reject_draft(self.db, draft["id"], actor=self.person, note=note,
                                               expected_seq=seen), f"Rejected {draft['id']}.", draft["id"])

        self.app.push_screen(NoteDialog(f"Reject {draft['id']} for {draft['skill']}", "What is wrong with it",
                                    confirm_label="Reject"), done)

    def action_edit(self) -> None:
        draft = self._pending_draft()
        if not draft:
            return
        seen = self.seen_seq

        def done(text: str | None) -> None:
            if text is None:
                return
            try:
                new = edit_draft(self.db, draft["id"], text, actor=self.person, expected_seq=seen)
            except GatepostError as exc:
                self.notify(str(exc), severity="error")
                return
            self.notify(f"Saved {new['id']}, a new draft by you; {draft['id']} is superseded.")
            self.query_one(PagedList).reload(keep_key=new["id"])
            self.query_one(PagedList).move_to_key(new["id"])
            self._show(new["id"])
            self.queue_follow(new["id"])

        self.app.push_screen(EditDraftDialog(draft), done)
