"""Reads the rehearsals of one item share: what the store holds, read once while it is as they all found it.

The rehearsals of an item's decisions (guarded.rehearse_all) run in one transaction that holds the write lock,
each rolled back to the same savepoint: every one of them starts from the same store. A read made in one of
them before it wrote anything (the connection's change count, `total_changes`, has not moved since it began)
therefore answers the same in every other one before it writes. `as_found` keeps such a read for the
rehearsals of that item; after a rehearsal's first write, and outside rehearsals, it reads the store every time.

This is what lets six rehearsals of a case share one read of the actor, of the case and one evaluation of its
protocol, while each still runs its act whole: the rules stay the acts' own, only repeated reads are saved.
What is kept must not be changed by whoever gets it: `as_found` hands back what `read` returned, so callers
whose value is mutable copy it (or read-only use it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from sqlite_utils import Database


T = TypeVar("T")


class SharedReads:
    """The reads kept for the rehearsals of one item on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.start = -1  # the change count when the running rehearsal began (-1: none runs)
        self.values: dict[Hashable, Any] = {}

    def begin(self) -> None:
        """A rehearsal begins, from the store every rehearsal of the item starts from."""
        self.start = self.conn.total_changes

    def end(self) -> None:
        self.start = -1


_shared: ContextVar[SharedReads | None] = ContextVar("gatepost_shared_reads", default=None)


@contextmanager
def shared_reads(db: Database) -> Iterator[SharedReads]:
    """Keep reads for the rehearsals run inside (each between `begin()` and `end()`), then forget them."""
    shared = SharedReads(db.conn)
    token = _shared.set(shared)
    try:
        yield shared
    finally:
        _shared.reset(token)


def as_found(db: Database, key: Hashable, read: Callable[[], T]) -> T:
    """`read()`, or what it returned earlier in the rehearsals of this item while the store was as they found it.

    `key` names the read and everything it depends on but the store (its table, the row's key)."""
    shared = _shared.get()
    if shared is None or shared.conn is not db.conn or shared.start < 0 or db.conn.total_changes != shared.start:
        return read()
    try:
        return shared.values[key]  # type: ignore[no-any-return]
    except KeyError:
        pass
    value = read()
    if db.conn.total_changes == shared.start:  # a read that wrote is not one to keep
        shared.values[key] = value
    return value
