"""The guard check of a candidate, in the protocol's order: the surface, then leaked answers.

`outside` when the candidate's path matches none of the surface globs (a
candidate without a path, or with no surface given, cannot be shown to be
inside, so it is outside: the check fails closed); `leaked` when any
`contains` expected answer of the suite appears in the candidate
(case-insensitive); else `clean`.
"""

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from typing import Any

from .suites import Suite

RESULTS = ("outside", "leaked", "clean")


@dataclass(frozen=True)
class GuardResult:
    result: str  # outside | leaked | clean
    why: str
    leaked: list[str] = field(default_factory=list)
    surface: list[str] = field(default_factory=list)

    def details(self) -> dict[str, Any]:
        return {"why": self.why, "leaked": self.leaked, "surface": self.surface}


def within_surface(path: str | None, surface: list[str] | tuple[str, ...]) -> tuple[bool, str]:
    """Whether `path` matches a surface glob (fnmatch: `*` also crosses `/`), and why."""
    if not surface:
        return False, "no surface globs were given, so the path cannot be shown to be inside the surface"
    if not path:
        return False, "the candidate has no path, so it cannot be shown to be inside the surface"
    normal = path.replace("\\", "/")
    while normal.startswith("./"):
        normal = normal[2:]
    parts = PurePosixPath(normal).parts
    if normal.startswith("/") or ".." in parts:
        return False, f"{path} leaves the project (absolute or '..'), so it is outside every surface"
    for glob in surface:
        if fnmatchcase(normal, glob) or fnmatchcase(normal, glob.rstrip("/") + "/*"):
            return True, f"{path} matches the surface glob {glob}"
    return False, f"{path} matches none of the surface globs {', '.join(surface)}"


def guard_check(path: str | None, content: str, suite: Suite, surface: list[str] | tuple[str, ...]) -> GuardResult:
    """The guard check of one candidate against a surface and a suite's expected answers."""
    surface = list(surface)
    inside, why = within_surface(path, surface)
    if not inside:
        return GuardResult("outside", why, surface=surface)
    lowered = (content or "").lower()
    leaked = sorted({s for s in suite.expected_answers() if s.lower() in lowered})
    if leaked:
        shown = ", ".join(repr(s) for s in leaked[:5])
        return GuardResult("leaked", f"expected answers of the suite appear in the candidate: {shown}",
                           leaked=leaked, surface=surface)
    return GuardResult("clean", f"{why}; no expected answer of the suite appears in the candidate", surface=surface)
