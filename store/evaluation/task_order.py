"""A run's tasks in review order, kept as a projection of task_results so a page is one or two row reads.

The order is written when a run's results are stored, for every run: the tasks in the order a reviewer
reads them (changed since the previous run of the same suite and skill, then candidate ≠ baseline, then
the rest, each in import order) with their flags, and the positions of the failing, differing and flaky
ones. Each list is cut into chunks of CHUNK items, one row per chunk keyed (run_id, list, chunk), so the
page at any offset is a primary-key read of one or two rows, and storing a run writes about 1/CHUNK rows
per task (a row per task cost as much as the task results themselves). `run_task_counts` keeps the counts
per split. "Previous run" can change when an older run is stored later, so storing a run also rebuilds the
run that follows it.
"""

import hashlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from itertools import compress, repeat
from operator import and_, eq, itemgetter, not_
from typing import Any, NamedTuple

import msgspec
from sqlite_utils import Database

from gatepost.store.kernel import FlatRows

PAGES_TABLE = "run_task_pages"
COUNTS_TABLE = "run_task_counts"
FIGURES_TABLE = "run_task_figures"
TASK_CHUNK = 256
# An entry of the list "all": [task_id, split, flags]; its position is chunk * CHUNK + its index.
# The lists "failing", "differs", "flaky" and (with several splits) "split:<name>" hold positions; the
# changed tasks are the first ones.
FLAG_CHANGED, FLAG_DIFFERS, FLAG_FLAKY, FLAG_FAILING, FLAG_WAS_KNOWN, FLAG_WAS_PASSED = 1, 2, 4, 8, 16, 32

_DDL = [
    f"""CREATE TABLE IF NOT EXISTS {PAGES_TABLE} (
        run_id TEXT NOT NULL REFERENCES evaluation_runs(id),
        list TEXT NOT NULL,            -- all | failing | differs | flaky | split:<name>
        chunk INTEGER NOT NULL,        -- items chunk*CHUNK .. chunk*CHUNK+CHUNK-1 of the list
        entries TEXT NOT NULL,         -- JSON: all: [[task_id, split, flags]]; the others: [position]
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


def _write_figures(db: Database, run_id: str, figures: "_Figures") -> None:
    """Store a run's statistics counts (only when they are all its statistics need: one attempt a side)."""
    if figures.single and db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [FIGURES_TABLE]).fetchone():
        db.execute(f"INSERT INTO {FIGURES_TABLE} (run_id, {', '.join(FIGURE_NAMES)}) VALUES (?{', ?' * 8})",
                   [run_id, *figures.row()])


def stored_figures(db: Database, run_id: str) -> dict[str, int] | None:
    """A run's stored statistics counts (FIGURE_NAMES), or None: a small run, or one with repeated attempts."""
    row = db.execute(f"SELECT {', '.join(FIGURE_NAMES)} FROM {FIGURES_TABLE} WHERE run_id = ?", [run_id]).fetchone()
    return dict(zip(FIGURE_NAMES, row, strict=True)) if row else None


def _count_figures(db: Database, run_id: str) -> "_Figures":
    figures = _Figures()
    for _, _, _, c_n, c_pass, _, b_n, b_pass, _ in db.execute(_AGGREGATE, [run_id]):
        figures.add(c_n, c_pass, b_n, b_pass)
    return figures


def counted_figures(db: Database, run_id: str) -> dict[str, int] | None:
    """A run's statistics counts counted again from its task results (what `stored_figures` must equal), or
    None when a task has two attempts on a side (such a run has none stored). `gatepost verify` compares them:
    the stored counts are derived, so a hand-edited row would otherwise change the statistics unnoticed."""
    figures = _count_figures(db, run_id)
    return dict(zip(FIGURE_NAMES, figures.row(), strict=True)) if figures.single else None


def backfill_figures(db: Database) -> None:
    """The statistics counts of every run whose order is stored (a store from before m011)."""
    for (run_id,) in db.execute(f"SELECT DISTINCT run_id FROM {COUNTS_TABLE}").fetchall():
        _write_figures(db, run_id, _count_figures(db, run_id))


# Per task of a run, from task_results: (task_id, first id, split of the last row, then per side
# attempts, pass@k, the lowest attempt's pass).
_AGGREGATE = """
SELECT task_id, first_id, (SELECT split FROM task_results WHERE id = last_id), c_n, c_pass, c_min, b_n, b_pass, b_min
FROM (SELECT task_id, MIN(id) AS first_id, MAX(id) AS last_id,
    SUM(side = 'candidate') AS c_n,
    MAX(CASE WHEN side = 'candidate' THEN COALESCE(passed, 0) END) AS c_pass,
    MIN(CASE WHEN side = 'candidate' THEN COALESCE(passed, 0) END) AS c_min,
    SUM(side = 'baseline') AS b_n,
    MAX(CASE WHEN side = 'baseline' THEN COALESCE(passed, 0) END) AS b_pass,
    MIN(CASE WHEN side = 'baseline' THEN COALESCE(passed, 0) END) AS b_min
  FROM task_results WHERE run_id = ? GROUP BY task_id)
"""

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
    row = db.execute("SELECT suite_id, skill_id, COALESCE(started_at, '') FROM evaluation_runs WHERE id = ?",
                     [run_id]).fetchone()
    if not row:
        return None
    suite_id, skill_id, started = row
    sql = _NEIGHBOUR.format(op=">" if after else "<", direction="ASC" if after else "DESC")
    found = db.execute(sql, [suite_id, skill_id, run_id, started, started, run_id]).fetchone()
    return found[0] if found else None


