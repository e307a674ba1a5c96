"""Bulk inserts of task results: by multi-row statements (`insert_values`, a file read whole), and in a second
thread that overlaps with the work producing the rows (`background_inserts`, a large artifact's import).

SQLite releases Python's lock while it steps a statement, so rows inserted in a second thread are written
while the first parses the next window of the file: on two cores the import takes about the longer of the
two instead of their sum. A batch is inserted by multi-row `INSERT ... VALUES (...), (...)` statements of up
to 2,000 rows, each one step: `executemany` steps once per row, and a thread taking Python's lock back after
every row waits behind the parser each time (measured: no overlap at all). At most `depth` batches wait, so
memory stays bounded.
"""

import functools
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import Any, Protocol, overload


class Insert(Protocol):
    """Inserts one batch of rows (tuples of the columns' values, in order)."""

    def __call__(self, rows: list[tuple[Any, ...]]) -> None: ...


_DONE: list[tuple[Any, ...]] = []  # the sentinel: a list no caller hands over (compared by identity)


def _value_inserter(conn: sqlite3.Connection, table: str, columns: Sequence[str],
                    rows_per_statement: int) -> Callable[[list[Any]], None]:
    """`insert(values)`, rows given as their values one after the other (`len(columns)` per row), by
    statements of up to `rows_per_statement` rows (fewer when SQLite's limit on variables is lower), each
    prepared once and stepped once."""
    width = len(columns)
    per = max(1, min(rows_per_statement, conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width))
    columns = tuple(columns)

    def insert_values(values: list[Any]) -> None:
        step = per * width
        for start in range(0, len(values), step):
            part = values[start:start + step] if start or len(values) > step else values  # no copy of a lone part
            conn.execute(_statement(table, columns, len(part) // width), part)

    return insert_values


@functools.lru_cache(maxsize=64)
def _statement(table: str, columns: tuple[str, ...], rows: int) -> str:
    """The text of a statement inserting this many rows, made once: a file's 1,000 rows are a statement of 40,000
    characters, and building it again (and hashing the new string to find the compiled statement in the
    connection's cache) for every file would cost a twentieth of the insert."""
    one = "(" + ", ".join("?" * len(columns)) + ")"
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES " + ", ".join([one] * rows)


def _inserter(conn: sqlite3.Connection, table: str, columns: Sequence[str],
              rows_per_statement: int) -> Insert:
    """`insert(rows)` by statements of up to `rows_per_statement` rows, as `_value_inserter`."""
    insert_values = _value_inserter(conn, table, columns, rows_per_statement)

    def insert_rows(rows: list[tuple[Any, ...]]) -> None:
        insert_values(list(chain.from_iterable(rows)))

    return insert_rows


def insert_values(conn: sqlite3.Connection, table: str, columns: Sequence[str], values: list[Any], *,
                  rows_per_statement: int = 2000) -> None:
    """Insert rows given as their values one after the other (`len(columns)` per row) into `table` in the
    caller's transaction, in order, by multi-row statements (a fifth less time than `executemany`, which steps
    once per row); flat, as a worker process hands them over, binding them needs no list built per statement."""
    if not values:
        return
    if len(values) % len(columns):
        raise ValueError(f"{len(values)} values are not whole rows of {len(columns)} columns")
    _value_inserter(conn, table, columns, rows_per_statement)(values)


class FlatRows(Sequence[tuple[Any, ...]]):
    """Rows over their values one after the other (`width` per row), made as they are read."""

    def __init__(self, values: list[Any], width: int) -> None:
        self.values, self.width = values, width

    def __len__(self) -> int:
        return len(self.values) // self.width if self.width else 0

    @overload
    def __getitem__(self, index: int) -> tuple[Any, ...]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[Any, ...]]: ...

    def __getitem__(self, index: int | slice) -> tuple[Any, ...] | list[tuple[Any, ...]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return tuple(self.values[index * self.width:(index + 1) * self.width])

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return zip(*[iter(self.values)] * self.width, strict=True) if self.width else iter(())


@contextmanager
def background_inserts(conn: sqlite3.Connection, table: str, columns: Sequence[str], *, depth: int = 2,
                       rows_per_statement: int = 2000) -> Iterator[Insert]:
    """Yields `insert(rows)`: each batch of rows (tuples of `columns`' values) is handed to one writer thread
    that inserts it into `table`, batches in the order given, inside the caller's open transaction.

    The caller must not use `conn` until the block ends. Leaving the block waits until every batch handed
    over is written (or, when the block raises, until the one being written is done; the rest are dropped),
    so a rollback after it never runs beside an insert. The writer's first error is raised in the caller:
    from the `insert` after it, or when the block ends.
    """
    insert_rows = _inserter(conn, table, columns, rows_per_statement)
    batches: queue.Queue[list[tuple[Any, ...]]] = queue.Queue(maxsize=depth)
    failed: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        while (rows := batches.get()) is not _DONE:
            if failed or stop.is_set():
                continue  # drained, not written: the block failed or gave up
            try:
                insert_rows(rows)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, raised there
                failed.append(exc)

    writer = threading.Thread(target=write, name="gatepost-bulk-insert", daemon=True)
    writer.start()

    def insert(rows: list[tuple[Any, ...]]) -> None:
        if failed:
            raise failed[0]
        batches.put(rows)

    try:
        yield insert
    except BaseException:
        stop.set()
        raise
    finally:
        batches.put(_DONE)
        writer.join()
    if failed:
        raise failed[0]
