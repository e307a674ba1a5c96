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
        """Draw `view`'s claims in place: nodes are relabelled, and added or removed only where the
        shape differs (clearing and re-adding every node laid the whole screen out again on each row)."""
        specs = [] if view is None else [self._spec(view["trees"][name], expand=name in view["derived"])
                                         for name in view["claim_order"]]
        self._sync(self.root, specs)
        if not self.root.is_expanded:
            self.root.expand()
        # the lines now, not on the next idle: their count sets the tree's height, so the screen is laid
        # out once with everything that changed, not a second time when the tree builds them
        self._tree_lines  # noqa: B018

    def _spec(self, node: dict[str, Any], *, expand: bool = False) -> tuple[Text, bool, list[Any]]:
        """(label, expanded, children) of one node, as it should be drawn."""
        label = Text()
        if node["value"] is not None:
            label.append_text(symbol(node["value"]))
            label.append(" ")
        label.append_text(literal(node["label"], style="bold" if node["children"] else ""))
        if node["why"]:
            label.append_text(literal(f"  — {node['why']}", style=EVIDENCE_STYLE.get(node["why"], "dim")))
        return label, expand, [self._spec(child) for child in node["children"]]

    def _sync(self, parent: TreeNode[Any], specs: list[tuple[Text, bool, list[Any]]]) -> None:
        """Make `parent`'s children match `specs`: a node of the same kind is relabelled (a repaint of
        its line, no layout); only where a branch and a leaf differ are nodes removed and added."""
        children = list(parent.children)
        for i, (label, expand, kids) in enumerate(specs):
            node = children[i] if i < len(children) else None
            if node is not None and node.allow_expand != bool(kids):
                for extra in children[i:]:
                    extra.remove()
                children, node = children[:i], None
            if node is None:
                node = parent.add(label, expand=expand) if kids else parent.add_leaf(label)
            elif node.label != label:
                node.set_label(label)
            if kids:
                if expand and not node.is_expanded:
                    node.expand()
                elif node.is_expanded and not expand:
                    node.collapse()
                self._sync(node, kids)
        for extra in children[len(specs):]:
            extra.remove()
