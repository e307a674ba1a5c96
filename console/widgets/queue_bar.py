"""Working a list as a queue: open the first item, decide, land on the next ("complete and next").

One place for what the four waiting lists share (cases, proposals, drafts,
regressions): the `QueueBar` line that shows progress and who holds the item
on screen, and `QueueMixin`, which a list screen mixes in to take, renew and
release leases (store.leases) while a person works its queue (store.queues).

A screen using it sets QUEUE (a name in store.queues.QUEUES), QUEUE_FILTER (the
apply_filter() that shows the queue's items), QUEUE_CAPABILITIES (any one lets a
person work it), QUEUE_EMPTY_HINT (what to do once it is empty), adds
QUEUE_BINDINGS to its BINDINGS, defines `queue_detail(key)` (show one item),
calls `queue_shown(key)` whenever its detail shows an item and
`queue_completed(key)` after a decision on one succeeded.
"""

import sqlite3

from rich.text import Text
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from gatepost.safe import literal
from gatepost.store.flows import mark_seen
from gatepost.store.kernel import ConflictError, leases
from gatepost.store.views import (
    QUEUES,
    QueueState,
    assigned_ids,
    assignment_of,
    changes_since_seen,
    queue_state,
)
from gatepost.widgets.paged_list import PagedList

RENEW_EVERY = 300.0  # seconds: a 15-minute lease renewed every 5 minutes while the item stays open

QUEUE_BINDINGS = [
    Binding("w", "work_queue", "Work queue"),
    Binding("s", "queue_skip", "Skip"),
    Binding("x", "queue_stop", "Stop queue", show=False),
]


def until(lease: dict) -> str:
    """A lease's expiry as a person reads it: 14:32 UTC."""
    return f"{lease['expires_at'][11:16]} UTC"


class QueueBar(Static):
    """`▶ Queue · cases needing a decision: 12 of 40 · 11 done · 2 held by others` and who holds this item."""

    DEFAULT_CSS = """
    QueueBar { height: auto; padding: 0 1; background: $boost; }
    QueueBar.-working { background: $accent 25%; }
    """

    def __init__(self) -> None:
        super().__init__("", id="queue-bar")
        self.progress = Text()
        self.holding = Text()

    def show(self, progress: Text | None = None, holding: Text | None = None) -> None:
        if progress is not None:
            self.progress = progress
        if holding is not None:
            self.holding = holding
        text = self.progress.copy()
        if self.holding.plain:
            text.append("\n")
            text.append_text(self.holding)
        self.update(text)


