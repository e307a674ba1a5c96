"""Regressions worst first: the order the console lists skills in and the regressions queue follows.

Within the stored urgency (state, then severity) the worse item comes first: the longer pass
streak it broke, the more assertions failing, a run that ended in error; the name last.
"""

import json
from typing import Any, TypedDict

from sqlite_utils import Database

from gatepost.store.skills import STATES, WORST_FIRST


class RegressionRow(TypedDict):
    """One skill on the Regressions list."""

    skill: str
    state: str | None
    severity: str | None
    fail_streak: int | None
    pass_streak: int | None
    broken_streak: int | None
    last_run: str | None
    failing: list[str]
    acknowledged: bool
    run_error: bool
    returned_because: str | None  # an acknowledged failure that came back, and why


def _where(state: str | None, search: str | None) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if state in STATES:
        clauses.append("r.state = ?")
        params.append(state)
    if search:
        clauses.append("(s.name LIKE ? OR r.failing LIKE ?)")
        params.extend([f"%{search}%"] * 2)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def worst_first(db: Database, *, state: str | None = None, search: str | None = None, limit: int = 100,
                offset: int = 0) -> tuple[list[RegressionRow], int]:
    """One page of skills, worst first, and how many match."""
    where, params = _where(state, search)
    base = " FROM skills s LEFT JOIN regression_states r ON r.skill = s.name"
    total = db.execute(f"SELECT COUNT(*){base}{where}", params).fetchone()[0]
    rows = db.query(
        "SELECT s.name AS skill, r.state, r.severity, r.fail_streak, r.pass_streak, r.broken_streak, r.last_run,"
        " r.failing, r.last_eval_id, r.acknowledged_eval_id, r.returned_because,"
        " (SELECT status = 'error' FROM skill_runs WHERE id = r.last_run_id) AS run_error"
        f"{base}{where} ORDER BY {WORST_FIRST} LIMIT ? OFFSET ?", [*params, limit, offset])
    page: list[RegressionRow] = [{
        "skill": r["skill"], "state": r["state"], "severity": r["severity"], "fail_streak": r["fail_streak"],
        "pass_streak": r["pass_streak"], "broken_streak": r["broken_streak"], "last_run": r["last_run"],
        "failing": json.loads(r["failing"]) if r["failing"] else [],
        "acknowledged": bool(r["last_eval_id"]) and r["acknowledged_eval_id"] == r["last_eval_id"],
        "run_error": bool(r["run_error"]), "returned_because": r["returned_because"],
    } for r in rows]
    return page, total
