"""One page of a run's tasks, read from the stored review order, so opening a run costs the same at
1,000 tasks as at 1,000,000.

The order (changed since the previous run of the suite and skill, then candidate ≠ baseline, then
the rest, each in import order), the filters and the counts come from `run_task_order` and
`run_task_counts` (kernel/task_order.py), written when the run was stored. Only the tasks of the
page are read from task_results, their attempts collapsed by a GROUP BY into outcome counts.
"""

from typing import Any, TypedDict

from sqlite_utils import Database

from .attempts import outcome

FILTERS = ("failing", "changed", "differs", "flaky")
PAGE_SIZE = 50

_ROW_COLUMNS = ("pos, task_id, split, c_attempts, c_passed, c_judged, c_score, c_mock, b_attempts, b_passed,"
                " b_judged, b_score, b_mock, prev_passed, changed, differs, flaky")


class TaskSide(TypedDict):
    """One side's attempts of a task, collapsed: pass@k, whether judged, the best score, outcome counts."""

    passed: bool
    judged: bool
    score: float | None
    attempts: int
    mock: bool
    outcomes: dict[str, int]
    attempts_line: str


class TaskRow(TypedDict):
    """A task of a run as the Results list shows it (keys as in run_tasks(), plus position and flaky)."""

    position: int
    task_id: str
    split: str | None
    candidate: TaskSide | None
    baseline: TaskSide | None
    differs: bool
    changed_vs_previous: bool
    previous_passed: bool | None
    previous_run: str | None
    flaky: bool


class TaskPage(TypedDict):
    """A page of tasks and how many tasks match the filter (for 'rows 51–100 of 1,000,000')."""

    rows: list[TaskRow]
    total: int
    offset: int
    limit: int


class TaskCounts(TypedDict):
    """A run's counts: tasks, failing (candidate did not pass), changed since the previous run, how many
    of those now pass / now fail, candidate ≠ baseline, flaky (a side both passed and failed), per split."""

    run_id: str
    previous_run: str | None
    tasks: int
    failing: int
    changed: int
    changed_now_pass: int
    changed_now_fail: int
    differs: int
    flaky: int
    splits: dict[str, int]


_COUNT_KEYS = ("tasks", "failing", "changed", "changed_now_pass", "differs", "flaky")


def _count_rows(db: Database, run_id: str, split: str | None = None) -> tuple[str | None, dict[str, int],
                                                                                  dict[str, int]]:
    sql = ("SELECT split, previous_run, tasks, failing, changed, changed_now_pass, differs, flaky"
           " FROM run_task_counts WHERE run_id = ?")
    params: list[Any] = [run_id]
    if split is not None:
        sql += " AND split = ?"
        params.append(split)
    totals = dict.fromkeys(_COUNT_KEYS, 0)
    splits: dict[str, int] = {}
    previous = None
    for name, prev, *values in db.execute(sql + " ORDER BY split", params).fetchall():
        previous = prev
        splits[name] = values[0]
        for key, value in zip(_COUNT_KEYS, values, strict=True):
            totals[key] += value or 0
    return previous, totals, splits


def run_task_counts(db: Database, run_id: str) -> TaskCounts:
    """A run's task counts from the stored per-split counts (a few rows, whatever the run's size)."""
    previous, totals, splits = _count_rows(db, run_id)
    if not splits:  # a run without tasks has no count rows: its previous run is still worth naming
        found = db.execute(
            "SELECT p.id FROM evaluation_runs r JOIN evaluation_runs p ON p.suite_id IS r.suite_id"
            " AND p.skill_id IS r.skill_id AND p.id != r.id AND (COALESCE(p.started_at, '') < COALESCE(r.started_at,"
            " '') OR (COALESCE(p.started_at, '') = COALESCE(r.started_at, '') AND p.id < r.id)) WHERE r.id = ?"
            " ORDER BY COALESCE(p.started_at, '') DESC, p.id DESC LIMIT 1", [run_id]).fetchone()
        previous = found[0] if found else None
    return TaskCounts(run_id=run_id, previous_run=previous, tasks=totals["tasks"], failing=totals["failing"],
                      changed=totals["changed"], changed_now_pass=totals["changed_now_pass"],
                      changed_now_fail=totals["changed"] - totals["changed_now_pass"], differs=totals["differs"],
                      flaky=totals["flaky"], splits=splits)


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def run_task_page(db: Database, run_id: str, *, filter: str | None = None, split: str | None = None,
                  search: str | None = None, offset: int = 0, limit: int = PAGE_SIZE) -> TaskPage:
    """One page of a run's tasks in review order, optionally only failing / changed / differs / flaky
    tasks, one split ('' for tasks without one) and task ids containing `search`.

    Without a search the page is an index range scan and the total comes from the stored counts.
    """
    if filter is not None and filter not in FILTERS:
        raise ValueError(f"filter: expected one of {', '.join(FILTERS)}, got {filter!r}")
    offset, limit = max(0, offset), max(0, limit)
    previous, totals, _ = _count_rows(db, run_id, split)
    clauses, params = ["run_id = ?"], [run_id]
    if split is not None:
        clauses.append("COALESCE(split, '') = ?" if split == "" else "split = ?")
        params.append(split)
    if filter == "changed":
        clauses.append("pos < ?")  # the changed tasks are the first ones of the order
        params.append(db.execute("SELECT COALESCE(SUM(changed), 0) FROM run_task_counts WHERE run_id = ?",
                                 [run_id]).fetchone()[0])
    elif filter is not None:
        clauses.append(f"{filter} = 1")
    if search:
        clauses.append("task_id LIKE ? ESCAPE '\\'")
        params.append(_like(search))
    where = " AND ".join(clauses)
    if filter is None and split is None and not search:
        clauses_sql, page_params = "run_id = ? AND pos >= ?", [run_id, offset]
        sql = f"SELECT {_ROW_COLUMNS} FROM run_task_order WHERE {clauses_sql} ORDER BY pos LIMIT ?"
        raw = db.execute(sql, [*page_params, limit]).fetchall()
    else:
        sql = f"SELECT {_ROW_COLUMNS} FROM run_task_order WHERE {where} ORDER BY pos LIMIT ? OFFSET ?"
        raw = db.execute(sql, [*params, limit, offset]).fetchall()
    if search:
        total = db.execute(f"SELECT COUNT(*) FROM run_task_order WHERE {where}", params).fetchone()[0]
    else:
        total = totals["tasks"] if filter is None else totals[filter]
    outcomes = _collapsed_attempts(db, run_id, [r[1] for r in raw])
    rows = [_row(r, previous, outcomes) for r in raw]
    return TaskPage(rows=rows, total=total, offset=offset, limit=limit)


