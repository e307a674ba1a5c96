"""The footer line that names every screen and its key, with the current one marked."""

from rich.text import Text
from textual.widgets import Static


class NavBar(Static):
    """`1 Overview  2 Cases  …  7 Audit   ? help  ctrl+p jump`: a second footer line, never cut off by the first."""

    DEFAULT_CSS = """
    NavBar { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def on_mount(self) -> None:
        self.update(self._render_bar())

    def _render_bar(self) -> Text:
        current = getattr(self.screen, "mode_name", None)
        bar = Text()
        for mode, key, label, _target in self.app.screen_specs:
            style = "bold reverse" if mode == current else ""
            bar.append(f" {key} ", style="bold " + style)
            bar.append(f"{label} ", style=style)
            bar.append(" ")
        bar.append("   / search  ? help  ctrl+p jump to…  esc back", style="dim")
        return bar
