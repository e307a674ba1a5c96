"""A run's tasks in review order, kept as a projection of task_results so a page is one or two row reads.

The order is written when a run's results are stored, for every run: the tasks in the order a reviewer
reads them (changed since the previous run of the same suite and skill, then candidate ≠ baseline, then
the rest, each in import order) with their flags, and the positions of the failing, differing and flaky
ones. Each list is cut into chunks of CHUNK items, one row per chunk keyed (run_id, list, chunk), so the
page at any offset is a primary-key read of one or two rows, and storing a run writes about 1/CHUNK rows
per task (a row per task cost as much as the task results themselves). `run_task_counts` keeps the counts
per split. "Previous run" can change when an older run is stored later, so storing a run also rebuilds the
run that follows it.

Every order is built one way (`_Order`), from a run's tasks however they are held: the rows an import has in
hand, the columns of a stored run read back (`_Held`), or, for a run too large to hold, a temporary table
SQLite fills and sorts (`_TableTasks`); verify's check (`blocked_order`, `order_differences`) builds it the same,
but for a run of an import's shape, whose order verify works out straight from each task's code (`_aligned_order`:
the same rows, checked against `_Order`'s on every input by the tests).
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain, compress, groupby, repeat
from operator import eq
from typing import TYPE_CHECKING, Any, NamedTuple

from gatepost.store.kernel import FlatRows

if TYPE_CHECKING:
    from sqlite_utils import Database

PAGES_TABLE = "run_task_pages"
COUNTS_TABLE = "run_task_counts"
FIGURES_TABLE = "run_task_figures"
TASK_CHUNK = 256
# The list "all" holds each task as (task_id, split, flags) (stored compact: see _all_chunk); its position is
# chunk * CHUNK + its index. The lists "failing", "differs", "flaky" and (with several splits) "split:<name>" hold
# positions; one of the first three that would hold every task is not stored; the changed tasks are the first ones.
FLAG_CHANGED, FLAG_DIFFERS, FLAG_FLAKY, FLAG_FAILING, FLAG_WAS_KNOWN, FLAG_WAS_PASSED = 1, 2, 4, 8, 16, 32

_DDL = [
    f"""CREATE TABLE IF NOT EXISTS {PAGES_TABLE} (
        run_id TEXT NOT NULL REFERENCES evaluation_runs(id),
        list TEXT NOT NULL,            -- all | failing | differs | flaky | split:<name>
        chunk INTEGER NOT NULL,        -- items chunk*CHUNK .. chunk*CHUNK+CHUNK-1 of the list
        entries TEXT NOT NULL,         -- JSON: all: {{tasks, split or splits, flags}}; the others: [position]
        PRIMARY KEY (run_id, list, chunk)
    ) WITHOUT ROWID""",
    f"""CREATE TABLE IF NOT EXISTS {COUNTS_TABLE} (
        run_id TEXT NOT NULL REFERENCES evaluation_runs(id),
        split TEXT NOT NULL,           -- '' for tasks without a split
        previous_run TEXT,
        tasks INTEGER NOT NULL,
        failing INTEGER NOT NULL,      -- the candidate did not pass
        changed INTEGER NOT NULL,      -- the candidate's pass/fail changed since the previous run
        changed_now_pass INTEGER NOT NULL,
        differs INTEGER NOT NULL,      -- candidate and baseline differ in pass/fail
        flaky INTEGER NOT NULL,        -- a side both passed and failed the task's attempts
        PRIMARY KEY (run_id, split)
    ) WITHOUT ROWID""",
]

# What a run's statistics count (evaluation.run_statistics), stored with its order when every task has at most
# one attempt per side: then those counts are all the statistics need of the run's own results, and opening a
# run of 1,000,000 tasks reads one row instead of streaming every task (m011_scale_run_task_figures).
_FIGURES_DDL = f"""CREATE TABLE IF NOT EXISTS {FIGURES_TABLE} (
    run_id TEXT PRIMARY KEY REFERENCES evaluation_runs(id),
    candidate_tasks INTEGER NOT NULL, candidate_passed INTEGER NOT NULL,
    baseline_tasks INTEGER NOT NULL, baseline_passed INTEGER NOT NULL,
    both_pass INTEGER NOT NULL, only_candidate INTEGER NOT NULL,   -- tasks on both sides, by who passed
    only_baseline INTEGER NOT NULL, neither INTEGER NOT NULL
) WITHOUT ROWID"""
_INSERT_PAGE = f"INSERT INTO {PAGES_TABLE} (run_id, list, chunk, entries) VALUES (?, ?, ?, ?)"
FIGURE_NAMES = ("candidate_tasks", "candidate_passed", "baseline_tasks", "baseline_passed", "both_pass",
                "only_candidate", "only_baseline", "neither")


class _Figures:
    """A run's statistics counts, task by task: tasks per (candidate, baseline) state, each 0 absent, 1 failed,
    2 passed; `single` while no task has two attempts on a side."""

    def __init__(self) -> None:
        self.cells = [0] * 9
        self.single = True

    def add(self, c_n: int, c_pass: int | None, b_n: int, b_pass: int | None, n: int = 1) -> None:
        """n tasks of these per-side attempts and pass@k."""
        if c_n > 1 or b_n > 1:
            self.single = False
        self.cells[(2 if c_pass else 1 if c_n else 0) * 3 + (2 if b_pass else 1 if b_n else 0)] += n

    def row(self) -> tuple[int, ...]:
        """FIGURE_NAMES' values."""
        cell = self.cells
        return (sum(cell[3:]), sum(cell[6:]), sum(cell[1::3]) + sum(cell[2::3]), sum(cell[2::3]),
                cell[8], cell[7], cell[5], cell[4])


def create_figures_table(db: Database) -> None:
    """The statistics counts' table (m011_scale_run_task_figures calls this)."""
    db.execute(_FIGURES_DDL)


def _write_figures(db: Database, run_id: str, figures: _Figures, migrated: bool = False) -> None:
    """Store a run's statistics counts (only when they are all its statistics need: one attempt a side).
    `migrated`: the store has every table (an act's: not a migration from before the counts' table)."""
    if figures.single and (migrated or _has_figures(db)):
        db.execute(f"INSERT INTO {FIGURES_TABLE} (run_id, {', '.join(FIGURE_NAMES)}) VALUES (?{', ?' * 8})",
                   [run_id, *figures.row()])


def stored_figures(db: Database, run_id: str) -> dict[str, int] | None:
    """A run's stored statistics counts (FIGURE_NAMES), or None: a small run, or one with repeated attempts."""
    row = db.execute(f"SELECT {', '.join(FIGURE_NAMES)} FROM {FIGURES_TABLE} WHERE run_id = ?", [run_id]).fetchone()
    return dict(zip(FIGURE_NAMES, row, strict=True)) if row else None



def counted_figures(db: Database, run_id: str) -> dict[str, int] | None:
    """A run's statistics counts counted again from its task results (what `stored_figures` must equal), or
    None when a task has two attempts on a side (such a run has none stored). `gatepost verify` compares them:
    the stored counts are derived, so a hand-edited row would otherwise change the statistics unnoticed."""
    figures = _Order(_stored_tasks(db, run_id, None).tally).figures
    return dict(zip(FIGURE_NAMES, figures.row(), strict=True)) if figures.single else None


def backfill_figures(db: Database) -> None:
    """The statistics counts of every run whose order is stored (a store from before m011)."""
    for (run_id,) in db.execute(f"SELECT DISTINCT run_id FROM {COUNTS_TABLE}").fetchall():
        _write_figures(db, run_id, _Order(_stored_tasks(db, run_id, None).tally).figures)


