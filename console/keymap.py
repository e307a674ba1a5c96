"""One keymap for the console: every binding has an id, and a TOML file may rebind any of them.

The footer, `?` and every hint (dialog titles, queue bar, nav bar, detail panes) read the key
of a binding through `key_for(app, binding_id)`, so a rebound key is shown wherever it is named.

The file is `$GATEPOST_KEYMAP`, else `$XDG_CONFIG_HOME/gatepost/keymap.toml` (default
`~/.config/gatepost/keymap.toml`): a `[keys]` table of `binding-id = "key[,key…]"`, e.g.

    [keys]
    "cases.kept" = "K"
    "queue.skip" = "ctrl+n"
"""

import os
import tomllib
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding

from gatepost.render import keymap_of

DISPLAY = {"question_mark": "?", "slash": "/", "left_square_bracket": "[", "right_square_bracket": "]",
           "escape": "Esc", "backspace": "⌫", "enter": "Enter"}


class KeymapError(ValueError):
    """The keymap file cannot be used; the message names the file and the field."""


def keymap_path() -> Path:
    """Where the keymap is read from (it need not exist)."""
    env = os.environ.get("GATEPOST_KEYMAP")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gatepost" / "keymap.toml"


def load_keymap(path: Path | None = None) -> dict[str, str]:
    """The binding ids rebound by the keymap file; {} when there is none."""
    path = path or keymap_path()
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KeymapError(f"{path}: not a readable TOML keymap ({exc})") from None
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise KeymapError(f"{path}: keys: expected a table of binding-id = \"key\"")
    for name, value in keys.items():
        if not isinstance(value, str) or not value.strip():
            raise KeymapError(f"{path}: keys.{name}: expected a key such as \"k\" or \"ctrl+s\"")
    return {str(k): str(v) for k, v in keys.items()}


def show_key(key: str) -> str:
    """A key as a person reads it: `?` rather than `question_mark`."""
    first = key.split(",")[0].strip()
    return DISPLAY.get(first, first)


def key_for(app: App[Any], binding_id: str, default: str) -> str:
    """The key bound to `binding_id` now (the keymap's, else `default`), as shown to a person."""
    keymap = keymap_of(app)
    return show_key(keymap.get(binding_id, default))


def keys_for(app: App[Any], binding_id: str, default: str) -> list[str]:
    """Every key bound to `binding_id` now (the keymap's, else `default`), as Textual names them."""
    keymap = keymap_of(app)
    return [k.strip() for k in str(keymap.get(binding_id, default)).split(",") if k.strip()]


def bound(key: str, action: str, description: str, binding_id: str, *, show: bool = True,
          key_display: str | None = None, priority: bool = False) -> Binding:
    """A Binding with an id, so the keymap can rebind it."""
    return Binding(key, action, description, show=show, key_display=key_display, priority=priority, id=binding_id)
