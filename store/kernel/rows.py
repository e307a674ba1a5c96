"""Rows of a query as mappings of column name to value: the shape the store's read functions return.

One place turns a cursor's tuples into dicts, so a reader names columns in its SQL and nowhere else.
"""

import sqlite3
from collections.abc import Iterator
from typing import Any


def _columns(cursor: sqlite3.Cursor) -> list[str]:
    return [c[0] for c in cursor.description]


def all_rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    """Every row the executed query returns."""
    cols = _columns(cursor)
    return [dict(zip(cols, row, strict=True)) for row in cursor.fetchall()]


def one_row(cursor: sqlite3.Cursor) -> dict[str, Any] | None:
    """The query's first row, or None when it returns none."""
    row = cursor.fetchone()
    return dict(zip(_columns(cursor), row, strict=True)) if row is not None else None


def each_row(cursor: sqlite3.Cursor) -> Iterator[dict[str, Any]]:
    """The query's rows one at a time, for a reader that may stop early."""
    cols = _columns(cursor)
    for row in cursor:
        yield dict(zip(cols, row, strict=True))
