"""How a case's claims, evidence and decisions are drawn: symbols, strips, the claim tree."""

from typing import Any

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from gatepost.safe import literal

SYMBOLS = {"TRUE": ("✔", "green"), "FALSE": ("✘", "red"), "UNKNOWN": ("?", "yellow")}
EVIDENCE_STYLE = {"counting": "green", "stale": "yellow", "not independent": "magenta", "unused": "dim"}


def symbol(value: str | None) -> Text:
    mark, style = SYMBOLS.get(value or "", ("·", "dim"))
    return Text(mark, style=f"bold {style}")


def claim_strip(claims: dict[str, str], order: list[str], derived: list[str]) -> Text:
    """✔ ✘ ? per claim: the claims resting on evidence, a space, then those resting on claims."""
    strip = Text()
    for name in order:
        if name not in derived:
            strip.append_text(symbol(claims.get(name)))
    if any(name in derived for name in order):
        strip.append(" ")
        for name in order:
            if name in derived:
                strip.append_text(symbol(claims.get(name)))
    return strip


class ClaimTree(Tree[Any]):
    """What each claim rests on: claims, evidence matches and the records under each, with why."""

    DEFAULT_CSS = "ClaimTree { height: auto; max-height: 24; }"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(Text("claims"), **kwargs)
        self.show_root = False

    def show(self, view: dict[str, Any] | None) -> None:
        self.clear()
        if view is None:
            return
        for name in view["claim_order"]:
            self._add(self.root, view["trees"][name], expand=name in view["derived"])
        self.root.expand()

    def _add(self, parent: TreeNode[Any], node: dict[str, Any], *, expand: bool = False) -> None:
        label = Text()
        if node["value"] is not None:
            label.append_text(symbol(node["value"]))
            label.append(" ")
        label.append_text(literal(node["label"], style="bold" if node["children"] else ""))
        if node["why"]:
            label.append_text(literal(f"  — {node['why']}", style=EVIDENCE_STYLE.get(node["why"], "dim")))
        if node["children"]:
            branch = parent.add(label, expand=expand)
            for child in node["children"]:
                self._add(branch, child)
        else:
            parent.add_leaf(label)