def run_task(db: Database, run_id: str, task_id: str) -> TaskRow | None:
    """One task's row (flags, collapsed sides), for the detail shown when the cursor rests on it."""
    raw = db.execute(f"SELECT {_ROW_COLUMNS} FROM run_task_order WHERE run_id = ? AND task_id = ?",
                     [run_id, task_id]).fetchone()
    if raw is None:
        return None
    previous, _, _ = _count_rows(db, run_id)
    return _row(raw, previous, _collapsed_attempts(db, run_id, [task_id]))


def _collapsed_attempts(db: Database, run_id: str, task_ids: list[str]) -> dict[tuple[str, str], dict[str, int]]:
    """Outcome counts per (task, side) for the page's tasks: attempts grouped in SQL by what decides the word."""
    found: dict[tuple[str, str], list[tuple[int, str, int]]] = {}
    for start in range(0, len(task_ids), 400):
        chunk = task_ids[start:start + 400]
        marks = ", ".join("?" * len(chunk))
        for task_id, side, passed, judged, reason, count, first in db.execute(
                "SELECT task_id, side, passed, judged, reason, COUNT(*), MIN(id) FROM task_results"
                f" WHERE run_id = ? AND side IN ('candidate', 'baseline') AND task_id IN ({marks})"
                " GROUP BY task_id, side, passed, judged, reason", [run_id, *chunk]).fetchall():
            word = outcome({"passed": passed, "judged": judged, "reason": reason})
            found.setdefault((task_id, side), []).append((first, word, count))
    out: dict[tuple[str, str], dict[str, int]] = {}
    for key, groups in found.items():
        counts: dict[str, int] = {}
        for _, word, count in sorted(groups):  # first seen first, as outcome_counts() orders ties
            counts[word] = counts.get(word, 0) + count
        out[key] = dict(sorted(counts.items(), key=lambda item: (item[0] != "pass", -item[1])))
    return out


def _side(attempts: int, passed: int | None, judged: int | None, score: float | None, mock: int | None,
          outcomes: dict[str, int]) -> TaskSide | None:
    if not attempts:
        return None
    line = f"{attempts} attempt{'s' if attempts != 1 else ''}: " + ", ".join(f"{c} {w}" for w, c in outcomes.items())
    return TaskSide(passed=bool(passed), judged=bool(judged), score=score, attempts=attempts, mock=bool(mock),
                    outcomes=outcomes, attempts_line=line)


def _row(raw: tuple[Any, ...], previous: str | None, outcomes: dict[tuple[str, str], dict[str, int]]) -> TaskRow:
    (pos, task_id, split, c_attempts, c_passed, c_judged, c_score, c_mock, b_attempts, b_passed, b_judged, b_score,
     b_mock, prev_passed, changed, differs, flaky) = raw
    return TaskRow(
        position=pos, task_id=task_id, split=split,
        candidate=_side(c_attempts, c_passed, c_judged, c_score, c_mock, outcomes.get((task_id, "candidate"), {})),
        baseline=_side(b_attempts, b_passed, b_judged, b_score, b_mock, outcomes.get((task_id, "baseline"), {})),
        differs=bool(differs), changed_vs_previous=bool(changed),
        previous_passed=None if prev_passed is None else bool(prev_passed),
        previous_run=previous, flaky=bool(flaky))
