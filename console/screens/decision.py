"""DecisionScreen: a ListDetailScreen on which a person decides, alone or working a queue.

The four deciding screens (Cases, Proposals, Manifests, Regressions) configure it:
- DECISIONS: each `Decision` (its name, key, label, what the dialog asks, the capability it needs);
  the bindings, the footer, `?`, the action lines and the dialog are all made from it;
- whether the person may take it on the item shown, and if not why, is the store's answer
  (`flows.may`: the act itself rehearsed and rolled back, read with the item); `legal(name)` says it;
- `perform(db, name, key, note, seen_seq)`: the write, run on the app's one writer thread through
  the same act (`flows.decide_on`); returns a `Done` (the toast, and the item to follow if the
  decision made a new one, as an edit makes a new draft);
- WORK (a `Work`: the queue, the lease's subject type, its filter, the hint once empty) for
  working the list as a queue (`gatepost.screens.queue.Queue`, `self.queue`): `w` takes the first
  item with a lease, a decision lands on the next, `s` sends the item to the back for the session,
  `x` stops.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen
from textual.widget import Widget

from gatepost.keymap import bound, key_for, keys_for
from gatepost.safe import literal, one_line
from gatepost.screens.list_detail import ListDetailScreen
from gatepost.screens.queue import Queue, Work
from gatepost.store.batch import (
    NOT_IN_BULK,
    ItemResult,
    SharedRubric,
    assign_each,
    decide_each,
    shared_rubric,
    summary,
)
from gatepost.store.discussion import thread
from gatepost.store.flows import ANSWERED, decide_on, mark_seen, may
from gatepost.store.glyphs import ASSIGNED, CHANGED, WARNING
from gatepost.store.kernel import (
    UNCHECKED,
    GatepostError,
    Lease,
    Verdict,
    last_seq,
    leases,
)
from gatepost.store.protocol import Question
from gatepost.store.rubrics import (  # by name: loaded as the console starts, not in an item's first read
    QUEUES as RUBRIC_QUEUES,
)
from gatepost.store.rubrics import (
    answers_on,
    queue_rubric,
)
from gatepost.store.views import (
    Assignment,
    QueueState,
    assigned_ids,
    assignment_of,
    changes_since_seen,
)
from gatepost.widgets import bulk
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import Row, as_col
from gatepost.widgets.queue_bar import QueueBar
from gatepost.widgets.rubric_dialog import RubricDialog, answers_of, rubric_blocks
from gatepost.widgets.thread import COMMENT_BINDING, COMMENT_KEY, ask_comment, thread_blocks


@dataclass(frozen=True)
class Decision:
    """One decision a screen offers: `name` is what perform() receives and the binding id's tail."""

    name: str
    key: str
    label: str  # "keep": the footer says "Keep", the dialog "Keep case-0042?"
    capability: str
    prompt: str = "Note"
    required: bool = True
    confirm: str = ""  # the dialog's button; default: the label


@dataclass(frozen=True)
class Done:
    """What a successful write says, and the item the screen should follow (an edit's new draft)."""

    message: str
    follow: str | None = None
    severity: SeverityLevel = "information"


@dataclass
class ItemRead:
    """Everything read for the item shown, in one worker: its detail, seq, lease and the queue."""

    detail: Any
    seen_seq: int | None = None
    holder: Lease | None = None
    queue: QueueState | None = field(default=None)
    changed: str | None = None  # what changed since this person last opened it
    assigned: Assignment | None = None  # who it is assigned to, by whom
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # the store's "may I" for each decision
    comments: list[dict[str, Any]] = field(default_factory=list)  # the item's thread, oldest first
    rubric: tuple[Question, ...] = ()  # the questions its queue asks every decision now (store/rubrics)
    answered: list[dict[str, Any]] = field(default_factory=list)  # the answers its decisions gave, oldest first


def decided_line(what: str, actor: str | None, at: str, note: str | None, extra: str = "") -> Text:
    """`kept by ana at 2026-11-20 10:00 on rev 1a2b3c4: the note` — one past decision, data literal."""
    text = literal(f"{what} by {actor or '?'} at {at[:16].replace('T', ' ')}{extra}", style="bold")
    if note:
        text.append_text(literal(f": {note}"))
    text.append("\n")
    return text