# The run of the same suite and skill just before / just after a run, by (start time, id): the
# same comparison as evaluation.previous_run.
_NEIGHBOUR = """
SELECT id FROM evaluation_runs WHERE suite_id IS ? AND skill_id IS ? AND id != ?
  AND (COALESCE(started_at, '') {op} ? OR (COALESCE(started_at, '') = ? AND id {op} ?))
ORDER BY COALESCE(started_at, '') {direction}, id {direction} LIMIT 1
"""

# Where _store's task_results tuples keep what the order needs (evaluation.TASK_COLUMNS order).
_SIDE, _TASK, _PASSED, _SPLIT = 1, 2, 4, 11


def create_task_order_tables(db: Database) -> None:
    """The projection's tables (the migration calls this)."""
    for statement in _DDL:
        db.execute(statement)


def neighbour_run(db: Database, run_id: str, *, after: bool) -> str | None:
    """The run of the same suite and skill just before (or after) this one, by start time then id."""
    row = _run_key(db, run_id)
    return _neighbour(db, run_id, row, after=after) if row else None


def _run_key(db: Database, run_id: str) -> tuple[Any, Any, str] | None:
    """What a run's neighbours are found by: its suite, its skill, its start time ('' for none)."""
    row = db.execute("SELECT suite_id, skill_id, COALESCE(started_at, '') FROM evaluation_runs WHERE id = ?",
                     [run_id]).fetchone()
    return tuple(row) if row else None


def _neighbour(db: Database, run_id: str, key: tuple[Any, Any, str], *, after: bool) -> str | None:
    suite_id, skill_id, started = key
    sql = _NEIGHBOUR.format(op=">" if after else "<", direction="ASC" if after else "DESC")
    found = db.execute(sql, [suite_id, skill_id, run_id, started, started, run_id]).fetchone()
    return found[0] if found else None


def _flags(was: int | None, c_n: int, c_pass: int | None, c_min: int | None, b_n: int, b_pass: int | None,
           b_min: int | None) -> int:
    """A task's flags from its per-side aggregates and its candidate's pass@k in the previous run (None: absent)."""
    flags = 0
    if was is not None:
        flags = FLAG_WAS_KNOWN | (FLAG_WAS_PASSED if was else 0)
        if c_n and (was > 0) != (c_pass > 0):  # type: ignore[operator]
            flags |= FLAG_CHANGED
    if (c_pass > 0 if c_n else None) != (b_pass > 0 if b_n else None):  # type: ignore[operator]
        flags |= FLAG_DIFFERS
    if (c_n and c_min == 0 and c_pass == 1) or (b_n and b_min == 0 and b_pass == 1):
        flags |= FLAG_FLAKY
    if not (c_n and c_pass):
        flags |= FLAG_FAILING
    return flags


def _count(counts: dict[str, list[int]], split: str | None, flags: int, n: int = 1) -> None:
    """Add n tasks of these flags to their split's counts [tasks, failing, changed, changed_now_pass, differs, flaky]."""
    c = counts.get(split or "")
    if c is None:
        c = counts[split or ""] = [0, 0, 0, 0, 0, 0]
    c[0] += n
    if flags & (FLAG_FAILING | FLAG_CHANGED | FLAG_DIFFERS | FLAG_FLAKY):
        c[1] += n * bool(flags & FLAG_FAILING)
        c[2] += n * bool(flags & FLAG_CHANGED)
        c[3] += n * bool(flags & FLAG_CHANGED and not flags & FLAG_FAILING)
        c[4] += n * bool(flags & FLAG_DIFFERS)
        c[5] += n * bool(flags & FLAG_FLAKY)


# A task's state on one side, as one small number: None where the side has no result for it, else bit 0 its pass@k
# (an attempt passed), bit 1 its lowest attempt's pass (every attempt passed), bit 2 more than one attempt.
_PASSED_ONCE, _FAILED_ONCE, _SEVERAL = 3, 0, 4
_ONCE = (_FAILED_ONCE, _PASSED_ONCE)  # by bool(passed)


class Tasks(NamedTuple):
    """A run's tasks (or a batch of them), each once, in the order of its first result: the id, the split (its last
    result's), its state on each side (see _ONCE), and its candidate's pass@k in the previous run (None: absent).
    What every review order is built from, however its results were read."""

    tasks: Sequence[str]
    splits: Sequence[Any]
    candidate: Sequence[int | None]
    baseline: Sequence[int | None]
    was: Sequence[int | None]


# A batch of a run's tasks in review order, as the order lists them: their ids, their splits, their keys (previous
# pass@k, candidate state, baseline state).
_Listed = tuple[Sequence[str], Sequence[Any], Sequence[tuple[Any, Any, Any]]]


class _FlagsOf(dict[tuple[Any, Any, Any], int]):
    """_flags of a task by (its candidate's pass@k in the previous run, its candidate's state, its baseline's),
    computed once per distinct key (a run has a handful), so a task's flags are a dict lookup done in C."""

    def __missing__(self, key: tuple[Any, Any, Any]) -> int:
        was, c, b = key
        c_n, b_n = (0 if s is None else 2 if s & _SEVERAL else 1 for s in (c, b))
        flags = self[key] = _flags(was, c_n, c and c & 1, c and c >> 1 & 1, b_n, b and b & 1, b and b >> 1 & 1)
        return flags


_FLAGS = _FlagsOf()  # shared: a key's flags never change, and a store holds a handful of keys


def _group(flags: int) -> int:
    """A task's place in the review order: changed since the previous run, then candidate ≠ baseline, then the rest."""
    return 0 if flags & FLAG_CHANGED else 1 if flags & FLAG_DIFFERS else 2


# per group, a bytes.translate table: a task's flags (one byte) to 1 when they put it in that group, else 0; and the
# flags that do not (deleted by translate, the group's flags kept in order)
_IN_GROUP = [bytes(flags < 64 and _group(flags) == group for flags in range(256)) for group in range(3)]
_OUT_OF_GROUP = [bytes(flags for flags in range(256) if not _IN_GROUP[group][flags]) for group in range(3)]

_LISTED = (("failing", FLAG_FAILING), ("differs", FLAG_DIFFERS), ("flaky", FLAG_FLAKY))  # lists of positions
_COUNTED = (("failing", 1), ("differs", 4), ("flaky", 5))  # each list's place in a split's counts (see _count)
# per listed flag, a bytes.translate table: a task's flags (one byte) to 1 when that flag is set, else 0
_HAS_BIT = {bit: bytes(bool(flags & bit) for flags in range(256)) for _, bit in _LISTED}


