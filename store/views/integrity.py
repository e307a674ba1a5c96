"""The task results read once for `gatepost verify`: the digests of the records their events sealed, and each run's
stored review order, counts and statistics counts against what its results give.

A store's task results are most of its rows (1,000,000 on a store of 10,000 cases), so verify reads them in one
pass and lets SQLite do the per-row work: for each run, each side's results are one block of consecutive ids
(an import inserts a side at a time), read by id range as a few values (`_BLOCK`): their seal lines, JSON
encoded by SQLite, and their task ids, passes and splits as JSON arrays. The blocks are found by walking the table
in id order a few rows a block (`_walk`: the ends of each, not what lies between), and each block's own read
confirms it (its lines are as many as its ids, each of its run and side: `_Blocks.confirm`); a block that is not
what its ends said (rows of another run inside, an id missing) has the whole read start again with the blocks
grouped by SQL (`_BLOCKS`, an index scan of every row). From those:

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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import msgspec
from sqlite_utils import Database

from gatepost.store.evaluation import (
    COUNTS_TABLE,
    FIGURE_NAMES,
    FIGURES_TABLE,
    PAGES_TABLE,
    TASK_RESULT_RECORDS,
    Block,
    blocked_order,
)
from gatepost.store.kernel import RECORDS_FORMAT, StoreError, record_sources, records_digest

TASK_RESULT_COLUMNS = TASK_RESULT_RECORDS.columns

# A run larger than this (rows a side) is checked the exact way, in bounded memory; its seal lines are still read
# here, MAX_BLOCK rows at a time.
MAX_BLOCK = 200_000

# json_array writes text and whole numbers as msgspec does, and a REAL with 15 significant digits ("%!.15g"). A
# REAL that needs more would print as another number; so a score that needs more is encoded as a BLOB, which
# json_array refuses (the block is then hashed the kernel's way), and a block whose whole-number columns hold a
# REAL anywhere (their sums are then REAL) is not vouched for either (`passed` is looked at in its array; `judged`
# and `mock` every writer stores as 0 or 1, so a REAL there never prints as what was sealed).
_SCORE = ("CASE WHEN score IS NULL OR score IN (0.0, 1.0) OR CAST(printf('%!.15g', score) AS REAL) = score"
          " THEN score ELSE x'00' END")
_WHOLE = ("attempt", "duration_ms")
# The scores most results hold, 1.0 and 0.0, written as the JSON text json_array prints for them (json_array prints a
# REAL through printf, a tenth of the read's cost): json('…') of a constant is evaluated once, and json_array writes a value of JSON subtype
# as it is. Only where the column's affinity is REAL (`_reads`): every number read from it is then a REAL (SQLite
# converts an integer or a numeric text as it reads), so one equal to 1.0 is 1.0, and one equal to 0.0 is printed
# 0.0 by json_array whatever its sign; under another affinity an integer 1 equals 1.0 and prints as 1.
_SCORE_SHORT = f"CASE score WHEN 1.0 THEN json('1.0') WHEN 0.0 THEN json('0.0') ELSE {_SCORE} END"
_SUMS = ", ".join(f"sum({c})" for c in _WHOLE)
# The lines' separator as a literal: as char(10) SQLite calls the function again for every row (a tenth of the read).
_NL = "'\n'"
# One block (or a part of a large one): its seal lines, and what its run's order is built from. A range of rowids is
# read in rowid order (SQLite's search of an INTEGER PRIMARY KEY range; a subquery ordering it cost a seventh of
# the read): rows in any other order would hash to another digest and build another order, and be checked again.
_BLOCK = ("SELECT CAST(group_concat({line}, {nl}) AS BLOB), json_group_array(task_id), json_group_array(COALESCE(passed, 0)),"
          " json_group_array(split), {sums} FROM task_results WHERE id BETWEEN ? AND ?")
_LINES = "SELECT CAST(group_concat({line}, {nl}) AS BLOB), {sums} FROM task_results WHERE id BETWEEN ? AND ?"
# Each run's blocks: a side's results whose ids are consecutive (as many as the range holds) are one block.
_BLOCKS = "SELECT run_id, side, MIN(id), MAX(id), COUNT(*) FROM task_results GROUP BY run_id, side"
# The walk's looks at single rows (_walk), and the check of a block no read confirmed.
_AT = "SELECT run_id, side FROM task_results WHERE id = ?"
_FROM = "SELECT id, run_id, side FROM task_results WHERE id >= ? ORDER BY id LIMIT 1"
_HOLDS = "SELECT COUNT(*), TOTAL(run_id IS ? AND side IS ?) FROM task_results WHERE id BETWEEN ? AND ?"
# The runs with the run before each (of the same suite and skill, by start time then id: task_order.neighbour_run),
# each after the one before it.
_CHAIN = ("SELECT id, LAG(id) OVER (PARTITION BY suite_id, skill_id ORDER BY COALESCE(started_at, ''), id), event_seq"
          " FROM evaluation_runs ORDER BY suite_id, skill_id, COALESCE(started_at, ''), id")
_DECODE = msgspec.json.Decoder().decode
_DIGIT_VALUE = bytes(range(256))[:48] + bytes(range(10)) + bytes(range(58, 256))  # b"0".."9" -> 0..9
_SHARED = 8  # distinct arrays of task ids or splits kept decoded at a time (_shared)
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
    blocks: list[Block] | None  # None: not read for the order (too large, a pass not a whole number, or SQLite
    # could not encode it)
    digest: str | None  # the records digest of the run's event, when the run is its only one and read whole


class _Unconfirmed(Exception):
    """A block the walk found is not what its ends said: the read starts again, its blocks grouped by SQL."""


class _Blocks:
    """The blocks the walk found, until each is confirmed (by its read, or at the end by `rest`)."""

    def __init__(self, found: list[tuple[Any, Any, int, int]]) -> None:
        self.pending = {(low, high): (run_id, side) for run_id, side, low, high in found}

    def confirm(self, block: tuple[int, int], start: int, end: int, lines: bytes | None) -> None:
        """A read of ids start..end of a block (first id, last id; all of it but for a large block read in parts, in
        order) gave these seal lines: as many as the ids, each of the block's run and side (a line is `[run, side,
        ...`, JSON, as msgspec writes those two; a newline inside a value is escaped, so each raw newline ends a
        line)."""
        pair = self.pending.get(block)
        if pair is None:
            return
        head = _ENCODER.encode(list(pair))[:-1] + b","
        # the lines are at most the ids (one a row), and at least the ids if that many begin with the pair
        if lines is None or not (lines.startswith(head) and lines.count(b"\n" + head) == end - start):
            raise _Unconfirmed
        if end == block[1]:
            del self.pending[block]

    def rest(self, db: Database) -> None:
        """The blocks no read confirmed (of runs not read whole, or not in evaluation_runs), each checked by SQL."""
        for (low, high), (run_id, side) in self.pending.items():
            count, same = db.execute(_HOLDS, [run_id, side, low, high]).fetchone()
            if count != high - low + 1 or same != count:
                raise _Unconfirmed


def read_results(db: Database) -> ResultsRead:
    """Read every run's task results once (see the module's docstring)."""
    try:
        return _read_results(db, walked=True)
    except _Unconfirmed:
        return _read_results(db, walked=False)


def _walk(db: Database) -> list[tuple[Any, Any, int, int]]:
    """The table's blocks in id order, as (run, side, first id, last id): from each block's first row, the last id
    of the longest range whose ends are rows of that run and side, found by looking at a few rows (at the size of
    the block before it, the commonest; else doubling, then halving). Only the ends are looked at: each block is
    confirmed when read (`_Blocks`)."""
    found: list[tuple[Any, Any, int, int]] = []
    size = 1
    row = db.execute(_FROM, [-(1 << 63)]).fetchone()
    while row is not None:
        low, run_id, side = row
        pair = (run_id, side)
        looked: dict[int, Any] = {}  # the rows looked at, by id (the one after the block's end is the next block's)

        def same(at: int, pair: tuple[Any, Any] = pair, looked: dict[int, Any] = looked) -> bool:
            got = looked[at] = db.execute(_AT, [at]).fetchone()
            return got is not None and (got[0], got[1]) == pair

        good, bad = low, None  # good: an id of the block (as far as its ends say); bad: the first known not to be
        guess = low + size - 1
        if guess > low:
            if same(guess):
                good = guess
            else:
                bad = guess
        if bad is None:
            step = 1
            while same(good + step):
                good, step = good + step, step * 2
            bad = good + step
        while bad - good > 1:
            middle = (good + bad) // 2
            if same(middle):
                good = middle
            else:
                bad = middle
        found.append((run_id, side, low, good))
        size = good - low + 1
        after = looked.get(good + 1)
        row = (good + 1, *after) if after is not None else db.execute(_FROM, [good + 1]).fetchone()
    return found


def _read_results(db: Database, *, walked: bool) -> ResultsRead:
    out = ResultsRead()
    tables = set(db.table_names())
    ordered = PAGES_TABLE in tables and COUNTS_TABLE in tables
    figured = FIGURES_TABLE in tables
    runs: dict[str, _Run] = {}
    walk: _Blocks | None = None
    if walked:
        found = _walk(db)
        walk = _Blocks(found)
        sides: dict[tuple[Any, Any], int] = {}
        for run_id, side, _, _ in found:
            sides[run_id, side] = sides.get((run_id, side), 0) + 1
        for run_id, side, low, high in found:
            block = runs.setdefault(run_id, _Run([], True))
            block.blocks.append((side, low, high))
            block.whole = block.whole and sides[run_id, side] == 1  # else its ids are not one range
    else:
        for run_id, side, low, high, count in db.execute(_BLOCKS):
            block = runs.setdefault(run_id, _Run([], True))
            block.blocks.append((side, low, high))
            block.whole = block.whole and high - low + 1 == count
        for each in runs.values():
            each.blocks.sort(key=lambda block: block[1])
    runs_in_order = db.execute(_CHAIN).fetchall()
    events: dict[Any, int] = {}
    for _, _, seq in runs_in_order:
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
    reads = _reads(db)
    followed = {previous for _, previous, _ in runs_in_order if previous is not None}
    texts: dict[str, list[Any]] = {}
    kept: dict[str, tuple[Sequence[str], Sequence[Any]] | None] = {}  # a run's candidate tasks and passes, until the run
    # after it is read (None: not read whole)
    for run_id, previous, seq in runs_in_order:
        known.add(run_id)
        run = runs.get(run_id)
        alone = seq is not None and events[seq] == 1  # the event's only run: its records are this run's results
        read = _read(db, run, prefix if alone else None, texts, walk, reads) if run is not None else _Read([], None)
        if read.digest is not None:
            out.digests[seq] = read.digest
        before: dict[str, Any] | tuple[Sequence[str], Sequence[Any]] | None = \
            kept.pop(previous, None) if previous is not None else {}
        if before is None:  # the run before was not read whole: its passes as task_order reads them
            before = dict(db.execute("SELECT task_id, MAX(COALESCE(passed, 0)) FROM task_results WHERE run_id = ?"
                                     " AND side = 'candidate' GROUP BY task_id", [previous]).fetchall())
        built = blocked_order(previous, before, read.blocks, whole=True) if read.blocks is not None else None
        if run_id in followed:
            kept[run_id] = _candidate(read.blocks) if built is not None and read.blocks is not None else None
        check_order = ordered and (run is not None or run_id in stored_runs)
        if check_order and (built is None or counts.get(run_id, set()) != built[1] or set(db.execute(
                f"SELECT list, chunk, entries FROM {PAGES_TABLE} WHERE run_id = ?", [run_id])) != built[0]):
            out.orders.append(run_id)
        if run_id in figures and (built is None or figures[run_id] != built[2]):
            out.figures.append(run_id)
    if walk is not None:
        walk.rest(db)
    # rows naming a run that is not there: only the exact checks word what they are
    out.orders += sorted(stored_runs - known) if ordered else []
    out.figures += sorted(set(figures) - known)
    out.orders.sort()
    out.figures.sort()
    return out


class _Reads(NamedTuple):
    """The two reads of a block (_BLOCK, _LINES) as this store's task_results table is declared."""

    block: str
    lines: str


def _reads(db: Database) -> _Reads:
    """_BLOCK and _LINES with the seal line this store's score column allows (_SCORE_SHORT where its affinity is
    REAL)."""
    declared = {row[1]: row[2] for row in db.execute("PRAGMA table_info(task_results)")}
    score = _SCORE_SHORT if _real_affinity(declared.get("score", "")) else _SCORE
    line = f"json_array({', '.join(score if c == 'score' else c for c in TASK_RESULT_COLUMNS)})"
    return _Reads(_BLOCK.format(line=line, nl=_NL, sums=_SUMS), _LINES.format(line=line, nl=_NL, sums=_SUMS))


def _real_affinity(declared: str) -> bool:
    """Whether a column of this declared type has REAL affinity (SQLite's rules, in their order)."""
    upper = declared.upper()
    if "INT" in upper or any(word in upper for word in ("CHAR", "CLOB", "TEXT")) or "BLOB" in upper or not upper:
        return False
    return any(word in upper for word in ("REAL", "FLOA", "DOUB"))


def _paged(db: Database) -> set[str]:
    return {row[0] for row in db.execute(f"SELECT DISTINCT run_id FROM {PAGES_TABLE}")}


def _candidate(blocks: list[Block]) -> tuple[Sequence[str], Sequence[Any]]:
    """A run's candidate tasks and their passes (what the run after it compares with): each task once a side here.
    The block's own columns: nothing changes them (the task ids are shared by the runs that list them: _shared)."""
    for block in blocks:
        if block.side == "candidate":
            return block.tasks, block.passed
    return [], []


def _seq_tables() -> tuple[tuple[str, str], ...]:
    """(table, its columns) of the sealed tables read by their event's seq, in the seal's order: every record source
    before the task results, which the seal reads last (the order store/schema.py sets)."""
    *seq_sources, last = record_sources()
    if last is not TASK_RESULT_RECORDS:
        raise StoreError("verify: the task results are not the last sealed records; the one read cannot vouch for them")
    return tuple((source.table, ", ".join(source.columns)) for source in seq_sources)


def _prefix() -> Any:
    """The seal's hash of an event whose records are task results alone, up to its first task result line."""
    digest = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
    for table, _ in _seq_tables():
        digest.update(b"\n" + table.encode("ascii") + b"\n")
    digest.update(b"\ntask_results\n")
    return digest


def _shared(text: str, texts: dict[str, list[Any]]) -> list[Any]:
    """A JSON array of task ids or splits, decoded once while the runs read one after another list the same (the runs
    of a suite, read in turn): one list, never changed, shared by their blocks (comparing them is then comparing the
    same strings, whose hashes are kept)."""
    decoded = texts.get(text)
    if decoded is None:
        if len(texts) >= _SHARED:
            texts.clear()
        decoded = texts[text] = _DECODE(text)
    return decoded


def _read(db: Database, run: _Run, prefix: Any | None, texts: dict[str, list[Any]], walk: _Blocks | None,
          reads: _Reads) -> _Read:
    """A run's blocks read for its order, and (with `prefix`: the run is its event's only one) its records digest.
    `texts`: the arrays of task ids and splits decoded so far (_shared); `walk`: the walk's blocks, each confirmed
    here as it is read."""
    digest = prefix.copy() if prefix is not None and run.whole else None
    blocks: list[Block] | None = [] if run.whole else None
    for side, low, high in run.blocks if run.whole else ():
        try:
            if high - low + 1 > MAX_BLOCK:
                blocks = None
                for start in range(low, high + 1, MAX_BLOCK):
                    end = min(high, start + MAX_BLOCK - 1)
                    lines, *sums = db.execute(reads.lines, [start, end]).fetchone()
                    if walk is not None:
                        walk.confirm((low, high), start, end, lines)
                    if digest is not None and _whole(sums):
                        digest.update(lines + b"\n")
                    else:
                        digest = None
                continue
            lines, tasks, passed, splits, *sums = db.execute(reads.block, [low, high]).fetchone()
        except sqlite3.Error:  # a value json_array refuses (a BLOB, a score it would round), text that is not UTF-8
            return _Read(None, None)
        if walk is not None:
            walk.confirm((low, high), low, high, lines)
        ids = _shared(tasks, texts)
        block = Block(side, ids, _passes(passed, len(ids)), _shared(splits, texts))
        # passes as bytes are digits; decoded, looked at once (COALESCE: none is null)
        ints = type(block.passed) is bytes or all(type(p) is int for p in set(block.passed))
        if digest is not None and _whole(sums) and ints:
            digest.update(lines)
            digest.update(b"\n")
        else:
            digest = None
        if blocks is not None:  # the order is built of passes that are whole numbers only (blocked_order's None)
            if ints:
                blocks.append(block)
            else:
                blocks = None
    return _Read(blocks, digest.hexdigest() if digest is not None else None)


def _passes(text: str, count: int) -> Sequence[Any]:
    """A block's passes from their JSON array (`count` of them: the array has a value per row, as its task ids
    have): as bytes when every one is a single digit (the commonest: a pass@k below 10), as the order's byte
    arithmetic takes them; else decoded. A JSON array of `count` values `2 * count + 1` characters long holds one
    character a value, and the one-character JSON values are the digits."""
    if len(text) == 2 * count + 1:
        digits = text[1::2].encode("ascii", "replace")
        if digits.isdigit():
            return digits.translate(_DIGIT_VALUE)
    return cast(list[Any], _DECODE(text))


def _whole(values: Any) -> bool:
    return all(value is None or type(value) is int for value in values)


def _seq_lines(db: Database, table: str, columns: str, *, blobs: bool) -> Iterator[list[tuple[int, bytes | None]]]:
    """(seq, a row's seal line and its newline) of every row of `table` that names an event, in (seq, id) order and
    batches, encoded by SQLite (which writes text and whole numbers as msgspec does); a row holding a REAL (which it
    may write otherwise) as None: its event is then hashed the kernel's way. A BLOB, json_array refuses (an
    sqlite3.Error); with `blobs`, a row holding one is None too (each value's type looked at: slower)."""
    text = {row[1] for row in db.execute(f"PRAGMA table_info({table})") if _text_affinity(row[2])}
    named = [name.strip() for name in columns.split(",")]
    odd = " OR ".join([f"typeof({c}) = 'blob'" for c in named if c in text and blobs]
                      + [f"typeof({c}) IN ('real', 'blob')" if blobs else f"typeof({c}) = 'real'"
                         for c in named if c not in text])
    line = f"CAST(json_array({columns}) || {_NL} AS BLOB)"
    cursor = db.execute(f"SELECT event_seq, {f'CASE WHEN {odd} THEN NULL ELSE {line} END' if odd else line}"
                        f" FROM {table} WHERE event_seq IS NOT NULL ORDER BY event_seq, id")
    while rows := cursor.fetchmany(5000):
        yield rows


def _seq_digests(db: Database, wanted: dict[int, Any], skip: set[int]) -> tuple[dict[int, str | None], set[int]]:
    """Of every event the skill runs and manifest versions name (each table read once), those whose records do not
    hash to what the event sealed (`wanted`), even hashed again the kernel's way: seq -> their digest now; and the
    events these tables name (those in `skip`, left to the caller, are named but not hashed)."""
    try:
        return _seq_read(db, wanted, skip, blobs=False)
    except sqlite3.Error:  # a BLOB somewhere: read again, its rows hashed the kernel's way
        return _seq_read(db, wanted, skip, blobs=True)


def _seq_read(db: Database, wanted: dict[int, Any], skip: set[int], *,
              blobs: bool) -> tuple[dict[int, str | None], set[int]]:
    seq_tables = _seq_tables()
    headers = [b"\n" + table.encode("ascii") + b"\n" for table, _ in seq_tables] + [b"\ntask_results\n"]
    start = hashlib.sha256(RECORDS_FORMAT.encode("ascii") + headers[0])
    (first, columns), rest = seq_tables[0], seq_tables[1:]
    others: list[dict[int, list[bytes | None]]] = []
    for table, cols in rest:
        lines: dict[int, list[bytes | None]] = {}
        for batch in _seq_lines(db, table, cols, blobs=blobs):
            for seq, line in batch:
                lines.setdefault(seq, []).append(line)
        others.append(lines)
    plain = b"".join(headers[1:])  # what follows the first table's lines in an event with no rows of the others
    differ: dict[int, str | None] = {}
    named: set[int] = set()
    wanted_of = wanted.get

    def exact(seq: int) -> None:  # hashed the kernel's way: a finding only if that differs too
        now = records_digest(db, seq)
        if seq not in wanted or now != wanted[seq]:
            differ[seq] = now

    def check(seq: int, lines: list[bytes | None]) -> None:
        named.add(seq)
        if seq in skip:
            return
        parts = [lines, *(other.get(seq, []) for other in others)]
        if any(None in part for part in parts):
            exact(seq)
            return
        whole = cast(list[list[bytes]], parts)  # no None in any
        after = plain if not any(whole[1:]) else \
            b"".join(header + b"".join(part) for header, part in zip(headers[1:-1], whole[1:], strict=True)) \
            + headers[-1]
        made = start.copy()
        made.update(b"".join(whole[0]) + after)
        if made.hexdigest() != wanted_of(seq):
            exact(seq)

    elsewhere = set().union(*others) | skip  # events whose digest is not the first table's lines alone
    copy = start.copy
    add = named.add
    at: int | None = None
    one: bytes | None = None  # the event's first line; `group` only once it has a second
    group: list[bytes | None] | None = None
    for batch in _seq_lines(db, first, columns, blobs=blobs):
        for seq, line in batch:
            if seq == at:
                if group is None:
                    group = [one, line]
                else:
                    group.append(line)
                continue
            if at is not None:
                if group is None and one is not None and at not in elsewhere:  # the commonest: one skill run
                    add(at)
                    made = copy()
                    made.update(one + plain)
                    if made.hexdigest() != wanted_of(at):
                        exact(at)
                else:
                    check(at, group if group is not None else [one])
            at, one, group = seq, line, None
    if at is not None:
        check(at, group if group is not None else [one])
    for other in others:
        for seq in other:
            if seq not in named:
                check(seq, [])
    return differ, named


def _text_affinity(declared: str) -> bool:
    """Whether a column of this declared type has TEXT affinity (SQLite stores any number given it as text)."""
    upper = declared.upper()
    return "INT" not in upper and any(word in upper for word in ("CHAR", "CLOB", "TEXT"))


def records_differ(db: Database, read: ResultsRead, wanted: dict[int, Any]) -> tuple[dict[int, str | None], set[int]]:
    """Of every event some record names (returned too), those whose records' digest now (records.records_digest's)
    is not the one it sealed (`wanted`): seq -> that digest. Skill runs and manifest versions from one read of each
    table, task results from `read`; each hashed again the kernel's way where the fast digest is not the sealed one."""
    with_results = {seq for (seq,) in db.execute(
        "SELECT DISTINCT r.event_seq FROM evaluation_runs r WHERE r.event_seq IS NOT NULL"
        " AND EXISTS (SELECT 1 FROM task_results t WHERE t.run_id = r.id)")}
    differ, named = _seq_digests(db, wanted, with_results)
    also = named & with_results  # events with task results and other records too
    named |= with_results
    for seq in with_results:
        fast = read.digests.get(seq)
        # an event with task results and other records too is hashed the kernel's way (its fast digest has no others)
        if fast is None or fast != wanted.get(seq) or seq in also:
            now = records_digest(db, seq)
            if seq not in wanted or now != wanted[seq]:
                differ[seq] = now
    return differ, named
