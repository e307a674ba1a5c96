"""GatepostApp: the review console. One store, one person, one screen per list.

The event loop never waits for SQLite: screens read in thread workers through `reading()` (one
read connection, its own lock; reads of a whole run take a second one, `reading_long()`, so a page
never queues behind them) and write through `write()`, which runs every change on one
writer thread (the `db` connection); a write still waiting after a moment says so in the header.
"""

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlite_utils import Database
from textual.app import App
from textual.filter import ANSIToTruecolor, LineFilter
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen

from gatepost.keymap import bound, load_keymap
from gatepost.links import parse_link
from gatepost.palette import StoreItems
from gatepost.render import ConsoleApp, new_screen
from gatepost.screens.audit import AuditScreen
from gatepost.screens.base import GatepostScreen
from gatepost.screens.cases import CasesScreen
from gatepost.screens.help import HelpScreen
from gatepost.screens.manifests import ManifestsScreen
from gatepost.screens.overview import OverviewScreen
from gatepost.screens.proposals import ProposalsScreen
from gatepost.screens.regressions import RegressionsScreen
from gatepost.screens.results import ResultsScreen
from gatepost.store.kernel import get_actor, open_store
from gatepost.theme import (
    DARK,
    DARK_ANSI,
    DARK_THEME,
    LIGHT,
    LIGHT_ANSI,
    LIGHT_THEME,
    ReadableTruecolor,
)

T = TypeVar("T")

# (mode, key, label, screen class): every screen of the console, in the order of their keys.
SCREENS: list[tuple[str, str, str, type[GatepostScreen]]] = [
    ("overview", "1", "Overview", OverviewScreen),
    ("cases", "2", "Cases", CasesScreen),
    ("results", "3", "Results", ResultsScreen),
    ("regressions", "4", "Regressions", RegressionsScreen),
    ("manifests", "5", "Manifests", ManifestsScreen),
    ("proposals", "6", "Proposals", ProposalsScreen),
    ("audit", "7", "Audit", AuditScreen),
]
WAITING = "waiting for the store…"


def _loader(mode: str, screen_class: type[GatepostScreen]) -> Callable[[], Screen[Any]]:
    def make() -> Screen[Any]:
        screen = new_screen(screen_class)  # with render's frame control, unless the console runs plain
        screen.mode_name = mode
        return screen

    return make