class _Order:
    """The one way a run's review order is built, at import, when a later run changes its previous run, and by
    verify: from its tasks (Tasks, from a source: the results' columns in memory, or a temporary table for a run
    too large to hold), counted first, then listed in review order chunk by chunk.

    `tally`: the run's tasks per (split, previous pass@k, candidate state, baseline state). From it: each key's
    flags (_flags, once per key), the counts per split, the statistics counts, which groups and splits there are,
    and each key's group, by which the source hands the tasks over in review order (`pages`)."""

    def __init__(self, tally: Mapping[tuple[Any, Any, Any, Any], int]) -> None:
        flags_of = self.flags_of = _FLAGS
        self.counts: dict[str, list[int]] = {}
        self.figures = _Figures()
        for (split, was, c, b), n in tally.items():
            _count(self.counts, split, flags_of[was, c, b], n)
            self.figures.add(2 if c is not None and c & _SEVERAL else c is not None, c and c & 1,
                             2 if b is not None and b & _SEVERAL else b is not None, b and b & 1, n)
        # a task's group by its key: changed since the previous run, then candidate ≠ baseline, then the rest
        self.group_of = {(was, c, b): _group(flags_of[was, c, b]) for _, was, c, b in tally}
        self.groups = sorted(set(self.group_of.values()))
        self.several = len({split or "" for split, *_ in tally}) > 1  # else the list "all" is the split's list
        # the listed flags every task has: their lists are not stored (a page reads their positions as they are)
        tasks = sum(c[0] for c in self.counts.values())
        self.whole = {name for name, at in _COUNTED if sum(c[at] for c in self.counts.values()) == tasks}

    def pages(self, run_id: str, ordered: Iterable[_Listed]) -> Iterator[list[tuple[str, str, int, str]]]:
        """The run_task_pages rows (run_id, list, chunk, entries), a batch's worth at a time, from the run's tasks
        in review order (each group's in their first result's order) as (task ids, splits, keys: (previous pass@k,
        candidate state, baseline state))."""
        return self.flagged_pages(run_id, ((tasks, splits, list(map(self.flags_of.__getitem__, keys)))
                                           for tasks, splits, keys in ordered))

    def flagged_pages(self, run_id: str, ordered: Iterable[tuple[Sequence[str], Sequence[Any], Sequence[int]]]
                      ) -> Iterator[list[tuple[str, str, int, str]]]:
        """`pages`, from the tasks in review order with their flags in hand instead of their keys."""
        chunks, position = _Chunks(run_id), 0
        for tasks, splits, flags in ordered:
            # a task's flags are < 64: a byte each, masked per list by translate (in C)
            flag_bytes = flags if isinstance(flags, bytes) else bytes(flags)
            chunks.extend_all(tasks, splits, flag_bytes)
            positions = range(position, position + len(tasks))
            for name, bit in _LISTED:
                if name not in self.whole:
                    listed = flag_bytes.translate(_HAS_BIT[bit])
                    if b"\1" in listed:
                        chunks.extend(name, list(compress(positions, listed)))
            if self.several:
                named = [split or "" for split in splits]
                for split in dict.fromkeys(named):
                    chunks.extend(f"split:{split}", list(compress(positions, map(eq, named, repeat(split)))))
            position += len(tasks)
            yield chunks.take()
        yield chunks.take(last=True)


class _Held:
    """A run's Tasks held in memory (one batch): tallied by a Counter of their keys, each task's flags looked up once
    by its key, put in review order by byte masks of those flags."""

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks
        self.keys = list(zip(tasks.was, tasks.candidate, tasks.baseline, strict=True))
        splits = set(tasks.splits)
        self.tally: Mapping[tuple[Any, Any, Any, Any], int]
        self.split: tuple[Any] | None = None  # the one split of every task, when there is one
        if len(splits) == 1:  # one split (the commonest): the keys counted alone
            self.split = (split,) = tuple(splits)
            self.tally = {(split, *key): n for key, n in Counter(self.keys).items()}
        else:
            self.tally = Counter(zip(tasks.splits, tasks.was, tasks.candidate, tasks.baseline, strict=True))

    def pages(self, order: _Order, run_id: str) -> Iterator[list[tuple[str, str, int, str]]]:
        """The run_task_pages rows of this run's order, as _Order.pages gives them."""
        tasks, splits = self.tasks.tasks, self.tasks.splits
        flags = list(map(order.flags_of.__getitem__, self.keys))
        if len(order.groups) > 1:  # each group's tasks in turn, each in its first result's order (flags: a byte each)
            masks = [bytes(flags).translate(_IN_GROUP[group]) for group in order.groups]
            tasks = list(chain.from_iterable(compress(tasks, mask) for mask in masks))
            flags = list(chain.from_iterable(compress(flags, mask) for mask in masks))
            splits = list(self.split) * len(tasks) if self.split is not None else \
                list(chain.from_iterable(compress(splits, mask) for mask in masks))
        return order.flagged_pages(run_id, [(tasks, splits, flags)])


def _states(tasks: Sequence[str], passed: Sequence[Any]) -> dict[str, int | None]:
    """Per task of one side's results (in id order), its state (see _ONCE)."""
    states: dict[str, int | None] = dict(zip(tasks, map(_ONCE.__getitem__, map(bool, passed)), strict=True))
    if len(states) != len(tasks):  # a task with several attempts: pass@k, the lowest attempt's pass, several
        states = {}
        for task, ok in zip(tasks, passed, strict=True):
            state = states.get(task)
            bit = 1 if ok else 0
            states[task] = _ONCE[bit] if state is None else _SEVERAL | (state & 1 | bit) | (state & 2 & (bit << 1))
    return states


def _segments(sides: Sequence[Any], tasks: Sequence[str], passed: Sequence[Any],
              splits: Sequence[Any]) -> list[Block]:
    """A run's task results' columns in id order, cut where the side changes: an import's are two (a side's results,
    then the other's), found by counting in C; any other mix is cut row by row."""
    n = len(sides)
    if not n:
        return []
    first = sides[0]
    k = sides.count(first)
    if k == n:
        return [Block(first, tasks, passed, splits)]
    if sides[:k].count(first) == k and sides[k:].count(sides[k]) == n - k:
        return [Block(first, tasks[:k], passed[:k], splits[:k]), Block(sides[k], tasks[k:], passed[k:], splits[k:])]
    blocks, start = [], 0
    for side, rows in groupby(sides):
        end = start + sum(1 for _ in rows)
        blocks.append(Block(side, tasks[start:end], passed[start:end], splits[start:end]))
        start = end
    return blocks


def _in_memory(blocks: Sequence[Block],
               before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]]) -> Tasks:
    """A run's Tasks from its results cut into blocks of one side each (in id order), with the work per row and per
    task done in C: when every block lists the same tasks once each (an import's shape) the columns are the blocks'
    own; else states and lookups by `map` over dicts. `before`: the previous run's candidate pass@k by task, or as
    the tasks and passes of its candidate side."""
    lead = list(blocks[0].tasks) if blocks else []
    aligned = len(set(lead)) == len(lead) and all(list(block.tasks) == lead for block in blocks[1:])
    if aligned:
        order = lead
        task_splits = list(blocks[-1].splits) if blocks else []
    else:
        every = list(chain.from_iterable(block.tasks for block in blocks))
        order = list(dict.fromkeys(every))  # each task once, at its first result; its split is its last result's
        task_splits = list(map(dict(zip(every, chain.from_iterable(block.splits for block in blocks),
                                        strict=True)).__getitem__, order))
    columns: list[list[int | None]] = []
    for side in ("candidate", "baseline"):
        mine = [block for block in blocks if block.side == side]
        if not mine:
            columns.append([None] * len(order))
            continue
        if aligned and len(mine) == 1:
            columns.append(list(map(_ONCE.__getitem__, map(bool, mine[0].passed))))
            continue
        states = _states(list(chain.from_iterable(block.tasks for block in mine)),
                         list(chain.from_iterable(block.passed for block in mine)))
        columns.append(list(map(states.get, order)))
    return Tasks(order, task_splits, columns[0], columns[1], _was(before, order))


def _was(before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]], order: Sequence[str]) -> list[Any]:
    """Per task of `order`, its candidate's pass@k in the previous run (`before`, as _in_memory takes it), or None."""
    if isinstance(before, tuple):  # the run before listed its tasks in this order (the commonest) or not
        return list(before[1]) if list(before[0]) == order else \
            list(map(dict(zip(before[0], before[1], strict=True)).get, order))
    return list(map(before.get, order)) if before else [None] * len(order)