class Built(NamedTuple):
    """A run's order as written: its previous run, its lists by name (the entries of "all", the positions of
    the others) and its counts per split."""

    previous: str | None
    lists: dict[str, list[Any]]
    counts: dict[str, list[int]]  # split -> [tasks, failing, changed, changed_now_pass, differs, flaky]
    figures: _Figures | None = None  # the run's statistics counts
    passes: dict[str, int] | None = None  # per task of the candidate's side, whether it passed (pass@k)


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


class _Side:
    """One side's tasks in a run's rows: which it has, which passed an attempt, which failed one, and whether
    any task has more than one attempt on it (sets: the work per row is done in C)."""

    def __init__(self, sides: Sequence[Any], tasks: Sequence[str], passed: Sequence[Any], side: str) -> None:
        n, rows = len(tasks), sides.count(side)
        if not rows:
            mine, ok, failed = [], [], set()
        elif rows == n:
            mine, ok = list(tasks), list(compress(tasks, passed))
            failed = set(compress(tasks, map(not_, passed))) if len(ok) != n else set()
        else:
            is_mine = list(map(eq, sides, repeat(side)))
            mine = list(compress(tasks, is_mine))
            ok = list(compress(tasks, map(and_, is_mine, map(bool, passed))))
            failed = set(compress(tasks, map(and_, is_mine, map(not_, passed))))
        self.has, self.ok, self.failed = set(mine), set(ok), failed
        self.single = len(self.has) == len(mine)



def _cells(tasks: int, cand: _Side, base: _Side) -> list[int]:
    """_Figures.cells of a run: its tasks per (candidate, baseline) state, each 0 absent, 1 failed, 2 passed."""
    c_states, b_states = (cand.has - cand.ok, cand.ok), (base.has - base.ok, base.ok)
    cells = [0] * 9
    for c, c_tasks in enumerate(c_states, 1):
        for b, b_tasks in enumerate(b_states, 1):
            cells[c * 3 + b] = len(c_tasks & b_tasks) if b_tasks and c_tasks else 0
        cells[c * 3] = len(c_tasks) - cells[c * 3 + 1] - cells[c * 3 + 2]  # absent from the baseline
    for b, b_tasks in enumerate(b_states, 1):
        cells[b] = len(b_tasks) - cells[3 + b] - cells[6 + b]  # absent from the candidate
    cells[0] = tasks - sum(cells)
    return cells


