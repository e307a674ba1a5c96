"""The help screen: exactly the keys active on the screen the person was on, from the keymap."""

from typing import Any

from rich.table import Table
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from gatepost.keymap import bound


class HelpScreen(ModalScreen[Any]):
    """Lists the bindings active where the person pressed `?` (not the dialog's own keys)."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 100; height: 90%; border: thick $primary;
                                  background: $surface; padding: 0 1; }
    """
    BINDINGS = [bound("escape,q,question_mark", "dismiss", "Close", "help.close")]

    def __init__(self, below: Screen[Any]) -> None:
        super().__init__()
        self.rows = self.bindings_of(below)
        self.where = type(below).__name__.removesuffix("Screen") or "console"

    def bindings_of(self, below: Screen[Any]) -> list[tuple[str, str, bool]]:
        """(key, what it does, usable now) for each binding active on `below`, as its footer reads them."""
        rows: list[tuple[str, str, bool]] = []
        seen: set[str] = set()
        for key, active in below.active_bindings.items():
            binding = active.binding
            label = binding.description or binding.action
            if not label or key in seen:
                continue
            seen.add(key)
            shown = self.app.get_key_display(binding)
            rows.append((shown, label, active.enabled))
        return rows

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._table(), id="help-table")

    def _table(self) -> Table:
        table = Table(title=f"gatepost · keys on {self.where}", expand=True, show_lines=False)
        table.add_column("Key", style="bold", no_wrap=True)
        table.add_column("What it does")
        for key, label, enabled in self.rows:
            table.add_row(key, label if enabled else f"{label} (not now)", style="" if enabled else "dim")
        table.add_row("ctrl+p", "Command palette: jump to any case, skill, draft or proposal")
        return table
