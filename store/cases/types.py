"""The shapes of what the cases domain hands the console and the CLI: each key a reader may use, typed.

They are TypedDicts, so readers keep `view["key"]` and `case show --json` dumps a view as it is, while
mypy checks every key a reader names against these declarations (a misspelt key is a type error).
"""

from typing import Any, NotRequired, TypedDict


class Candidate(TypedDict):
    path: str | None
    content: Any  # the changed text (a string) or configuration (a mapping or list)
    basis: dict[str, str]
    revision: str


class CaseBase(TypedDict):
    """What the candidate was made on and what its path holds now."""

    path: str | None
    made_on: str | None
    current: str | None
    stale: bool
    why: str | None


class EvidenceItem(TypedDict):
    """One evidence record with the protocol's reading of it (counting, stale, not independent, mock)."""

    id: int
    kind: str
    result: str
    producer: str
    artifact: str
    about: str
    observed_at: str
    details: dict[str, Any] | None
    status: str
    why: str
    decides: list[str]


class DecisionItem(TypedDict):
    id: int
    outcome: str
    actor: str
    capability: str
    revision: str
    note: str | None
    at: str
    based_on_seq: int | None
    rubric: dict[str, str | int] | None  # the answers to the protocol's rubric, in its order (None: it asks none)


class Contradiction(TypedDict):
    """Later evidence against a decision: what was decided when, what came back, which claims turned."""

    decided: str | None
    decided_at: str | None
    decided_seq: int
    kind: str
    result: str | None
    producer: str | None
    evidence_id: int | None
    recorded_at: str | None
    recorded_seq: int | None
    claims: dict[str, list[str]]  # name: [then, now]
    line: str
    reason: NotRequired[str | None]  # a proposal's failed gate result: why it failed


class CaseView(TypedDict):
    """Everything a person needs to decide a case (cases.case_view)."""

    id: str
    revision: str
    claims: dict[str, str]
    actions: dict[str, dict[str, Any]]  # name: {allowed, status, why}
    outcomes: dict[str, dict[str, Any]]  # name: {allowed, why}
    outcome: str | None
    title: str
    author: str
    protocol: str
    status: str
    last_seq: int
    independent: dict[str, list[str]]
    candidate: Candidate
    explanations: dict[str, str]
    undecided: dict[str, str]
    noise: list[str]
    claim_order: list[str]
    derived: list[str]
    claim_descriptions: dict[str, str]
    trees: dict[str, dict[str, Any]]  # the interpreter's outline: label, value, why, children
    evidence: list[EvidenceItem]
    evidence_counts: dict[str, int]
    decisions: list[DecisionItem]
    rubric: list[dict[str, Any]]  # the protocol's rubric questions, in order: {key, question, scale} ([]: none)
    viewer: str | None
    viewer_capabilities: list[str]
    loop: str | None
    base: CaseBase
    applied: list[dict[str, Any]]
    contradicted: Contradiction | None


class CaseRow(TypedDict):
    """One case of a page of the case list (cases.list_cases)."""

    id: str
    title: str
    author: str
    protocol: str
    candidate_path: str | None
    current_revision: str
    status: str
    outcome: str | None
    claims: dict[str, str]
    allowed: list[str]
    needs_decision: int
    last_seq: int
    created_at: str
    updated_at: str
