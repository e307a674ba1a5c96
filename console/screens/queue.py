"""Working a deciding screen's list as a queue: `w` takes the first item with a lease, a decision lands on the
next, `s` sends the item to the back for the session, `x` stops.

`Queue` is one object a `DecisionScreen` composes (`screen.queue`): the leases are taken, renewed and given
back on the app's one writer thread; the screen's keys call `start`, `skip` and `stop`, its decisions call
`go`, and `render` draws the `QueueBar` above the list. What the queue reads from its screen is `QueueHost`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rich.text import Text
from textual.timer import Timer

from gatepost.keymap import key_for
from gatepost.safe import literal, one_line
from gatepost.store.glyphs import FAIL, HELD, PASS
from gatepost.store.kernel import ConflictError, GatepostError, Lease, leases, transaction
from gatepost.store.views import QUEUES, QueueState, change_seq, queue_count, queue_state
from gatepost.widgets.queue_bar import QueueBar, until

RENEW_EVERY = 300.0  # seconds: a 15-minute lease renewed every 5 minutes while the item stays open


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


class Needs(Protocol):
    """A decision, as the queue sees it: the capability it needs."""

    @property
    def capability(self) -> str: ...


class QueueHost(Protocol):
    """What the queue reads from the screen that composes it (a DecisionScreen): the person and their
    capabilities, which queue (`WORK`: Cases switches between two) and its decisions, the item shown, the
    screen's ways to show an item, and its Textual means (notify, query, workers, timers, the app)."""

    WORK: Work
    looked: Text
    shown: str | None
    holder: Lease | None

    @property
    def DECISIONS(self) -> Sequence[Needs]: ...  # noqa: N802 (the screen's class attribute)

    @property
    def person(self) -> str: ...

    @property
    def app(self) -> Any: ...

    @property
    def gp_app(self) -> Any: ...

    @property
    def paged(self) -> Any: ...

    def can(self, capability: str) -> bool: ...

    def refresh_bindings(self) -> None: ...

    def show(self, key: str | None) -> None: ...

    def open_item(self, key: str) -> None: ...

    def apply_filter(self, **filters: str) -> None: ...

    def notify(self, message: str, *, title: str = ..., severity: Any = ..., timeout: float | None = ...,
               markup: bool = ...) -> None: ...

    def query(self, selector: Any) -> Any: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def set_interval(self, interval: float, callback: Any, *args: Any, **kwargs: Any) -> Timer: ...