class DecisionScreen(ListDetailScreen):
    """A list whose items a person decides; see the module docstring for what a screen configures."""

    DECISIONS: ClassVar[tuple[Decision, ...]] = ()
    WORK: Work  # a screen may switch queues (Cases: the design reviewers')
    BINDINGS = [
        bound("w", "work_queue", "Work queue", "queue.work"),
        bound("s", "queue_skip", "Skip", "queue.skip"),
        bound("x", "queue_stop", "Stop queue", "queue.stop", show=False),
        bound(COMMENT_KEY, "comment", "Comment", COMMENT_BINDING, show=False),  # `?` lists it; the footer is full
        *bulk.BINDINGS,
    ]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if cls.DECISIONS:  # the decisions' keys first, then the screen's own (before Textual merges them)
            cls.BINDINGS = [bound(d.key, f"decide('{d.name}')", d.label.capitalize(), f"{cls.NAME}.{d.name}")
                            for d in cls.DECISIONS] + list(cls.__dict__.get("BINDINGS", []))
        super().__init_subclass__(**kwargs)

    def __init__(self) -> None:
        super().__init__()
        self.seen_seq: int | None = None
        self.holder: Lease | None = None
        self.queue = Queue(self)
        self._seen_before: tuple[str | None, str | None] = (None, None)  # the item last drawn, what had changed
        self._marked_seen: dict[str, bool] = {}
        self._unmark: set[str] = set()  # rows opened with ● whose read receipt is written: it goes when left
        self.looked = Text()
        self.verdicts: dict[str, Verdict] = {}  # the store's answer for the item shown, by decision
        self.marked: dict[str, int | None] = {}  # rows marked (Space) -> the item's seq when marked
        self.rubric: tuple[Question, ...] = ()  # the queue's questions, read with the item shown

    # --- what a screen provides -----------------------------------------------------------------
    NOUN: ClassVar[str] = "item"  # "no item selected"

    def allowed_note(self, name: str) -> str:
        """What an allowed decision does, beside its key (a screen may say; nothing by default)."""
        return ""

    def legal(self, name: str) -> tuple[bool, str]:
        """Whether the person may take `name` on the item shown, and if not why: the store's answer, read with
        the item (`flows.may` rehearsed the act itself), so what is enabled is what the store accepts."""
        if self.detail is None or self.shown is None:
            return False, f"no {self.NOUN} selected"
        verdict = self.verdicts.get(name)
        if verdict is None:
            return False, "not checked yet"
        if verdict.allowed:
            return True, self.allowed_note(name) if verdict.rule != UNCHECKED else verdict.why
        return False, f"{verdict.rule}: {verdict.why}" if verdict.rule else verdict.why

    def perform(self, db: Any, name: str, key: str, note: str, seen_seq: int | None) -> Done:
        """The decision's act; a note from the rubric's dialog carries the answers to it."""
        return self.done(name, key, decide_on(db, self.WORK.subject, name, key, actor=self.person, note=str(note),
                                              seen_seq=seen_seq, answers=answers_of(note)))

    def questions(self, decision: Decision) -> list[Question]:
        """The rubric `decision` asks on the item shown: its queue's, read with the item (a case's: its protocol's,
        CasesScreen)."""
        return list(self.rubric) if decision.name in ANSWERED else []

    def done(self, name: str, key: str, result: Any) -> Done:
        """What a decision taken says (the act returned `result`)."""
        return Done(f"{key}: {self.decision(name).label} by {self.person}")

    def dialog(self, decision: Decision, key: str, *, note: str = "", refused: str = "") -> ModalScreen[Any]:
        """The dialog that asks for the note (a screen may offer another, as the draft editor); `note` is what
        the person typed before `refused` came back."""
        what = self.title_of(self.detail)
        title = f"{decision.label.capitalize()} {key}?" + (f"  ({one_line(what, 40)})" if what else "")
        questions = self.questions(decision)
        if questions:
            return RubricDialog(title, questions, decision.prompt, required=decision.required,
                                confirm_label=(decision.confirm or decision.label).capitalize(), initial=note,
                                refused=refused)
        return NoteDialog(title, decision.prompt, required=decision.required,
                          confirm_label=(decision.confirm or decision.label).capitalize(), initial=note,
                          refused=refused)

    async def _refused(self, decision: Decision, key: str, note: str, why: str) -> None:
        """A decision refused after the note was typed (someone acted meanwhile): the item is read again, and
        the dialog comes back with the note and the refusal, to decide again on what is there now or cancel."""
        self.reload_list()
        self.show(key)
        await self.detail_settled.wait()
        if self.shown != key:
            self.notify(f"{key} is gone from the store: your note was not written:\n{note}", severity="error",
                        timeout=30)
            return
        self._ask(decision, key, self.seen_seq, note=note, refused=why)

    def title_of(self, detail: Any) -> str | None:
        """The shown item's title, quoted in the dialog."""
        return detail.get("title") if isinstance(detail, dict) else None

    def seq_of(self, db: Any, key: str, detail: Any) -> int | None:
        """The seq the person saw: a decision is refused if the subject changed since."""
        return last_seq(db, self.WORK.subject, key)

    def top(self) -> Iterator[Widget]:
        yield QueueBar()

    # --- reading --------------------------------------------------------------------------------
    def decision(self, name: str) -> Decision:
        return next(d for d in self.DECISIONS if d.name == name)

    def read_item(self, db: Any, key: str) -> ItemRead | None:
        detail = self.fetch_detail(db, key)
        if detail is None:
            return None
        kind = self.WORK.subject
        seq = self.seq_of(db, key, detail)
        asked = queue_rubric(db, kind) if kind in RUBRIC_QUEUES else None
        return ItemRead(detail, seq, leases.holder(db, kind, key), self.queue.read(db),
                        changes_since_seen(db, self.person, kind, [key]).get(key), assignment_of(db, kind, key),
                        may(db, kind, key, actor=self.person, seen_seq=seq,
                            names=[d.name for d in self.DECISIONS]), thread(db, kind, key),
                        asked.rubric.questions if asked else (),
                        answers_on(db, kind, key) if kind in RUBRIC_QUEUES else [])

    def contradicted(self, db: Any, keys: list[str]) -> set[str]:
        """The keys of a page whose decision later evidence contradicts (⚠ on their rows); none by default."""
        return set()

    def mark_rows(self, db: Any, rows: list[Row]) -> list[Row]:
        """A list page with its markers before the first cell: ● changed since you looked, → assigned to you,
        ⚠ a decision later evidence contradicts."""
        kind = self.WORK.subject
        keys = [key for key, _cells in rows]
        changed = changes_since_seen(db, self.person, kind, keys)
        mine = assigned_ids(db, self.person, kind)
        flagged = self.contradicted(db, keys) if keys else set()
        at = self.mark_column()
        out: list[Row] = []
        for key, cells in rows:
            mark = (bulk.MARK if key in self.marked else "") + (CHANGED if key in changed else "") + \
                (ASSIGNED if key in mine else "")
            if (mark or key in flagged) and len(cells) > at:
                value = cells[at]
                cell = value if isinstance(value, Text) else literal(str(value))
                prefix = Text(WARNING, style="bold yellow") if key in flagged else Text()
                prefix.append(mark, style="bold cyan")
                cells = [*cells[:at], prefix + Text(" ") + cell if cell.plain else prefix, *cells[at + 1:]]
            out.append((key, cells))
        return out

    def mark_column(self) -> int:
        """The column the markers go on: the first one never left out and wide enough to hold them (a narrow
        marker column, Col("", 3), or a name), so a narrow terminal keeps them."""
        cols = [as_col(c) for c in self.COLUMNS]
        return next((i for i, c in enumerate(cols)
                     if not c.drop and c.instead is None and (c.width is None or c.width >= 3)), 0)

    def _looked(self, key: str, read: ItemRead) -> Text:
        """What changed since the person last opened the item and who it is assigned to; then it counts as seen.

        Drawing the same item again (a refresh) keeps saying what had changed when the person opened it.
        """
        self._unmark_left(key)
        changed = read.changed
        if self._seen_before[0] == key:
            changed = changed or self._seen_before[1]
        self._seen_before = (key, changed)
        text = Text()
        if changed:
            text.append_text(literal(f"{CHANGED} {changed}", style="bold cyan"))
        if read.assigned:
            text.append("  " if text.plain else "")
            who = "you" if read.assigned["assignee"] == self.person else read.assigned["assignee"]
            text.append_text(literal(f"{ASSIGNED} assigned to {who} by {read.assigned['assigned_by'] or '—'}", style="cyan"))
        if read.changed or not self._marked_seen.get(key):
            self._marked_seen[key] = True
            kind, person = self.WORK.subject, self.person
            # a personal read mark, not a record: on a store that cannot be written (read-only media) it is
            # skipped, and browsing goes on
            marked = bool(read.changed)

            async def mark() -> None:
                await self.gp_app.write(lambda db: mark_seen(db, person, kind, key))
                if marked:
                    self._unmark.add(key)
                    self._unmark_left(self.wanted)

            self.app.run_worker(mark(), group="seen", exit_on_error=False)
        return text

    def _unmark_left(self, showing: str | None) -> None:
        """A row opened with ● keeps it while it is shown (the list still says what the person came to see)
        and loses it once they move on; a read receipt moves no change_seq, so nothing else reloads for it."""
        if self._unmark - {showing}:
            self._unmark &= {showing}
            self.paged.reload(keep_key=self.paged.current_key, quiet=True)

    def read_nothing(self, db: Any) -> ItemRead:
        return ItemRead(None, queue=self.queue.read(db))

    def _apply_detail(self, key: str | None, detail: Any) -> None:
        if key != self.wanted:
            return
        read: ItemRead | None = detail
        self.seen_seq = read.seen_seq if read else None
        self.verdicts = read.verdicts if read else {}
        self.holder = read.holder if read else None
        self.looked = self._looked(key, read) if key and read else Text()
        # a queue counted (not worked when read) never replaces the listed one a queue being worked reads
        if read and read.queue is not None and (read.queue.listed or not self.queue.active):
            self.queue.state = read.queue
        self.rubric = read.rubric if read else ()
        self.lines.tail = (rubric_blocks(read.rubric, read.answered) + thread_blocks(read.comments)
                           if read and read.detail is not None else [])
        super()._apply_detail(key, read.detail if read else None)
        self.queue.render()


    # --- deciding -------------------------------------------------------------------------------
    def capable(self, decision: Decision) -> bool:
        return self.can(decision.capability)

    def browsing_only(self) -> bool:
        """The person holds none of the capabilities this screen's decisions need: they browse."""
        return not any(self.capable(d) for d in self.DECISIONS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decide" and parameters:
            # enabled exactly when the store accepts it now; hidden from a person who only browses. A disabled
            # key pressed says why (on_key). With rows marked, it goes to each of them: each item's act decides
            if self.browsing_only():
                return False
            if self.marked:
                return True if self._bulk_why_not(str(parameters[0])) is None else None
            return True if self.legal(str(parameters[0]))[0] else None
        if action == "work_queue":  # dimmed for a person who may decide nothing here; pressed, it says why (on_key)
            return None if self.browsing_only() else True
        if action in ("queue_skip", "queue_stop"):  # only while working the queue: not in help, nor the footer
            return self.queue.active
        return super().check_action(action, parameters)

    def decision_keys(self) -> dict[str, str]:
        """Each key that takes a decision (as the keymap binds it), and the decision's name."""
        return {key: d.name for d in self.DECISIONS for key in keys_for(self.app, f"{self.NAME}.{d.name}", d.key)}

    def on_key(self, event: events.Key) -> None:
        """A decision's key (or the queue's) pressed while it is disabled (or hidden: browsing only) says why,
        instead of nothing."""
        pressed = {event.key, event.character or ""}
        if self.browsing_only() and pressed & set(keys_for(self.app, "queue.work", "w")):
            event.stop()
            event.prevent_default()
            self.queue.may_work()  # tells the person why there is no queue for them
            return
        name = self.decision_keys().get(event.key) or self.decision_keys().get(event.character or "")
        if name is None or self.check_action("decide", (name,)):
            return
        event.stop()
        event.prevent_default()
        self.action_decide(name)

    def browsing_text(self) -> Text:
        """What a person who only browses is told instead of the decisions they cannot take."""
        return literal(f"{self.person} holds none of {', '.join(self.queue.capabilities())}: browsing only, "
                       "no decisions here\n", style="dim")

    def actions_text(self) -> Text:
        """One line a decision: its key and label, and why not (the store's refusal) when it cannot be taken now."""
        if self.browsing_only():
            return self.browsing_text()
        text = Text()
        for d in self.DECISIONS:
            allowed, why = self.legal(d.name)
            text.append(f"[{key_for(self.app, f'{self.NAME}.{d.name}', d.key)}] {d.label}",
                        style="bold" if allowed else "dim")
            if not allowed:
                text.append_text(literal(f" — {why}", style="dim"))
            text.append("\n")
        return text

    def action_decide(self, name: str) -> None:
        decision = self.decision(name)
        if self.browsing_only():
            self.notify(f"{self.person} holds none of {', '.join(self.queue.capabilities())}: browsing only, "
                        "no decisions here.", title="Browsing only", severity="warning")
            return
        if self.marked:
            self._ask_bulk(decision)
            return
        allowed, why = self.legal(name)
        if not allowed:
            self.notify(f"{decision.label}: {why}", title="Not allowed", severity="warning")
            return
        key, seq = self.shown, self.seen_seq
        assert key is not None  # legal() says no item is shown otherwise
        self._ask(decision, key, seq)

    def _ask(self, decision: Decision, key: str, seq: int | None, *, note: str = "", refused: str = "") -> None:
        """The decision's dialog; a note typed before a refusal comes back in it, with the refusal."""

        def done(typed: str | None) -> None:
            if typed is not None:
                self.run_worker(self._decide(decision, key, typed, seq), group="decide")

        self.app.push_screen(self.dialog(decision, key, note=note, refused=refused), done)

    async def _decide(self, decision: Decision, key: str, note: str, seq: int | None) -> None:
        try:
            done: Done = await self.gp_app.write(self.perform, decision.name, key, note, seq)
        except GatepostError as exc:
            self.notify(str(exc), title="Refused", severity="error", timeout=10)
            await self._refused(decision, key, note, str(exc))
            return
        self.notify(done.message, title="Decided", severity=done.severity)
        if done.follow:
            self.open_item(done.follow)
            if self.queue.active:
                await self.queue.go(None, prefer=done.follow, release=True)
            return
        self.render_title()
        if self.queue.active and key == self.queue.key:
            self.queue.done += 1
            self.paged.reload(quiet=True)  # the cursor stays on the item shown: the next one, once the queue took it
            await self.queue.go(key, release=True)  # shows the next item: the decided one is not read again
            if self.wanted != key:
                return
        # the decided item stays shown while it is still on the list; one that left it (the filter no longer
        # holds it) gives its row to the next, which the cursor and the detail then show alike
        self.paged.reload(keep_key=key, quiet=True, keep_row=True)
        self.show(key)  # the decided item in its new state (the queue ended, stopped or was not worked)

    # --- comments -------------------------------------------------------------------------------
    def action_comment(self) -> None:
        """Comment on the item shown: a note that decides nothing, an event on the item (`@name` mentions)."""
        ask_comment(self, self.WORK.subject, self.shown, noun=self.NOUN,
                    after=lambda key: self.show(key) if self.shown == key else None)

    # --- marked rows: one decision or assignment on each, each its own act -----------------------
    def title_extra(self) -> Text:
        return (Text("  ") + bulk.marked_text(len(self.marked), self.NOUN)) if self.marked else Text()

    def action_toggle_mark(self) -> None:
        """Space: mark the row under the cursor (or unmark it); the item's seq is read as it is marked, so an item
        that changes after is refused by its seen-seq rule when the decision comes."""
        key = self.paged.current_key
        if key is None:
            return
        if key in self.marked:
            del self.marked[key]
        else:
            self.marked[key] = None
            self._read_marked_seq(key)
        self.render_title()
        self.paged.reload(keep_key=key, quiet=True, keep_row=True)

    @work(thread=True, group="mark")
    def _read_marked_seq(self, key: str) -> None:
        seq = self.gp_app.read(last_seq, self.WORK.subject, key)
        self.app.call_from_thread(self._marked_seq, key, seq)

    def _marked_seq(self, key: str, seq: int) -> None:
        if key in self.marked:
            self.marked[key] = seq

    def _bulk_why_not(self, name: str) -> str | None:
        decision = self.decision(name)
        why = NOT_IN_BULK.get((self.WORK.subject, name))
        if why:
            return f"{decision.label} is taken on one {self.NOUN} at a time ({why})"
        if not self.capable(decision):
            return f"{self.person} does not hold {decision.capability}"
        return None

    def _ask_bulk(self, decision: Decision) -> None:
        why = self._bulk_why_not(decision.name)
        if why:
            self.notify(f"{decision.label}: {why}", title="Not allowed", severity="warning")
            return
        self._read_bulk_rubric(decision, dict(self.marked))

    @work(thread=True, group="bulk-rubric")
    def _read_bulk_rubric(self, decision: Decision, seen: dict[str, int | None]) -> None:
        """The rubric the marked items share, read before the dialog: it asks the questions once."""
        try:
            shared: SharedRubric | str = self.gp_app.read(shared_rubric, self.WORK.subject, decision.name, list(seen))
        except GatepostError as exc:
            shared = str(exc)
        self.app.call_from_thread(self._bulk_dialog, decision, seen, shared)

    def _bulk_dialog(self, decision: Decision, seen: dict[str, int | None], shared: SharedRubric | str) -> None:
        """One dialog for the marked items: the rubric they share asked once (the items it does not apply to
        named), or why it cannot be (they ask different rubrics): then nothing is decided."""
        if isinstance(shared, str) or shared.mixed:
            why = shared if isinstance(shared, str) else str(shared.mixed)
            self.notify(f"{decision.label}: {why}", title="Not allowed", severity="warning", timeout=10)
            return
        n = len(seen)
        title = f"{decision.label.capitalize()} {n} marked {self.NOUN}{'' if n == 1 else 's'}? (each its own act)"

        def done(typed: str | None) -> None:
            if typed is not None:
                self.run_worker(self._bulk(decision, seen, typed), group="decide")

        confirm = (decision.confirm or decision.label).capitalize()
        if shared.rubric is None:
            self.app.push_screen(NoteDialog(title, decision.prompt, required=decision.required,
                                            confirm_label=confirm), done)
            return
        aside = (f"The rubric does not apply to {', '.join(shared.unasked)}: asking none, "
                 f"{'it is' if len(shared.unasked) == 1 else 'they are'} decided without the answers."
                 if shared.unasked else "")
        self.app.push_screen(RubricDialog(title, list(shared.rubric.questions), decision.prompt,
                                          required=decision.required, confirm_label=confirm, aside=aside), done)

    async def _bulk(self, decision: Decision, seen: dict[str, int | None], note: str) -> None:
        try:
            results: list[ItemResult] = await self.gp_app.write(
                decide_each, self.WORK.subject, decision.name, list(seen), actor=self.person, note=str(note),
                seen=seen, answers=answers_of(note))
        except GatepostError as exc:
            self.notify(str(exc), title="Refused", severity="error", timeout=10)
            return
        self._bulk_done(results, summary(results, decision.label))

    def action_assign(self) -> None:
        """A: assign the marked items (or the item shown) to a person, each its own act."""
        keys = list(self.marked) or ([self.shown] if self.shown else [])
        if not keys:
            self.notify(f"No {self.NOUN} selected.", severity="warning")
            return
        n = len(keys)
        dialog = bulk.AssignDialog(f"Assign {n} {self.NOUN}{'' if n == 1 else 's'}"
                                   + (f" ({keys[0]})" if n == 1 else " (each its own act)"))

        def done(name: str | None) -> None:
            if name is not None:
                self.run_worker(self._assign(keys, name, dialog.note), group="decide")

        self.app.push_screen(dialog, done)

    async def _assign(self, keys: list[str], name: str, note: str) -> None:
        try:
            results: list[ItemResult] = await self.gp_app.write(
                assign_each, self.WORK.subject, keys, name, actor=self.person, note=note or None)
        except GatepostError as exc:
            self.notify(str(exc), title="Refused", severity="error", timeout=10)
            return
        self._bulk_done(results, summary(results, f"assign to {name}"))

    def _bulk_done(self, results: list[ItemResult], said: str) -> None:
        """The items done leave the marks; the refused stay marked, and their refusals are listed."""
        for r in results:
            if r.done:
                self.marked.pop(r.key, None)
        self.render_title()
        self.paged.reload(keep_key=self.paged.current_key, quiet=True)
        if self.shown:
            self.show(self.shown)
        if all(r.done for r in results):
            self.notify(said, title="Done")
        else:
            self.app.push_screen(bulk.BulkReport(said, [r.as_dict() for r in results]))

    # --- the queue: the keys, on the component that works it -----------------------------------
    def action_work_queue(self) -> None:
        """Start (or restart) working the queue from its first item."""
        self.queue.start()

    def action_queue_skip(self) -> None:
        """Leave this item for later this session (or for someone else) and open the next one."""
        self.queue.skip()

    def action_queue_stop(self) -> None:
        self.queue.stop()

    def on_screen_suspend(self) -> None:
        super().on_screen_suspend()
        if isinstance(self.app.screen, ModalScreen):  # a dialog or help over this screen: still here
            return
        if self.queue.active:
            self.queue.finish()
