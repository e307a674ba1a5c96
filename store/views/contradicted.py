"""What waits for someone because later evidence contradicts a decision, and the cases waiting on a
design review: the overview's counts of decisions contradicted later and cases waiting on a design review."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gatepost.store import cases, proposals, skills

if TYPE_CHECKING:
    from sqlite_utils import Database


def contradicted_counts(db: Database) -> dict[str, int]:
    """How many closed cases, accepted proposals and approved drafts later evidence contradicts."""
    return {"cases": len(cases.contradicted_case_ids(db)),
            "proposals": len(proposals.contradicted_proposal_ids(db)),
            "drafts": len(skills.contradicted_draft_ids(db))}


def design_review_count(db: Database) -> int:
    """How many open cases wait only on a design review (the design reviewers' queue), counted in an index."""
    return cases.waiting_count(db, cases.DEFAULT_PROTOCOL)
