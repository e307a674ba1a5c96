"""Demo part: what people say beside the evidence — a rubric answered with a decision, preferences between
two outputs.

Two cases of eval.gated_change/2 (the revision whose decisions answer the reviewers' rubric and which lists
`preference` evidence for the claim people.prefer_candidate) are evaluated like the others. On the first, a
reviewer compares a task's outputs side by side and prefers the candidate's: it counts, the claim turns
TRUE; then a colleague closes it inconclusive, answering the rubric. The second stays open, for the
console's decision dialog to ask the rubric. On the newest standalone run (no case) a preference is recorded
and counts for nothing: no protocol lists it there.
"""

import random
from datetime import timedelta

from sqlite_utils import Database

from gatepost.store import cases
from gatepost.store.demo.suites import BASE, _skill_text, _suites
from gatepost.store.evaluation import MockExecutor, RunSettings, run_task_page
from gatepost.store.flows import decide, evaluate_case
from gatepost.store.preferences import record_preference

ORDER = 45
PROTOCOL = "eval.gated_change/2"
# (id, title, path, skill, candidate, baseline)
CASES = [
    ("case-r01", "Release notes skill writes for operators and links every pull request",
     "guides/release-notes.md", "release-notes", "v3", "v2"),
    ("case-r02", "Incident triage skill rolls back a bad deploy first", "guides/incident-triage.md",
     "incident-triage", "v3", "v2"),
]


def _first(db: Database, sql: str, args: list[str]) -> str | None:
    row = db.execute(sql, args).fetchone()
    return str(row[0]) if row else None


def populate(db: Database, rng: random.Random, person: str) -> str:
    suites = _suites()
    clock = BASE + timedelta(days=5)
    reviewer = "chen" if person != "chen" else "dara"
    colleague = "bruno" if person != "bruno" else "ana"
    for case_id, title, path, skill, cand, base in CASES:  # the shared rng untouched: later parts stay as they were
        clock += timedelta(hours=3)
        at = clock.strftime("%Y-%m-%dT%H:%M:%SZ")
        cases.import_case(db, {
            "protocol": PROTOCOL, "id": case_id, "title": title, "author": "run-41",
            "candidate": {"path": path, "content": _skill_text(skill, cand),
                          "basis": {"baseline": f"{skill}@{base}", "question_set": f"{skill}-suite",
                                    "data_revision": "d-2026-11", "design": f"design-{skill}-1"}},
            "independent": {"different_agent_run": ["run-53", "ana"]},
        }, actor="run-41", at=at)
        evaluate_case(db, case_id, suites[skill], settings=RunSettings(executor=MockExecutor(), decision_rule="strict"),
                      producer="run-53", surface=["guides/*"], baseline_text=_skill_text(skill, base),
                      baseline_path=f"skills/{skill}/SKILL.md@{base}", at=at)
    preferred = 0
    first, _second = (c[0] for c in CASES)
    run = _first(db, "SELECT id FROM evaluation_runs WHERE case_id = ? ORDER BY started_at, id", [first])
    if run:
        task = _first(db, "SELECT task_id FROM task_results WHERE run_id = ? AND side = 'baseline' ORDER BY task_id",
                      [run])
        if task:
            record_preference(db, run, task, "candidate", actor=reviewer,
                              note="the candidate's notes link each pull request; the baseline's list none")
            preferred += 1
    decide(db, first, "inconclusive", actor=colleague,
           note="mock runs only: the comparisons settle nothing; a real nightly decides it",
           answers={"read_outputs": "yes", "risk": "2"})
    # the newest run (the first Results shows) and its first task in review order: the pairwise view opens on it
    standalone = _first(db, "SELECT id FROM evaluation_runs WHERE case_id IS NULL AND baseline_path IS NOT NULL "
                            "ORDER BY started_at DESC, id DESC", [])
    tasks = run_task_page(db, standalone, offset=0, limit=1)["rows"] if standalone else []
    if standalone and tasks:
        record_preference(db, standalone, tasks[0]["task_id"], "tie", actor=colleague,
                          note="both answers miss the same point: neither is better")
        preferred += 1
    return f"{len(CASES)} cases under {PROTOCOL} (one decided with its rubric answered), {preferred} preferences"
