"""Diffs of data text, shown literally with added and removed lines coloured."""

import difflib

from rich.text import Text

from gatepost.safe import clean


def unified_diff(before: str | None, after: str | None, *, before_name: str = "before",
                 after_name: str = "after", context: int = 3) -> Text:
    """A unified diff as Rich Text; every line is data, never markup."""
    a = clean(before).splitlines()
    b = clean(after).splitlines()
    out = Text()
    lines = list(difflib.unified_diff(a, b, before_name, after_name, n=context, lineterm=""))
    if not lines:
        out.append("no difference" if a or b else "both empty", style="dim")
        return out
    for line in lines:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        out.append(line + "\n", style=style)
    return out


def side_by_side(left: str | None, right: str | None, width: int = 60) -> tuple[Text, Text]:
    """Two columns of text with changed lines marked, for outputs compared beside each other."""
    a = clean(left).splitlines()
    b = clean(right).splitlines()
    ltext, rtext = Text(), Text()
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for line in a[i1:i2]:
            ltext.append(line + "\n", style="" if tag == "equal" else "red")
        for line in b[j1:j2]:
            rtext.append(line + "\n", style="" if tag == "equal" else "green")
        if tag != "equal":
            pad = (i2 - i1) - (j2 - j1)
            (rtext if pad > 0 else ltext).append("\n" * abs(pad))
    return ltext, rtext
