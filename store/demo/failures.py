"""Demo part: a reviewed failure becomes a task. A colleague drafts the first failed task of the first suite run
into its suite (`gatepost suite add-task`, S on Results): a case for the demo's person, who owns the suite, with
a comment that mentions them. The suite itself changes only if that case goes through the gate."""

import random

from sqlite_utils import Database

from gatepost.store.failures import add_to_suite

ORDER = 55


def populate(db: Database, rng: random.Random, person: str) -> str:
    row = db.execute(
        "SELECT r.id, t.task_id, s.yaml, s.skill_id FROM evaluation_runs r JOIN task_suites s ON s.id = r.suite_id"
        " JOIN task_results t ON t.run_id = r.id AND t.side = 'candidate' AND t.passed = 0"
        " ORDER BY r.event_seq, t.id LIMIT 1").fetchone()
    if row is None:
        return ""
    run_id, task_id, text, skill = row
    author = "chen" if person != "chen" else "bruno"
    made = add_to_suite(db, f"task_suites/{skill}/task_suite.yaml", owner=person, actor=author, run_id=run_id,
                        task_id=task_id, suite_text=text,
                        note="the release notes must say which version breaks the API; this run skipped it")
    return f"1 failure drafted as task {made['task']['id']} (case {made['case_id']})"
