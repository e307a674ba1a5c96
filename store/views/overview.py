"""What waits for whom: the counts the console's overview shows, straight from the projections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gatepost.store.cases import COUNTS_TABLE, kept_count, kept_not_landed_count

from .contradicted import contradicted_counts, design_review_count

if TYPE_CHECKING:
    from sqlite_utils import Database

CASE_STATUSES = ("open", "closed")
OUTCOMES = ("kept", "rejected", "proposed", "inconclusive")
REGRESSION_STATES = ("NEW_FAIL", "CHRONIC", "STABLE_FAIL", "NEW_PASS", "PASS")
PROPOSAL_STATUSES = ("waiting", "needs_changes", "accepted", "declined")
DRAFT_STATUSES = ("pending", "approved", "rejected", "superseded")


def _group(db: Database, sql: str, keys: tuple[str, ...]) -> dict[str, int]:
    counts = dict.fromkeys(keys, 0)
    for key, n in db.execute(sql).fetchall():
        if key is not None:
            counts[key] = counts.get(key, 0) + n
    return counts


def counts(db: Database) -> dict[str, dict[str, int]]:
    """Counts by status for every list the console has: the cases' from their kept counts, the rest from indexed
    GROUP BYs."""
    return {
        # the cases by status, outcome and whether they need a decision: from the counts kept as they change
        "cases": _group(db, f"SELECT status, SUM(n) FROM {COUNTS_TABLE} GROUP BY status", CASE_STATUSES)
        | {"needs_decision": kept_count(db, status="open", needs_decision=True),
           "design_review": design_review_count(db), "kept_not_landed": kept_not_landed_count(db)},
        "contradicted": contradicted_counts(db),
        "outcomes": _group(db, f"SELECT outcome, SUM(n) FROM {COUNTS_TABLE} WHERE outcome != '' GROUP BY outcome",
                           OUTCOMES),
        "regressions": _group(db, "SELECT state, COUNT(*) FROM regression_states GROUP BY state", REGRESSION_STATES),
        "severity": _group(db, "SELECT severity, COUNT(*) FROM regression_states WHERE state = 'NEW_FAIL' "
                               "GROUP BY severity", ("high", "medium", "low")),
        "drafts": _group(db, "SELECT status, COUNT(*) FROM manifest_drafts GROUP BY status", DRAFT_STATUSES),
        "proposals": _group(db, "SELECT status, COUNT(*) FROM proposals GROUP BY status", PROPOSAL_STATUSES),
        "runs": {"evaluation_runs": db.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0],
                 "skills": db.execute("SELECT COUNT(*) FROM skills").fetchone()[0]},
    }
