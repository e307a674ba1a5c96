"""Whether the store changed since a view was drawn.

`data_version` moves on any commit by another connection, a person's read receipt (a seen mark) included;
`change_seq` moves only with what people see: every act is an event, a read receipt is not one."""

from sqlite_utils import Database


def data_version(db: Database) -> int:
    """A number that moves whenever another connection commits (a view shown again redraws only then)."""
    return int(db.execute("PRAGMA data_version").fetchone()[0])


def change_seq(db: Database) -> int:
    """The newest event's seq: it moves with every decision, import, lease or assignment, and not when a
    person merely opens an item (flows.mark_seen appends no event), so a view cached against it stays
    valid while someone browses."""
    row = db.execute("SELECT MAX(seq) FROM events").fetchone()
    return int(row[0] or 0)
