"""GatepostApp: the review console. One store, one person, one screen per list."""

from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from gatepost.palette import StoreItems
from gatepost.screens.audit import AuditScreen
from gatepost.screens.cases import CasesScreen
from gatepost.screens.help import HelpScreen
from gatepost.screens.manifests import ManifestsScreen
from gatepost.screens.overview import OverviewScreen
from gatepost.screens.proposals import ProposalsScreen
from gatepost.screens.regressions import RegressionsScreen
from gatepost.screens.results import ResultsScreen
from gatepost.store.kernel import get_actor, open_store

# (mode, key, label, screen class): every screen of the console, in the order of their keys.
SCREENS: list[tuple[str, str, str, type[Screen]]] = [
    ("overview", "1", "Overview", OverviewScreen),
    ("cases", "2", "Cases", CasesScreen),
    ("results", "3", "Results", ResultsScreen),
    ("regressions", "4", "Regressions", RegressionsScreen),
    ("manifests", "5", "Manifests", ManifestsScreen),
    ("proposals", "6", "Proposals", ProposalsScreen),
    ("audit", "7", "Audit", AuditScreen),
]


def _loader(mode: str, screen_class: type[Screen]):
    def make() -> Screen:
        screen = screen_class()
        screen.mode_name = mode  # type: ignore[attr-defined]
        return screen

    return make


class GatepostApp(App):
    """The console. `person` decides; an unknown person can browse but not decide."""

    TITLE = "gatepost"
    CSS_PATH = "gatepost.tcss"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {StoreItems}

    def __init__(self, db_path: str | Path, *, person: str) -> None:
        self.screen_specs = SCREENS
        self.MODES = {mode: _loader(mode, target) for mode, _key, _label, target in self.screen_specs}
        super().__init__()
        self.db_path = Path(db_path)
        self.db = open_store(self.db_path, create=False)
        self.person = person
        self.lease_holders: set = set()  # queue screens holding a lease now: released on quit
        actor = get_actor(self.db, person)
        self.actor_kind = actor["kind"] if actor else None
        self.capabilities: list[str] = actor["capabilities"] if actor and actor["kind"] == "person" else []
        for mode, key, label, _target in self.screen_specs:
            self.bind(key, f"switch_mode('{mode}')", description=label, show=False)
        self.bind("question_mark", "help", description="Help: every key", key_display="?", show=False)

    BINDINGS = [
        Binding("escape", "back", "Back", show=False),
        Binding("q", "quit", "Quit", show=False),
        Binding("ctrl+t", "toggle_dark", "Theme", show=False),
    ]

    def on_mount(self) -> None:
        if self.capabilities:
            caps = self.capabilities
            shown = " ".join(caps) if len(caps) <= 3 else f"reviewer with {len(caps)} capabilities"
            self.sub_title = f"{self.person} · {shown}"
        elif self.actor_kind == "producer":
            self.sub_title = f"{self.person} · a producer: browsing only"
        else:
            self.sub_title = f"{self.person} · unknown person: browsing only"
        self.switch_mode("overview")

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification is literal: messages quote data (ids, names, errors) that may hold markup."""
        kwargs = {} if timeout is None else {"timeout": timeout}
        super().notify(message, title=title, severity=severity, markup=False, **kwargs)

    def on_unmount(self) -> None:
        for holder in list(self.lease_holders):
            holder.release_lease()
        self.db.close()

    # --- navigation -----------------------------------------------------------------
    def open_list(self, mode: str, **filters: str) -> None:
        """Switch to a list screen and filter it (the overview's lines and the palette use this)."""
        if mode not in self.MODES:
            self.notify(f"The {mode} screen is not part of this console.", severity="warning")
            return
        self.call_later(self._open_list, mode, filters)

    async def _open_list(self, mode: str, filters: dict[str, str]) -> None:
        await self.switch_mode(mode)
        if filters:
            self.screen.apply_filter(**filters)

    def open_item(self, mode: str, key: str) -> None:
        """Switch to a list screen and show one item's detail."""
        if mode not in self.MODES:
            self.notify(f"The {mode} screen is not part of this console.", severity="warning")
            return
        self.call_later(self._open_item, mode, key)

    async def _open_item(self, mode: str, key: str) -> None:
        await self.switch_mode(mode)
        self.screen.open_item(key)

    def action_back(self) -> None:
        if len(self.screen_stack) > 1:
            self.pop_screen()
        elif self.current_mode != "overview":
            self.switch_mode("overview")

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_toggle_dark(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"
