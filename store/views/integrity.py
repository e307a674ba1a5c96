"""The task results read once for `gatepost verify`: the digests of the records their events sealed, and each run's
stored review order, counts and statistics counts against what its results give.

A store's task results are most of its rows (1,000,000 on a store of 10,000 cases), so verify reads them in one
pass and lets SQLite do the per-row work: for each run, each side's results are one block of consecutive ids
(an import inserts a side at a time), read by id range as a few values (`_BLOCK`): their seal lines, JSON
encoded by SQLite, and their task ids, passes and splits as JSON arrays. From those:

- an event's records digest is the seal's prefix and the lines of its run's blocks in id order (kernel/records.py
  hashes the same lines, encoded by msgspec). Where the two encoders write a value differently (a score SQLite
  prints as another decimal, an escape) the digest differs from the sealed one, and the event's records are hashed
  again the kernel's way (`records_digest`) before anything is said: the fast digest only ever confirms. A score
  SQLite would print in fewer digits than it holds (`_SCORE`) stops the read of its block, so a digest that matches
  is one of the very values stored;
- a run's order is built from the blocks as the import stores it (evaluation.blocked_order) and compared with its
  stored rows; the previous run's candidate passes (what the Δ flags compare with) are kept from reading that run.

Whatever this pass cannot vouch for (results of another shape, a block SQLite cannot encode, a run larger than
`MAX_BLOCK`, any difference at all) is returned to be checked the exact way, and only that check words findings.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
from sqlite_utils import Database

from gatepost.store.evaluation import (
    COUNTS_TABLE,
    FIGURE_NAMES,
    FIGURES_TABLE,
    PAGES_TABLE,
    Block,
    blocked_order,
)
from gatepost.store.kernel import RECORDS_FORMAT, SEQ_TABLES, TASK_RESULT_COLUMNS, records_digest

# A run larger than this (rows a side) is checked the exact way, in bounded memory; its seal lines are still read
# here, MAX_BLOCK rows at a time.
MAX_BLOCK = 200_000

# json_array prints a REAL with 15 significant digits ("%!.15g"); a score that needs more would print as another
# number, so such a score is encoded as a BLOB, which json_array refuses: the block is then hashed the kernel's way.
_SCORE = ("CASE WHEN score IS NULL OR score IN (0.0, 1.0) OR CAST(printf('%!.15g', score) AS REAL) = score"
          " THEN score ELSE x'00' END")
_LINE = f"json_array({', '.join(_SCORE if c == 'score' else c for c in TASK_RESULT_COLUMNS)})"
_RANGE = "SELECT {} FROM task_results WHERE id BETWEEN ? AND ? ORDER BY id"
# One block (or a part of a large one) in id order: its seal lines, and what its run's order is built from.
_BLOCK = (f"SELECT group_concat(line, char(10)), json_group_array(task_id),"
          f" json_group_array(COALESCE(passed, 0)), json_group_array(split) FROM ({_RANGE.format(f'{_LINE} AS line, task_id, passed, split')})")
_LINES = f"SELECT group_concat(line, char(10)) FROM ({_RANGE.format(f'{_LINE} AS line')})"
# Each run's blocks: a side's results whose ids are consecutive (as many as the range holds) are one block.
_BLOCKS = "SELECT run_id, side, MIN(id), MAX(id), COUNT(*) FROM task_results GROUP BY run_id, side"
# The runs with the run before each (of the same suite and skill, by start time then id: task_order.neighbour_run),
# each after the one before it.
_CHAIN = ("SELECT id, LAG(id) OVER (PARTITION BY suite_id, skill_id ORDER BY COALESCE(started_at, ''), id), event_seq"
          " FROM evaluation_runs ORDER BY suite_id, skill_id, COALESCE(started_at, ''), id")
_DECODE = msgspec.json.Decoder().decode
_ENCODER = msgspec.json.Encoder()  # the kernel's seal lines (records._encode)
_COUNTS = ("split", "previous_run", "tasks", "failing", "changed", "changed_now_pass", "differs", "flaky")


@dataclass
class ResultsRead:
    """What one read of the task results vouches for, and what it leaves to the exact checks."""

    digests: dict[int, str] = field(default_factory=dict)  # seq -> its records digest, for events whose records
    # are the task results of one run read here (to be confirmed against the sealed digest, else hashed again)
    orders: list[str] = field(default_factory=list)  # runs whose stored order and counts are to be checked exactly
    figures: list[str] = field(default_factory=list)  # runs whose stored statistics counts are to be checked exactly


@dataclass
class _Run:
    blocks: list[tuple[str, int, int]]  # (side, first id, last id), by first id
    whole: bool  # every block is one range of consecutive ids


@dataclass
class _Read:
    blocks: list[Block] | None  # None: not read for the order (too large, or SQLite could not encode it)
    digest: str | None  # the records digest of the run's event, when the run is its only one and read whole


def read_results(db: Database) -> ResultsRead:
    """Read every run's task results once (see the module's docstring)."""
    out = ResultsRead()
    tables = set(db.table_names())
    ordered = PAGES_TABLE in tables and COUNTS_TABLE in tables
    figured = FIGURES_TABLE in tables
    runs: dict[str, _Run] = {}
    for run_id, side, low, high, count in db.execute(_BLOCKS):
        block = runs.setdefault(run_id, _Run([], True))
        block.blocks.append((side, low, high))
        block.whole = block.whole and high - low + 1 == count
    for each in runs.values():
        each.blocks.sort(key=lambda block: block[1])
    chain = db.execute(_CHAIN).fetchall()
    events: dict[Any, int] = {}
    for _, _, seq in chain:
        events[seq] = events.get(seq, 0) + 1
    counts: dict[str, set[tuple[Any, ...]]] = {}
    if ordered:
        for row in db.execute(f"SELECT run_id, {', '.join(_COUNTS)} FROM {COUNTS_TABLE}"):
            counts.setdefault(row[0], set()).add(tuple(row[1:]))
    figures: dict[str, tuple[Any, ...]] = {}
    if figured:
        figures = {row[0]: tuple(row[1:]) for row in
                   db.execute(f"SELECT run_id, {', '.join(FIGURE_NAMES)} FROM {FIGURES_TABLE}")}
    stored_runs = set(counts) | (_paged(db) if ordered else set())
    known = set()
    prefix = _prefix()
    followed = {previous for _, previous, _ in chain if previous is not None}
    kept: dict[str, dict[str, Any] | None] = {}  # a run's candidate passes per task, until the run after it's read
    for run_id, previous, seq in chain:
        known.add(run_id)
        run = runs.get(run_id)
        alone = seq is not None and events[seq] == 1  # the event's only run: its records are this run's results
        read = _read(db, run, prefix if alone else None) if run is not None else _Read([], None)
        if read.digest is not None:
            out.digests[seq] = read.digest
        before = kept.pop(previous, None) if previous is not None else {}
        if before is None:  # the run before was not read whole: its passes as task_order._build reads them
            before = dict(db.execute("SELECT task_id, MAX(COALESCE(passed, 0)) FROM task_results WHERE run_id = ?"
                                     " AND side = 'candidate' GROUP BY task_id", [previous]).fetchall())
        built = blocked_order(previous, before, read.blocks) if read.blocks is not None else None
        if run_id in followed:
            kept[run_id] = _candidate(read.blocks) if built is not None and read.blocks is not None else None
        check_order = ordered and (run is not None or run_id in stored_runs)
        if check_order and (built is None or counts.get(run_id, set()) != built[1] or set(db.execute(
                f"SELECT list, chunk, entries FROM {PAGES_TABLE} WHERE run_id = ?", [run_id])) != built[0]):
            out.orders.append(run_id)
        if run_id in figures and (built is None or figures[run_id] != built[2]):
            out.figures.append(run_id)
    # rows naming a run that is not there: only the exact checks word what they are
    out.orders += sorted(stored_runs - known) if ordered else []
    out.figures += sorted(set(figures) - known)
    out.orders.sort()
    out.figures.sort()
    return out


def _paged(db: Database) -> set[str]:
    return {row[0] for row in db.execute(f"SELECT DISTINCT run_id FROM {PAGES_TABLE}")}


def _candidate(blocks: list[Block]) -> dict[str, Any]:
    """A run's candidate pass@k per task (what the run after it compares with): each task once a side here."""
    for block in blocks:
        if block.side == "candidate":
            return dict(zip(block.tasks, block.passed, strict=True))
    return {}


