"""The shapes of what the skills domain hands the console and the CLI: each key a reader may use, typed.

TypedDicts, so readers keep `skill["key"]` and `--json` dumps one as it is, while mypy checks every key
a reader names against these declarations.
"""

from typing import Any, TypedDict


class SkillRow(TypedDict):
    """One skill with its regression state (skills.list_skills)."""

    skill: str
    state: str | None  # None: never evaluated
    severity: str | None
    fail_streak: int | None
    pass_streak: int | None
    broken_streak: int | None
    last_run: str | None
    last_run_id: str | None
    last_eval_id: int | None
    acknowledged_eval_id: int | None
    failing: list[str]
    returned_because: list[str]
    urgency: int
    runs: int
    manifest_version: int | None
    acknowledged: bool


class SkillDetail(SkillRow):
    """Everything the Regressions detail shows about one skill (skills.skill_detail)."""

    assertions: list[dict[str, Any]]  # the last eval's results: assertion, passed, message
    evaluated_run: dict[str, Any] | None  # the run the last eval judged
    latest_run: dict[str, Any] | None
    manifest: dict[str, Any] | None  # the active manifest version
    history: list[dict[str, Any]]  # the last evals, oldest first
    changes: dict[str, Any]  # before, after, changes: what changed between the last two evals
    grid: dict[str, Any]  # evals, rows: assertion by eval
    triage: list[dict[str, Any]]  # acknowledgements and mismatches: seq, at, actor, kind, note
    pending_drafts: list[str]


class DraftRow(TypedDict):
    """One manifest draft of a page of the list (skills.list_drafts)."""

    id: str
    skill: str
    origin: str | None  # bootstrap | edit | mismatch
    author: str | None
    status: str  # pending | approved | rejected | superseded
    parent_id: str | None
    based_on_version_id: int | None
    created_at: str
    decided_at: str | None
    assertions: dict[str, Any]  # parsed: what approval makes active


class Draft(TypedDict):
    """A manifest draft as people review it (skills.get_draft): `yaml` its assertions as approval would make
    them active, `raw_yaml` the text as written."""

    id: str
    skill: str
    assertions: dict[str, Any]
    yaml: str
    evidence: dict[str, Any] | None  # runs sampled, word counts, headings found where
    author: str | None
    origin: str | None
    parent_id: str | None
    based_on_version_id: int | None
    status: str
    created_at: str
    decided_at: str | None
    event_seq: int | None
    raw_yaml: str | None