def _candidate_passes(db: Database, run_id: str) -> dict[str, int]:
    """Per task of a run's candidate side, whether any attempt passed (1) or none (0): its rows read as they
    are and grouped by sets (SQLite grouping them took half again as long)."""
    rows = db.execute("SELECT task_id, passed FROM task_results WHERE run_id = ? AND side = 'candidate'",
                      [run_id]).fetchall()
    if not rows:
        return {}
    tasks, passed = zip(*rows, strict=True)
    passes = dict.fromkeys(tasks, 0)
    passes.update(dict.fromkeys(compress(tasks, passed), 1))
    return passes


# A stored run of at most this many task results is read into memory to be ordered (its columns held: 2.0 ms for
# 1,000 results against 2.6 through the table); around 50,000 the two cost the same, and above it the table keeps
# memory bounded.
IN_MEMORY_ROWS = 20_000

# A larger run's tasks, put in order by SQLite into a narrow temporary table (one row per task, in its first
# result's order), read back a batch at a time for each pass: its state per side as _ONCE numbers them, the
# previous run's candidate pass@k joined.
_TASKS_TABLE = "gatepost_run_tasks"
_SIDE_STATE = ("CASE WHEN SUM(side = '{side}') > 0 THEN MAX(CASE WHEN side = '{side}' THEN COALESCE(passed, 0) != 0 END)"
               " + 2 * MIN(CASE WHEN side = '{side}' THEN COALESCE(passed, 0) != 0 END)"
               " + 4 * (SUM(side = '{side}') > 1) END")
_FILL_TASKS = f"""
INSERT INTO temp.{_TASKS_TABLE} (task_id, split, c, b, was)
SELECT agg.task_id, (SELECT split FROM task_results WHERE id = agg.last_id), agg.c, agg.b, prev.was
FROM (SELECT task_id, MIN(id) AS first_id, MAX(id) AS last_id, {_SIDE_STATE.format(side="candidate")} AS c,
             {_SIDE_STATE.format(side="baseline")} AS b
      FROM task_results WHERE run_id = ?1 GROUP BY task_id) agg
LEFT JOIN (SELECT task_id, MAX(COALESCE(passed, 0) != 0) AS was FROM task_results
           WHERE run_id = ?2 AND side = 'candidate' GROUP BY task_id) prev ON prev.task_id = agg.task_id
ORDER BY agg.first_id
"""


def _fill_tasks(db: Database, run_id: str, previous: str | None) -> None:
    """A run's tasks into the temporary table (this connection's, not the store's), in order."""
    db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_TASKS_TABLE} (task_id TEXT, split TEXT, c INTEGER, b INTEGER,"
               " was INTEGER)")
    db.execute(f"DELETE FROM temp.{_TASKS_TABLE}")
    db.execute(_FILL_TASKS, [run_id, previous])


class _TableTasks:
    """A large run's Tasks in the temporary table: tallied by SQLite's GROUP BY, read in review order (SQLite sorting
    them by each key's group, as _Order says it, in bounded memory) TASK_CHUNK * 8 at a time."""

    def __init__(self, db: Database, run_id: str, previous: str | None) -> None:
        self.db = db
        _fill_tasks(db, run_id, previous)
        self.tally = {tuple(row[:4]): row[4] for row in
                      db.execute(f"SELECT split, was, c, b, COUNT(*) FROM temp.{_TASKS_TABLE} GROUP BY 1, 2, 3, 4")}

    def pages(self, order: _Order, run_id: str) -> Iterator[list[tuple[str, str, int, str]]]:
        """The run_task_pages rows of this run's order, a batch's worth at a time."""
        return order.pages(run_id, self.ordered(order))

    def ordered(self, order: _Order) -> Iterator[_Listed]:
        first = [(group, key) for key, group in order.group_of.items() if group < 2]
        case = " ".join(f"WHEN was IS ? AND c IS ? AND b IS ? THEN {group}" for group, _ in first)
        cursor = self.db.execute(
            f"SELECT task_id, split, c, b, was FROM temp.{_TASKS_TABLE} ORDER BY"
            f" {f'CASE {case} ELSE 2 END, ' if first else ''}rowid", [value for _, key in first for value in key])
        while batch := cursor.fetchmany(TASK_CHUNK * 8):
            task_ids, splits, c, b, was = zip(*batch, strict=True)
            yield task_ids, splits, list(zip(was, c, b, strict=True))


def _stored_tasks(db: Database, run_id: str, previous: str | None, held: HeldRuns | None = None
                  ) -> _Held | _TableTasks:
    """A stored run's Tasks: its results' columns read in id order when they are few enough to hold (half the
    time of SQLite grouping and sorting them), else from the temporary table, in bounded memory."""
    read = db.execute("SELECT side, task_id, passed, split FROM task_results WHERE run_id = ? ORDER BY id LIMIT ?",
                      [run_id, IN_MEMORY_ROWS + 1]).fetchall()
    if len(read) > IN_MEMORY_ROWS:
        return _TableTasks(db, run_id, previous)
    sides, tasks, passed, splits = zip(*read, strict=True) if read else ((), (), (), ())
    return _Held(_in_memory(_segments(sides, tasks, passed, splits), _before(db, previous, held)))


def _before(db: Database, previous: str | None, held: HeldRuns | None
            ) -> Mapping[str, int | None] | tuple[Sequence[str], Sequence[int | None]]:
    """The previous run's candidate pass@k per task (as _in_memory takes it): from its Tasks when the caller holds
    them, else read."""
    if previous is None:
        return {}
    kept = held.passes(previous) if held is not None else None
    return kept if kept is not None else _candidate_passes(db, previous)


def _columns(rows: Sequence[Sequence[Any]]) -> tuple[Sequence[Any], Sequence[str], Sequence[Any], Sequence[Any]]:
    """A run's task results (evaluation's TASK_COLUMNS order) as the columns the order needs: side, task id,
    passed, split (sliced out of flat rows without a tuple per row)."""
    if isinstance(rows, FlatRows) and rows.width:
        values, width = rows.values, rows.width
        return values[_SIDE::width], values[_TASK::width], values[_PASSED::width], values[_SPLIT::width]
    if not rows:
        return (), (), (), ()
    columns = list(zip(*rows, strict=True))
    return columns[_SIDE], columns[_TASK], columns[_PASSED], columns[_SPLIT]


def _write(db: Database, run_id: str, previous: str | None, order: _Order,
           pages: Iterable[list[tuple[str, str, int, str]]], *, fresh: bool = False, migrated: bool = False) -> None:
    """Store a run's order: its lists in chunks of TASK_CHUNK items (`pages`), its counts per split, its statistics
    counts. `fresh`: the run is stored by this act, so none of its order is stored yet (nothing to drop);
    `migrated`: the store has every table (see _write_figures)."""
    if not fresh:
        _forget(db, run_id, migrated)
    for rows in pages:
        if rows:
            db.conn.executemany(_INSERT_PAGE, rows)
    _write_counts(db, run_id, previous, order.counts, order.figures, migrated)