def _build(db: Database, run_id: str, sides: Sequence[Any], tasks: Sequence[str], passed: Sequence[Any],
           splits: Sequence[Any], *, previous_passes: tuple[str, dict[str, int]] | None = None) -> Built:
    """Order the run's tasks and count them per split, from its task results' columns in the order they were
    inserted (a task's first position stands for its first id; its split is its last row's), as _AGGREGATE
    and _flags give them, with the work per row and per task done by sets and comprehensions.
    `previous_passes`: the previous run and its candidate's passes, when the caller holds them."""
    previous = neighbour_run(db, run_id, after=False)
    before: dict[str, int] = {}
    if previous is not None and previous_passes is not None and previous_passes[0] == previous:
        before = previous_passes[1]
    elif previous is not None:
        before = _candidate_passes(db, previous)
    order = list(dict.fromkeys(tasks))  # each task once, at its first position
    split_of = dict(zip(tasks, splits, strict=True))  # the last row's
    cand, base = _Side(sides, tasks, passed, "candidate"), _Side(sides, tasks, passed, "baseline")
    # candidate ≠ baseline: one side has the task and the other not, or both have it and one passed
    differs = (cand.has ^ base.has) | ((cand.ok ^ base.ok) & cand.has & base.has) if base.has else cand.has
    flaky = (cand.ok & cand.failed) | (base.ok & base.failed)
    was_ok = set(compress(before, before.values()))  # the tasks the previous run's candidate passed
    known = dict.fromkeys(before, FLAG_WAS_KNOWN)
    known.update(dict.fromkeys(was_ok, FLAG_WAS_KNOWN | FLAG_WAS_PASSED))
    changed = cand.has.intersection(before).intersection(was_ok.symmetric_difference(cand.ok))
    ok = cand.ok
    flags = [(0 if t in ok else FLAG_FAILING) | (FLAG_DIFFERS if t in differs else 0) for t in order]
    if flaky or known:
        get = known.get
        flags = [f | (FLAG_FLAKY if t in flaky else 0) | get(t, 0) | (FLAG_CHANGED if t in changed else 0)
                 for t, f in zip(order, flags, strict=True)]
    if changed or 0 < len(differs) < len(order):  # changed first, then candidate ≠ baseline, then the rest
        first = [i for i, f in enumerate(flags) if f & FLAG_CHANGED]
        second = [i for i, f in enumerate(flags) if f & (FLAG_CHANGED | FLAG_DIFFERS) == FLAG_DIFFERS]
        rest = [i for i, f in enumerate(flags) if not f & (FLAG_CHANGED | FLAG_DIFFERS)]
        positions = first + second + rest
        order, flags = [order[i] for i in positions], [flags[i] for i in positions]
    task_splits = list(map(split_of.__getitem__, order))
    counts: dict[str, list[int]] = {}
    if len(set(split_of.values())) == 1:  # one split: its counts are the sizes of the sets
        counts[task_splits[0] or ""] = [len(order), len(order) - len(ok), len(changed), len(changed & ok),
                                        len(differs), len(flaky)]
    else:
        for (split, flag), n in Counter(zip(task_splits, flags, strict=True)).items():
            _count(counts, split, flag, n)
    figures = _Figures()
    figures.single = cand.single and base.single
    figures.cells = _cells(len(order), cand, base)
    lists: dict[str, list[Any]] = {"all": list(zip(order, task_splits, flags, strict=True))}
    for name, bit in (("failing", FLAG_FAILING), ("differs", FLAG_DIFFERS), ("flaky", FLAG_FLAKY)):
        lists[name] = list(compress(range(len(order)), map(and_, flags, repeat(bit))))
    if len(counts) > 1:  # a run of one split needs no list per split: it is the list "all"
        for i, split in enumerate(task_splits):
            lists.setdefault(f"split:{split or ''}", []).append(i)
    passes = dict.fromkeys(cand.has, 0)
    passes.update(dict.fromkeys(cand.ok, 1))
    return Built(previous, lists, counts, figures, passes)


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


