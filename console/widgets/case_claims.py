"""How a case's claims, evidence and decisions are drawn: symbols, strips, the claim outline."""

from typing import Any

from rich.text import Text

from gatepost.safe import literal
from gatepost.store import glyphs
from gatepost.store.cases import CaseView
from gatepost.widgets.line_detail import Node, Outline

COLOURS = {"TRUE": "green", "FALSE": "red", "UNKNOWN": "yellow"}
EVIDENCE_STYLE = {"counting": "green", "stale": "yellow", "not independent": "magenta", "unused": "dim"}


def mark(value: str | None) -> tuple[str, str]:
    """A claim's mark (glyphs.CLAIM) and its style; a value without one is a dim dot."""
    value = value or ""
    return glyphs.CLAIM.get(value, glyphs.UNCHECKED), f"bold {COLOURS.get(value, 'dim')}"


def symbol(value: str | None) -> Text:
    """A claim's mark in its colour (`mark`)."""
    glyph, style = mark(value)
    return Text(glyph, style=style)


def claim_strip(claims: dict[str, str], order: list[str], derived: list[str]) -> Text:
    """✔ ✘ ? per claim: the claims resting on evidence, a space, then those resting on claims. Built as one Text
    with a span per mark (a list page draws tens of strips: a Text per mark, appended, cost twice as much)."""
    strip = Text()
    for name in order:
        if name not in derived:
            strip.append(*mark(claims.get(name)))
    if any(name in derived for name in order):
        strip.append(" ")
        for name in order:
            if name in derived:
                strip.append(*mark(claims.get(name)))
    return strip


def claim_outline(view: CaseView) -> Outline:
    """What each claim rests on: claims, evidence matches and the records under each, with why; the claims
    resting on other claims open, the others closed (a click opens them)."""
    root = Node(Text("claims"), [_node(view["trees"][name], expand=name in view["derived"])
                                 for name in view["claim_order"]], expanded=True)
    return Outline(root)


# a node's label by what it shows: from one case to the next most nodes read the same (the claims, the evidence each
# asks for, with the same why), and each label is several Texts made and joined; labels are only read, never changed
_LABELS: dict[tuple[str | None, str, str | None, bool], Text] = {}


def _node(node: dict[str, Any], *, expand: bool = False) -> Node:
    children = node["children"]
    key = (node["value"], node["label"], node["why"], bool(children))
    label = _LABELS.get(key)
    if label is None:
        label = Text()
        if node["value"] is not None:
            label.append_text(symbol(node["value"]))
            label.append(" ")
        label.append_text(literal(node["label"], style="bold" if children else ""))
        if node["why"]:
            label.append_text(literal(f"  — {node['why']}", style=EVIDENCE_STYLE.get(node["why"], "dim")))
        if len(_LABELS) >= 4096:
            _LABELS.clear()
        _LABELS[key] = label
    return Node(label, [_node(child) for child in children], expanded=expand and bool(children))
