"""The audit log: every event, who did what on which revision, when, with its note."""

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Select, Static

from gatepost.keymap import bound, key_for
from gatepost.safe import inert_json, literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.store.kernel import event_actors, event_kinds
from gatepost.store.views import audit_page
from gatepost.widgets.paged_list import Col, PagedList, Row

# every column as wide as its content; the note takes the rest (never cut at a fixed width). An event is read by
# who did what when, and its outcome: never left out; at 80 columns the time loses its seconds and the names are
# cut, the revision and the note go (the detail below shows both); the outcome is shown whole first
COLUMNS = [Col("seq", 7), Col("at (UTC)", 19, min=16), Col("who", 12, min=10), Col("what", 24, min=12, whole=True),
           Col("outcome", 24, min=12, whole=True), Col("on", 48, min=11), Col("rev", 8, drop=4),
           Col("note", None, min=16, drop=1)]


class AuditScreen(GatepostScreen):
    """Filter by actor and by kind of event; `/` searches subjects, kinds and notes."""

    TITLE = "Audit log"  # the header names the screen, as on the list screens
    AUTO_FOCUS = ""  # on_mount focuses the list's table (see ListDetailScreen.AUTO_FOCUS)

    DEFAULT_CSS = """
    AuditScreen .filters Select { width: 1fr; }
    AuditScreen #audit-detail { height: auto; max-height: 12; border: round $secondary; padding: 0 1; }
    """

    BINDINGS = [bound("l", "toggle_leases", "Lease events", "audit.leases")]

    def __init__(self) -> None:
        super().__init__()
        self.actor: str | None = None
        self.kind: str | None = None
        self.leases = False  # lease events (taken, renewed, released on every open) are folded away
        self.leases_hidden = 0
        self._choices: dict[str, list[str]] = {}  # the actors and kinds the filters offer now

    def body(self) -> ComposeResult:
        with Vertical():
            yield Static(id="audit-title", classes="pane-title")
            with Horizontal(classes="filters"):
                yield Select([], prompt="any actor", id="audit-actor", allow_blank=True, compact=True)
                yield Select([], prompt="any kind of event", id="audit-kind", allow_blank=True, compact=True)
            yield PagedList(COLUMNS, self._fetch, empty="No events match: clear the actor and kind filters, or Escape the search.", id="audit-list")
            yield Static("", id="audit-detail")

    def on_mount(self) -> None:
        self.set_focus(self.query_one(PagedList).table)  # at once (see ListDetailScreen.on_mount)
        self._read_choices()

    def on_screen_resume(self) -> None:
        self.refresh_if_changed()  # what was decided, imported or leased since it was last shown

    def refresh_data(self) -> None:
        """The store changed: the newest events come in at the top, and the actors and kinds they bring. A
        cursor on the newest event stays on the newest; one further down stays on its event."""
        paged = self.query_one(PagedList)
        newest = paged.page_offset == 0 and paged.table.cursor_row <= 0
        self._read_choices()
        if newest:
            paged.reload(cursor=0)
        else:
            paged.reload(keep_key=paged.current_key)

    @work(thread=True, exclusive=True, group="choices")
    def _read_choices(self) -> None:
        with self.gp_app.reading() as db:
            actors, kinds = event_actors(db), event_kinds(db)
        self.app.call_from_thread(self._set_choices, actors, kinds)

    def _set_choices(self, actors: list[str], kinds: list[str]) -> None:
        for name, values in (("actor", actors), ("kind", kinds)):
            if self._choices.get(name) == values:
                continue  # the same choices: the one chosen stays as it is
            self._choices[name] = values
            select = self.query_one(f"#audit-{name}", Select)
            chosen = select.value
            with self.prevent(Select.Changed):
                select.set_options([(literal(v), v) for v in values])
                if chosen in values:
                    select.value = chosen

    def _fetch(self, db: Any, search: str, offset: int, limit: int) -> tuple[list[Row], int]:
        page = audit_page(db, actor=self.actor, kind=self.kind, search=search or None, leases=self.leases,
                          limit=limit, offset=offset)
        self._rows = {str(r["seq"]): r for r in page["rows"]}
        self.leases_hidden = page["leases_hidden"]
        return [
            (str(r["seq"]), [r["seq"], r["at"][:19].replace("T", " "), r["actor"] or "—", r["kind"], r["outcome"],
                             f"{r['subject_type']} {one_line(r['subject_id'], 40)}", (r["revision"] or "")[:7],
                             one_line(r["note"], 400)])
            for r in page["rows"]
        ], page["total"]

    @on(PagedList.Loaded)
    def _title(self) -> None:
        key = key_for(self.app, "audit.leases", "l")
        hint = (f"lease events shown · {key} folds them" if self.leases else
                f"{self.leases_hidden:,} lease events folded · {key} shows them" if self.leases_hidden else "")
        self.query_one("#audit-title", Static).update(literal(f"Audit log   {hint}"))

    def action_toggle_leases(self) -> None:
        self.leases = not self.leases
        self.query_one(PagedList).reload()

    @on(Select.Changed)
    def _filter_changed(self, event: Select.Changed) -> None:
        value = None if event.value in (Select.NULL, Select.BLANK) else str(event.value)
        if event.select.id == "audit-actor":
            self.actor = value
        else:
            self.kind = value
        self.query_one(PagedList).reload()

    def apply_filter(self, **filters: str) -> None:
        """actor=, kind= from elsewhere (an overview line): the boxes show it, and a toast says it."""
        if "actor" in filters:
            self.query_one("#audit-actor", Select).value = filters["actor"]
        if "kind" in filters:
            self.query_one("#audit-kind", Select).value = filters["kind"]
        shown = " · ".join(f"{name} {value}" for name, value in filters.items() if name in ("actor", "kind"))
        if shown:
            self.notify(f"Audit log now shows: {shown}", title="Filter changed")

    @on(PagedList.Highlighted)
    def _show(self, event: PagedList.Highlighted) -> None:
        row = getattr(self, "_rows", {}).get(event.key or "")
        detail = self.query_one("#audit-detail", Static)
        if not row:
            detail.update(literal("Nothing selected."))
            return
        text = literal(f"#{row['seq']} {row['at']} · {row['actor'] or '—'} · {row['kind']}\n"
                       f"on {row['subject_type']} {row['subject_id']}"
                       + (f" at revision {row['revision']}" if row["revision"] else "")
                       + (f"\noutcome: {row['outcome']}" if row["outcome"] else "")
                       + (f"\nnote: {row['note']}" if row["note"] else "")
                       + (f"\n{inert_json(row['payload'])}" if row["payload"] else ""))
        detail.update(text)