def _write_counts(db: Database, run_id: str, previous: str | None, counts: dict[str, list[int]],
                  figures: _Figures, migrated: bool = False) -> None:
    """A run's counts per split and its statistics counts."""
    db.conn.executemany(
        f"INSERT INTO {COUNTS_TABLE} (run_id, split, previous_run, tasks, failing, changed, changed_now_pass,"
        " differs, flaky) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, split, previous, *values) for split, values in counts.items()])
    _write_figures(db, run_id, figures, migrated)


@functools.cache
def _encoder() -> Callable[[Any], bytes]:
    """msgspec's JSON encoder, made when an order is first written (a command that writes none never loads it)."""
    import msgspec

    return msgspec.json.Encoder().encode


def _dumps(items: Sequence[Any]) -> str:
    """json.dumps(items, ensure_ascii=False, separators=(",", ":")), character for character (text, whole numbers
    and nulls are all a chunk holds), by msgspec's C encoder: a few times faster on a large run's chunks."""
    return _encoder()(items).decode("utf-8")


# A chunk of the list "all" is a JSON object: its tasks' ids ("tasks"), their split once ("split") when they share
# one, else each task's ("splits"), and their flags as one character each ("flags": the flags' value, 0..63, as
# an index into _FLAG_CHARS, base64url's alphabet: no character JSON escapes). About half the bytes of a list of
# [task_id, split, flags] per task, so half the pages an import writes and commits for its orders.
_FLAG_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_FLAG_TO_CHAR = _FLAG_CHARS + bytes(256 - len(_FLAG_CHARS))
_CHAR_TO_FLAG = bytes(max(_FLAG_CHARS.find(bytes([char])), 0) for char in range(256))


def _all_chunk(tasks: Sequence[str], splits: Sequence[Any], flags: bytes) -> str:
    """The stored text of a chunk of the list "all" (flags below 64, a byte each)."""
    first = splits[0]
    flag_text = flags.translate(_FLAG_TO_CHAR).decode("ascii")
    if splits.count(first) == len(splits):
        return _dumps({"tasks": tasks, "split": first, "flags": flag_text})  # type: ignore[arg-type]
    return _dumps({"tasks": tasks, "splits": splits, "flags": flag_text})  # type: ignore[arg-type]


def chunk_items(name: str, text: str) -> list[Any]:
    """A stored chunk's items: of the list "all", each task as (task id, split, flags); of any other, positions. A
    chunk of "all" in any other shape (an edit by hand: verify names its run) is given as it decodes."""
    items = json.loads(text)
    if name != "all" or not isinstance(items, dict):
        return items  # type: ignore[no-any-return]
    tasks, flags = items.get("tasks"), items.get("flags")
    splits = items["splits"] if "splits" in items else repeat(items.get("split"))
    if not isinstance(flags, str) or not isinstance(tasks, list):
        return []
    # the columns are as long as each other unless edited by hand (verify names the run): then the shortest
    return list(zip(tasks, splits, flags.encode("ascii", "replace").translate(_CHAR_TO_FLAG), strict=False))


def _compact_all(text: str) -> str | None:
    """A chunk of "all" stored as a list of [task_id, split, flags] (before the compact form) in the compact form,
    or None: not that list (left as it is; verify names its run)."""
    try:
        items = json.loads(text)
        tasks, splits, flags = zip(*items, strict=True) if items else ((), (), ())
        ok = bool(items) and all(type(t) is str for t in tasks) and all(type(f) is int for f in flags)
        return _all_chunk(tasks, splits, bytes(flags)) if ok and max(flags) < 64 and min(flags) >= 0 else None
    except (ValueError, TypeError):
        return None


def compact_stored_orders(db: Database) -> None:
    """Every stored order in the compact form (m021_evaluation_compact_task_order): a chunk of the list "all" as
    _all_chunk writes it, and no list of positions that holds every task of its run (failing, differs, flaky: the
    run's counts say so, and a page reads such a list's positions as they are)."""
    for name, column in (("failing", "failing"), ("differs", "differs"), ("flaky", "flaky")):
        db.execute(f"DELETE FROM {PAGES_TABLE} WHERE list = ? AND run_id IN (SELECT run_id FROM {COUNTS_TABLE}"
                   f" GROUP BY run_id HAVING SUM({column}) = SUM(tasks))", [name])
    for (run_id,) in db.execute(f"SELECT DISTINCT run_id FROM {PAGES_TABLE} WHERE list = 'all'").fetchall():
        chunk = -1
        while batch := db.execute(f"SELECT chunk, entries FROM {PAGES_TABLE} WHERE run_id = ? AND list = 'all'"
                                  " AND chunk > ? ORDER BY chunk LIMIT 256", [run_id, chunk]).fetchall():
            compacted = [(compact, run_id, number) for number, text in batch
                         if (compact := _compact_all(text)) is not None]
            db.conn.executemany(f"UPDATE {PAGES_TABLE} SET entries = ? WHERE run_id = ? AND list = 'all'"
                                " AND chunk = ?", compacted)
            chunk = batch[-1][0]


class _Chunks:
    """Lists cut into chunks as their items arrive: at most TASK_CHUNK open items per list; the closed
    chunks wait in `rows` (run_task_pages rows) for the caller to write."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.open: dict[str, tuple[int, list[Any]]] = {}  # list -> (its chunk number, the chunk's items so far)
        self.rows: list[tuple[str, str, int, str]] = []
        self.open_all: tuple[int, tuple[Sequence[str], Sequence[Any], bytes]] = (0, ((), (), b""))

    def extend(self, name: str, items: list[Any]) -> None:
        """Items appended to a list, a chunk at a time."""
        number, open_ = self.open.get(name) or (0, [])
        open_ = open_ + items if open_ else items
        full = len(open_) - len(open_) % TASK_CHUNK
        run_id, rows = self.run_id, self.rows
        for start in range(0, full, TASK_CHUNK):
            rows.append((run_id, name, number, _dumps(open_[start:start + TASK_CHUNK])))
            number += 1
        self.open[name] = (number, open_[full:] if full else open_)

    def extend_all(self, tasks: Sequence[str], splits: Sequence[Any], flags: bytes) -> None:
        """Tasks appended to the list "all", as columns: their ids, splits and flags (a byte each)."""
        number, (open_tasks, open_splits, open_flags) = self.open_all
        if open_tasks:
            tasks, splits, flags = [*open_tasks, *tasks], [*open_splits, *splits], open_flags + flags
        full = len(tasks) - len(tasks) % TASK_CHUNK
        run_id, rows = self.run_id, self.rows
        for start in range(0, full, TASK_CHUNK):
            end = start + TASK_CHUNK
            rows.append((run_id, "all", number, _all_chunk(tasks[start:end], splits[start:end], flags[start:end])))
            number += 1
        self.open_all = (number, (tasks[full:], splits[full:], flags[full:]))

    def take(self, *, last: bool = False) -> list[tuple[str, str, int, str]]:
        """The closed chunks (with `last`, every open one too), handed over once."""
        if last:
            number, (tasks, splits, flags) = self.open_all
            if tasks:
                self.rows.append((self.run_id, "all", number, _all_chunk(tasks, splits, flags)))
            self.open_all = (0, ((), (), b""))
            self.rows.extend((self.run_id, name, number, _dumps(items))
                             for name, (number, items) in self.open.items() if items)
            self.open = {}
        rows, self.rows = self.rows, []
        return rows


def _forget(db: Database, run_id: str, migrated: bool = False) -> None:
    db.execute(f"DELETE FROM {PAGES_TABLE} WHERE run_id = ?", [run_id])
    db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE run_id = ?", [run_id])
    if migrated or _has_figures(db):
        db.execute(f"DELETE FROM {FIGURES_TABLE} WHERE run_id = ?", [run_id])


def _has_figures(db: Database) -> bool:
    """Whether the statistics counts' table is there (not while a store from before it is migrated)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [FIGURES_TABLE]).fetchone() is not None


def stored_orders(db: Database) -> list[str]:
    """The runs whose review order or counts are stored, by id."""
    return [r[0] for r in db.execute(f"SELECT run_id FROM {COUNTS_TABLE} UNION SELECT run_id FROM {PAGES_TABLE}"
                                     " ORDER BY 1").fetchall()]


def order_differences(db: Database, run_id: str) -> list[str]:
    """The tables in which a run's stored order or counts per split are not what its task results give
    now (empty: they agree). They are derived data no hash covers: an edited row would list a run's tasks in
    another order or under other filters, unnoticed. (Its statistics counts are compared by verify's own check,
    which names the counts that differ.)

    The order is built again from the task results, as an import builds it, and written into temporary tables of
    the same names (SQLite reads an unqualified name in the temporary schema first; each table the write touches
    has one, so nothing reaches the store's) inside a savepoint rolled back after, in bounded memory for a run of
    any size.
    """
    shadowed = [t for t in (PAGES_TABLE, COUNTS_TABLE, FIGURES_TABLE)
                if db.execute("SELECT 1 FROM main.sqlite_master WHERE name = ?", [t]).fetchone()]
    db.execute("SAVEPOINT gatepost_order_check")
    try:
        for table in shadowed:
            db.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM main.{table} WHERE 0")
        _store_order(db, run_id)
        differ = []
        for table in (PAGES_TABLE, COUNTS_TABLE):
            stored = f"SELECT * FROM main.{table} WHERE run_id = :run"
            written = f"SELECT * FROM temp.{table} WHERE run_id = :run"
            if db.execute(f"SELECT EXISTS ({stored} EXCEPT {written}) OR EXISTS ({written} EXCEPT {stored})",
                          {"run": run_id}).fetchone()[0]:
                differ.append(table)
        return differ
    finally:
        db.execute("ROLLBACK TO gatepost_order_check")
        db.execute("RELEASE gatepost_order_check")


class Block(NamedTuple):
    """A run's task results of one side, in id order, all before (or all after) the other side's: the task ids,
    whether each passed (COALESCE(passed, 0), what the order reads of it), the split of each."""

    side: str
    tasks: Sequence[str]
    passed: Sequence[Any]
    splits: Sequence[Any]


def blocked_order(previous: str | None, before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]],
                  blocks: Sequence[Block], *, whole: bool = False
                  ) -> tuple[set[tuple[str, int, str]], set[tuple[Any, ...]], tuple[int, ...]] | None:
    """What an import stores as the order of a run whose results are these blocks (each side's results, in id
    order), given its previous run and that run's candidate pass@k per task (`before`: by task, or as the tasks
    and passes of its candidate side): its run_task_pages rows as (list, chunk, entries), its run_task_counts rows
    without the run id, and its run_task_figures values (FIGURE_NAMES), built by the one builder (_Order) from the
    blocks' columns (verify checks every run's stored order this way). None: a task twice on a side or a pass that
    is not a whole number, whose run has no statistics counts stored; only the exact check words those. `whole`: the
    caller has looked, every pass is a whole number (`type(p) is int`)."""
    if not whole and not all(type(p) is int for block in blocks for p in set(block.passed)):
        return None
    aligned = _aligned_order(previous, before, blocks)
    return aligned if aligned is not None else _general_order(previous, before, blocks)


