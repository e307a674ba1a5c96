"""The help screen: exactly the keys active on the screen the person was on, from the keymap."""

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from gatepost.keymap import bound

PALETTE = "Command palette: jump to any case, skill, draft or proposal"
TEXTUAL_SCREEN_ACTIONS = {b.action for b in Screen.BINDINGS if isinstance(b, Binding)}


class HelpScreen(ModalScreen[Any]):
    """Lists the bindings active where the person pressed `?` (not the dialog's own keys): the screen's own
    first (what it does: decide, filter, work the queue), then the keys of the widget in focus (moving in a
    list), then the keys that work everywhere; the order Textual finds them in puts the list's cursor keys
    first, and the screen's actions went below ten lines of arrows."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%; border: thick $primary;
                                  background: $surface; padding: 0 1; }
    """
    BINDINGS = [bound("escape,q,question_mark", "dismiss", "Close", "help.close")]

    def __init__(self, below: Screen[Any]) -> None:
        super().__init__()
        self.where = type(below).__name__.removesuffix("Screen") or "console"
        self.sections = self.bindings_of(below)
        self.rows = [row for _title, rows in self.sections for row in rows]

    def bindings_of(self, below: Screen[Any]) -> list[tuple[str, list[tuple[str, str, bool]]]]:
        """(section title, [(key, what it does, usable now)]) for the bindings active on `below`, as its
        footer reads them: the screen's, the focused widget's, then the app's; empty sections left out."""
        own: list[tuple[str, str, bool]] = []
        focused: list[tuple[str, str, bool]] = []
        everywhere: list[tuple[str, str, bool]] = []
        seen: set[str] = set()
        for key, active in below.active_bindings.items():
            binding = active.binding
            label = binding.description or binding.action
            if not label or key in seen:
                continue
            seen.add(key)
            if binding.action == "command_palette":
                label = PALETTE
            row = (self.app.get_key_display(binding), label, active.enabled)
            if active.node is below and binding.action not in TEXTUAL_SCREEN_ACTIONS:
                own.append(row)
            elif active.node is below or active.node is self.app:  # Textual's screen keys (focus, copy) too
                everywhere.append(row)
            else:
                focused.append(row)
        sections = [(f"On {self.where}", own), ("Moving in the list or pane in focus", focused),
                    ("Everywhere", everywhere)]
        return [(title, rows) for title, rows in sections if rows]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._table(), id="help-table")

    def _table(self) -> Table:
        table = Table(title=f"gatepost · keys on {self.where}", expand=True, show_lines=False)
        table.add_column("Key", style="bold", no_wrap=True)
        table.add_column("What it does")
        for title, rows in self.sections:
            table.add_row("", Text(title, style="bold italic"))
            for key, label, enabled in rows:
                table.add_row(key, label if enabled else f"{label} (not now)", style="" if enabled else "dim")
            table.add_section()
        return table
