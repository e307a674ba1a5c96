"""Repeated attempts of one task (pass@k) read as a person reads them: one outcome word per attempt,
and one line counting each distinct outcome ("3 attempts: 1 pass, 2 timeout")."""

import re
from collections import Counter
from typing import Any

# The executor's and the judges' one-line reasons, mapped to the word a reviewer scans for.
_OUTCOMES = [
    (re.compile(r"^timed out\b"), "timeout"),
    (re.compile(r"^crashed\b"), "crash"),
    (re.compile(r"^output exceeded\b"), "output too long"),
    (re.compile(r"^exited with status (-?\d+)"), "exit {0}"),
    (re.compile(r"^(could not|cannot|no such|not found|permission)", re.IGNORECASE), "error"),
]


def outcome(attempt: dict[str, Any]) -> str:
    """pass, fail (judged and failed), not judged, timeout, crash, exit N, output too long or error."""
    if attempt.get("passed"):
        return "pass"
    reason = (attempt.get("reason") or "").strip()
    for pattern, word in _OUTCOMES:
        found = pattern.match(reason)
        if found:
            return word.format(*found.groups())
    if attempt.get("judged") is not None and not attempt.get("judged"):
        return "not judged"
    return "fail"


def outcome_counts(attempts: list[dict[str, Any]]) -> dict[str, int]:
    """Each distinct outcome and how many attempts had it: pass first, then the most frequent, then as seen."""
    counts = Counter(outcome(a) for a in attempts)
    return dict(sorted(counts.items(), key=lambda item: (item[0] != "pass", -item[1])))  # stable: first seen first


def attempts_line(attempts: list[dict[str, Any]]) -> str:
    """'3 attempts: 1 pass, 2 timeout' (or '1 attempt: fail')."""
    counts = outcome_counts(attempts)
    n = len(attempts)
    return f"{n} attempt{'s' if n != 1 else ''}: " + ", ".join(f"{c} {word}" for word, c in counts.items())


def summarise_attempts(task_id: str, split: str | None, attempts: list[dict[str, Any]]) -> dict[str, Any]:
    """One task's result from its attempts (pass@k: any passing attempt passes; the passing one is shown)."""
    passing = [a for a in attempts if a["passed"]]
    shown = passing[0] if passing else attempts[-1]
    scores = [a["score"] for a in attempts if a["score"] is not None]
    return {
        "task_id": task_id,
        "split": split,
        "passed": bool(passing),
        "score": max(scores) if scores else None,
        "judged": any(a["judged"] for a in attempts),
        "attempts": len(attempts),
        "duration_ms": sum(a["duration_ms"] for a in attempts),
        "output": shown["output"],
        "reason": None if passing else shown["reason"],
        "mock": any(a["mock"] for a in attempts),
        "attempt_details": attempts,
    }


