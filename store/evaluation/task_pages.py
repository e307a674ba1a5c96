"""One page of a run's tasks, read from the stored review order, so opening a run costs the same at
1,000 tasks as at 1,000,000.

The order (changed since the previous run of the suite and skill, then candidate ≠ baseline, then
the rest, each in import order), the filters and the counts come from `run_task_pages` and
`run_task_counts` (kernel/task_order.py), written when the run was stored: a page is a primary-key
read of one or two chunks of its list. Only the tasks of the page are read from task_results, their
attempts collapsed per side by a GROUP BY (pass@k, best score, outcome counts).
"""

import json
from typing import Any, TypedDict

from sqlite_utils import Database

from gatepost.store.kernel import neighbour_run

from .attempts import outcome

FILTERS = ("failing", "changed", "differs", "flaky")
PAGE_SIZE = 50

CHUNK = 256  # entries per stored chunk: kernel/task_order.py's CHUNK


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
        previous = neighbour_run(db, run_id, after=False)
    return TaskCounts(run_id=run_id, previous_run=previous, tasks=totals["tasks"], failing=totals["failing"],
                      changed=totals["changed"], changed_now_pass=totals["changed_now_pass"],
                      changed_now_fail=totals["changed"] - totals["changed_now_pass"], differs=totals["differs"],
                      flaky=totals["flaky"], splits=splits)


def _chunks(db: Database, run_id: str, name: str, first: int = 0, last: int | None = None,
            like: str | None = None) -> list[list[Any]]:
    """The entries of a stored list, chunks first..last (all when last is None), optionally only chunks
    whose text contains `like` (a pre-filter: SQL LIKE is case-insensitive for ASCII, as the search is)."""
    sql = "SELECT entries FROM run_task_pages WHERE run_id = ? AND list = ? AND chunk >= ?"
    params: list[Any] = [run_id, name, first]
    if last is not None:
        sql += " AND chunk <= ?"
        params.append(last)
    if like is not None:
        sql += " AND entries LIKE ? ESCAPE '\\'"
        params.append(like)
    entries: list[list[Any]] = []
    for (text,) in db.execute(sql + " ORDER BY chunk", params).fetchall():
        entries.extend(json.loads(text))
    return entries


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def run_task_page(db: Database, run_id: str, *, filter: str | None = None, split: str | None = None,
                  search: str | None = None, offset: int = 0, limit: int = PAGE_SIZE) -> TaskPage:
    """One page of a run's tasks in review order, optionally only failing / changed / differs / flaky
    tasks, one split ('' for tasks without one) and task ids containing `search` (any case).

    Without a search, and with at most one of filter and split, the page is a primary-key read of one
    or two stored chunks and the total comes from the stored counts, whatever the size of the run.
    """
    if filter is not None and filter not in FILTERS:
        raise ValueError(f"filter: expected one of {', '.join(FILTERS)}, got {filter!r}")
    offset, limit = max(0, offset), max(0, limit)
    previous, totals, _ = _count_rows(db, run_id, split)
    name = filter or (f"split:{split}" if split is not None else "all")
    if search or (filter is not None and split is not None):
        # the list of the filter (or split), narrowed in Python: pays for the entries it reads
        like = None
        if search and search.isascii():  # the chunk pre-filter reads JSON text, case-blind for ASCII only
            like = _like(json.dumps(search, ensure_ascii=False)[1:-1])
        entries = _chunks(db, run_id, name, like=like)
        if search:
            needle = search.lower()
            entries = [e for e in entries if needle in e[1].lower()]
        if filter is not None and split is not None:
            entries = [e for e in entries if (e[2] or "") == split]
        total, page = len(entries), entries[offset:offset + limit]
    else:
        total = totals["tasks"] if filter is None else totals[filter]
        page = []
        if limit and offset < total:
            page = _chunks(db, run_id, name, offset // CHUNK, (offset + limit - 1) // CHUNK)
            start = offset - (offset // CHUNK) * CHUNK
            page = page[start:start + limit]
    sides = _collapsed_sides(db, run_id, [e[1] for e in page])
    rows = [_row(e, previous, sides) for e in page]
    return TaskPage(rows=rows, total=total, offset=offset, limit=limit)


def run_task(db: Database, run_id: str, task_id: str) -> TaskRow | None:
    """One task's row (flags, collapsed sides), for the detail of one task."""
    encoded = json.dumps(task_id, ensure_ascii=False)
    for entry in _chunks(db, run_id, "all", like=_like(encoded)):
        if entry[1] == task_id:
            previous, _, _ = _count_rows(db, run_id)
            return _row(entry, previous, _collapsed_sides(db, run_id, [task_id]))
    return None


_Sides = dict[tuple[str, str], TaskSide]


def _collapsed_sides(db: Database, run_id: str, task_ids: list[str]) -> _Sides:
    """Each (task, side) of the page collapsed: attempts grouped in SQL by what decides their outcome word,
    then pass@k, judged, best score, mock and the outcome counts ("3 attempts: 1 pass, 2 timeout")."""
    found: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for start in range(0, len(task_ids), 400):
        chunk = task_ids[start:start + 400]
        marks = ", ".join("?" * len(chunk))
        for task_id, side, passed, judged, reason, count, first, score, mock in db.execute(
                "SELECT task_id, side, passed, judged, reason, COUNT(*), MIN(id), MAX(score), MAX(mock)"
                f" FROM task_results WHERE run_id = ? AND side IN ('candidate', 'baseline') AND task_id IN ({marks})"
                " GROUP BY task_id, side, passed, judged, reason", [run_id, *chunk]).fetchall():
            word = outcome({"passed": passed, "judged": judged, "reason": reason})
            found.setdefault((task_id, side), []).append((first, word, count, passed, judged, score, mock))
    out: _Sides = {}
    for key, groups in found.items():
        counts: dict[str, int] = {}
        scores = [g[5] for g in groups if g[5] is not None]
        for _, word, count, *_rest in sorted(groups):  # first seen first, as outcome_counts() orders ties
            counts[word] = counts.get(word, 0) + count
        outcomes = dict(sorted(counts.items(), key=lambda item: (item[0] != "pass", -item[1])))
        attempts = sum(g[2] for g in groups)
        line = f"{attempts} attempt{'s' if attempts != 1 else ''}: " + ", ".join(
            f"{c} {w}" for w, c in outcomes.items())
        out[key] = TaskSide(passed=any(g[3] for g in groups), judged=any(g[4] for g in groups),
                            score=max(scores) if scores else None, attempts=attempts,
                            mock=any(g[6] for g in groups), outcomes=outcomes, attempts_line=line)
    return out


def _row(entry: list[Any], previous: str | None, sides: _Sides) -> TaskRow:
    position, task_id, split, was, changed, differs, flaky = entry
    return TaskRow(position=position, task_id=task_id, split=split, candidate=sides.get((task_id, "candidate")),
                   baseline=sides.get((task_id, "baseline")), differs=bool(differs), changed_vs_previous=bool(changed),
                   previous_passed=None if was is None else bool(was), previous_run=previous, flaky=bool(flaky))