def _prefix() -> Any:
    """The seal's hash of an event whose records are task results alone, up to its first task result line."""
    digest = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
    for table, _ in SEQ_TABLES:
        digest.update(b"\n" + table.encode("ascii") + b"\n")
    digest.update(b"\ntask_results\n")
    return digest


def _read(db: Database, run: _Run, prefix: Any | None) -> _Read:
    """A run's blocks read for its order, and (with `prefix`: the run is its event's only one) its records digest."""
    digest = prefix.copy() if prefix is not None and run.whole else None
    blocks: list[Block] | None = [] if run.whole else None
    for side, low, high in run.blocks if run.whole else ():
        try:
            if high - low + 1 > MAX_BLOCK:
                blocks = None
                for start in range(low, high + 1, MAX_BLOCK):
                    lines = db.execute(_LINES, [start, min(high, start + MAX_BLOCK - 1)]).fetchone()[0]
                    if digest is not None:
                        digest.update(lines.encode("utf-8") + b"\n")
                continue
            lines, tasks, passed, splits = db.execute(_BLOCK, [low, high]).fetchone()
        except sqlite3.Error:  # a value json_array refuses (a BLOB, a score it would round), text that is not UTF-8
            return _Read(None, None)
        if digest is not None:
            digest.update(lines.encode("utf-8") + b"\n")
        if blocks is not None:
            blocks.append(Block(side, _DECODE(tasks), _DECODE(passed), _DECODE(splits)))
    return _Read(blocks, digest.hexdigest() if digest is not None else None)


