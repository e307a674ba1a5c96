"""How many cases each list holds, kept as the cases projection changes.

The case list says "Showing 1–100 of 100,000": counted with `COUNT(*)`, that total cost as much as the store
holds (5 ms at 100,000 open cases, most of a first page's reading). `case_counts` keeps one row per (status,
outcome, needs a decision) with how many cases are in it, kept by triggers on `cases` itself: every write of
the projection (an import, a decision, the protocol's step, a migration, a rehearsal rolled back with the rest)
moves a case from one row to the other in the same statement, so no act has to remember it. A total is then a
sum over at most a handful of rows. `gatepost verify` counts the cases again and compares (`counts_differ`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gatepost.store.kernel import normalised_trigger

if TYPE_CHECKING:
    from sqlite_utils import Database

COUNTS_TABLE = "case_counts"

# one case in or out of its row (`NEW` or `OLD`); a case without an outcome is in the row whose outcome is ''
_KEY = "status = {c}.status AND outcome = COALESCE({c}.outcome, '') AND needs_decision = COALESCE({c}.needs_decision, 0)"
_ADD = (f"INSERT INTO {COUNTS_TABLE} (status, outcome, needs_decision, n) "
        "VALUES (NEW.status, COALESCE(NEW.outcome, ''), COALESCE(NEW.needs_decision, 0), 1) "
        "ON CONFLICT (status, outcome, needs_decision) DO UPDATE SET n = n + 1;")
_TAKE = f"UPDATE {COUNTS_TABLE} SET n = n - 1 WHERE {_KEY.format(c='OLD')};"
TRIGGERS = (
    f"CREATE TRIGGER IF NOT EXISTS case_counts_insert AFTER INSERT ON cases BEGIN {_ADD} END",
    f"CREATE TRIGGER IF NOT EXISTS case_counts_delete AFTER DELETE ON cases BEGIN {_TAKE} END",
    "CREATE TRIGGER IF NOT EXISTS case_counts_update AFTER UPDATE OF status, outcome, needs_decision ON cases "
    "WHEN OLD.status IS NOT NEW.status OR OLD.outcome IS NOT NEW.outcome "
    f"OR OLD.needs_decision IS NOT NEW.needs_decision BEGIN {_TAKE} {_ADD} END",
)
TRIGGER_NAMES = ("case_counts_insert", "case_counts_delete", "case_counts_update")
_COUNTED = ("SELECT status, COALESCE(outcome, ''), COALESCE(needs_decision, 0), COUNT(*) FROM cases "
            "GROUP BY 1, 2, 3")


def create_case_counts(db: Database) -> None:
    """The table, its triggers, and the counts of the cases already stored (a migration runs it once)."""
    db.execute(f"CREATE TABLE IF NOT EXISTS {COUNTS_TABLE} (status TEXT NOT NULL, outcome TEXT NOT NULL, "
               "needs_decision INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (status, outcome, needs_decision))")
    for trigger in TRIGGERS:
        db.execute(trigger)
    db.execute(f"DELETE FROM {COUNTS_TABLE}")
    db.execute(f"INSERT INTO {COUNTS_TABLE} (status, outcome, needs_decision, n) {_COUNTED}")


def kept_count(db: Database, *, status: str | None = None, outcome: str | None = None,
               needs_decision: bool | None = None) -> int:
    """How many cases have `status`, `outcome` and `needs_decision` (None: any), from the kept counts."""
    clauses: list[str] = []
    params: list[str | int] = []
    for column, value in (("status", status), ("outcome", outcome)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    if needs_decision is not None:
        clauses.append("needs_decision = ?")
        params.append(1 if needs_decision else 0)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return int(db.execute(f"SELECT COALESCE(SUM(n), 0) FROM {COUNTS_TABLE}{where}", params).fetchone()[0])


def counts_differ(db: Database) -> list[str]:
    """Where the kept counts are not what the cases count now (`status/outcome/needs_decision: n kept, m counted`)
    (a row of zero cases kept and none counted is the same); and a trigger that keeps them gone or changed
    (compared by its SQL, as the append-only triggers are: a same-named trigger that does nothing would let the
    counts drift from the next write on)."""
    present = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'cases'"))
    gone = [name for name in TRIGGER_NAMES if name not in present]
    changed = [name for name, sql in zip(TRIGGER_NAMES, TRIGGERS, strict=True)
               if name in present and normalised_trigger(present[name] or "") != normalised_trigger(sql)]
    lines = [f"triggers {', '.join(gone)} are gone: the counts no longer follow the cases"] if gone else []
    lines += [f"trigger {name} is not the schema's (edited by hand): the counts may no longer follow the cases"
              for name in changed]
    kept = {(s, o, int(d)): n for s, o, d, n in db.execute(f"SELECT status, outcome, needs_decision, n FROM {COUNTS_TABLE}")}
    counted = {(s, o, int(d)): n for s, o, d, n in db.execute(_COUNTED)}
    return lines + [f"{s}/{o or 'no outcome'}/{'needs a decision' if d else 'not needing a decision'}: "
            f"{kept.get((s, o, d), 0)} kept, {counted.get((s, o, d), 0)} counted; the kept counts were edited by hand"
            for s, o, d in sorted(set(kept) | set(counted)) if kept.get((s, o, d), 0) != counted.get((s, o, d), 0)]