class GatepostApp(ConsoleApp):
    """The console. `person` decides; an unknown person can browse but not decide."""

    TITLE = "gatepost"
    CSS_PATH = "gatepost.tcss"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {StoreItems}
    BINDINGS = [
        bound("escape", "back", "Back", "app.back", show=False),
        bound("q", "quit", "Quit", "app.quit", show=False),
        bound("ctrl+t", "toggle_dark", "Theme", "app.theme", show=False),
        bound("question_mark", "help", "Help: every key", "app.help", show=False),
        *[bound(key, f"go('{mode}')", label, f"app.{mode}", show=False) for mode, key, label, _t in SCREENS],
    ]

    def __init__(self, db_path: str | Path, *, person: str, open_at: str | None = None,
                 keymap: dict[str, str] | None = None) -> None:
        self.screen_specs = SCREENS
        # per app (built from screen_specs), so an instance attribute shadowing the empty ClassVar
        self.MODES = {mode: _loader(mode, target)  # type: ignore[misc]
                      for mode, _key, _label, target in self.screen_specs}
        super().__init__()
        # dark, or light on ctrl+t, each with every text colour at 4.5:1 or more (gatepost.theme)
        self.register_theme(DARK_THEME)
        self.register_theme(LIGHT_THEME)
        self.ansi_theme_dark = DARK_ANSI
        self.ansi_theme_light = LIGHT_ANSI
        self.theme = DARK
        self.readable_filters: dict[int, ReadableTruecolor] = {}
        self.db_path = Path(db_path)
        self.db: Database = open_store(self.db_path, create=False)  # the writer's connection
        self.reader: Database = open_store(self.db_path, create=False)  # read workers' connection
        self.read_lock = threading.Lock()
        self.long_reader: Database | None = None  # reads that visit a whole run: opened when first needed
        self.long_read_lock = threading.Lock()
        self.closing = False  # set as the app quits: a whole-run read interrupted then is not an error
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gatepost-writer")
        self.writes_waiting = 0
        self.person = person
        self.open_at = parse_link(open_at) if open_at else None
        self.history: list[str] = []  # modes left by a jump (palette, c, an overview line): Escape goes back
        self.lease_holders: set[Any] = set()  # queues (screens/queue.py) holding a lease now: released on quit
        actor = get_actor(self.db, person)
        self.actor_kind = actor["kind"] if actor else None
        self.capabilities: list[str] = actor["capabilities"] if actor and actor["kind"] == "person" else []
        self.set_keymap(load_keymap() if keymap is None else keymap)

    def on_mount(self) -> None:
        if self.capabilities:
            caps = self.capabilities
            shown = " ".join(caps) if len(caps) <= 3 else f"reviewer with {len(caps)} capabilities"
            self.person_line = f"{self.person} · {shown}"
        elif self.actor_kind == "producer":
            self.person_line = f"{self.person} · a producer: browsing only"
        else:
            self.person_line = f"{self.person} · unknown person: browsing only"
        self.sub_title = self.person_line
        if self.open_at:
            self.switch_mode(self.open_at[0])
            self.open_item(*self.open_at)
        else:
            self.switch_mode("overview")

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification is literal: messages quote data (ids, names, errors) that may hold markup."""
        kwargs = {} if timeout is None else {"timeout": timeout}
        super().notify(message, title=title, severity=severity, markup=False, **kwargs)

    def on_unmount(self) -> None:
        # The writer's connection is the writer thread's alone: a lease given back from this thread while a
        # decision is still being written would run inside that decision's transaction. The releases queue
        # behind every pending write on the writer thread, and shutdown waits for all of them.
        holders, self.lease_holders = list(self.lease_holders), set()
        for holder in holders:
            self.writer.submit(holder.lease_release(), self.db)
        self.writer.shutdown(wait=True)
        self.db.close()
        # a read worker may be inside a query: closing its connection under it crashed Python (a segfault on
        # quit). Page reads are short: wait for them; a whole-run read (seconds on 1,000,000 tasks) is
        # interrupted first (its worker sees `closing` and ends quietly).
        self.closing = True
        with self.read_lock:
            self.reader.close()
        if self.long_reader is not None:
            self.long_reader.conn.interrupt()
        with self.long_read_lock:
            if self.long_reader is not None:
                self.long_reader.close()

    # --- the store ------------------------------------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[Database]:
        """The read connection, for a thread worker (never the event loop)."""
        with self.read_lock:
            yield self.reader

    @contextmanager
    def reading_long(self) -> Iterator[Database]:
        """A second read connection, for reads that visit every row of a run (its statistics): SQLite (WAL)
        reads on both at once, so a page on `reading()` never queues behind them (on a run of 1,000,000
        tasks the first rows waited ~10 s for the statistics)."""
        with self.long_read_lock:
            if self.closing:
                raise RuntimeError("the console is closing: no new whole-run read")
            if self.long_reader is None:
                self.long_reader = open_store(self.db_path, create=False)
            yield self.long_reader

    def read(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn(db, …)` on the read connection (from a thread worker)."""
        with self.reading() as db:
            return fn(db, *args, **kwargs)

    async def write(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn(db, …)` on the one writer thread; the event loop keeps moving meanwhile.

        A write still waiting after 0.3 s (another process holds the store) says so in the header.
        """
        loop = asyncio.get_running_loop()
        self.writes_waiting += 1
        timer = self.set_timer(0.3, self._show_waiting)
        try:
            return await loop.run_in_executor(self.writer, partial(fn, self.db, *args, **kwargs))
        finally:
            timer.stop()
            self.writes_waiting -= 1
            if not self.writes_waiting:
                self.sub_title = getattr(self, "person_line", self.sub_title)

    def _show_waiting(self) -> None:
        if self.writes_waiting:
            self.sub_title = f"{getattr(self, 'person_line', '')} · {WAITING}"

    # --- navigation -----------------------------------------------------------------
    def action_go(self, mode: str) -> None:
        """A screen's number key: go there (Escape returns to the Overview)."""
        self.history.clear()
        self.switch_mode(mode)

    async def _jump(self, mode: str) -> None:
        if self.current_mode != mode:
            self.history.append(self.current_mode)
        await self.switch_mode(mode)

    def open_list(self, mode: str, **filters: str) -> None:
        """Switch to a list screen and filter it (the overview's lines use this)."""
        if mode not in self.MODES:
            self.notify(f"The {mode} screen is not part of this console.", severity="warning")
            return
        self.call_later(self._open_list, mode, filters)

    async def _open_list(self, mode: str, filters: dict[str, str]) -> None:
        await self._jump(mode)
        if filters:
            cast(GatepostScreen, self.screen).apply_filter(**filters)  # every mode's screen is one

    def open_item(self, mode: str, key: str) -> None:
        """Switch to a list screen and show one item's detail (palette, `c`, a deep link)."""
        if mode not in self.MODES:
            self.notify(f"The {mode} screen is not part of this console.", severity="warning")
            return
        self.call_later(self._open_item, mode, key)

    async def _open_item(self, mode: str, key: str) -> None:
        await self._jump(mode)
        cast(GatepostScreen, self.screen).open_item(key)  # every mode's screen is one

    def action_back(self) -> None:  # type: ignore[override]  # Textual runs sync and async actions alike
        if isinstance(self.screen, ModalScreen):
            self.pop_screen()
        elif self.history:
            self.switch_mode(self.history.pop())
        elif self.current_mode != "overview":
            self.switch_mode("overview")

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.screen))

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, its ANSI-to-truecolor one drawing dim text no fainter than 4.5:1 (theme.py)."""
        filters = list(super().get_line_filters())
        for index, line_filter in enumerate(filters):
            if type(line_filter) is ANSIToTruecolor:
                ansi = self.ansi_theme
                readable = self.readable_filters.get(id(ansi))
                if readable is None:
                    readable = self.readable_filters[id(ansi)] = ReadableTruecolor(ansi)
                filters[index] = readable
        return filters

    def action_toggle_dark(self) -> None:
        self.theme = LIGHT if self.theme == DARK else DARK