def seq_rows(db: Database) -> Iterator[tuple[int, list[list[tuple[Any, ...]]]]]:
    """(seq, its rows per table of SEQ_TABLES) for every event those tables name, in seq order, each table read once."""
    streams = [_by_seq(db, f"SELECT event_seq, {columns} FROM {table} WHERE event_seq IS NOT NULL"
                           " ORDER BY event_seq, id") for table, columns in SEQ_TABLES]
    heads = [next(stream, None) for stream in streams]
    while any(head is not None for head in heads):
        seq = min(head[0] for head in heads if head is not None)
        found: list[list[tuple[Any, ...]]] = []
        for i, stream in enumerate(streams):
            rows = []
            while heads[i] is not None and heads[i][0] == seq:  # type: ignore[index]
                rows.append(heads[i][1:])  # type: ignore[index]
                heads[i] = next(stream, None)
            found.append(rows)
        yield seq, found


def _by_seq(db: Database, sql: str) -> Iterator[tuple[Any, ...]]:
    cursor = db.execute(sql)
    while rows := cursor.fetchmany(5000):
        yield from rows


def records_now(db: Database, read: ResultsRead, wanted: dict[int, Any]) -> dict[int, str | None]:
    """The digest of the records of every event some record names, as they are now (records.records_digest's):
    skill runs and manifest versions from one read of each table, task results from `read` where that is the
    digest the event sealed (`wanted`), else hashed again the kernel's way."""
    digests: dict[int, str | None] = {}
    with_results = {seq for (seq,) in db.execute(
        "SELECT DISTINCT r.event_seq FROM evaluation_runs r WHERE r.event_seq IS NOT NULL"
        " AND EXISTS (SELECT 1 FROM task_results t WHERE t.run_id = r.id)")}
    start = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
    start.update(b"\n" + SEQ_TABLES[0][0].encode("ascii") + b"\n")
    between = [b"\n" + table.encode("ascii") + b"\n" for table, _ in SEQ_TABLES[1:]] + [b"\ntask_results\n"]
    for seq, tables in seq_rows(db):
        if seq in with_results:  # an event that created task results and other records too: the kernel's way
            digests[seq] = records_digest(db, seq)
            continue
        digest = start.copy()
        for rows, after in zip(tables, between, strict=True):
            digest.update(_ENCODER.encode_lines(rows) + after if rows else after)
        digests[seq] = digest.hexdigest()
    for seq in with_results - set(digests):
        fast = read.digests.get(seq)
        digests[seq] = fast if fast is not None and fast == wanted.get(seq) else records_digest(db, seq)
    return digests
