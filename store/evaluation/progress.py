"""How far an artifact import has read, for whoever shows it (the CLI's progress display on a terminal).

A file is read and stored several calls deep (import_artifacts → store_artifact_file → stream_artifact); the
display is set for the duration of an import (`reporting`) and each reader
says where it is (`report`): bytes of the file read, rows of it read. Nothing is shown when no one listens.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Reporter = Callable[[int | None, int], None]  # (bytes of the current file read, or None: not known; its rows)

_reporter: ContextVar[Reporter | None] = ContextVar("gatepost_import_progress", default=None)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[None]:
    """`reporter(bytes_read, rows)` is called as the files imported inside the block are read."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


def report(bytes_read: int | None, rows: int) -> None:
    """Where the file being imported is: `bytes_read` of it read (None: not known), `rows` of it read."""
    reporter = _reporter.get()
    if reporter is not None:
        reporter(bytes_read, rows)


__all__ = ["Reporter", "report", "reporting"]