def _general_order(previous: str | None, before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]],
                   blocks: Sequence[Block]) -> tuple[set[tuple[str, int, str]], set[tuple[Any, ...]], tuple[int, ...]] | None:
    """blocked_order of blocks of any shape (their passes whole numbers), through _Held as an import's order."""
    held = _Held(_in_memory(blocks, before))
    order = _Order(held.tally)
    if not order.figures.single:
        return None
    pages = {row[1:] for rows in held.pages(order, "") for row in rows}
    return pages, {(split, previous, *values) for split, values in order.counts.items()}, order.figures.row()


def _store_order(db: Database, run_id: str, rows: Sequence[Sequence[Any]] | None = None, *,
                 held: HeldRuns | None = None, fresh: bool = False, after: tuple[str | None] | None = None,
                 migrated: bool = False) -> None:
    """Build and store a run's order, from its results in hand (`rows`, as inserted), from its Tasks when `held`
    has them (only its previous run's passes are new), else read back. A run whose Tasks were in memory is kept in
    `held` (what the runs after and before it compare with). `after`: (its previous run,) when the caller knows
    it; `migrated`: the store has every table (an act's, see _write_figures)."""
    previous = after[0] if after is not None else neighbour_run(db, run_id, after=False)
    kept = held.held(run_id) if held is not None and rows is None else None
    source: _Held | _TableTasks
    if rows is not None:
        sides, tasks, passed, splits = _columns(rows)
        blocks = _segments(sides, tasks, passed, splits)
        before = _before(db, previous, held)
        coded = _coded_blocks(before, blocks)
        if coded is not None:  # an import's shape: ordered by the tasks' codes, its Tasks held as _in_memory makes them
            if held is not None:
                held.keep_coded(run_id, blocks, coded[2], like=previous)
            _write(db, run_id, previous, coded[0], _coded_pages(run_id, coded), fresh=fresh, migrated=migrated)
            return
        source = _Held(_in_memory(blocks, before))
    elif kept is not None:
        before = _before(db, previous, held)
        coded = _coded_kept(before, kept)
        if coded is not None:
            _write(db, run_id, previous, coded[0], _coded_pages(run_id, coded), fresh=fresh, migrated=migrated)
            return
        source = _Held(_tasks_of(kept)._replace(was=_was(before, kept.tasks)))
    else:
        source = _stored_tasks(db, run_id, previous, held)
    if held is not None and kept is None and isinstance(source, _Held):
        held.keep(run_id, source.tasks, like=previous)
    order = _Order(source.tally)
    _write(db, run_id, previous, order, source.pages(order, run_id), fresh=fresh, migrated=migrated)


def _coded_kept(before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]], kept: _Kept
                ) -> tuple[_Order, Sequence[str], Any, bytes] | None:
    """`_coded` of a held run when each task has one result a side (its states _ONCE's) or none at all on the
    baseline side, under one split; None for any other (the general path answers)."""
    if isinstance(kept.splits, tuple):
        (split,) = kept.splits
    elif not kept.splits or kept.splits.count(split := kept.splits[0]) != len(kept.splits):
        return None
    if not isinstance(kept.candidate, bytes) and not set(kept.candidate) <= _ONCE_STATES:
        return None  # held as bytes: the states of one pass each (HeldRuns.keep_coded)
    if kept.baseline is not None and not isinstance(kept.baseline, bytes):
        baseline = set(kept.baseline)
        if baseline == {None}:
            return _coded(before, kept.tasks, split, kept.candidate, None)
        if not baseline <= _ONCE_STATES:
            return None
    return _coded(before, kept.tasks, split, kept.candidate, kept.baseline)  # a state's byte maps to its pass (_BIT)


def _coded_pages(run_id: str, coded: tuple[_Order, Sequence[str], Any, bytes]
                 ) -> Iterator[list[tuple[str, str, int, str]]]:
    """The run_task_pages rows of an order `_coded` built."""
    order, tasks, split, flags = coded
    return order.flagged_pages(run_id, [(tasks, [split] * len(tasks), flags)])


# What HeldRuns keeps at most, in tasks of all its runs together (about 30 bytes each where runs list the same tasks).
HELD_TASKS = 200_000


# a task's pass@k by its state on a side (see _ONCE); None where the side has no result for it; as a bytes.translate
# table, for states held as bytes
_PASS_OF: dict[int | None, int | None] = {None: None, **{state: state & 1 for state in range(8)}}
_PASS_OF_STATE = bytes(state & 1 for state in range(256))


