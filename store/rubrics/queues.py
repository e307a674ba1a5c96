"""A deciding queue's own rubric: the questions every decision on a proposal, a manifest draft or a regression
asks, when the store's administrator has set them.

A case's rubric is its protocol's (store/protocol/rubric.py): the protocol is how a case is decided. The other
queues have no protocol, so their rubric is the store's data instead, in the same YAML form
(`gatepost rubric set proposal FILE`): an act of `store.admin` (it changes what every decision of the queue
requires), a `rubric.set` event carrying the questions, projected into `queue_rubrics`. Changing the questions
is itself on the record, so nobody's answers are read against questions they were not asked: each decision's
answers name the `rubric.set` event they answered (`rubric_answers.rubric_seq`).

Deciding acts call `answer` inside their guarded act, after their own rules (rule `rubric`, as a case's), put
`payload(...)` in their event and `record_answers` after it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import (
    InputError,
    Subject,
    all_rows,
    guarded,
    load_yaml_file,
    now_iso,
    observed_at,
    refusal,
)
from gatepost.store.protocol import RUBRIC, Question, Rubric, parse_rubric

# The queues that may carry a rubric: the subject type its decisions are about, and the queue's name.
QUEUES: dict[str, str] = {"proposal": "proposals", "draft": "manifest drafts", "skill": "regressions"}
ADMIN = "store.admin"
SET, CLEARED = "rubric.set", "rubric.cleared"


@dataclass(frozen=True)
class QueueRubric:
    """A queue's rubric as set now: its questions, and the `rubric.set` event that set them."""

    queue: str
    rubric: Rubric
    seq: int
    set_by: str | None
    at: str

    def as_dict(self) -> dict[str, Any]:
        return {"queue": self.queue, "questions": questions_data(self.rubric), "source": self.rubric.source,
                "set_by": self.set_by, "at": self.at, "event_seq": self.seq}


@dataclass(frozen=True)
class Answers:
    """A decision's answers to its queue's rubric, as stored, and the `rubric.set` event they answer."""

    answers: dict[str, str | int]
    rubric_seq: int

    def payload(self) -> dict[str, Any]:
        """What the decision's event carries: verify rebuilds `rubric_answers` from it."""
        return {"rubric": self.answers, "rubric_seq": self.rubric_seq}


def questions_data(rubric: Rubric) -> list[dict[str, Any]]:
    return [{"key": q.key, "question": q.question, **({"scale": q.scale} if q.scale else {})}
            for q in rubric.questions]


def check_queue(queue: str, *, field: str = "QUEUE") -> str:
    if queue not in QUEUES:
        raise InputError(f"{field}: expected one of {', '.join(QUEUES)} (a case's rubric is its protocol's), "
                         f"got {queue!r}")
    return queue


def queue_rubric(db: Database, queue: str) -> QueueRubric | None:
    """The rubric `queue` asks now (None: none)."""
    row = db.execute("SELECT questions, source, set_by, at, event_seq FROM queue_rubrics WHERE queue = ?",
                     [check_queue(queue)]).fetchone()
    if row is None:
        return None
    return QueueRubric(queue, _parsed(row[0], row[1] or f"queue {queue}"), int(row[4]), row[2], row[3])


@lru_cache(maxsize=64)
def _parsed(questions: str, source: str) -> Rubric:
    """The stored questions, checked once per text: every rehearsed decision (may I) reads its queue's rubric."""
    return parse_rubric(json.loads(questions), source)


def queue_rubrics(db: Database) -> list[QueueRubric]:
    """Every queue's rubric set now, in the order of QUEUES."""
    return [r for r in (queue_rubric(db, q) for q in QUEUES) if r is not None]


def _subject(queue: str) -> Callable[[Database], Subject]:
    def load(db: Database) -> Subject:
        return Subject("queue", queue, "queue", {"queue": queue})
    return load


def read_rubric_file(path: str | Path) -> Rubric:
    """A rubric file (the same YAML list a protocol's rubric is), checked; errors name the file and the field."""
    return parse_rubric(load_yaml_file(path, what="rubric file"), str(path), where="")


