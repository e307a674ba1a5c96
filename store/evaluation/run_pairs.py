"""Two stored runs of the same tasks weighed against each other: the candidate's run against the baseline's.

Any stored run counts (gatepost's own, an upstream artifact, a JUnit report, an Inspect log): each run's
tasks are read from its candidate side (what that run ran), a task passing when any attempt passed
(pass@k, as a run's own statistics count it). The runs must hold the same tasks; the comparison is
`stats.compare` over them, the paired delta, interval, exact test and decision `case evaluate` weighs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gatepost.store.kernel import InputError

from . import stats

if TYPE_CHECKING:
    from sqlite_utils import Database


def task_passes(db: Database, run_id: str, option: str = "RUN") -> dict[str, bool]:
    """Each task of a stored run and whether it passed (any attempt, its candidate side): what a paired
    comparison counts. InputError naming `option` when the run is not in the store."""
    if not db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [run_id]).fetchone():
        raise InputError(f"{option}: no evaluation run {run_id!r} in this store (gatepost suite import-artifact)")
    return {task: bool(passed) for task, passed in db.execute(
        "SELECT task_id, MAX(COALESCE(passed, 0) != 0) FROM task_results WHERE run_id = ? AND side = 'candidate'"
        " GROUP BY task_id ORDER BY task_id", [run_id])}


def compare_runs(db: Database, candidate: str, baseline: str, *, alpha: float = stats.ALPHA,
                 level: float = stats.LEVEL) -> dict[str, Any]:
    """{run_id, candidate_run, baseline_run, delta, comparison, candidate, baseline}: the paired comparison of
    two stored runs over their tasks; InputError when a run is missing, empty or holds other tasks."""
    mine, theirs = task_passes(db, candidate, "--candidate"), task_passes(db, baseline, "--baseline")
    for run_id, held, option in ((candidate, mine, "--candidate"), (baseline, theirs, "--baseline")):
        if not held:
            raise InputError(f"{option}: run {run_id} holds no task results to compare")
    only_mine = sorted(set(mine) - set(theirs))
    only_theirs = sorted(set(theirs) - set(mine))
    if only_mine or only_theirs:
        which, run_id, missing = (("--baseline", baseline, only_mine) if only_mine
                                  else ("--candidate", candidate, only_theirs))
        raise InputError(f"{which}: run {run_id} lacks task {missing[0]}"
                         + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                         + f": a comparison needs the same tasks ({len(mine)} in {candidate}, {len(theirs)} in "
                           f"{baseline})")
    tasks = sorted(mine)
    pairs = stats.Pairs.of([mine[t] for t in tasks], [theirs[t] for t in tasks])
    comparison = stats.compare(pairs, alpha=alpha, level=level)
    rates = {side: stats.rate_summary(sum(passes.values()), len(passes), level)
             for side, passes in (("candidate", mine), ("baseline", theirs))}
    return {"run_id": f"{candidate} vs {baseline}", "candidate_run": candidate, "baseline_run": baseline,
            "delta": round(sum(mine.values()) / len(mine) - sum(theirs.values()) / len(theirs), 4),
            "comparison": comparison,
            "candidate": rates["candidate"], "baseline": rates["baseline"]}


__all__ = ["compare_runs", "task_passes"]