class _Kept(NamedTuple):
    """A held run's Tasks, small: its task ids the very list of the run it was compared with when they are the
    same (the runs of a suite mostly list the same tasks), its split once when every task has the same one (a
    1-tuple), its states on a side as bytes when each task has one result there (an import's shape), its baseline
    states None when it has no baseline result at all."""

    tasks: list[str]
    splits: list[Any] | tuple[Any]
    candidate: list[int | None] | bytes
    baseline: list[int | None] | bytes | None


class HeldRuns:
    """The Tasks of runs one caller's acts stored or read back (an import of many files), by run id, so the order
    of the run after one stored later, and the previous run's passes each run compares with, need not be read back
    (reading them was a third of an import's order). A run's task results are all stored by its one act and never
    change after, so its Tasks stay true once that act commits; the owner `drop`s a run whose act did not. At most
    HELD_TASKS tasks are kept (about 30 bytes each when runs list the same tasks): the runs used longest ago are
    dropped first."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = HELD_TASKS if limit is None else limit
        self.runs: dict[str, _Kept] = {}
        self.size = 0

    def keep(self, run_id: str, tasks: Tasks, *, like: str | None = None) -> None:
        """Keep a run's Tasks (not its previous run's passes: they change when an older run lands); `like`: a run
        that may list the same tasks (its previous run), whose list of them is then shared."""
        self.drop(run_id)
        n = len(tasks.tasks)
        if n > self.limit:
            return
        splits = set(tasks.splits)
        self._keep(run_id, tasks.tasks, (splits.pop(),) if len(splits) == 1 else list(tasks.splits),
                   list(tasks.candidate), list(tasks.baseline), like)

    def keep_coded(self, run_id: str, blocks: Sequence[Block], split: Any, *, like: str | None = None) -> None:
        """Keep a run `_coded_blocks` ordered (one split; each task once a side): its states by a byte table from
        its passes, as bytes."""
        self.drop(run_id)
        candidate = next(block for block in blocks if block.side == "candidate")
        baseline = next((block for block in blocks if block.side == "baseline"), None)
        self._keep(run_id, blocks[0].tasks, (split,), bytes(candidate.passed).translate(_STATE_OF_PASS),
                   bytes(baseline.passed).translate(_STATE_OF_PASS) if baseline is not None else None, like)

    def _keep(self, run_id: str, tasks: Sequence[str], splits: list[Any] | tuple[Any],
              candidate: list[int | None] | bytes, baseline: list[int | None] | bytes | None, like: str | None) -> None:
        n = len(tasks)
        if n > self.limit:
            return
        other = self.runs.get(like) if like is not None else None
        names = other.tasks if other is not None and other.tasks == tasks else list(tasks)
        self.runs[run_id] = _Kept(names, splits, candidate, baseline)
        self.size += n
        while self.size > self.limit:
            self.drop(next(iter(self.runs)))

    def drop(self, run_id: str) -> None:
        """Forget a run (its act rolled back, or room is needed)."""
        kept = self.runs.pop(run_id, None)
        if kept is not None:
            self.size -= len(kept.tasks)

    def held(self, run_id: str) -> _Kept | None:
        """A held run as kept (_Kept), or None."""
        kept = self.runs.pop(run_id, None)
        if kept is not None:
            self.runs[run_id] = kept  # used last: dropped last
        return kept

    def passes(self, run_id: str) -> tuple[Sequence[str], Sequence[int | None]] | None:
        """A held run's candidate pass@k per task, as its tasks and their passes (None: no candidate result)."""
        kept = self.held(run_id)
        if kept is None:
            return None
        if isinstance(kept.candidate, bytes):
            return kept.tasks, kept.candidate.translate(_PASS_OF_STATE)
        return kept.tasks, list(map(_PASS_OF.__getitem__, kept.candidate))


def _tasks_of(kept: _Kept) -> Tasks:
    """A held run's Tasks (its previous run's passes left empty)."""
    n = len(kept.tasks)
    splits = list(kept.splits) * n if isinstance(kept.splits, tuple) else kept.splits
    return Tasks(kept.tasks, splits, kept.candidate, [None] * n if kept.baseline is None else kept.baseline, ())


def refresh_task_order(db: Database, run_id: str, rows: Sequence[Sequence[Any]] | None = None, *,
                       held: HeldRuns | None = None) -> None:
    """Store a run's review order and counts, and rebuild the stored order of the run that follows it.

    Call it inside the act that stores the run and its task results (so none of its order is stored yet).
    `rows`: those results as inserted just before, in order (task_results columns in evaluation's TASK_COLUMNS
    order), so nothing is read back (without them the run's results are read back: a streamed import's, in
    bounded memory). When the run is older than one already stored, that newer run's previous run is now this
    one: its Δ flags and order change. `held`: the Tasks of runs the caller stored before (see HeldRuns), kept
    up to date here; the caller drops this run from it when the act does not commit.
    """
    held = held if held is not None else HeldRuns()
    key = _run_key(db, run_id)
    previous, following = (_neighbour(db, run_id, key, after=False), _neighbour(db, run_id, key, after=True)) \
        if key is not None else (None, None)
    _store_order(db, run_id, rows, held=held, fresh=True, after=(previous,), migrated=True)
    if following is not None:  # its previous run is now this one: what its candidate passed is held
        _store_order(db, following, held=held, after=(run_id,), migrated=True)


def backfill_task_order(db: Database) -> None:
    """Store the order of every run with task results whose order is not stored (a store from before every
    run's order was)."""
    for (run_id,) in db.execute(f"SELECT DISTINCT run_id FROM task_results WHERE run_id NOT IN"
                                f" (SELECT run_id FROM {COUNTS_TABLE})").fetchall():
        _store_order(db, run_id)


# A task of an import's shape as one byte, its code: 4 * its candidate's pass@k in the previous run (0 absent, 1 failed,
# 2 passed) + 2 * its candidate passed + its baseline passed. Per code, the previous pass@k it stands for and its flags.
_BIT = bytes([0] + [1] * 255)  # a pass (a whole number 0..255) to whether it passed
_WAS_CODE = bytes([1] + [2] * 255)  # a previous pass@k (0..255) to its code
_WAS_OF = (None, 0, 1)
_FLAGS_OF_CODE = bytes(_FLAGS[_WAS_OF[code >> 2], _ONCE[code >> 1 & 1], _ONCE[code & 1]] if code < 12 else 0
                       for code in range(256))


def _codes(before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]], tasks: Sequence[str],
           candidate: Sequence[Any], baseline: Sequence[Any]) -> bytes | None:
    """Each task's code (see _WAS_CODE), by byte arithmetic: the three columns as bytes, added as big numbers (no
    digit carries: a code is below 12). None: a pass outside 0..255 (the general path answers)."""
    try:
        c, b = bytes(candidate).translate(_BIT), bytes(baseline).translate(_BIT)
        if isinstance(before, tuple) and before[0] == tasks:  # the run before listed these tasks (the commonest)
            was = bytes(before[1]).translate(_WAS_CODE)
        elif not before:
            was = bytes(len(tasks))
        else:
            was = bytes(0 if p is None else _WAS_CODE[bytes([p])[0]] for p in _was(before, list(tasks)))
    except (ValueError, TypeError):
        return None
    n = len(tasks)
    return (int.from_bytes(was, "big") * 4 + int.from_bytes(c, "big") * 2 + int.from_bytes(b, "big")).to_bytes(n, "big")


