"""The guard check of a candidate, in the protocol's order: the surface, then leaked answers.

`outside` when the candidate's path matches none of the surface globs (a
candidate without a path, or with no surface given, cannot be shown to be
inside, so it is outside: the check fails closed); `leaked` when any
`contains` expected answer of the suite appears in the candidate
(case-insensitive), unless the suite's `guard_allow:` lists it (an expected answer a
candidate may legitimately contain, such as its own output format); else `clean`.
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
    tasks: dict[str, list[str]] = field(default_factory=dict)  # a leaked string -> the tasks expecting it
    allowed: list[str] = field(default_factory=list)  # expected answers found but allowed by the suite

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {"why": self.why, "leaked": self.leaked, "surface": self.surface}
        if self.tasks:
            out["tasks"] = self.tasks
        if self.allowed:
            out["allowed"] = self.allowed
        return out


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
    allow = {s.lower() for s in suite.guard_allow}
    tasks: dict[str, list[str]] = {}
    allowed: set[str] = set()
    for task_id, expected in suite.expected_by_task():
        if expected.lower() in lowered:
            if expected.lower() in allow:
                allowed.add(expected)
            else:
                tasks.setdefault(expected, []).append(task_id)
    leaked = sorted(tasks)
    if leaked:
        shown = ", ".join(f"{s!r} (task {', '.join(tasks[s])})" for s in leaked[:5])
        return GuardResult("leaked", f"expected answers of the suite appear in the candidate: {shown}",
                           leaked=leaked, surface=surface, tasks=tasks, allowed=sorted(allowed))
    also = f" ({len(allowed)} allowed by the suite's guard_allow)" if allowed else ""
    return GuardResult("clean", f"{why}; no expected answer of the suite appears in the candidate{also}",
                       surface=surface, allowed=sorted(allowed))
