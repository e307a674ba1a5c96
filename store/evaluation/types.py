"""The shapes of the evaluation runs the console and the CLI read: each key a reader may use, typed.

TypedDicts, so readers keep `run["key"]` and `--json` dumps a run as it is, while mypy checks every key
a reader names against these declarations. A run's task pages are typed in task_pages.py.
"""

from typing import Any, TypedDict


class RunRow(TypedDict):
    """One evaluation run as lists show it (evaluation.list_runs, previous_run)."""

    id: str
    suite_id: str | None
    skill_id: str | None
    candidate_path: str | None
    candidate_hash: str | None
    baseline_path: str | None
    baseline_hash: str | None
    executor: str | None
    mock: int
    pass_k: int | None
    split: str | None
    execution_pass_rate: float | None
    baseline_pass_rate: float | None
    delta: float | None
    verdict: str | None
    warnings: list[str]
    baseline_health: dict[str, Any]  # status, baseline_pass_rate, threshold, message
    case_id: str | None
    purpose: str | None
    started_at: str | None
    finished_at: str | None


class RunDetail(RunRow):
    """One run with its artifact as written (evaluation.get_run)."""

    artifact: dict[str, Any] | None
