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
  working the list as a queue: `w` takes the first item with a lease, a
  decision lands on the next, `s` sends the item to the back for the session, `x` stops.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen
from textual.widget import Widget

from gatepost.keymap import bound, key_for, keys_for
from gatepost.safe import literal, one_line
from gatepost.screens.list_detail import ListDetailScreen
from gatepost.store.flows import decide_on, mark_seen, may
from gatepost.store.kernel import (
    UNCHECKED,
    ConflictError,
    GatepostError,
    Lease,
    Verdict,
    last_seq,
    leases,
    transaction,
)
from gatepost.store.views import (
    QUEUES,
    Assignment,
    QueueState,
    assigned_ids,
    assignment_of,
    change_seq,
    changes_since_seen,
    queue_state,
)
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import Row, as_col
from gatepost.widgets.queue_bar import QueueBar, until

RENEW_EVERY = 300.0  # seconds: a 15-minute lease renewed every 5 minutes while the item stays open


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
class Work:
    """How the list is worked as a queue: the queue's name (store.views.QUEUES), the lease's subject
    type, the filter that shows the queue's items, and what to do once it is empty."""

    queue: str
    subject: str
    filter: dict[str, str]
    empty_hint: str

    @property
    def name(self) -> str:
        return self.queue


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
    WORK: "Work"  # a screen may switch queues (Cases: the design reviewers')
    BINDINGS = [
        bound("w", "work_queue", "Work queue", "queue.work"),
        bound("s", "queue_skip", "Skip", "queue.skip"),
        bound("x", "queue_stop", "Stop queue", "queue.stop", show=False),
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
        self.queue: QueueState | None = None
        self.queue_active = False
        self.queue_key: str | None = None  # the item the person works now (and holds a lease on)
        self.queue_done = 0  # decisions taken since the queue was started
        self.queue_skipped: list[str] = []  # skipped this session: they come back last
        self.queue_lap: list[str] = []  # skipped since the queue came round to its first item: the position
        self._queue_ended: Text | None = None
        self._queue_refused: Text | None = None  # why the queue could not be worked (a read-only store)
        self._queue_timer: Any = None
        self._seen_before: tuple[str | None, str | None] = (None, None)  # the item last drawn, what had changed
        self._marked_seen: dict[str, bool] = {}
        self._unmark: set[str] = set()  # rows opened with ● whose read receipt is written: it goes when left
        self.looked = Text()
        self.verdicts: dict[str, Verdict] = {}  # the store's answer for the item shown, by decision
        self._queue_cache: tuple[int, str, QueueState] | None = None  # (change_seq, queue, the queue then)

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
        return self.done(name, key, decide_on(db, self.WORK.subject, name, key, actor=self.person, note=note,
                                              seen_seq=seen_seq))

    def done(self, name: str, key: str, result: Any) -> Done:
        """What a decision taken says (the act returned `result`)."""
        return Done(f"{key}: {self.decision(name).label} by {self.person}")

    def dialog(self, decision: Decision, key: str, *, note: str = "", refused: str = "") -> ModalScreen[Any]:
        """The dialog that asks for the note (a screen may offer another, as the draft editor); `note` is what
        the person typed before `refused` came back."""
        what = self.title_of(self.detail)
        title = f"{decision.label.capitalize()} {key}?" + (f"  ({one_line(what, 40)})" if what else "")
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
        return ItemRead(detail, seq, leases.holder(db, kind, key), self._queue_now(db),
                        changes_since_seen(db, self.person, kind, [key]).get(key), assignment_of(db, kind, key),
                        may(db, kind, key, actor=self.person, seen_seq=seq,
                            names=[d.name for d in self.DECISIONS]))

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
            mark = ("●" if key in changed else "") + ("→" if key in mine else "")
            if (mark or key in flagged) and len(cells) > at:
                value = cells[at]
                cell = value if isinstance(value, Text) else literal(str(value))
                prefix = Text("⚠", style="bold yellow") if key in flagged else Text()
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
            text.append_text(literal(f"● {changed}", style="bold cyan"))
        if read.assigned:
            text.append("  " if text.plain else "")
            who = "you" if read.assigned["assignee"] == self.person else read.assigned["assignee"]
            text.append_text(literal(f"→ assigned to {who} by {read.assigned['assigned_by'] or '—'}", style="cyan"))
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
        return ItemRead(None, queue=self._queue_now(db))

    def _queue_now(self, db: Any) -> QueueState:
        """The queue, read again only when the store changed since (its change_seq: a cursor move, even with
        the seen mark it writes, does not move it), and on 10,000 cases it was the costliest read of a move."""
        version, name = change_seq(db), self.WORK.name  # Cases switches between two queues
        cached = self._queue_cache
        if cached is not None and cached[:2] == (version, name):
            return cached[2]
        state = queue_state(db, name, self.person)
        self._queue_cache = (version, name, state)
        return state

    def _apply_detail(self, key: str | None, detail: Any) -> None:
        if key != self.wanted:
            return
        read: ItemRead | None = detail
        self.seen_seq = read.seen_seq if read else None
        self.verdicts = read.verdicts if read else {}
        self.holder = read.holder if read else None
        self.looked = self._looked(key, read) if key and read else Text()
        if read and read.queue is not None:
            self.queue = read.queue
        super()._apply_detail(key, read.detail if read else None)
        self.queue_render()


    # --- deciding -------------------------------------------------------------------------------
    def capable(self, decision: Decision) -> bool:
        return self.can(decision.capability)

    def browsing_only(self) -> bool:
        """The person holds none of the capabilities this screen's decisions need: they browse."""
        return not any(self.capable(d) for d in self.DECISIONS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decide" and parameters:
            # enabled exactly when the store accepts it now; hidden from a person who only browses. A disabled
            # key pressed says why (on_key)
            if self.browsing_only():
                return False
            return True if self.legal(str(parameters[0]))[0] else None
        return super().check_action(action, parameters)

    def decision_keys(self) -> dict[str, str]:
        """Each key that takes a decision (as the keymap binds it), and the decision's name."""
        return {key: d.name for d in self.DECISIONS for key in keys_for(self.app, f"{self.NAME}.{d.name}", d.key)}

    def on_key(self, event: events.Key) -> None:
        """A decision's key pressed while it is disabled (or hidden: browsing only) says why, instead of nothing."""
        name = self.decision_keys().get(event.key) or self.decision_keys().get(event.character or "")
        if name is None or self.check_action("decide", (name,)):
            return
        event.stop()
        event.prevent_default()
        self.action_decide(name)

    def browsing_text(self) -> Text:
        """What a person who only browses is told instead of the decisions they cannot take."""
        return literal(f"{self.person} holds none of {', '.join(self._queue_capabilities())}: browsing only, "
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
            self.notify(f"{self.person} holds none of {', '.join(self._queue_capabilities())}: browsing only, "
                        "no decisions here.", title="Browsing only", severity="warning")
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
            if self.queue_active:
                await self._queue_go(None, prefer=done.follow, release=True)
            return
        self.render_title()
        if self.queue_active and key == self.queue_key:
            self.queue_done += 1
            self.paged.reload(quiet=True)  # the cursor stays on the item shown: the next one, once the queue took it
            await self._queue_go(key, release=True)  # shows the next item: the decided one is not read again
            if self.wanted != key:
                return
        # the decided item stays shown while it is still on the list; one that left it (the filter no longer
        # holds it) gives its row to the next, which the cursor and the detail then show alike
        self.paged.reload(keep_key=key, quiet=True, keep_row=True)
        self.show(key)  # the decided item in its new state (the queue ended, stopped or was not worked)

    # --- the queue ------------------------------------------------------------------------------
    @property
    def queue_label(self) -> str:
        return QUEUES[self.WORK.name].label

    def _k(self, binding_id: str, default: str) -> str:
        return key_for(self.app, binding_id, default)

    def queue_render(self) -> None:
        """Redraw the bar: progress (or how many wait and how to start) and who holds the item shown."""
        bars = list(self.query(QueueBar))
        qs = self.queue
        if not bars or qs is None:
            return
        bar = bars[0]
        held = f" · {len(qs.held)} held by others" if qs.held else ""
        text = Text()
        if self.queue_active and self.queue_key:
            # a skip moves on as a decision does: the item after it is one further; once every item left was
            # skipped the first comes back, and the count starts again from it
            position = min(len([k for k in self.queue_lap if k in qs.keys]) + 1, max(len(qs.keys), 1))
            text.append("▶ Queue", style="bold")
            text.append_text(literal(f" · {self.queue_label}: {self.queue_done + position} of "
                                     f"{self.queue_done + max(len(qs.keys), position)}"))
            text.append_text(literal(f" · {self.queue_done} done{held}", style="dim"))
            text.append(f"   decide to move on · {self._k('queue.skip', 's')} skip · "
                        f"{self._k('queue.stop', 'x')} stop", style="dim")
            bar.add_class("-working")
        else:
            bar.remove_class("-working")
            if not self._queue_capabilities_held():
                # nobody's queue: an unknown name, a producer or a person without these capabilities browses
                text.append_text(literal(f"{self.queue_label}: {len(qs.keys) or 'none'} waiting{held} · "
                                         f"{self.person} holds none of {', '.join(self._queue_capabilities())}: "
                                         "browsing only", style="dim"))
            elif qs.keys:
                self._queue_ended = None
                text.append(self._k("queue.work", "w"), style="bold")
                text.append_text(literal(f" work the queue · {self.queue_label}: {len(qs.keys)} for you{held}"))
            elif self._queue_ended is not None:
                text = self._queue_ended
            else:
                text.append_text(literal(f"Queue empty: no {self.queue_label} left for you{held}.", style="dim"))
        if self._queue_refused is not None:
            text.append("\n")
            text.append_text(self._queue_refused)
        holding = self.looked.copy() if self.shown else Text()
        lease = self.holder if self.shown else None
        if lease and holding.plain:
            holding.append("\n")
        if lease and lease["holder"] != self.person:
            holding.append("⚑ ", style="bold yellow")
            holding.append_text(literal(f"{lease['holder']} is working on it until {until(lease)}",
                                        style="bold yellow"))
            holding.append(" — your decisions on it are refused until then", style="yellow")
        elif lease:
            holding.append_text(literal(f"you hold it until {until(lease)} (renewed while it stays open)",
                                        style="dim"))
        bar.show(progress=text, holding=holding)

    def _queue_capabilities(self) -> list[str]:
        """The capabilities any of which lets a person work this screen's queue (one per decision)."""
        return sorted({d.capability for d in self.DECISIONS})

    def _queue_capabilities_held(self) -> bool:
        return any(self.can(c) for c in self._queue_capabilities())

    def _may_work(self) -> bool:
        if self._queue_capabilities_held():
            return True
        self.notify(f"{self.person} holds none of {', '.join(self._queue_capabilities())}: browsing only, no "
                    "queue to work.", severity="warning")
        return False

    def action_work_queue(self) -> None:
        """Start (or restart) working the queue from its first item."""
        if not self._may_work():
            return
        self.queue_active, self.queue_done, self.queue_skipped, self.queue_lap = True, 0, [], []
        self._queue_refused = None
        if self.WORK.filter:
            self.apply_filter(**self.WORK.filter)
        self.run_worker(self._queue_go(None), group="queue")

    def action_queue_skip(self) -> None:
        """Leave this item for later this session (or for someone else) and open the next one."""
        if not self.queue_active or not self.queue_key:
            self.notify(f"Press {self._k('queue.work', 'w')} to work the queue first.", severity="warning")
            return
        if self.queue and self.queue.keys == [self.queue_key]:
            self.notify("This is the only item left in your queue.", severity="warning")
            return
        skipped = self.queue_key
        self.queue_skipped = [k for k in self.queue_skipped if k != skipped] + [skipped]
        self.queue_lap.append(skipped)
        self.run_worker(self._queue_go(skipped, release=True), group="queue")

    def action_queue_stop(self) -> None:
        if self.queue_active:
            self._queue_finish()
            self.notify("Stopped working the queue; the item is free for others again.")

    async def _queue_go(self, after: str | None, *, prefer: str | None = None, release: bool = False) -> None:
        """Take the next item's lease (on the writer) and show it; the queue ends when none is left."""
        person, subject, queue = self.person, self.WORK.subject, self.WORK.name
        current = self.queue_key if release or after is None else None
        skipped = list(self.queue_skipped)

        def take_next(db: Any) -> tuple[str | None, QueueState]:
            with transaction(db):  # giving the item back and taking the next: one write, not two
                qs = queue_state(db, queue, person)
                order = [k for k in qs.keys if k not in skipped] + [k for k in skipped if k in qs.keys]
                candidates = ([prefer] if prefer in qs.keys else []) + [k for k in order if k not in (after, prefer)]
                if after in order and after not in candidates:
                    candidates.append(after)  # a skipped item still comes back, last
                for candidate in candidates:
                    if current and current != candidate:
                        leases.release(db, subject, current, person)
                    try:
                        leases.take(db, subject, candidate, person)
                    except ConflictError:  # someone took it since we looked: the next one
                        continue
                    return candidate, queue_state(db, queue, person)
                if current:
                    leases.release(db, subject, current, person)
                return None, queue_state(db, queue, person)

        try:
            key, qs = await self.gp_app.write(take_next)
        except GatepostError as exc:  # the store refused the lease (read-only media, a broken store)
            self._queue_stop_refused(exc)
            return
        self.queue = qs
        if not self.queue_active:  # stopped meanwhile
            return
        if key is None:
            self.queue_key = None
            self._queue_empty(qs)
            return
        self.queue_key = key
        if key in self.queue_lap:  # came round to an item skipped before: a new lap
            self.queue_lap = []
        self.gp_app.lease_holders.add(self)
        if self._queue_timer is None:
            self._queue_timer = self.set_interval(RENEW_EVERY, self._renew_later)
        if self.paged.move_to_key(key):
            self.show(key)
        else:
            self.open_item(key)
        self.queue_render()

    def _queue_stop_refused(self, exc: GatepostError) -> None:
        """The queue could not take (or give back) a lease: stop it, say why in one line, keep browsing."""
        self.queue_active = False
        self.queue_key = None
        self.gp_app.lease_holders.discard(self)
        if self._queue_timer is not None:
            self._queue_timer.stop()
            self._queue_timer = None
        self._queue_refused = literal(f"✘ queue stopped: {one_line(str(exc), 200)}", style="bold red")
        self.notify(str(exc), title="Queue stopped", severity="error", timeout=10)
        self.queue_render()

    def _queue_empty(self, qs: QueueState) -> None:
        done = self.queue_done
        self._queue_finish(render=False)
        held = f" {len(qs.held)} held by others." if qs.held else ""
        text = Text("✔ Queue empty", style="bold green")
        text.append_text(literal(f": {done} decided, no {self.queue_label} left for you.{held} "
                                 f"{self.WORK.empty_hint}"))
        self._queue_ended = text
        for bar in self.query(QueueBar):
            bar.show(progress=text, holding=Text())
        self.notify(f"Queue empty: no {self.queue_label} left for you. {self.WORK.empty_hint}", title="Done")

    def _renew(self, db: Any) -> str | None:
        """Renew the held item's lease (on the writer); the refusal when it was lost."""
        if not (self.queue_active and self.queue_key):
            return None
        try:
            leases.take(db, self.WORK.subject, self.queue_key, self.person)
        except ConflictError as exc:
            return str(exc)
        return None

    def _queue_renew(self) -> None:
        """Renew now, on the calling thread's connection (the timer goes through the writer)."""
        self._renew(self.gp_app.db)

    def _renew_later(self) -> None:
        async def renew() -> None:
            try:
                lost = await self.gp_app.write(self._renew)
            except GatepostError as exc:
                self._queue_stop_refused(exc)
                return
            if lost:
                self.notify(lost, title="Lease lost", severity="error", timeout=10)
            if self.shown:
                self.show(self.shown)

        self.run_worker(renew(), group="queue")

    def _release_on(self, db: Any, key: str | None) -> None:
        if key:
            leases.release(db, self.WORK.subject, key, self.person)

    def lease_release(self) -> Callable[[Any], None]:
        """The act that gives back the item this screen holds, bound here on the UI thread: the app runs it on
        its writer thread as it quits, after every pending write, where no app context can be read."""
        key, self.queue_key = self.queue_key, None
        subject, person = self.WORK.subject, self.person

        def release(db: Any) -> None:
            if key:
                leases.release(db, subject, key, person)

        return release

    def _queue_finish(self, *, render: bool = True) -> None:
        key, self.queue_key = self.queue_key, None
        self.queue_active = False
        self.gp_app.lease_holders.discard(self)
        if self._queue_timer is not None:
            self._queue_timer.stop()
            self._queue_timer = None
        if key:
            release: Callable[[Any], None] = lambda db: self._release_on(db, key)  # noqa: E731

            async def give_back() -> None:
                try:
                    await self.gp_app.write(release)
                except GatepostError as exc:  # nothing to give back on a store that took nothing
                    self.notify(str(exc), title="Lease", severity="warning")
                    return
                if render and self.shown:
                    self.show(self.shown)

            self.app.run_worker(give_back(), group="queue-release")
        if render:
            self.queue_render()

    def on_screen_suspend(self) -> None:
        super().on_screen_suspend()
        if isinstance(self.app.screen, ModalScreen):  # a dialog or help over this screen: still here
            return
        if self.queue_active:
            self._queue_finish()
