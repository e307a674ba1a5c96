"""One page of a run's tasks, read from the stored review order, so opening a run costs the same at
1,000 tasks as at 1,000,000.

The order (changed since the previous run of the suite and skill, then candidate ≠ baseline, then
the rest, each in import order), the filters and the counts come from `run_task_pages` and
`run_task_counts` (task_order.py), written when the run was stored: a page is a primary-key
read of one or two chunks of its list. Only the tasks of the page are read from task_results, their
attempts collapsed per side by a GROUP BY (pass@k, best score, outcome counts).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, TypedDict

from gatepost.store.kernel import one_of

from .attempts import outcome
from .task_order import (
    FLAG_CHANGED,
    FLAG_DIFFERS,
    FLAG_FAILING,
    FLAG_FLAKY,
    FLAG_WAS_KNOWN,
    FLAG_WAS_PASSED,
    TASK_CHUNK,
    chunk_items,
    neighbour_run,
)

if TYPE_CHECKING:
    from sqlite_utils import Database

FILTERS = ("failing", "changed", "differs", "flaky")
PAGE_SIZE = 50



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


class _Order:
    """A run's stored order: its counts and its lists, read a chunk at a time."""

    def __init__(self, db: Database, run_id: str) -> None:
        self.db, self.run_id = db, run_id

    def counts(self, split: str | None = None) -> tuple[str | None, dict[str, int], dict[str, int]]:
        """(previous run, totals over the run or one split, tasks per split)."""
        totals = dict.fromkeys(_COUNT_KEYS, 0)
        splits: dict[str, int] = {}
        sql = ("SELECT split, previous_run, tasks, failing, changed, changed_now_pass, differs, flaky"
               " FROM run_task_counts WHERE run_id = ?")
        params: list[Any] = [self.run_id]
        if split is not None:
            sql += " AND split = ?"
            params.append(split)
        previous = None
        for name, prev, *values in self.db.execute(sql + " ORDER BY split", params).fetchall():
            previous = prev
            splits[name] = values[0]
            for key, value in zip(_COUNT_KEYS, values, strict=True):
                totals[key] += value or 0
        return previous, totals, splits

    def chunks(self, name: str, numbers: list[int] | None = None, like: str | None = None) -> list[tuple[int, list[Any]]]:
        """(chunk number, items) of a list, for these chunk numbers (all when None), in order; `like`: only
        chunks whose JSON text matches it (SQL LIKE)."""
        out: list[tuple[int, list[Any]]] = []
        sql = "SELECT chunk, entries FROM run_task_pages WHERE run_id = ? AND list = ?"
        if like is not None:
            sql += " AND entries LIKE ? ESCAPE '\\'"
        for start in range(0, len(numbers) if numbers is not None else 1, 400):
            params: list[Any] = [self.run_id, name, *([like] if like is not None else [])]
            part = ""
            if numbers is not None:
                chosen = numbers[start:start + 400]
                clause, values = one_of("chunk", chosen)
                part = f" AND {clause}"
                params.extend(values)
            out.extend((n, chunk_items(name, text)) for n, text in
                       self.db.execute(sql + part + " ORDER BY chunk", params).fetchall())
        return out

    def positions(self, name: str, start: int, stop: int, *, whole: bool = False) -> list[int]:
        """Items start..stop-1 of a list of positions (failing, differs, flaky, split:<name>); `whole`: the list
        holds every task (its count is the run's), so it is not stored: its positions are the tasks'."""
        if whole:
            return list(range(start, stop))
        if stop <= start:
            return []
        first = start // TASK_CHUNK
        items = [p for _, chunk in self.chunks(name, list(range(first, (stop - 1) // TASK_CHUNK + 1))) for p in chunk]
        return items[start - first * TASK_CHUNK:stop - first * TASK_CHUNK]

    def at(self, positions: list[int]) -> list[tuple[int, list[Any]]]:
        """The entries of the list "all" at these positions: only the chunks holding them are read."""
        chunks = dict(self.chunks("all", sorted({p // TASK_CHUNK for p in positions})))
        return [(p, chunks[p // TASK_CHUNK][p % TASK_CHUNK]) for p in positions]

    def searched(self, needle: str) -> list[tuple[int, list[Any]]]:
        """Every entry whose task id contains `needle` (any case), in order; a stored chunk without it is
        skipped by SQL (LIKE on its JSON text, case-blind for ASCII only)."""
        like = _like(json.dumps(needle, ensure_ascii=False)[1:-1]) if needle.isascii() else None
        lowered = needle.lower()
        return [(n * TASK_CHUNK + i, entry) for n, chunk in self.chunks("all", like=like)
                for i, entry in enumerate(chunk) if lowered in entry[0].lower()]


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def run_task_counts(db: Database, run_id: str) -> TaskCounts:
    """A run's task counts: a few stored rows, whatever its size."""
    previous, totals, splits = _Order(db, run_id).counts()
    if not splits:  # a run without tasks has no counts: its previous run is still worth naming
        previous = neighbour_run(db, run_id, after=False)
    return TaskCounts(run_id=run_id, previous_run=previous, tasks=totals["tasks"], failing=totals["failing"],
                      changed=totals["changed"], changed_now_pass=totals["changed_now_pass"],
                      changed_now_fail=totals["changed"] - totals["changed_now_pass"], differs=totals["differs"],
                      flaky=totals["flaky"], splits=splits)


_BITS = {"failing": FLAG_FAILING, "changed": FLAG_CHANGED, "differs": FLAG_DIFFERS, "flaky": FLAG_FLAKY}


def run_task_page(db: Database, run_id: str, *, filter: str | None = None, split: str | None = None,
                  search: str | None = None, tasks: Collection[str] | None = None, offset: int = 0,
                  limit: int = PAGE_SIZE) -> TaskPage:
    """One page of a run's tasks in review order, optionally only failing / changed / differs / flaky
    tasks, one split ('' for tasks without one), task ids containing `search` (any case) and only the
    task ids in `tasks` (e.g. the flaky ones of the run's statistics, pooled across runs).

    Without a search the page reads one or two stored chunks of positions and the chunks of tasks they
    point to, and the total comes from the stored counts, whatever the size of the run (a split and a
    filter together read the split's tasks until the page is full).
    """
    if filter is not None and filter not in FILTERS:
        raise ValueError(f"filter: expected one of {', '.join(FILTERS)}, got {filter!r}")
    offset, limit = max(0, offset), max(0, limit)
    order = _Order(db, run_id)
    previous, totals, splits = order.counts()
    bit = _BITS[filter] if filter else 0
    found: list[tuple[int, list[Any]]]
    if split is not None and split not in splits:
        found, total = [], 0
    elif search or tasks is not None:
        candidates = order.searched(search) if search else \
            [(n * TASK_CHUNK + i, e) for n, chunk in order.chunks("all") for i, e in enumerate(chunk)]
        matches = [(p, e) for p, e in candidates if (not bit or e[2] & bit)
                   and (split is None or (e[1] or "") == split) and (tasks is None or e[0] in tasks)]
        total, found = len(matches), matches[offset:offset + limit]
    else:
        split_totals = order.counts(split)[1] if split is not None else totals
        total = split_totals["tasks"] if filter is None else split_totals[filter]
        stop = min(offset + limit, total)
        by_split = split is not None and len(splits) > 1
        if not by_split and filter in (None, "changed"):  # the changed tasks are the first ones
            found = order.at(list(range(offset, stop)))
        elif not by_split:
            found = order.at(order.positions(filter or "", offset, stop,
                                             whole=split_totals[filter or ""] == split_totals["tasks"]))
        elif filter is None:
            found = order.at(order.positions(f"split:{split}", offset, stop))
        else:  # a filter within one split of several: the split's tasks in order until the page is full
            matches, start = [], 0
            while len(matches) < stop:
                positions = order.positions(f"split:{split}", start, start + 4 * TASK_CHUNK)
                if not positions:
                    break
                matches.extend((p, e) for p, e in order.at(positions) if e[2] & bit)
                start += len(positions)
            found = matches[offset:stop]
    sides = _collapsed_sides(db, run_id, [e[0] for _, e in found])
    rows = [_row(p, e, previous, sides) for p, e in found]
    return TaskPage(rows=rows, total=total, offset=offset, limit=limit)


def run_task(db: Database, run_id: str, task_id: str) -> TaskRow | None:
    """One task's row (flags, collapsed sides), for the detail of one task."""
    order = _Order(db, run_id)
    for position, entry in order.searched(task_id):
        if entry[0] == task_id:
            return _row(position, entry, order.counts()[0], _collapsed_sides(db, run_id, [task_id]))
    return None


_Sides = dict[tuple[str, str], TaskSide]


def _collapsed_sides(db: Database, run_id: str, task_ids: list[str]) -> _Sides:
    """Each (task, side) of the page collapsed: attempts grouped in SQL by what decides their outcome word,
    then pass@k, judged, best score, mock and the outcome counts ("3 attempts: 1 pass, 2 timeout")."""
    found: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for start in range(0, len(task_ids), 400):
        chunk = task_ids[start:start + 400]
        clause, values = one_of("task_id", chunk)
        for task_id, side, passed, judged, reason, count, first, score, mock in db.execute(
                "SELECT task_id, side, passed, judged, reason, COUNT(*), MIN(id), MAX(score), MAX(mock)"
                f" FROM task_results WHERE run_id = ? AND side IN ('candidate', 'baseline') AND {clause}"
                " GROUP BY task_id, side, passed, judged, reason", [run_id, *values]).fetchall():
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


def _row(position: int, entry: list[Any], previous: str | None, sides: _Sides) -> TaskRow:
    task_id, split, flags = entry
    return TaskRow(position=position, task_id=task_id, split=split, candidate=sides.get((task_id, "candidate")),
                   baseline=sides.get((task_id, "baseline")), differs=bool(flags & FLAG_DIFFERS),
                   changed_vs_previous=bool(flags & FLAG_CHANGED),
                   previous_passed=bool(flags & FLAG_WAS_PASSED) if flags & FLAG_WAS_KNOWN else None,
                   previous_run=previous, flaky=bool(flags & FLAG_FLAKY))
