"""Deep links: `KIND:ID` names one item of the store and the console screen that shows it.

Shared by `gatepost console --open` and `gatepost serve` (its `?open=` URL parameter), without Textual,
so the server can check a link before any console starts.
"""

# what `--open KIND:KEY` names, and the screen that shows it
LINK_KINDS = {"case": "cases", "results": "results", "run": "results", "skill": "regressions",
              "draft": "manifests", "proposal": "proposals"}
MAX_LINK_CHARS = 300


def parse_link(link: str) -> tuple[str, str]:
    """`case:case-0042` → ("cases", "case-0042"); ValueError names what was expected."""
    kind, sep, key = link.partition(":")
    if not sep or not key or kind not in LINK_KINDS:
        shown = link if len(link) <= 60 else link[:60] + "…"
        raise ValueError(f"--open: expected KIND:ID with KIND one of {', '.join(sorted(LINK_KINDS))}, got {shown!r}")
    if len(link) > MAX_LINK_CHARS or not key.isprintable():
        raise ValueError(f"--open: the ID of a {kind} link must be printable text of at most {MAX_LINK_CHARS} "
                         "characters")
    return LINK_KINDS[kind], key
