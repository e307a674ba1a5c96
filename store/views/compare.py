"""Runs lined up against a chosen baseline, and a suite's pass rate over its runs.

`compare_matrix`: a task × run matrix, each run's pass rate with its Wilson interval and its delta against the
baseline with the paired interval and exact test (`evaluation.compare_runs`, the one paired comparison the
evidence of a case also rests on); the tasks a run regressed (passing in the baseline, failing in the run)
first. `suite_trend`: a suite's runs in the store's order (their events), each rate with its interval, read
from the stored task counts (a run of a million tasks costs a few rows).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gatepost.store.evaluation import (
    ALPHA,
    LEVEL,
    compare_runs,
    rate_summary,
    run_task_counts,
    task_passes,
)
from gatepost.store.kernel import InputError

if TYPE_CHECKING:
    from sqlite_utils import Database

MAX_RUNS = 20  # columns of one matrix: more do not fit a terminal, nor a reader
TREND_RUNS = 30  # a suite's newest runs a trend shows


# `steps(name, done, total)`: called as each step of a long read begins (runs of 100,000 tasks take seconds)
Steps = Callable[[str, int, int], None]


def compare_matrix(db: Database, runs: list[str], baseline: str, *, alpha: float = ALPHA, level: float = LEVEL,
                   all_tasks: bool = False, steps: Steps | None = None) -> dict[str, Any]:
    """Each run against `baseline`: its rate, its paired comparison, and the tasks whose outcome differs from the
    baseline's in any run (every task with `all_tasks`), regressions first.

    A task row: {task, baseline: bool, runs: {run: bool}, regressed_in: [...], improved_in: [...]}. The runs must
    hold the baseline's tasks (a paired comparison compares the same tasks); InputError names the one that does
    not. `worse`: the runs the exact test decides worse than the baseline at `alpha` (what CI fails on).
    `steps` is called as the baseline's tasks, each run's and the matrix begin to be read.
    """
    runs = list(dict.fromkeys(r.strip() for r in runs if r and r.strip()))
    if not runs:
        raise InputError("RUN: expected one or more runs to compare with the baseline")
    if len(runs) > MAX_RUNS:
        raise InputError(f"RUN: expected at most {MAX_RUNS} runs, got {len(runs)}")
    if baseline in runs:
        raise InputError(f"--baseline: {baseline} is also one of the runs compared with it")
    total = len(runs) + 2

    def step(name: str, done: int) -> None:
        if steps is not None:
            steps(name, done, total)

    step(f"the baseline {baseline}", 0)
    base = task_passes(db, baseline, "--baseline")
    compared = []
    cells: dict[str, dict[str, bool]] = {}
    for index, run in enumerate(runs):
        step(f"the run {run}", index + 1)
        comparison = compare_runs(db, run, baseline, alpha=alpha, level=level)
        compared.append({"run": run, "rate": comparison["candidate"], "comparison": comparison["comparison"],
                         "delta": comparison["delta"]})
        cells[run] = task_passes(db, run, "RUN")
    step("the task matrix", total - 1)
    rows: list[dict[str, Any]] = []
    for task in sorted(base):
        outcome = {run: cells[run][task] for run in runs}
        regressed = [run for run in runs if base[task] and not outcome[run]]
        improved = [run for run in runs if not base[task] and outcome[run]]
        if regressed or improved or all_tasks:
            rows.append({"task": task, "baseline": base[task], "runs": outcome, "regressed_in": regressed,
                         "improved_in": improved})
    rows.sort(key=lambda r: (-len(r["regressed_in"]), -len(r["improved_in"]), r["task"]))
    return {"schema": "gatepost.compare/1", "baseline": {"run": baseline, "rate": rate_summary(
        sum(base.values()), len(base), level)}, "runs": compared, "tasks": rows, "task_count": len(base),
            "differing": sum(1 for r in rows if r["regressed_in"] or r["improved_in"]),
            "regressions": sum(len(r["regressed_in"]) for r in rows),
            "worse": [c["run"] for c in compared if c["comparison"]["decided"] == "worse"],
            "alpha": alpha, "level": level}


def suite_trend(db: Database, suite_id: str | None, *, skill: str | None = None, limit: int = TREND_RUNS,
                level: float = LEVEL) -> list[dict[str, Any]]:
    """A suite's newest `limit` runs (of one candidate skill, if given), oldest first in the store's order:
    {run, started_at, skill, rate: {passed, tasks, rate, low, high}}; runs without tasks are left out. A run
    imported without a suite (JUnit, Inspect) has none: `suite_id` None follows the skill's suite-less runs."""
    where = "suite_id = ?" if suite_id is not None else "suite_id IS NULL"
    sql = (f"SELECT id, started_at, skill_id FROM evaluation_runs WHERE {where}"
           + (" AND skill_id = ?" if skill else "") + " ORDER BY event_seq DESC, id DESC LIMIT ?")
    params = [*([suite_id] if suite_id is not None else []), *([skill] if skill else []), limit]
    out = []
    for run_id, started_at, skill_id in reversed(db.execute(sql, params).fetchall()):
        counts = run_task_counts(db, run_id)
        if counts["tasks"]:
            out.append({"run": run_id, "started_at": started_at, "skill": skill_id,
                        "rate": rate_summary(counts["tasks"] - counts["failing"], counts["tasks"], level)})
    return out


def run_suite(db: Database, run_id: str) -> tuple[str | None, str | None] | None:
    """The suite and candidate skill of a stored run, or None."""
    row = db.execute("SELECT suite_id, skill_id FROM evaluation_runs WHERE id = ?", [run_id]).fetchone()
    return (row[0], row[1]) if row else None


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(trend: list[dict[str, Any]]) -> str:
    """The pass rates as one line of block characters, 0 % to 100 % (a run without a rate: a space)."""
    return "".join(SPARKS[min(len(SPARKS) - 1, int(p["rate"]["rate"] * len(SPARKS)))] for p in trend)


def trend_svg(trend: list[dict[str, Any]], *, width: int = 480, height: int = 120) -> dict[str, Any]:
    """The geometry of a trend chart (numbers only; the report's template draws it, escaped): each run's point
    and interval bar in a `width` × `height` box, 0 % at the bottom."""
    pad, n = 24, len(trend)
    step = (width - 2 * pad) / max(n - 1, 1)

    def y(value: float) -> float:
        return round(height - pad - value * (height - 2 * pad), 1)

    points = [{"x": round(pad + i * step, 1), "y": y(p["rate"]["rate"]), "low": y(p["rate"]["low"]),
               "high": y(p["rate"]["high"]), "run": p["run"], "rate": p["rate"]} for i, p in enumerate(trend)]
    return {"width": width, "height": height, "points": points,
            "path": " ".join(f"{'M' if i == 0 else 'L'}{p['x']},{p['y']}" for i, p in enumerate(points)),
            "zero": y(0.0), "full": y(1.0), "left": pad, "right": width - pad}