def _aligned_order(previous: str | None, before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]],
                   blocks: Sequence[Block]) -> tuple[set[tuple[str, int, str]], set[tuple[Any, ...]], tuple[int, ...]] | None:
    """blocked_order of an import's shape (a candidate block and a baseline block listing the same tasks once each,
    in the same order, under one split): what `_coded` and `_Order` make of it, worked out straight from each task's
    code (_codes) with what each code counts for (_CODE_COUNTS, _CODE_CELL) and the lists cut into chunks as _Chunks
    cuts them. None: not that shape (or a pass outside 0..255): the general path answers."""
    if len(blocks) != 2:
        return None
    first, second = blocks
    if first.side == "candidate" and second.side == "baseline":
        candidate, baseline = first, second
    elif first.side == "baseline" and second.side == "candidate":
        candidate, baseline = second, first
    else:
        return None
    tasks, splits = first.tasks, second.splits
    n = len(tasks)
    if not n or not splits or (second.tasks is not tasks and list(second.tasks) != list(tasks)):
        return None
    split = splits[0]
    if splits.count(split) != len(splits) or len(set(tasks)) != n:
        return None
    codes = _codes(before, tasks, candidate.passed, baseline.passed)
    if codes is None:
        return None
    counts = [n, 0, 0, 0, 0, 0]
    cells = [0] * 9
    groups: set[int] = set()
    present = 0
    for code in range(12):
        k = codes.count(_CODE_BYTE[code])
        if k:
            for i, one in enumerate(_CODE_COUNTS[code], 1):
                counts[i] += k * one
            cells[_CODE_CELL[code]] += k
            groups.add(_CODE_GROUP[code])
            present |= _FLAGS_OF_CODE[code]
    flags = codes.translate(_FLAGS_OF_CODE)
    if len(groups) > 1:  # each group's tasks in turn, picked by a mask of their flags (a byte each: < 64); their
        # flags are the flags of that group's (the flags say the group), the others deleted
        ordered = sorted(groups)
        tasks = list(chain.from_iterable([compress(tasks, flags.translate(_IN_GROUP[group])) for group in ordered]))
        flags = b"".join([flags.translate(None, _OUT_OF_GROUP[group]) for group in ordered])
    pages = {("all", number, _all_chunk(tasks[start:start + TASK_CHUNK], [split] * len(tasks[start:start + TASK_CHUNK]),
                                         flags[start:start + TASK_CHUNK]))
             for number, start in enumerate(range(0, n, TASK_CHUNK))}
    positions: Sequence[int] = list(range(n)) if present & _LISTED_BITS else ()
    for (name, bit), (_, at) in zip(_LISTED, _COUNTED, strict=True):
        if present & bit and counts[at] != n:  # a list holding every task is not stored (see _Order.whole)
            pages |= _chunked(name, list(compress(positions, flags.translate(_HAS_BIT[bit]))))
    figures = _Figures()
    figures.cells = cells
    return pages, {(split or "", previous, *counts)}, figures.row()


def _chunked(name: str, items: list[Any]) -> set[tuple[str, int, str]]:
    """A list's run_task_pages rows without the run id, (list, chunk, entries): as _Chunks cuts a list it is given
    whole."""
    return {(name, number, _dumps(items[start:start + TASK_CHUNK]))
            for number, start in enumerate(range(0, len(items), TASK_CHUNK))}


# per code (see _WAS_CODE): the code as a byte string (what bytes.count counts), what a task of that code adds to its
# split's counts after the tasks (failing, changed, changed_now_pass, differs, flaky: _count's), its cell of the
# statistics counts (_Figures: one result a side, passed or failed), and its group in the review order
_CODE_BYTE = [bytes([code]) for code in range(12)]
_CODE_COUNTS = [(int(bool(f & FLAG_FAILING)), int(bool(f & FLAG_CHANGED)),
                 int(bool(f & FLAG_CHANGED and not f & FLAG_FAILING)), int(bool(f & FLAG_DIFFERS)),
                 int(bool(f & FLAG_FLAKY))) for f in _FLAGS_OF_CODE[:12]]
_CODE_CELL = [(1 + (code >> 1 & 1)) * 3 + 1 + (code & 1) for code in range(12)]
_CODE_GROUP = [_group(f) for f in _FLAGS_OF_CODE[:12]]
_LISTED_BITS = FLAG_FAILING | FLAG_DIFFERS | FLAG_FLAKY


# per code, the flags of a task of a run with no baseline result at all (its baseline state None, not failed)
_FLAGS_OF_CODE_ALONE = bytes(_FLAGS[_WAS_OF[code >> 2], _ONCE[code >> 1 & 1], None] if code < 12 else 0
                             for code in range(256))
_STATE_OF_PASS = bytes([_ONCE[0]] + [_ONCE[1]] * 255)  # a pass (0..255) to its state on a side (see _ONCE)
_ONCE_STATES = frozenset(_ONCE)


def _coded_blocks(before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]], blocks: Sequence[Block]
                  ) -> tuple[_Order, Sequence[str], Any, bytes] | None:
    """`_coded` of a run's results cut into blocks (as _segments cuts them) when they are an import's shape: a
    candidate block, and perhaps a baseline block listing the same tasks in the same order, each task once, under
    one split; None for any other (the general path answers)."""
    if len(blocks) == 2 and {blocks[0].side, blocks[1].side} == {"candidate", "baseline"}:
        candidate, baseline = blocks if blocks[0].side == "candidate" else (blocks[1], blocks[0])
    elif len(blocks) == 1 and blocks[0].side == "candidate":
        candidate, baseline = blocks[0], None
    else:
        return None
    tasks, splits = blocks[0].tasks, blocks[-1].splits
    split = splits[0]
    if splits.count(split) != len(splits) or (baseline is not None and blocks[1].tasks is not tasks
                                              and list(blocks[1].tasks) != list(tasks)) or len(set(tasks)) != len(tasks):
        return None
    return _coded(before, tasks, split, candidate.passed, baseline.passed if baseline is not None else None)


def _coded(before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]], tasks: Sequence[str], split: Any,
           candidate: Sequence[Any], baseline: Sequence[Any] | None) -> tuple[_Order, Sequence[str], Any, bytes] | None:
    """The order of a run whose tasks each have one result on the candidate side and one or none (`baseline` None:
    none at all) on the baseline side, under one split: its _Order, and its tasks and their flags in review order.
    The same keys, tally, _Order and chunks as the general path (_Held), with each task's passes made one byte
    (its code, _codes) whose flags a table gives, and picked group by group by byte masks (each group's tasks in
    their first result's order, as `_Held.pages` lists them). None: a pass that is not a whole number 0..255."""
    alone = baseline is None
    codes = _codes(before, tasks, candidate, bytes(len(tasks)) if baseline is None else baseline)
    if codes is None:
        return None
    tally = {(split, _WAS_OF[code >> 2], _ONCE[code >> 1 & 1], None if alone else _ONCE[code & 1]): codes.count(code)
             for code in set(codes)}
    order = _Order(tally)
    if not order.figures.single:
        return None
    flags = codes.translate(_FLAGS_OF_CODE_ALONE if alone else _FLAGS_OF_CODE)
    if len(order.groups) > 1:  # each group's tasks in turn, picked by a mask of their flags (a byte each: < 64)
        in_group = [flags.translate(_IN_GROUP[group]) for group in order.groups]
        tasks = list(chain.from_iterable(compress(tasks, mask) for mask in in_group))
        flags = b"".join(flags.translate(None, _OUT_OF_GROUP[group]) for group in order.groups)
    return order, tasks, split, flags
