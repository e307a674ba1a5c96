"""The footer line that names every screen and its key, with the current one marked."""

from rich.text import Text

from gatepost.keymap import key_for
from gatepost.widgets.key_bar import KeyBar


class NavBar(KeyBar):
    """`1 Overview  2 Cases  …  7 Audit   ? help  ctrl+p jump`: keys from the keymap, wrapped between entries."""

    DEFAULT_CSS = """
    NavBar { background: $panel; color: $text-muted; }
    """

    def entries(self) -> list[Text]:
        current = getattr(self.screen, "mode_name", None)
        out: list[Text] = []
        for mode, key, label, _target in self.app.screen_specs:  # type: ignore[attr-defined]
            style = "bold reverse" if mode == current else ""
            entry = Text(f"{key_for(self.app, f'app.{mode}', key)} ", style="bold " + style)
            entry.append(label, style=style)
            out.append(entry)

        def k(binding_id: str, default: str) -> str:
            return key_for(self.app, binding_id, default)

        searchable = self.screen.check_action("search", ()) is not False  # `/` only where there is a list
        hints = [f"{k('list.search', 'slash')} search"] if searchable else []
        for hint in (*hints, f"{k('app.help', 'question_mark')} help", "ctrl+p jump", f"{k('app.back', 'escape')} back"):
            out.append(Text(hint, style="dim"))
        return out
