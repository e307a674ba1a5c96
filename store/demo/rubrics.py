"""Demo part: the proposals' queue carries its own rubric, and a person compares two runs of one suite.

The demo's person, the store's administrator, sets the questions every decision on a proposal answers (a
`rubric.set` event); a colleague then declines the first waiting proposal they may, answering them. The
rest of the proposals wait: the console's decision dialog (and a bulk decision on marked proposals) asks the
rubric once. Then a colleague compares a task's output in the two newest runs of one suite (`gatepost pairwise
RUN TASK --against RUN2`, Results with both runs marked): recorded, and counted as no case's evidence.
"""

import random

from sqlite_utils import Database

from gatepost.store import rubrics
from gatepost.store.evaluation import run_task_page
from gatepost.store.flows import decide_on, may
from gatepost.store.preferences import record_preference
from gatepost.store.protocol import parse_rubric

ORDER = 60
QUESTIONS = [
    {"key": "read_diff", "question": "Did you read the whole change, not only its summary?"},
    {"key": "reversible", "question": "Can the change be undone in one step if it misbehaves?"},
    {"key": "confidence", "question": "How sure are you of this decision?", "scale": 5},
]


def _two_runs(db: Database) -> tuple[str, str, str] | None:
    """The newest run with no case and the newest older one of its suite (Results' first row and the next of its
    suite), and the newer run's first task in review order (where `t` on Results lands): what the console
    compares with those two runs marked."""
    row = db.execute(
        "SELECT a.id, b.id FROM evaluation_runs a JOIN evaluation_runs b ON b.suite_id = a.suite_id"
        " AND (b.started_at, b.id) < (a.started_at, a.id) WHERE a.case_id IS NULL AND b.case_id IS NULL"
        " ORDER BY a.started_at DESC, a.id DESC, b.started_at DESC, b.id DESC LIMIT 1").fetchone()
    if row is None:
        return None
    tasks = run_task_page(db, str(row[0]), offset=0, limit=1)["rows"]
    return (str(row[0]), str(row[1]), str(tasks[0]["task_id"])) if tasks else None


def populate(db: Database, rng: random.Random, person: str) -> str:
    rubrics.set_queue_rubric(db, "proposal", parse_rubric(QUESTIONS, "demo: proposal-review.yaml"), actor=person,
                             note="what we ask of every proposal decision from now on")
    reviewer = "chen" if person != "chen" else "ana"
    said = ["the proposals' queue asks a rubric of 3 questions"]
    for (pid,) in db.execute("SELECT id FROM proposals WHERE status = 'waiting' ORDER BY created_at, id").fetchall():
        if may(db, "proposal", pid, actor=reviewer, names=["declined"])["declined"].allowed:
            decide_on(db, "proposal", "declined", pid, actor=reviewer,
                      note="duplicates the runbook's own rollback section",
                      answers={"read_diff": "yes", "reversible": "yes", "confidence": "4"})
            said.append(f"{pid} declined answering it")
            break
    pair = _two_runs(db)
    if pair:
        newer, older, task = pair
        record_preference(db, newer, task, "candidate", actor=reviewer, against=older,
                          note="the newer run's answer names the version that breaks the API; the older one does not")
        said.append(f"a preference on {task} across runs {newer} and {older}")
    return "; ".join(said)
