"""The help screen: every binding of the console and of the screen below it."""

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HelpScreen(ModalScreen):
    """Lists the bindings that are active where the person pressed `?`."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 80%; height: 80%; border: thick $primary; background: $surface; padding: 1 2; }
    """
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._table(), id="help-table")

    def _table(self) -> Table:
        below = self.app.screen_stack[-1] if self.app.screen_stack else None
        table = Table(title="gatepost · keys", expand=True, show_lines=False)
        table.add_column("Key", style="bold", no_wrap=True)
        table.add_column("What it does")
        table.add_column("Where", style="dim")
        seen: set[tuple[str, str]] = set()
        sources = []
        if below is not None:
            for node in [*below.query("*")][::-1] + [below]:
                sources.append((type(node).__name__, node._bindings))
        sources.append(("everywhere", self.app._bindings))
        for where, bindings in sources:
            for key, binding_list in bindings.key_to_bindings.items():
                for binding in binding_list:
                    label = binding.description or binding.action
                    if (key, label) in seen or not label:
                        continue
                    seen.add((key, label))
                    shown = binding.key_display or self.app.get_key_display(binding)
                    table.add_row(shown, label, where)
        table.add_row("ctrl+p", "Command palette: jump to any case, skill, draft or proposal", "everywhere")
        return table