class QueueMixin:
    """Queue working for a GatepostScreen with one PagedList; see the module docstring for the contract."""

    QUEUE: str = ""
    QUEUE_FILTER: dict[str, str] = {}
    QUEUE_CAPABILITIES: tuple[str, ...] = ()
    QUEUE_EMPTY_HINT: str = ""

    queue_active: bool = False
    queue_key: str | None = None  # the item the person works now (and holds a lease on)
    queue_done: int = 0  # decisions taken since the queue was started
    _queue_ended: Text | None = None  # the "queue empty" summary, kept until something waits again
    _queue_timer = None
    _seen_before: dict[str, tuple[str, str | None]] = {}  # the item last drawn and what had changed in it

    # --- what a screen provides --------------------------------------------------------------
    def show_detail(self, key: str | None) -> None:  # overridden: draw one item's detail
        raise NotImplementedError

    def queue_detail(self, key: str) -> None:
        """Show the queue's current item: in the list as filtered now, else through open_item."""
        if self.query_one(PagedList).move_to_key(key):
            self.show_detail(key)
        else:
            self.open_item(key)

    # --- reading --------------------------------------------------------------------------------
    @property
    def queue_spec(self):
        return QUEUES[self.QUEUE]

    def queue_state(self) -> QueueState:
        return queue_state(self.db, self.QUEUE, self.person)

    def _bar(self) -> QueueBar | None:
        bars = list(self.query(QueueBar))
        return bars[0] if bars else None

    def _may_work(self) -> bool:
        if any(self.can(c) for c in self.QUEUE_CAPABILITIES):
            return True
        self.notify(f"{self.person} holds none of {', '.join(self.QUEUE_CAPABILITIES)}: browsing only, "
                    "no queue to work.", severity="warning", markup=False)
        return False

    # --- the bar --------------------------------------------------------------------------------
    def queue_render(self, qs: QueueState | None = None) -> None:
        """Redraw the progress line (idle: how many wait and how to start)."""
        bar = self._bar()
        if bar is None:
            return
        qs = qs or self.queue_state()
        held = f" · {len(qs.held)} held by others" if qs.held else ""
        label = self.queue_spec.label
        text = Text()
        if self.queue_active and self.queue_key:
            position = qs.position(self.queue_key) or 1
            text.append("▶ Queue", style="bold")
            text.append_text(literal(f" · {label}: {self.queue_done + position} of "
                                     f"{self.queue_done + max(len(qs.keys), position)}"))
            text.append_text(literal(f" · {self.queue_done} done{held}", style="dim"))
            text.append("   decide to move on · s skip · x stop", style="dim")
            bar.add_class("-working")
        else:
            bar.remove_class("-working")
            if qs.keys:
                self._queue_ended = None
                text.append("w", style="bold")
                text.append_text(literal(f" work the queue · {label}: {len(qs.keys)} for you{held}"))
            elif self._queue_ended is not None:
                text = self._queue_ended
            else:
                text.append_text(literal(f"Queue empty: no {label} left for you{held}.", style="dim"))
        bar.show(progress=text)

    def mark_rows(self, rows: list[tuple[str, list]]) -> list[tuple[str, list]]:
        """A list page with its markers before the first cell: ● changed since you looked, → assigned to you."""
        kind = self.queue_spec.subject_type
        keys = [key for key, _cells in rows]
        changed = changes_since_seen(self.db, self.person, kind, keys)
        mine = assigned_ids(self.db, self.person, kind)
        out = []
        for key, cells in rows:
            mark = ("●" if key in changed else "") + ("→" if key in mine else "")
            if mark and cells:
                first = cells[0] if isinstance(cells[0], Text) else literal(str(cells[0]))
                cells = [Text(mark + " ", style="bold cyan") + first, *cells[1:]]
            out.append((key, cells))
        return out

    def _looked(self, key: str) -> Text:
        """What changed since this person last opened the item, who it is assigned to; then it counts as seen.

        Drawing the same item again (a refresh) keeps saying what had changed when the person opened it.
        """
        kind = self.queue_spec.subject_type
        text = Text()
        changed = changes_since_seen(self.db, self.person, kind, [key]).get(key)
        if self._seen_before.get(kind, ("", None))[0] == key:
            changed = changed or self._seen_before[kind][1]
        self._seen_before = {kind: (key, changed)}
        if changed:
            text.append_text(literal(f"● {changed}", style="bold cyan"))
        assigned = assignment_of(self.db, kind, key)
        if assigned:
            text.append("  " if text.plain else "")
            who = "you" if assigned["assignee"] == self.person else assigned["assignee"]
            text.append_text(literal(f"→ assigned to {who} by {assigned['assigned_by'] or '—'}", style="cyan"))
        try:
            mark_seen(self.db, self.person, kind, key)
        except sqlite3.OperationalError:  # a busy store: the mark waits for the next look
            pass
        return text

    def queue_shown(self, key: str | None) -> None:
        """The detail now shows `key`: say who holds it, if anyone, and what changed since the person looked."""
        looked = self._looked(key) if key else Text()
        bar = self._bar()
        if bar is None:
            return
        lease = leases.holder(self.db, self.queue_spec.subject_type, key) if key else None
        text = Text()
        if looked.plain:
            text.append_text(looked)
        if lease and text.plain:
            text.append("\n")
        if lease and lease["holder"] != self.person:
            text.append("⚑ ", style="bold yellow")
            text.append_text(literal(f"{lease['holder']} is working on it until {until(lease)}", style="bold yellow"))
            text.append(" — your decisions on it are refused until then", style="yellow")
        elif lease:
            text.append_text(literal(f"you hold it until {until(lease)} (renewed while it stays open)", style="dim"))
        bar.show(holding=text)

    # --- working --------------------------------------------------------------------------------
    def action_work_queue(self) -> None:
        """Start (or restart) working the queue from its first item."""
        if not self._may_work():
            return
        self.queue_active = True
        self.queue_done = 0
        if self.QUEUE_FILTER:
            self.apply_filter(**self.QUEUE_FILTER)
        self._queue_go(None)

    def action_queue_skip(self) -> None:
        """Leave this item for later (or for someone else) and open the next one."""
        if not self.queue_active:
            self.notify("Press w to work the queue first.", severity="warning")
            return
        qs = self.queue_state()
        if qs.keys == [self.queue_key]:
            self.notify("This is the only item left in your queue.", severity="warning")
            return
        self._queue_go(self.queue_key)

    def action_queue_stop(self) -> None:
        if self.queue_active:
            self._queue_finish()
            self.notify("Stopped working the queue; the item is free for others again.")

    def queue_completed(self, key: str) -> None:
        """A decision on `key` succeeded: count it, free it, and land on the next item."""
        if not (self.queue_active and key == self.queue_key):
            self.queue_render()
            self.queue_shown(key)
            return
        self.queue_done += 1
        self._release()
        for paged in self.query(PagedList):
            paged.reload()
        self._queue_go(key)

    def queue_follow(self, key: str) -> None:
        """The item became another one (an edit saved as a new draft): work that one instead."""
        if self.queue_active:
            self._release()
            self._queue_go(None, prefer=key)

    def _queue_go(self, after: str | None, *, prefer: str | None = None) -> None:
        qs = self.queue_state()
        candidate = prefer if prefer in qs.keys else qs.after(after)
        tried: set[str] = set()
        while candidate and candidate not in tried:
            tried.add(candidate)
            if candidate != self.queue_key:
                self._release()
            try:
                leases.take(self.db, self.queue_spec.subject_type, candidate, self.person)
            except ConflictError:  # someone took it since we looked: skip it
                qs = self.queue_state()
                candidate = qs.after(candidate)
                continue
            self.queue_key = candidate
            self.app.lease_holders.add(self)  # the app gives leases back if it quits while we hold one
            if self._queue_timer is None:
                self._queue_timer = self.set_interval(RENEW_EVERY, self._queue_renew)
            self.queue_detail(candidate)
            self.queue_render(self.queue_state())
            self.queue_shown(candidate)
            return
        self._queue_empty(self.queue_state())

    def _queue_empty(self, qs: QueueState) -> None:
        done = self.queue_done
        self._queue_finish(render=False)
        label = self.queue_spec.label
        held = f" {len(qs.held)} held by others." if qs.held else ""
        text = Text("✔ Queue empty", style="bold green")
        text.append_text(literal(f": {done} decided, no {label} left for you.{held} {self.QUEUE_EMPTY_HINT}"))
        self._queue_ended = text
        bar = self._bar()
        if bar is not None:
            bar.show(progress=text, holding=Text())
        self.notify(f"Queue empty: no {label} left for you. {self.QUEUE_EMPTY_HINT}", title="Done", markup=False)

    def _queue_renew(self) -> None:
        if not (self.queue_active and self.queue_key):
            return
        try:
            leases.take(self.db, self.queue_spec.subject_type, self.queue_key, self.person)
        except ConflictError as exc:
            self.notify(str(exc), title="Lease lost", severity="error", markup=False, timeout=10)
        self.queue_shown(self.queue_key)

    def _release(self) -> None:
        if self.queue_key:
            leases.release(self.db, self.queue_spec.subject_type, self.queue_key, self.person)
            self.queue_key = None
        self.app.lease_holders.discard(self)

    def release_lease(self) -> None:
        """Give back the item this screen holds (the app calls it when it quits)."""
        self._release()

    def _queue_finish(self, *, render: bool = True) -> None:
        shown = self.queue_key
        self._release()
        self.queue_active = False
        if self._queue_timer is not None:
            self._queue_timer.stop()
            self._queue_timer = None
        if render:
            self.queue_render()
            self.queue_shown(shown)

    # --- moving on ------------------------------------------------------------------------------
    def on_screen_suspend(self) -> None:
        if isinstance(self.app.screen, ModalScreen):  # a note dialog or help over this screen: still here
            return
        if self.queue_active:
            self._queue_finish()

    def on_unmount(self) -> None:
        try:
            self._release()
        except sqlite3.ProgrammingError:  # the app closed the store first; the lease expires by itself
            pass
