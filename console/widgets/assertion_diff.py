"""A manifest change assertion by assertion: what a draft adds, drops and changes against the active version.

A YAML line diff hides what matters (a dropped `max_words` is one `-` line among many); this names each
assertion once, the dropped checks in red, so a reviewer sees what would no longer be checked.
"""

import json
from dataclasses import dataclass
from typing import Any

from rich.text import Text

from gatepost.safe import literal


@dataclass(frozen=True)
class Change:
    """One assertion's change: `kind` is added, removed or changed; list values say which items."""

    name: str
    kind: str
    before: Any = None
    after: Any = None


def compare_assertions(before: dict[str, Any] | None, after: dict[str, Any]) -> tuple[list[Change], int]:
    """The changes from `before` (None: no manifest yet) to `after`, in the draft's order then the dropped
    ones, and how many assertions are unchanged."""
    before = before or {}
    changes: list[Change] = []
    same = 0
    for name, value in after.items():
        if name not in before:
            changes.append(Change(name, "added", None, value))
        elif before[name] != value:
            changes.append(Change(name, "changed", before[name], value))
        else:
            same += 1
    changes.extend(Change(name, "removed", value, None) for name, value in before.items() if name not in after)
    return changes, same


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)


def _items(value: Any) -> list[str]:
    return [_value(v) for v in value] if isinstance(value, list) else []


# sign, its style, the name's style, the value's style, and what it means, for a check added or dropped whole
_WHOLE = {
    "added": ("  + ", "bold green", "green", "green", "  new check"),
    "removed": ("  − ", "bold red", "bold red", "red", "  dropped: no longer checked"),
}


def render_comparison(before: dict[str, Any] | None, after: dict[str, Any], *, before_name: str) -> Text:
    """`Assertions (active v3 → draft)`, then one line per added (+, green), dropped (−, red) or changed (~)
    assertion; a list's items dropped from it are red too."""
    changes, same = compare_assertions(before, after)
    counts = {k: sum(c.kind == k for c in changes) for k in ("added", "removed", "changed")}
    text = Text(f"Assertions ({before_name} → draft)", style="bold")
    summary = [f"{n} {k}" for k, n in counts.items() if n] + ([f"{same} unchanged"] if same else [])
    text.append("  " + (" · ".join(summary) if summary else "no assertion"), style="dim")
    if not changes:
        text.append("\n  the draft checks exactly what the active version checks", style="dim")
    width = max((len(c.name) for c in changes), default=0)
    for c in changes:
        text.append("\n")
        if c.kind in _WHOLE:  # a check added or dropped whole: sign, name, value, what it means
            sign, sign_style, name_style, value_style, note = _WHOLE[c.kind]
            text.append(sign, style=sign_style)
            text.append_text(literal(c.name.ljust(width), style=name_style))
            text.append("  ")
            text.append_text(literal(_value(c.after if c.kind == "added" else c.before), style=value_style))
            text.append(note, style="dim" if c.kind == "added" else "red")
        else:
            text.append("  ~ ", style="bold yellow")
            text.append_text(literal(c.name.ljust(width), style="yellow"))
            text.append("  ")
            old, new = _items(c.before), _items(c.after)
            if isinstance(c.before, list) and isinstance(c.after, list):
                dropped = [v for v in old if v not in new]
                added = [v for v in new if v not in old]
                parts = [("−" + v, "red") for v in dropped] + [("+" + v, "green") for v in added]
                for i, (part, style) in enumerate(parts or [("reordered", "dim")]):
                    if i:
                        text.append(" ")
                    text.append_text(literal(part, style=style))
            else:
                text.append_text(literal(_value(c.before), style="dim"))
                text.append(" → ")
                text.append_text(literal(_value(c.after), style="bold"))
    return text
