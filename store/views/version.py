"""Whether the store changed since a view was drawn: SQLite's data_version for one connection."""

from sqlite_utils import Database


def data_version(db: Database) -> int:
    """A number that moves whenever another connection commits (a view shown again redraws only then)."""
    return int(db.execute("PRAGMA data_version").fetchone()[0])
