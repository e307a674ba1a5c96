"""Work as people see it: what changed since each person last looked, who an item is assigned to, and
the team's progress. Reads only; the acts (open an item, assign it) are in `flows`.
"""

from typing import Any, TypedDict, cast

from sqlite_utils import Database

from gatepost.store.kernel import now, one_of, one_row


class Assignment(TypedDict):
    """Who an item is assigned to, by whom, when (store time) and the event that said so."""

    assignee: str
    assigned_by: str | None
    at: str
    event_seq: int | None


# An item's subject type -> whether it still waits for a person (SQL over its projection, one id bound)
WAITING_SQL = {
    "case": "SELECT 1 FROM cases WHERE id = ? AND status = 'open'",
    "proposal": "SELECT 1 FROM proposals WHERE id = ? AND status = 'waiting'",
    "draft": "SELECT 1 FROM manifest_drafts WHERE id = ? AND status = 'pending'",
    "skill": "SELECT 1 FROM regression_states WHERE skill = ? AND state IN ('NEW_FAIL', 'STABLE_FAIL', 'CHRONIC')"
             " AND (acknowledged_eval_id IS NULL OR acknowledged_eval_id != last_eval_id)",
}
# Events that are a person's judgment on an item: what "done" counts
DONE_KINDS = ("case.decided", "proposal.marked", "draft.approved", "draft.rejected", "regression.acknowledged",
              "regression.mismatch")
# How a change reads in "changed since you looked: 2 new evidence records"
CHANGE_WORDS = {
    "evidence.added": ("new evidence record", "new evidence records"),
    "evaluation.undecided": ("evaluation that settled nothing", "evaluations that settled nothing"),
    "case.revised": ("new revision", "new revisions"),
    "case.decided": ("decision", "decisions"),
    "skill.evaluated": ("new evaluation", "new evaluations"),
    "regression.acknowledged": ("acknowledgement", "acknowledgements"),
    "regression.mismatch": ("mismatch flag", "mismatch flags"),
    "regression.carried": ("acknowledgement carried forward", "acknowledgements carried forward"),
    "proposal.marked": ("review mark", "review marks"),
    "draft.approved": ("approval", "approvals"),
    "draft.rejected": ("rejection", "rejections"),
    "draft.superseded": ("newer draft", "newer drafts"),
    "assignment.set": ("assignment", "assignments"),
    "assignment.cleared": ("assignment cleared", "assignments cleared"),
    "comment.added": ("comment", "comments"),
}


def _words(kind: str, n: int) -> str:
    one, many = CHANGE_WORDS.get(kind, (kind.replace(".", " "), kind.replace(".", " ")))
    return f"{n} {one if n == 1 else many}"


def changes_since_seen(db: Database, person: str | None, subject_type: str, ids: list[str]) -> dict[str, str]:
    """For the items `person` opened before and others changed since: 'changed since you looked: …'.

    Items never opened say nothing (everything in them is new to the person); changes the person
    made themselves, and leases, do not count.
    """
    if not person or not ids:
        return {}
    clause, values = one_of("subject_id", ids)
    marks = {sid: seq for sid, seq in db.execute(
        f"SELECT subject_id, seq FROM seen_marks WHERE person = ? AND subject_type = ? AND {clause}",
        [person, subject_type, *values]).fetchall()}
    out: dict[str, str] = {}
    for sid, seen in marks.items():
        rows = db.execute(
            "SELECT kind, COUNT(*) FROM events WHERE subject_type = ? AND subject_id = ? AND seq > ?"
            " AND kind NOT LIKE 'lease.%' AND actor IS NOT ? GROUP BY kind ORDER BY MIN(seq)",
            [subject_type, sid, seen, person]).fetchall()
        if rows:
            out[sid] = "changed since you looked: " + ", ".join(_words(kind, n) for kind, n in rows)
    return out


def assignment_of(db: Database, subject_type: str, subject_id: str) -> Assignment | None:
    """Who an item is assigned to, by whom and when, or None."""
    return cast(Assignment | None, one_row(db.execute("SELECT assignee, assigned_by, at, event_seq FROM assignments WHERE subject_type = ?"
                              " AND subject_id = ?", [subject_type, subject_id])))


def assigned_ids(db: Database, person: str | None, subject_type: str) -> set[str]:
    """The ids of one type of item assigned to `person`."""
    if not person:
        return set()
    return {r[0] for r in db.execute("SELECT subject_id FROM assignments WHERE assignee = ? AND subject_type = ?",
                                     [person, subject_type]).fetchall()}


def team_progress(db: Database, *, today: str | None = None) -> list[dict[str, Any]]:
    """Per person with assigned work or judgments today: assigned, waiting (still open) and done today."""
    day = today or now().strftime("%Y-%m-%d")  # the store's one clock (kernel.clock)
    people: dict[str, dict[str, Any]] = {}

    def person(name: str) -> dict[str, Any]:
        return people.setdefault(name, {"person": name, "assigned": 0, "waiting": 0, "done_today": 0})

    for subject_type, subject_id, assignee in db.execute(
            "SELECT subject_type, subject_id, assignee FROM assignments ORDER BY assignee").fetchall():
        row = person(assignee)
        row["assigned"] += 1
        sql = WAITING_SQL.get(subject_type)
        if sql and db.execute(sql, [subject_id]).fetchone():
            row["waiting"] += 1
    clause, values = one_of("kind", DONE_KINDS)
    for actor, n in db.execute(
            f"SELECT actor, COUNT(*) FROM events WHERE {clause}"
            " AND substr(at, 1, 10) = ? AND actor IS NOT NULL GROUP BY actor", [*values, day]).fetchall():
        if db.execute("SELECT 1 FROM actors WHERE name = ? AND kind = 'person'", [actor]).fetchone():
            person(actor)["done_today"] = n
    return sorted(people.values(), key=lambda r: (-r["waiting"], r["person"]))


def progress_line(row: dict[str, Any]) -> str:
    """'ana: 3 assigned, 2 waiting, 1 done today'."""
    return f"{row['person']}: {row['assigned']} assigned, {row['waiting']} waiting, {row['done_today']} done today"