class Queue:
    """One screen's queue: whether it is worked, the item held, what was done and skipped this session."""

    def __init__(self, screen: QueueHost) -> None:
        self.screen = screen
        self.state: QueueState | None = None  # the queue as last read (its keys, those held by others)
        self.active = False
        self.key: str | None = None  # the item the person works now (and holds a lease on)
        self.done = 0  # decisions taken since the queue was started
        self.skipped: list[str] = []  # skipped this session: they come back last
        self.lap: list[str] = []  # skipped since the queue came round to its first item: the position
        self.ended: Text | None = None
        self.refused: Text | None = None  # why the queue could not be worked (a read-only store)
        self.timer: Timer | None = None
        self._cache: tuple[int, str, QueueState] | None = None  # (change_seq, queue, the queue then)
        self._bars: list[QueueBar] | None = None  # the screen's bar, found once (composed with it, never replaced)

    # --- what it is -----------------------------------------------------------------------------
    @property
    def label(self) -> str:
        return QUEUES[self.screen.WORK.name].label

    def capabilities(self) -> list[str]:
        """The capabilities any of which lets a person work this screen's queue (one per decision)."""
        return sorted({d.capability for d in self.screen.DECISIONS})

    def capabilities_held(self) -> bool:
        return any(self.screen.can(c) for c in self.capabilities())

    def _k(self, binding_id: str, default: str) -> str:
        return key_for(self.screen.app, binding_id, default)

    def read(self, db: Any) -> QueueState:
        """The queue, on a reader's connection: read again only when the store changed since (its change_seq:
        a cursor move, even with the seen mark it writes, does not move it), and on 10,000 cases it was the
        costliest read of a move."""
        version, name = change_seq(db), self.screen.WORK.name  # Cases switches between two queues
        listed = self.active  # worked, the bar says where the item is in it; otherwise only how many wait
        cached = self._cache
        if cached is not None and cached[:2] == (version, name) and cached[2].listed == listed:
            return cached[2]
        state = (queue_state if listed else queue_count)(db, name, self.screen.person)
        self._cache = (version, name, state)
        return state

    # --- the bar --------------------------------------------------------------------------------
    def bars(self) -> list[QueueBar]:
        """The screen's queue bar (none before it is composed): looked for on every item shown, a walk of the
        screen's widgets each time."""
        if self._bars is None:
            found = list(self.screen.query(QueueBar))
            if not found:
                return []
            self._bars = found
        return self._bars

    def render(self) -> None:
        """Redraw the bar: progress (or how many wait and how to start) and who holds the item shown."""
        screen = self.screen
        bars = self.bars()
        qs = self.state
        if not bars or qs is None:
            return
        bar = bars[0]
        held = f" · {len(qs.held)} held by others" if qs.held else ""
        text = Text()
        if self.active and self.key:
            # a skip moves on as a decision does: the item after it is one further; once every item left was
            # skipped the first comes back, and the count starts again from it
            position = min(len([k for k in self.lap if k in qs.keys]) + 1, max(len(qs.keys), 1))
            text.append("▶ Queue", style="bold")
            text.append_text(literal(f" · {self.label}: {self.done + position} of "
                                     f"{self.done + max(len(qs.keys), position)}"))
            text.append_text(literal(f" · {self.done} done{held}", style="dim"))
            text.append(f"   decide to move on · {self._k('queue.skip', 's')} skip · "
                        f"{self._k('queue.stop', 'x')} stop", style="dim")
            bar.add_class("-working")
        else:
            bar.remove_class("-working")
            if not self.capabilities_held():
                # nobody's queue: an unknown name, a producer or a person without these capabilities browses
                text.append_text(literal(f"{self.label}: {qs.waiting or 'none'} waiting{held} · "
                                         f"{screen.person} holds none of {', '.join(self.capabilities())}: "
                                         "browsing only", style="dim"))
            elif qs.waiting:
                self.ended = None
                text.append(self._k("queue.work", "w"), style="bold")
                text.append_text(literal(f" work the queue · {self.label}: {qs.waiting} for you{held}"))
            elif self.ended is not None:
                text = self.ended
            else:
                text.append_text(literal(f"Queue empty: no {self.label} left for you{held}.", style="dim"))
        if self.refused is not None:
            text.append("\n")
            text.append_text(self.refused)
        holding = screen.looked.copy() if screen.shown else Text()
        lease = screen.holder if screen.shown else None
        if lease and holding.plain:
            holding.append("\n")
        if lease and lease["holder"] != screen.person:
            holding.append(f"{HELD} ", style="bold yellow")
            holding.append_text(literal(f"{lease['holder']} is working on it until {until(lease)}",
                                        style="bold yellow"))
            holding.append(" — your decisions on it are refused until then", style="yellow")
        elif lease:
            holding.append_text(literal(f"you hold it until {until(lease)} (renewed while it stays open)",
                                        style="dim"))
        bar.show(progress=text, holding=holding)

    # --- the person's keys ----------------------------------------------------------------------
    def may_work(self) -> bool:
        if self.capabilities_held():
            return True
        self.screen.notify(f"{self.screen.person} holds none of {', '.join(self.capabilities())}: browsing only, "
                           "no queue to work.", severity="warning")
        return False

    def start(self) -> None:
        """Start (or restart) working the queue from its first item."""
        if not self.may_work():
            return
        self.active, self.done, self.skipped, self.lap = True, 0, [], []
        self.refused = None
        self.screen.refresh_bindings()  # skip and stop are keys now
        if self.screen.WORK.filter:
            self.screen.apply_filter(**self.screen.WORK.filter)
        self.screen.run_worker(self.go(None), group="queue")

    def skip(self) -> None:
        """Leave this item for later this session (or for someone else) and open the next one."""
        if not self.active or not self.key:
            self.screen.notify(f"Press {self._k('queue.work', 'w')} to work the queue first.", severity="warning")
            return
        if self.state and self.state.keys == [self.key]:
            self.screen.notify("This is the only item left in your queue.", severity="warning")
            return
        skipped = self.key
        self.skipped = [k for k in self.skipped if k != skipped] + [skipped]
        self.lap.append(skipped)
        self.screen.run_worker(self.go(skipped, release=True), group="queue")

    def stop(self) -> None:
        if self.active:
            self.finish()
            self.screen.notify("Stopped working the queue; the item is free for others again.")

    # --- moving on ------------------------------------------------------------------------------
    async def go(self, after: str | None, *, prefer: str | None = None, release: bool = False) -> None:
        """Take the next item's lease (on the writer) and show it; the queue ends when none is left."""
        screen = self.screen
        person, subject, queue = screen.person, screen.WORK.subject, screen.WORK.name
        current = self.key if release or after is None else None
        skipped = list(self.skipped)

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
            key, qs = await screen.gp_app.write(take_next)
        except GatepostError as exc:  # the store refused the lease (read-only media, a broken store)
            self.stop_refused(exc)
            return
        self.state = qs
        if not self.active:  # stopped meanwhile
            return
        if key is None:
            self.key = None
            self.empty(qs)
            return
        self.key = key
        if key in self.lap:  # came round to an item skipped before: a new lap
            self.lap = []
        screen.gp_app.lease_holders.add(self)
        if self.timer is None:
            self.timer = screen.set_interval(RENEW_EVERY, self.renew_later)
        if screen.paged.move_to_key(key):
            screen.show(key)
        else:
            screen.open_item(key)
        self.render()

    def stop_refused(self, exc: GatepostError) -> None:
        """The queue could not take (or give back) a lease: stop it, say why in one line, keep browsing."""
        self.active = False
        self.key = None
        self.screen.refresh_bindings()
        self.screen.gp_app.lease_holders.discard(self)
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        self.refused = literal(f"{FAIL} queue stopped: {one_line(str(exc), 200)}", style="bold red")
        self.screen.notify(str(exc), title="Queue stopped", severity="error", timeout=10)
        self.render()

    def empty(self, qs: QueueState) -> None:
        done = self.done
        self.finish(render=False)
        held = f" {len(qs.held)} held by others." if qs.held else ""
        text = Text(f"{PASS} Queue empty", style="bold green")
        text.append_text(literal(f": {done} decided, no {self.label} left for you.{held} "
                                 f"{self.screen.WORK.empty_hint}"))
        self.ended = text
        for bar in self.bars():
            bar.show(progress=text, holding=Text())
        self.screen.notify(f"Queue empty: no {self.label} left for you. {self.screen.WORK.empty_hint}", title="Done")

    # --- the lease ------------------------------------------------------------------------------
    def renew(self, db: Any) -> str | None:
        """Renew the held item's lease (on the writer); the refusal when it was lost."""
        if not (self.active and self.key):
            return None
        try:
            leases.take(db, self.screen.WORK.subject, self.key, self.screen.person)
        except ConflictError as exc:
            return str(exc)
        return None

    def renew_later(self) -> None:
        """What the timer does while the item stays open: renew on the writer, then draw the item again."""
        screen = self.screen

        async def renew() -> None:
            try:
                lost = await screen.gp_app.write(self.renew)
            except GatepostError as exc:
                self.stop_refused(exc)
                return
            if lost:
                screen.notify(lost, title="Lease lost", severity="error", timeout=10)
            if screen.shown:
                screen.show(screen.shown)

        screen.run_worker(renew(), group="queue")

    def lease_release(self) -> Callable[[Any], None]:
        """The act that gives back the item held, bound here on the UI thread: the app runs it on its writer
        thread as it quits, after every pending write, where no app context can be read."""
        key, self.key = self.key, None
        subject, person = self.screen.WORK.subject, self.screen.person

        def release(db: Any) -> None:
            if key:
                leases.release(db, subject, key, person)

        return release

    def finish(self, *, render: bool = True) -> None:
        """Stop working the queue and give the item held back (on the writer)."""
        screen = self.screen
        self.active = False
        screen.refresh_bindings()  # skip and stop are keys no more
        screen.gp_app.lease_holders.discard(self)
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        if self.key:
            release = self.lease_release()

            async def give_back() -> None:
                try:
                    await screen.gp_app.write(release)
                except GatepostError as exc:  # nothing to give back on a store that took nothing
                    screen.notify(str(exc), title="Lease", severity="warning")
                    return
                if render and screen.shown:
                    screen.show(screen.shown)

            screen.app.run_worker(give_back(), group="queue-release")
        if render:
            self.render()
