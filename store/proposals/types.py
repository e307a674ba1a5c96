"""The shapes of what the proposals domain hands the console and the CLI: each key a reader may use, typed.

TypedDicts, so readers keep `proposal["key"]` and `proposal show --json` dumps one as it is, while mypy
checks every key a reader names against these declarations.
"""

from typing import Any, TypedDict

from gatepost.store.cases import CaseView, Contradiction


class GateResult(TypedDict):
    """One run of the scorer gate on a proposal (booleans as booleans)."""

    id: int
    proposal_id: str
    passed: bool
    score_before: float | None
    score_after: float | None
    reason: str | None
    command: str | None
    targeted: bool
    duration_ms: int | None
    at: str
    event_seq: int | None


class Mark(TypedDict):
    """A person's mark on a proposal: accepted, declined or needs changes, with the note."""

    seq: int
    at: str
    actor: str | None
    status: str | None
    note: str | None
    override_gate: str | None  # the reason a person accepted over a failed gate
    rubric: dict[str, Any] | None  # the answers to the proposals' rubric the mark gave (None: it asked none)


class ProposalRow(TypedDict):
    """One proposal of a page of the list (proposals.list_proposals); `gate`: its newest gate result."""

    id: str
    path: str | None
    kind: str | None
    operation: str | None
    edit_mode: str | None
    title: str | None
    confidence: float | None
    case_id: str | None
    status: str
    created_at: str
    updated_at: str | None
    gate: str | None  # passed, failed, not_targeted, disabled, or None when never gated


class ProposalView(TypedDict):
    """A proposal as the Proposals screen and `proposal show --json` read it (proposals.get_proposal)."""

    id: str
    path: str | None
    kind: str | None
    operation: str | None
    edit_mode: str | None
    title: str | None
    confidence: float | None
    rationale: str | None
    before_body: str | None
    after_body: str | None
    expected_base_body_sha256: str | None
    case_id: str | None
    status: str
    created_at: str
    updated_at: str | None
    event_seq: int | None
    gate_results: list[GateResult]
    marks: list[Mark]
    last_seq: int
    case: CaseView | None
    contradicted: Contradiction | None