def _write(db: Database, run_id: str, built: Built) -> None:
    """Store a built order: its lists in chunks of TASK_CHUNK items, its counts per split."""
    _forget(db, run_id)
    db.conn.executemany(
        _INSERT_PAGE,
        [(run_id, name, start // TASK_CHUNK, _dumps(items[start:start + TASK_CHUNK]))
         for name, items in built.lists.items() for start in range(0, len(items), TASK_CHUNK)])
    _write_counts(db, run_id, built.previous, built.counts, built.figures)


def _write_counts(db: Database, run_id: str, previous: str | None, counts: dict[str, list[int]],
                  figures: "_Figures | None") -> None:
    """A run's counts per split and its statistics counts, however its order was built."""
    db.conn.executemany(
        f"INSERT INTO {COUNTS_TABLE} (run_id, split, previous_run, tasks, failing, changed, changed_now_pass,"
        " differs, flaky) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(run_id, split, previous, *values) for split, values in counts.items()])
    if figures is not None:
        _write_figures(db, run_id, figures)


# The per-task aggregates of _AGGREGATE with the previous run's candidate pass@k, in review order: sorted
# by SQLite (whose sorter spills to temporary files), so a run of any size is ordered in bounded memory.
# The group is _build's: changed since the previous run (0), then candidate ≠ baseline (1), then the rest.
_ORDERED = f"""
WITH agg AS ({_AGGREGATE}),
prev AS (SELECT task_id, MAX(COALESCE(passed, 0)) AS was FROM task_results
         WHERE run_id = ? AND side = 'candidate' GROUP BY task_id)
SELECT agg.*, prev.was FROM agg LEFT JOIN prev ON prev.task_id = agg.task_id
ORDER BY CASE WHEN prev.was IS NOT NULL AND c_n > 0 AND (prev.was > 0) != (c_pass > 0) THEN 0
              WHEN (CASE WHEN c_n > 0 THEN c_pass > 0 END) IS NOT (CASE WHEN b_n > 0 THEN b_pass > 0 END) THEN 1
              ELSE 2 END, first_id
"""


# The same, from the per-task aggregates StreamedOrder kept while the results were inserted (a narrow temporary
# table, one row per task) instead of grouping the run's wide task_results rows again.
_STREAMED_TABLE = "temp.gatepost_streamed_order"  # per task: id, first position, split, candidate and baseline passed
_ORDERED_STREAMED = _ORDERED.replace(
    f"WITH agg AS ({_AGGREGATE})",
    "WITH agg AS (SELECT task_id, first_id, split, 1 AS c_n, c AS c_pass, c AS c_min, 1 AS b_n, b AS b_pass,"
    f" b AS b_min FROM {_STREAMED_TABLE} WHERE ?1 IS NOT NULL)")
assert _ORDERED_STREAMED != _ORDERED


# Per batch of a streamed import's second side: its first task's position on its side and its tasks' [task_id, split, flags] as
# JSON, flags as _flags gives them for a run with no previous run (so the entries of the list "all" as they are).
_BATCHES_TABLE = "temp.gatepost_streamed_batches"
_FLAGS_OF = (FLAG_FAILING, FLAG_FAILING | FLAG_DIFFERS, FLAG_DIFFERS, 0)  # by candidate passed * 2 + baseline passed
_PASSES_OF = {flags: (i // 2, i % 2) for i, flags in enumerate(_FLAGS_OF)}  # (candidate, baseline) passed, by flags
_ENCODE = msgspec.json.Encoder().encode
_DECODE = msgspec.json.Decoder(list[tuple[str, str | None, int]]).decode
_SIDE_OF = itemgetter(_SIDE)  # a row's side
_SPLIT_FLAGS = itemgetter(1, 2)  # (split, flags) of a _STREAMED_FLAGGED row

# _ORDERED_STREAMED with each task's flags (as _flags gives them) computed by SQLite: every task of a kept run
# has one attempt a side, so pass@k is its one pass, no task is flaky, and the Python loop per task is gone.
_STREAMED_FLAGGED = f"""
WITH prev AS (SELECT task_id, MAX(COALESCE(passed, 0)) AS was FROM task_results
              WHERE run_id = ?2 AND side = 'candidate' GROUP BY task_id),
t AS (SELECT s.task_id, s.first_id, s.split, COALESCE(s.c, 0) > 0 AS c, COALESCE(s.b, 0) > 0 AS b, prev.was
      FROM {_STREAMED_TABLE} s LEFT JOIN prev ON prev.task_id = s.task_id WHERE ?1 IS NOT NULL)
SELECT task_id, split,
  (CASE WHEN was IS NULL THEN 0 ELSE {FLAG_WAS_KNOWN} + (CASE WHEN was > 0 THEN {FLAG_WAS_PASSED} ELSE 0 END)
        + (CASE WHEN (was > 0) != c THEN {FLAG_CHANGED} ELSE 0 END) END)
  + (CASE WHEN c != b THEN {FLAG_DIFFERS} ELSE 0 END) + (CASE WHEN c THEN 0 ELSE {FLAG_FAILING} END)
FROM t ORDER BY CASE WHEN was IS NOT NULL AND (was > 0) != c THEN 0 WHEN c != b THEN 1 ELSE 2 END, first_id
"""


class StreamedOrder:
    """The per-task aggregates of a streamed import, kept as its results are inserted, for the review order.

    Grouping a run's task results again by task id (SQLite reading back every wide row, then sorting) cost
    about a fifth of a large import. Artifacts list each task once per side, both sides in the same order
    (upstream's shape); then task k's aggregates are row k of the first side and row k of the second. So
    `keep` keeps one byte per task of the first side (whether it passed) and, as the second side arrives,
    writes each batch's tasks as one row of a temporary table, in bounded memory: their [task id, split, flags]
    as JSON, the flags those of a run without a previous run (a row per task cost a tenth of the import; the
    order of a run that has a previous one reads them back into a row per task). Whether the artifact had
    that shape is checked at the end (`usable`): both sides' task ids hashed in sequence are equal, and no
    task id appears twice on a side (read from the index alone). Anything else (one side, another order,
    repeated tasks, mixed sides in one list) falls back to grouping task_results in SQLite, as before.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_STREAMED_TABLE.split('.')[1]}"
                   " (task_id TEXT, first_id INTEGER, split TEXT, c INTEGER, b INTEGER)")
        db.execute(f"CREATE TEMP TABLE IF NOT EXISTS {_BATCHES_TABLE.split('.')[1]}"
                   " (first_id INTEGER PRIMARY KEY, entries BLOB NOT NULL)")
        self.empty()
        self.sides: list[str] = []  # the sides in the order they came: at most two, each once
        self.passed = bytearray()  # per task of the first side: whether it passed
        self.seconds = 0  # rows of the second side so far
        self.hashes = (hashlib.sha256(), hashlib.sha256())  # each side's task ids in sequence
        self.shaped = True
        self.rows = 0  # every row kept, whatever its shape: the run's task results

    def keep(self, rows: list[tuple[Any, ...]]) -> None:
        """Rows about to be inserted, in order (task_results columns in evaluation's TASK_COLUMNS order)."""
        self.rows += len(rows)
        if not rows or not self.shaped:
            return
        side = rows[0][_SIDE]
        if side not in ("candidate", "baseline") or len(set(map(_SIDE_OF, rows))) > 1:
            self.shaped = False
            return
        if not self.sides or self.sides[-1] != side:
            self.sides.append(side)
            if len(self.sides) > 2:
                self.shaped = False
                return
        tasks = [row[_TASK] for row in rows]
        ids = msgspec.json.encode(tasks)
        if len(self.sides) == 1:
            self.hashes[0].update(ids[1:-1] + b",")
            self.passed.extend([row[_PASSED] and 1 for row in rows])
            return
        self.hashes[1].update(ids[1:-1] + b",")
        start = self.seconds
        self.seconds += len(rows)
        if self.seconds > len(self.passed):
            self.shaped = False
            return
        kept, here = self.passed[start:self.seconds], [row[_PASSED] and 1 for row in rows]
        c, b = (kept, here) if side == "baseline" else (here, kept)  # the candidate's side came first, or not
        flags = [_FLAGS_OF[2 * ci + bi] for ci, bi in zip(c, b, strict=True)]
        entries = _ENCODE(list(zip(tasks, [row[_SPLIT] for row in rows], flags, strict=True)))
        self.db.execute(f"INSERT INTO {_BATCHES_TABLE} VALUES (?, ?)", [start, entries])

    def usable(self, db: Database, run_id: str) -> bool:
        """Whether the artifact had the shape the kept aggregates assume (then they are the run's, task for task)."""
        if not (self.shaped and len(self.sides) == 2 and self.seconds == len(self.passed)
                and self.hashes[0].digest() == self.hashes[1].digest()):
            return False
        # both sides list the same ids in the same order: a task twice on one side is twice on the other
        repeated = db.execute("SELECT 1 FROM task_results WHERE run_id = ? AND side = ? GROUP BY task_id"
                              " HAVING COUNT(*) > 1 LIMIT 1", [run_id, self.sides[0]]).fetchone()
        return repeated is None

    def empty(self) -> None:
        """Drop the kept aggregates (a temporary table of this connection, not the store's)."""
        self.db.execute(f"DELETE FROM {_STREAMED_TABLE}")
        self.db.execute(f"DELETE FROM {_BATCHES_TABLE}")


_LISTED = FLAG_FAILING | FLAG_DIFFERS | FLAG_FLAKY  # the flags with a list of positions


def _dumps(items: Sequence[Any]) -> str:
    """json.dumps(items, ensure_ascii=False, separators=(",", ":")), character for character (text, whole numbers
    and nulls are all a chunk holds), by msgspec's C encoder: a few times faster on a large run's chunks."""
    return _ENCODE(items).decode("utf-8")


class _Chunks:
    """Lists cut into chunks as their items arrive: at most TASK_CHUNK open items per list; the closed
    chunks wait in `rows` (run_task_pages rows) for the caller to write."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.open: dict[str, tuple[int, list[Any]]] = {}  # list -> (its chunk number, the chunk's items so far)
        self.rows: list[tuple[str, str, int, str]] = []

    def add(self, name: str, item: Any) -> None:
        number, items = self.open.get(name) or self.open.setdefault(name, (0, []))
        items.append(item)
        if len(items) == TASK_CHUNK:
            self.rows.append((self.run_id, name, number, _dumps(items)))
            self.open[name] = (number + 1, [])

    def extend(self, name: str, items: list[Any]) -> None:
        """add() of each item, a chunk at a time."""
        number, open_ = self.open.get(name) or self.open.setdefault(name, (0, []))
        open_.extend(items)
        while len(open_) >= TASK_CHUNK:
            self.rows.append((self.run_id, name, number, _dumps(open_[:TASK_CHUNK])))
            number, open_ = number + 1, open_[TASK_CHUNK:]
        self.open[name] = (number, open_)

    def take(self, *, last: bool = False) -> list[tuple[str, str, int, str]]:
        """The closed chunks (with `last`, every open one too), handed over once."""
        if last:
            self.rows.extend((self.run_id, name, number, _dumps(items))
                             for name, (number, items) in self.open.items() if items)
            self.open = {}
        rows, self.rows = self.rows, []
        return rows


def _write_ordered(db: Database, run_id: str, ordered: str = _ORDERED) -> None:
    """Store a run's order and counts as _write(_build(...)) does, row for row, in bounded memory: the tasks
    come from SQLite in review order and each list is written chunk by chunk.

    A run of one split stores no list per split; the first split's list is only written (as positions
    0..n-1, which it is until then) when a second split appears.
    """
    if ordered is _ORDERED_STREAMED:
        _write_streamed(db, run_id)
        return
    _forget(db, run_id)
    previous = neighbour_run(db, run_id, after=False)
    chunks = _Chunks(run_id)
    add = chunks.add
    insert = _INSERT_PAGE
    tally: dict[tuple[str | None, int], int] = {}  # tasks per (split, flags): the counts, at the end
    figures = _Figures()
    figure = figures.add
    first_split, several, position = "", False, 0
    cursor = db.execute(ordered, [run_id, previous])
    while batch := cursor.fetchmany(2000):
        for task_id, _first, split, c_n, c_pass, c_min, b_n, b_pass, b_min, was in batch:
            figure(c_n, c_pass, b_n, b_pass)
            flags = _flags(was, c_n, c_pass, c_min, b_n, b_pass, b_min)
            add("all", [task_id, split, flags])
            if flags & _LISTED:
                if flags & FLAG_FAILING:
                    add("failing", position)
                if flags & FLAG_DIFFERS:
                    add("differs", position)
                if flags & FLAG_FLAKY:
                    add("flaky", position)
            key = (split, flags)
            tally[key] = tally.get(key, 0) + 1
            if several:
                add(f"split:{split or ''}", position)
            elif not position:
                first_split = split or ""
            elif (split or "") != first_split:  # a second split: the first one's list until now, then each
                several = True
                for earlier in range(position):
                    add(f"split:{first_split}", earlier)
                db.conn.executemany(insert, chunks.take())
                add(f"split:{split or ''}", position)
            position += 1
        if len(chunks.rows) >= 256:
            db.conn.executemany(insert, chunks.take())
    db.conn.executemany(insert, chunks.take(last=True))
    counts: dict[str, list[int]] = {}
    for (split, flags), n in tally.items():
        _count(counts, split, flags, n)
    _write_counts(db, run_id, previous, counts, figures)


def _write_streamed(db: Database, run_id: str) -> None:
    """_write_ordered of a run whose per-task figures StreamedOrder kept, row for row the same, with the work per
    task done in C: the flags come kept (no previous run) or computed by SQLite, the tasks a chunk at a time (a
    chunk of "all" is their JSON as they come), the positions lists are comprehensions, the counts a Counter."""
    _forget(db, run_id)
    previous = neighbour_run(db, run_id, after=False)
    chunks = _Chunks(run_id)
    insert = _INSERT_PAGE
    tally: Counter[tuple[str | None, int]] = Counter()  # tasks per (split, flags)
    first_split, several, position = "", False, 0
    for batch in _kept_in_order(db, run_id, previous):
        splits, flags = [row[1] for row in batch], [row[2] for row in batch]
        tally.update(map(_SPLIT_FLAGS, batch))
        for start in range(0, len(batch), TASK_CHUNK):
            chunks.extend("all", batch[start:start + TASK_CHUNK])  # tuples: the same JSON as lists
        positions = range(position, position + len(batch))
        if any(f & _LISTED for f in set(flags)):
            for name, bit in (("failing", FLAG_FAILING), ("differs", FLAG_DIFFERS)):
                chunks.extend(name, list(compress(positions, map(and_, flags, repeat(bit)))))
        if not several:
            if not position:
                first_split = splits[0] or ""
            same = splits.count(first_split) + (splits.count(None) if not first_split else 0)
            other = None if same == len(splits) else \
                next((i for i, split in enumerate(splits) if (split or "") != first_split), None)
            if other is not None:  # a second split: the first one's list until now, then each
                several = True
                chunks.extend(f"split:{first_split}", list(range(position + other)))
                db.conn.executemany(insert, chunks.take())
                splits, positions = splits[other:], positions[other:]
        if several:
            for p, split in zip(positions, splits, strict=True):
                chunks.add(f"split:{split or ''}", p)
        position += len(batch)
        if len(chunks.rows) >= 256:
            db.conn.executemany(insert, chunks.take())
    db.conn.executemany(insert, chunks.take(last=True))
    counts: dict[str, list[int]] = {}
    figures = _Figures()
    for (split, flag), n in tally.items():
        _count(counts, split, flag, n)
        c = not flag & FLAG_FAILING
        b = c != bool(flag & FLAG_DIFFERS)
        figures.cells[(2 if c else 1) * 3 + (2 if b else 1)] += n
    _write_counts(db, run_id, previous, counts, figures)


def _kept_in_order(db: Database, run_id: str, previous: str | None) -> Iterator[list[Sequence[Any]]]:
    """StreamedOrder's tasks in review order as (task_id, split, flags), TASK_CHUNK * 8 at a time.

    With no previous run the kept entries are the list "all" as it is: the tasks whose candidate and baseline
    differ, then the rest, each in import order (the kept batches read twice). Else SQLite joins them with the
    previous run's results (_STREAMED_FLAGGED), from a row per task written here."""
    size = TASK_CHUNK * 8
    if previous is None:
        pending: list[Sequence[Any]] = []
        for differs in (FLAG_DIFFERS, 0):
            for (entries,) in db.execute(f"SELECT entries FROM {_BATCHES_TABLE} ORDER BY first_id"):
                pending.extend([entry for entry in _DECODE(entries) if (entry[2] & FLAG_DIFFERS) == differs])
                while len(pending) >= size:
                    yield pending[:size]
                    del pending[:size]
        if pending:
            yield pending
        return
    for first, entries in db.execute(f"SELECT first_id, entries FROM {_BATCHES_TABLE} ORDER BY first_id"):
        db.conn.executemany(f"INSERT INTO {_STREAMED_TABLE} VALUES (?, ?, ?, ?, ?)",
                            [(task_id, i, split, *_PASSES_OF[flags])
                             for i, (task_id, split, flags) in enumerate(_DECODE(entries), first)])
    cursor = db.execute(_STREAMED_FLAGGED, [run_id, previous])
    while batch := cursor.fetchmany(size):
        yield batch


def _forget(db: Database, run_id: str) -> None:
    db.execute(f"DELETE FROM {PAGES_TABLE} WHERE run_id = ?", [run_id])
    db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE run_id = ?", [run_id])
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [FIGURES_TABLE]).fetchone():
        db.execute(f"DELETE FROM {FIGURES_TABLE} WHERE run_id = ?", [run_id])


def stored_orders(db: Database) -> list[str]:
    """The runs whose review order or counts are stored, by id."""
    return [r[0] for r in db.execute(f"SELECT run_id FROM {COUNTS_TABLE} UNION SELECT run_id FROM {PAGES_TABLE}"
                                     " ORDER BY 1").fetchall()]


def order_differences(db: Database, run_id: str) -> list[str]:
    """The tables in which a run's stored order or counts per split are not what its task results give
    now (empty: they agree). They are derived data no hash covers: an edited row would list a run's tasks in
    another order or under other filters, unnoticed. (Its statistics counts are compared by verify's own check,
    which names the counts that differ.)

    The order is written again, as an import writes it, into temporary tables of the same names (SQLite reads
    an unqualified name in the temporary schema first; each table the write touches has one, so nothing reaches
    the store's) inside a savepoint rolled back after, in bounded memory for a run of any size.
    """
    shadowed = [t for t in (PAGES_TABLE, COUNTS_TABLE, FIGURES_TABLE)
                if db.execute("SELECT 1 FROM main.sqlite_master WHERE name = ?", [t]).fetchone()]
    db.execute("SAVEPOINT gatepost_order_check")
    try:
        for table in shadowed:
            db.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM main.{table} WHERE 0")
        _write_ordered(db, run_id)
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


class _FlagsOf(dict[tuple[Any, Any, Any], int]):
    """_flags of a task with at most one result a side, by (its candidate's pass@k in the previous run, its
    candidate's pass, its baseline's; None where absent), computed once per distinct key."""

    def __missing__(self, key: tuple[Any, Any, Any]) -> int:
        was, c, b = key
        flags = self[key] = _flags(was, c is not None, c, c, b is not None, b, b)
        return flags


def blocked_order(previous: str | None, before: Mapping[str, Any] | tuple[Sequence[str], Sequence[Any]],
                  blocks: Sequence[Block]) -> tuple[set[tuple[str, int, str]], set[tuple[Any, ...]], tuple[int, ...]] | None:
    """What _write_ordered stores for a run whose results are one block per side (Block: every task at most once
    a side), given its previous run and that run's candidate pass@k per task (`before`: by task, or as the tasks
    and passes of its candidate block, each task once): its run_task_pages rows
    as (list, chunk, entries), its run_task_counts rows without the run id, and its run_task_figures values
    (FIGURE_NAMES), row for row the same; each task's work is done by comprehensions over the blocks (verify
    checks every run's stored order this way). None: another shape (a task twice on a side, two blocks of a side,
    a pass that is not a whole number): then only _write_ordered itself says what is stored.

    A task's first result is in the first block it is in (so the tasks come in the first block's order, then the
    second block's others), its last in the last (whose split is the task's)."""
    sides = [block.side for block in blocks]
    if len(blocks) > 2 or len(set(sides)) != len(sides) or not set(sides) <= {"candidate", "baseline"} \
            or not all(type(p) is int for block in blocks for p in set(block.passed)):
        return None
    first = blocks[0] if blocks else Block("candidate", [], [], [])
    tasks, splits = list(first.tasks), list(first.splits)
    if len(set(tasks)) != len(tasks):
        return None
    of = {block.side: block.passed for block in blocks}
    if len(blocks) == 2:
        second = blocks[1]
        if list(second.tasks) == tasks:  # the common shape: both sides list the same tasks in the same order
            splits = list(second.splits)
        elif len(set(second.tasks)) != len(second.tasks):
            return None
        else:
            known = set(tasks)
            tasks += [task for task in second.tasks if task not in known]
            split_of = dict(zip(first.tasks, first.splits, strict=True))
            split_of.update(zip(second.tasks, second.splits, strict=True))
            splits = list(map(split_of.__getitem__, tasks))
            of = {block.side: list(map(dict(zip(block.tasks, block.passed, strict=True)).get, tasks))
                  for block in blocks}
    absent = [None] * len(tasks)
    if isinstance(before, tuple):  # the run before listed its tasks in this order (the commonest) or not
        was = before[1] if list(before[0]) == tasks else list(map(dict(zip(*before, strict=True)).get, tasks))
    else:
        was = list(map(before.get, tasks))
    keys = list(zip(was, of.get("candidate", absent), of.get("baseline", absent), strict=True))
    tally = Counter(keys)
    flags_of = _FlagsOf()
    flags = list(map(flags_of.__getitem__, keys))
    group = {f: 0 if f & FLAG_CHANGED else 1 if f & FLAG_DIFFERS else 2 for f in set(flags)}
    if len(set(group.values())) > 1:  # stably by group: each in the order of its first result
        order = sorted(range(len(tasks)), key=list(map(group.__getitem__, flags)).__getitem__)
        tasks, splits, flags = (list(map(items.__getitem__, order)) for items in (tasks, splits, flags))
    lists: dict[str, list[Any]] = {"all": list(zip(tasks, splits, flags, strict=True))}
    for name, bit in (("failing", FLAG_FAILING), ("differs", FLAG_DIFFERS), ("flaky", FLAG_FLAKY)):
        lists[name] = list(compress(range(len(flags)), map(and_, flags, repeat(bit)))) \
            if any(f & bit for f in group) else []
    counts: dict[str, list[int]] = {}
    if len({split or "" for split in set(splits)}) > 1:
        for position, split in enumerate(splits):
            lists.setdefault(f"split:{split or ''}", []).append(position)
        for (split, flag), n in Counter(zip(splits, flags, strict=True)).items():
            _count(counts, split, flag, n)
    else:
        for key, n in tally.items():
            _count(counts, splits[0], flags_of[key], n)
    figures = _Figures()
    for (_, c, b), n in tally.items():
        figures.add(c is not None, c, b is not None, b, n)
    pages = {(name, start // TASK_CHUNK, _dumps(items[start:start + TASK_CHUNK]))
             for name, items in lists.items() for start in range(0, len(items), TASK_CHUNK)}
    return pages, {(split, previous, *values) for split, values in counts.items()}, figures.row()


def refresh_task_order(db: Database, run_id: str, rows: Sequence[Sequence[Any]] | None = None, *,
                       streamed: "StreamedOrder | None" = None) -> None:
    """Store a run's review order and counts, and rebuild the stored order of the run that follows it.

    Call it inside the transaction that stores the run's task results. `rows`: those results as inserted
    just before, in order (task_results columns in evaluation's TASK_COLUMNS order), so nothing is read back;
    `streamed`: what a streamed import kept of every row it inserted (so its rows are not counted again).
    When the run is older than one already stored, that newer run's previous run is now this one: its Δ
    flags and order change.
    """
    built = None
    if rows is not None:
        built = _build(db, run_id, *_columns(rows))
        _write(db, run_id, built)
    elif streamed is not None and streamed.usable(db, run_id):
        _write_ordered(db, run_id, _ORDERED_STREAMED)
    else:
        _write_ordered(db, run_id)
    if streamed is not None:
        streamed.empty()
    following = neighbour_run(db, run_id, after=True)
    if following is not None:  # its previous run is now this one: what its candidate passed is in hand
        _rewrite(db, following, (run_id, built.passes) if built is not None and built.passes is not None else None)


IN_MEMORY_ROWS = 100_000  # a stored run of at most this many task results is ordered again from its columns


def _rewrite(db: Database, run_id: str, previous_passes: tuple[str, dict[str, int]] | None = None) -> None:
    """Store again the order of a run already stored (its previous run changed): from its task results' columns
    read in id order when it is small enough to hold (half the time of SQLite grouping and sorting them), else
    by _write_ordered in bounded memory."""
    stored = db.execute(f"SELECT SUM(tasks) FROM {COUNTS_TABLE} WHERE run_id = ?", [run_id]).fetchone()[0]
    if stored is not None and stored <= IN_MEMORY_ROWS:
        rows = db.execute("SELECT side, task_id, passed, split FROM task_results WHERE run_id = ? ORDER BY id"
                          " LIMIT ?", [run_id, IN_MEMORY_ROWS + 1]).fetchall()
        if len(rows) <= IN_MEMORY_ROWS:
            sides, tasks, passed, splits = zip(*rows, strict=True) if rows else ((), (), (), ())
            _write(db, run_id, _build(db, run_id, sides, tasks, passed, splits, previous_passes=previous_passes))
            return
    _write_ordered(db, run_id)


def backfill_task_order(db: Database) -> None:
    """Store the order of every run with task results whose order is not stored (a store from before every
    run's order was)."""
    for (run_id,) in db.execute(f"SELECT DISTINCT run_id FROM task_results WHERE run_id NOT IN"
                                f" (SELECT run_id FROM {COUNTS_TABLE})").fetchall():
        _write_ordered(db, run_id)
