"""Work queues: the items that wait for people, in the order they should be worked.

A queue reads one projection, skips what another person holds a lease on, and
tells the console where the person stands ("12 of 40").
"""

from collections.abc import Callable
from dataclasses import dataclass

from sqlite_utils import Database

from gatepost.store.cases import DEFAULT_PROTOCOL, DESIGN_QUEUE, kept_count, waiting_sql
from gatepost.store.kernel import Held, held_by_others
from gatepost.store.skills import WORST_FIRST


@dataclass(frozen=True)
class QueueSpec:
    name: str
    subject_type: str  # the lease's subject type
    label: str
    query: str | Callable[[], str]  # selects keys in work order; a callable is built on first use
    per_person: bool = False  # the sql binds the person (one `?`): each person has their own queue
    kept: Callable[[Database], int] | None = None  # how many the query selects, from counts kept as items change

    @property
    def sql(self) -> str:
        """The queue's SQL. The design reviewers' is derived from the protocol, which is parsed only when a
        queue is first read, never when a command that reads none is imported."""
        return self.query if isinstance(self.query, str) else self.query()


QUEUES: dict[str, QueueSpec] = {
    "cases": QueueSpec("cases", "case", "cases needing a decision",
                       "SELECT id FROM cases WHERE status = 'open' AND needs_decision = 1 ORDER BY updated_at, id",
                       kept=lambda db: kept_count(db, status="open", needs_decision=True)),
    "proposals": QueueSpec("proposals", "proposal", "proposals waiting for a person",
                           "SELECT id FROM proposals WHERE status = 'waiting' ORDER BY created_at, id"),
    "drafts": QueueSpec("drafts", "draft", "manifest drafts waiting for review",
                        "SELECT id FROM manifest_drafts WHERE status = 'pending' ORDER BY created_at, id"),
    "regressions": QueueSpec("regressions", "skill", "NEW_FAIL and CHRONIC regressions",
                             "SELECT s.name FROM skills s JOIN regression_states r ON r.skill = s.name"
                             " WHERE (r.state IN ('NEW_FAIL', 'CHRONIC') OR r.returned_because IS NOT NULL)"
                             " AND (r.acknowledged_eval_id IS NULL OR r.acknowledged_eval_id != r.last_eval_id)"
                             f" ORDER BY {WORST_FIRST}"),
    DESIGN_QUEUE: QueueSpec(DESIGN_QUEUE, "case", "cases waiting on a design review",
                            lambda: waiting_sql(DEFAULT_PROTOCOL, for_reviewer=True), per_person=True),
}


@dataclass
class QueueState:
    keys: list[str]  # the person's queue, in order, without items others hold (none when only counted)
    held: dict[str, Held]  # items others hold
    total: int  # everything waiting, held or not
    listed: bool = True  # False: counted (queue_count), `keys` left empty

    @property
    def waiting(self) -> int:
        """How many items of the person's queue wait for them (without those others hold)."""
        return len(self.keys) if self.listed else self.total - len(self.held)

    def position(self, key: str | None) -> int | None:
        """1-based place of `key` in the person's queue, or None."""
        return self.keys.index(key) + 1 if key in self.keys else None

    def after(self, key: str | None) -> str | None:
        """The next item to work once `key` is done (the first one if `key` is not queued)."""
        if key in self.keys:
            i = self.keys.index(key)
            rest = self.keys[i + 1:] + self.keys[:i]
            return rest[0] if rest else None
        return self.keys[0] if self.keys else None


def queue_state(db: Database, name: str, person: str) -> QueueState:
    """The queue `name` as `person` sees it now."""
    spec = QUEUES[name]
    keys = [row[0] for row in db.execute(spec.sql, [person] if spec.per_person else []).fetchall()]
    mine = {r[0] for r in db.execute("SELECT subject_id FROM assignments WHERE assignee = ? AND subject_type = ?",
                                     [person, spec.subject_type]).fetchall()}
    keys.sort(key=lambda k: k not in mine)  # assigned to me first, each part in the queue's own order
    held = held_by_others(db, spec.subject_type, person)
    return QueueState(keys=[k for k in keys if k not in held], held={k: v for k, v in held.items() if k in keys},
                      total=len(keys))


def queue_count(db: Database, name: str, person: str) -> QueueState:
    """The queue `name` as `person` sees it now, counted and not listed: what a bar that says how many wait needs.
    Listing every key read a whole queue into Python on each look (50,000 cases needing a decision on a
    100,000-case store); the count stays in SQLite's index, or is read from counts kept as the items change (the
    cases queue: case_counts)."""
    spec = QUEUES[name]
    params: list[str] = [person] if spec.per_person else []
    queue = f"WITH queue(k) AS ({spec.sql}) "
    total = spec.kept(db) if spec.kept else int(db.execute(queue + "SELECT COUNT(*) FROM queue", params).fetchone()[0])
    held = held_by_others(db, spec.subject_type, person)
    if held:
        marks = ", ".join("?" for _ in held)
        waiting = {row[0] for row in db.execute(queue + f"SELECT k FROM queue WHERE k IN ({marks})",
                                                [*params, *held]).fetchall()}
        held = {k: v for k, v in held.items() if k in waiting}
    return QueueState(keys=[], held=held, total=total, listed=False)