def set_queue_rubric(db: Database, queue: str, rubric: Rubric, *, actor: str | None, note: str | None = None,
                     at: str | None = None) -> QueueRubric:
    """Make `rubric` the questions every decision on `queue` asks from now on (store.admin; an event)."""
    check_queue(queue)
    when = observed_at(at) or now_iso()
    text = (note or "").strip() or None
    data = questions_data(rubric)
    with guarded(db, f"set the rubric of {QUEUES[queue]}", actor=actor, capability=ADMIN,
                 subject=_subject(queue), lease=False) as act:
        seq = act.event(SET, note=text, at=when, payload={"questions": data, "source": rubric.source})
        db.execute("INSERT INTO queue_rubrics (queue, questions, source, set_by, at, event_seq) VALUES (?, ?, ?, ?, ?, ?)"
                   " ON CONFLICT(queue) DO UPDATE SET questions = excluded.questions, source = excluded.source,"
                   " set_by = excluded.set_by, at = excluded.at, event_seq = excluded.event_seq",
                   [queue, json.dumps(data, ensure_ascii=False, sort_keys=True), rubric.source, act.actor, when,
                    seq])
    found = queue_rubric(db, queue)
    assert found is not None
    return found


def clear_queue_rubric(db: Database, queue: str, *, actor: str | None, note: str | None = None,
                       at: str | None = None) -> int:
    """`queue` asks no rubric from now on (store.admin; an event); answers already given stay with their decisions."""
    check_queue(queue)
    when = observed_at(at) or now_iso()
    doing = f"clear the rubric of {QUEUES[queue]}"
    with guarded(db, doing, actor=actor, capability=ADMIN, subject=_subject(queue), lease=False) as act:
        if db.execute("SELECT 1 FROM queue_rubrics WHERE queue = ?", [queue]).fetchone() is None:
            raise InputError(f"QUEUE: {QUEUES[queue]} carry no rubric to clear")
        seq = act.event(CLEARED, note=(note or "").strip() or None, at=when, payload={})
        db.execute("DELETE FROM queue_rubrics WHERE queue = ?", [queue])
    return seq


def answer(db: Database, queue: str, answers: Mapping[str, Any] | None, *, doing: str,
           answers_later: bool = False) -> Answers | None:
    """Inside a deciding act, after its own rules: the answers as stored (None: the queue asks no rubric).

    Answers to a queue that asks none, to no question of its rubric, or in the wrong form are bad input naming
    `--answer`; a question left unanswered refuses the decision (rule `rubric`) unless `answers_later` (a
    rehearsal: may this be decided, before the person is asked the questions).
    """
    found = queue_rubric(db, queue)
    if found is None:
        if answers:
            raise InputError(f"--answer: {QUEUES[queue]} ask no rubric questions; decide without --answer")
        return None
    answered, missing = found.rubric.check(answers)
    if missing and not answers_later:
        asked = {q.key: q for q in found.rubric.questions}
        raise refusal(doing, RUBRIC, f"{QUEUES[queue]} ask every decision their rubric; unanswered: "
                                     + ", ".join(f"{k} ({asked[k].expects})" for k in missing)
                                     + " (--answer KEY=VALUE)")
    return Answers(answered, found.seq)


def record_answers(db: Database, given: Answers | None, *, subject_type: str, subject_id: str, decision: str,
                   event_seq: int, person: str | None) -> None:
    """The decision's answers as a record beside its event (nothing when it answered none), at its event's time."""
    if given is None:
        return
    at = db.execute("SELECT at FROM events WHERE seq = ?", [event_seq]).fetchone()[0]
    db.execute("INSERT INTO rubric_answers (event_seq, subject_type, subject_id, decision, answers, rubric_seq,"
               " person, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
               [event_seq, subject_type, subject_id, decision,
                json.dumps(given.answers, ensure_ascii=False, sort_keys=True), given.rubric_seq, person, at])


def answers_on(db: Database, subject_type: str, subject_id: str) -> list[dict[str, Any]]:
    """The rubric answers given with an item's decisions, oldest first, each with the questions it answered."""
    rows = all_rows(db.execute(
        "SELECT a.event_seq, a.decision, a.answers, a.rubric_seq, a.person, a.at, e.payload FROM rubric_answers a "
        "LEFT JOIN events e ON e.seq = a.rubric_seq WHERE a.subject_type = ? AND a.subject_id = ? "
        "ORDER BY a.event_seq", [subject_type, subject_id]))
    out = []
    for row in rows:
        asked = json.loads(row.pop("payload") or "{}").get("questions") or []
        row["answers"] = json.loads(row["answers"])
        row["questions"] = [Question(q["key"], q["question"], q.get("scale")) for q in asked]
        out.append(row)
    return out
