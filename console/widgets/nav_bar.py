"""The footer line that names every screen and its key, with the current one marked."""

from rich.text import Text
from textual.widgets import Static

from gatepost.keymap import key_for


class NavBar(Static):
    """`1 Overview  2 Cases  …  7 Audit   ? help  ctrl+p jump`: a second footer line, keys from the keymap."""

    DEFAULT_CSS = """
    NavBar { height: auto; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def on_mount(self) -> None:
        self.update(self._render_bar())

    def _render_bar(self) -> Text:
        current = getattr(self.screen, "mode_name", None)
        bar = Text()
        for mode, key, label, _target in self.app.screen_specs:  # type: ignore[attr-defined]
            style = "bold reverse" if mode == current else ""
            bar.append(f" {key_for(self.app, f'app.{mode}', key)} ", style="bold " + style)
            bar.append(f"{label} ", style=style)

        def k(binding_id: str, default: str) -> str:
            return key_for(self.app, binding_id, default)

        bar.append(f"  {k('list.search', 'slash')} search  {k('app.help', 'question_mark')} help  "
                   f"ctrl+p jump  {k('app.back', 'escape')} back", style="dim")
        return bar
