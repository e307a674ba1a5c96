"""Demo part: task suites, evaluation runs with the mock executor, and proposals through the scorer gate.

Runs spread over three weeks: candidates that improve, tie, regress; weak
baselines; pass@3; llm-rubric tasks left unjudged. Proposals arrive from the
loop in every status, gated by the demo scorer (store/demo/scorer.py) so the
gate passes, does not apply, and fails closed for each of its reasons.
"""

import random
import shutil
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import yaml
from sqlite_utils import Database

from gatepost.store import cases
from gatepost.store.evaluation import (
    JudgeSettings,
    MockExecutor,
    RunSettings,
    Suite,
    evaluate,
    parse_suite,
)
from gatepost.store.flows import evaluate_case
from gatepost.store.proposals import (
    GateConfig,
    failed_gate,
    gate_proposal,
    mark_proposal,
    staleness,
)

ORDER = 30
BASE = datetime(2026, 11, 9, 9, 0, tzinfo=UTC)
SCORER = Path(__file__).with_name("scorer.py")

# --- suites: (skill_id, [(id, split, prompt, expected list | rubric str)]) -------------------------
SUITES: dict[str, list[tuple[str, str, str, list[str] | str]]] = {
    "release-notes": [
        ("rn-breaking", "tuning", "Summarise the breaking changes of release 2.4",
         ["breaking changes first", "migration step"]),
        ("rn-version", "tuning", "Write the release heading for version 2.4", ["version number in the heading"]),
        ("rn-links", "tuning", "List the pull requests of release 2.4 with links", ["link every pull request"]),
        ("rn-audience", "tuning", "Who reads these release notes?", ["operators"]),
        ("rn-tone", "tuning", "Rewrite the release notes of 2.4 in a calm tone",
         "Calm, factual, no marketing words; keeps every breaking change"),
        ("rn-empty", "tuning", "The release has no changes: what do the release notes say?",
         ["no user-facing changes"]),
        ("rn-security", "heldout", "Release 2.5 fixes a security issue: write the release notes",
         ["security fixes first"]),
        ("rn-deprecation", "heldout", "Release 2.6 deprecates the v1 API: write the release notes",
         ["deprecation notice"]),
    ],
    "incident-triage": [
        ("it-severity", "tuning", "Classify the severity of an outage affecting all users", ["sev1"]),
        ("it-page", "tuning", "Who do you page for a database outage?", ["on-call database engineer"]),
        ("it-comms", "tuning", "Draft the first status update for an outage", ["status page", "next update time"]),
        ("it-rollback", "tuning", "A deploy caused the outage: what first?", ["roll back the deploy"]),
        ("it-timeline", "tuning", "Write the incident timeline of the outage",
         "Timestamps in UTC, who did what, no blame"),
        ("it-partial", "heldout", "Classify the severity of an outage affecting one region", ["sev2"]),
        ("it-data", "heldout", "Customer data may be exposed during the outage: who do you tell?",
         ["security team"]),
    ],
    "sql-review": [
        ("sq-index", "tuning", "Review this query: SELECT * FROM orders WHERE customer_id = 7",
         ["index on customer_id"]),
        ("sq-star", "tuning", "Should the query select every column?", ["name the columns"]),
        ("sq-limit", "tuning", "The query returns a million rows: what should it add?", ["limit"]),
        ("sq-join", "heldout", "Review a join between orders and customers", ["join on the key"]),
    ],
}

# --- skill versions, as the loop wrote them --------------------------------------------------------
SKILLS = {
    "release-notes": {
        "v1": ["# Release notes", "- Write release notes in plain language.",
               "- Mention the version number in the heading."],
        "v2": ["+", "- Put breaking changes first, each with its migration step."],
        "v3": ["+", "- Link every pull request of the release.",
               "- When a release has no changes, write: no user-facing changes.",
               "- Release notes are read by operators, so write them for operators."],
        "v4": ["+", "- Put security fixes first when a release fixes a security issue."],
        "v5": ["# Release notes", "- Put breaking changes first, each with its migration step.",
               "- Link every pull request of the release.",
               "- Deprecation: add a deprecation notice for each API the release removes."],
    },
    "incident-triage": {
        "v1": ["# Incident triage", "- An outage affecting all users is sev1.",
               "- Page the on-call database engineer for a database outage."],
        "v2": ["+", "- Post the status page update with the next update time for every outage."],
        "v3": ["+", "- If a deploy caused the outage, roll back the deploy first.",
               "- An outage affecting one region is sev2."],
        "v4": ["# Incident triage", "- Every outage is sev1: page everyone.",
               "- Post the status page update with the next update time for every outage.",
               "- If a deploy caused the outage, roll back the deploy first."],
    },
    "sql-review": {
        "v1": ["# SQL review", "- Suggest an index on customer_id when a query filters on it.",
               "- Name the columns instead of select star."],
        "v2": ["+", "- Add a limit when a query returns many rows."],
        "v3": ["+", "- Join on the key columns of both tables of a join."],
    },
}

# (skill, candidate, baseline, split, pass_k, judged llm-rubric)
RUNS = [
    ("release-notes", "v2", "v1", "all", 1, True), ("release-notes", "v2", "v1", "tuning", 3, True),
    ("release-notes", "v3", "v2", "all", 1, True), ("release-notes", "v3", "v1", "tuning", 1, False),
    ("release-notes", "v4", "v3", "heldout", 1, True), ("release-notes", "v4", "v3", "all", 3, True),
    ("release-notes", "v5", "v4", "all", 1, True), ("release-notes", "v5", "v4", "heldout", 3, True),
    ("release-notes", "v1", None, "all", 1, True), ("release-notes", "v3", "v3", "tuning", 1, True),
    ("incident-triage", "v2", "v1", "all", 1, True), ("incident-triage", "v2", "v1", "tuning", 3, True),
    ("incident-triage", "v3", "v2", "all", 1, True), ("incident-triage", "v3", "v2", "heldout", 1, True),
    ("incident-triage", "v4", "v3", "all", 1, True), ("incident-triage", "v4", "v3", "heldout", 3, True),
    ("incident-triage", "v3", "v1", "tuning", 1, False), ("incident-triage", "v1", None, "all", 1, True),
    ("sql-review", "v2", "v1", "all", 1, True), ("sql-review", "v3", "v2", "all", 1, True),
    ("sql-review", "v3", "v2", "heldout", 3, True), ("sql-review", "v1", "v3", "all", 1, True),
    ("sql-review", "v3", None, "tuning", 1, True), ("sql-review", "v2", "v2", "all", 3, True),
]


def _skill_text(skill: str, version: str | None) -> str:
    if version is None:
        return ""
    lines: list[str] = []
    for name, part in SKILLS[skill].items():
        lines = lines + part[1:] if part[0] == "+" else list(part)
        if name == version:
            return "\n".join(lines) + "\n"
    raise KeyError(version)


def _suite_text(skill: str) -> str:
    tasks = []
    for task_id, split, prompt, judge in SUITES[skill]:
        block = ({"type": "contains", "expected": judge} if isinstance(judge, list)
                 else {"type": "llm-rubric", "rubric": judge, "pass_threshold": 0.7})
        task = {"id": task_id, "prompt": prompt, "judge": block, "timeout_seconds": 60}
        if split != "tuning":
            task["split"] = split
        tasks.append(task)
    return yaml.safe_dump({"skill_id": skill, "version": "1.0", "tasks": tasks}, sort_keys=False)


def _suites() -> dict[str, Suite]:
    loaded: dict[str, Suite] = {}
    for skill in SUITES:
        suite, errors = parse_suite(_suite_text(skill), path=Path(f"/srv/loop/task_suites/{skill}/task_suite.yaml"))
        if errors:
            raise ValueError(f"demo suite {skill}: {errors[0]}")
        assert suite is not None  # parse_suite gives a suite whenever it finds no problem
        loaded[skill] = suite
    return loaded


def _populate_runs(db: Database, rng: random.Random) -> int:
    suites = _suites()
    mock = MockExecutor()
    clock = BASE
    producers = ["run-52", "run-53", "run-60", "run-61", "ci-nightly", "ci-pr"]
    # nightly re-runs of the same comparisons with the other pass@k make a second week of history
    plan = RUNS + [(sk, c, b, sp, 1 if k > 1 else 3, j) for sk, c, b, sp, k, j in RUNS]
    for skill, cand, base, split, pass_k, judged in plan:
        clock += timedelta(hours=rng.randint(2, 9), minutes=rng.randint(0, 59))
        evaluate(db, suites[skill], candidate_text=_skill_text(skill, cand),
                 candidate_path=f"skills/{skill}/SKILL.md@{cand}", baseline_text=_skill_text(skill, base),
                 baseline_path=f"skills/{skill}/SKILL.md@{base}" if base else None,
                 settings=RunSettings(executor=mock, judges=JudgeSettings(mock=judged), pass_k=pass_k),
                 split=split, actor=rng.choice(producers), at=clock.strftime("%Y-%m-%dT%H:%M:%S.000000Z"))
    return len(plan)


# --- proposals ---------------------------------------------------------------------------------
def _proc(title: str, purpose: str | None, steps: list[str], extra: str = "") -> str:
    body = f"# {title}\n\n"
    if purpose:
        body += f"## Purpose\n{purpose}\n\n"
    body += "## Steps\n" + "".join(f"- {s}\n" for s in steps) + extra
    return body


PROPOSALS = [
    # (path, kind, operation, title, confidence, rationale, before, after, gate plan, marks)
    ("procedures/release.md", "procedure", "update", "Release Procedure", 0.91,
     "Capture the release smoke-test checklist.",
     "# Release Procedure\n\n## Steps\n- Run tests\n",
     _proc("Release Procedure", "Ship a verified build.", ["Run the full local gate.", "Deploy to staging.",
                                                           "Check /admin/status.", "Deploy to production."]),
     ["structure"], []),
    ("procedures/deploy-rollback.md", "procedure", "create", "Deploy Rollback", 0.84,
     "Three incidents this month rolled back by hand; write the steps down.", "",
     _proc("Deploy Rollback", "Undo a bad deploy in under five minutes.",
           ["Find the last good release tag.", "Run the deploy job with that tag.", "Watch error rates for 10 min."]),
     ["structure"], [("accepted", "ana", "Matches what we did in INC-311; thanks.")]),
    ("procedures/oncall-handover.md", "procedure", "update", "On-call Handover", 0.62,
     "Handover notes were skipped twice; add a checklist.",
     "# On-call Handover\n\n## Steps\n- Tell the next person what is open\n",
     "# On-call Handover\n\n## Steps\n- Tell the next person what is open\n- TODO: list the dashboards\n",
     ["structure"], [("needs_changes", "chen", "Fill in the dashboards instead of the TODO.")]),
    ("_rules/no-secrets.md", "rule", "update", "Never print secrets", 0.77,
     "Agents pasted tokens into tickets; make the rule stricter.",
     "# Secrets\n\nDo not print secrets.\n",
     "# Secrets\n\nNever print, log or paste a secret, a token or a password. Mask them as ****.\n",
     ["structure"], [("accepted", "chen", "Stricter and still short.")]),
    ("_rules/ask-before-delete.md", "rule", "update", "Relax the delete confirmation", 0.55,
     "Confirmations slow the loop down on scratch folders.",
     "# Deleting\n\nAlways ask before deleting files.\n",
     "# Deleting\n\nDelete scratch files without asking.\n",
     ["reject"], [("declined", "ana", "The gate is right: this weakens a safety rule.")]),
    ("procedures/db-migration.md", "procedure", "create", "Database Migration", 0.7,
     "Write down the migration order used last sprint.", "",
     _proc("Database Migration", "Migrate without downtime.", ["Add the column.", "Backfill.", "Switch reads."]),
     ["crash", "structure"], []),
    ("procedures/incident-comms.md", "procedure", "update", "Incident Communications", 0.8,
     "Status updates were late; add a cadence.",
     "# Incident Communications\n\n## Steps\n- Post an update\n",
     _proc("Incident Communications", "Keep users informed.", ["Post an update every 30 minutes.",
                                                               "Name the next update time."]),
     ["hang"], []),
    ("procedures/backup-restore.md", "procedure", "update", "Backup Restore", 0.73,
     "Restore drill found a missing step.",
     _proc("Backup Restore", "Restore last night's backup.", ["Fetch the snapshot.", "Restore."]),
     _proc("Backup Restore", "Restore last night's backup.", ["Fetch the snapshot.", "Check its checksum.",
                                                              "Restore.", "Run the smoke queries."]),
     ["garbage"], [("needs_changes", "ana", "Gate could not score it; re-run once the scorer is fixed.")]),
    ("_rules/tone.md", "rule", "update", "Tone of replies", 0.66,
     "Users found replies curt.",
     "# Tone\n\nBe brief.\n", "# Tone\n\nBe brief and kind; never sarcastic.\n",
     ["nopassed"], []),
    ("procedures/cert-renewal.md", "procedure", "update", "Certificate Renewal", 0.88,
     "Renewal steps reordered after the expiry scare.",
     _proc("Certificate Renewal", "Never let a certificate expire.", ["Renew.", "Deploy.", "Verify expiry date."]),
     _proc("Certificate Renewal", None, ["Renew 30 days early.", "Deploy.", "Verify expiry date."]),
     ["structure"], [("declined", "chen", "Dropping the Purpose section lowers the score; keep it.")]),
    ("_rules/citations.md", "rule", "update", "Cite sources", 0.81,
     "Answers without sources were flagged by reviewers.",
     "# Sources\n\nPrefer citing sources.\n", "# Sources\n\nAlways cite a source for a factual claim.\n",
     ["dropping"], []),
    ("notes/team-offsite.md", "note", "create", "Team offsite notes", 0.5,
     "Keep the offsite decisions.", "", "# Offsite\n\n- Move standup to 10:00\n",
     ["structure"], [("accepted", "ana", "Notes are outside the gate; fine to keep.")]),
    ("playbooks/customer-escalation.md", "playbook", "create", "Customer Escalation", 0.69,
     "Escalations went to the wrong queue twice.", "",
     "# Customer Escalation\n\n1. Open a P1 ticket.\n2. Page the account owner.\n",
     ["structure"], []),
    ("procedures/access-review.md", "procedure", "update", "Quarterly Access Review", 0.79,
     "Auditors asked for the review steps.",
     "# Access Review\n\n## Steps\n- Export the user list\n",
     _proc("Access Review", "Remove access nobody needs.", ["Export the user list.", "Ask each owner.",
                                                            "Revoke what nobody claims."]),
     ["disabled", "structure"], []),
    ("procedures/feature-flags.md", "procedure", "update", "Feature Flag Cleanup", 0.6,
     "Stale flags pile up; add a monthly sweep.",
     _proc("Feature Flag Cleanup", "Keep flags few.", ["List flags older than 90 days."]),
     _proc("Feature Flag Cleanup", "Keep flags few.", ["List flags older than 90 days.", "Remove them."]),
     ["strict"], []),
    ("_rules/shell.md", "rule", "create", "Shell commands", 0.58,
     "Agents ran rm -rf in the wrong folder.", "",
     "# Shell\n\nNever run rm -rf outside the scratch folder; prefer trash.\n",
     ["missing"], []),
    ("procedures/postmortem.md", "procedure", "update", "Postmortem", 0.86,
     "Postmortems missed action owners.",
     _proc("Postmortem", "Learn from incidents.", ["Write the timeline."]),
     _proc("Postmortem", "Learn from incidents.", ["Write the timeline.", "Name an owner per action item.",
                                                   "Review in the weekly meeting."]),
     ["structure"], [("needs_changes", "chen", "Add a due date per action."),
                     ("accepted", "chen", "Due dates are in the team template; accepting.")]),
    ("procedures/vendor-outage.md", "procedure", "create", "Vendor Outage", 0.74,
     "The payment provider was down for an hour; capture what worked.", "",
     _proc("Vendor Outage", "Degrade gracefully when a vendor is down.", ["Switch the banner on.",
                                                                          "Queue payments for retry."]),
     ["structure"], []),
]


def _config(plan: str) -> GateConfig:
    # As an ai-memory config beside its scorer would say it: the script relative to the config's folder, so the
    # stored command (shown on screen) is the same from any checkout; isolated, no site: stdlib only.
    python = "python3" if shutil.which("python3") else sys.executable
    command = f"{python} -I -S {SCORER.name} "
    common: dict[str, Any] = {"enabled": True, "targets": ["_rules", "procedures"], "timeout_secs": 30.0, "min_delta": 0.0,
              "source": "/srv/loop/ai-memory.toml", "folder": str(SCORER.parent)}
    if plan == "disabled":
        return GateConfig(**{**common, "enabled": False, "command": command + "structure"})
    if plan == "hang":
        return GateConfig(**{**common, "command": command + "hang", "timeout_secs": 0.3})
    if plan == "strict":
        return GateConfig(**{**common, "command": command + "structure", "min_delta": 0.5})
    if plan == "missing":
        return GateConfig(**{**common, "command": "/opt/ai-memory/bin/score-proposal --strict"})
    return GateConfig(**{**common, "command": command + plan})


REVISIONS = [
    "- Note the change in the changelog.\n",
    "- Tell the on-call channel when done.\n",
]
LATER_MARKS = [
    (None, None, None), (None, None, None), (None, None, None), (None, None, None),
    ("accepted", "ana", "Reviewed the diff; the gate agrees."),
    ("accepted", "chen", "Small and clear."),
    ("declined", "chen", "Duplicates the earlier proposal that we accepted."),
    ("needs_changes", "ana", "Split this into two proposals, one per concern."),
    ("needs_changes", "chen", "Reword the new step; it reads as optional."),
]


def _rounds() -> Iterator[tuple[str, str, str, str, float, str, str, str, list[str],
                                 list[tuple[str, str, str]] | None]]:
    """The loop proposes again on later iterations: the same paths with one more line each time."""
    marks: list[tuple[str, str, str]] | None
    for round_no in range(len(REVISIONS) + 1):
        for path, kind, op, title, confidence, rationale, before, after, plans, marks in PROPOSALS:
            if round_no:
                plans = ["structure" if p == "hang" else p for p in plans]  # the timeout was raised after that
                after = after + "".join(REVISIONS[:round_no])
                rationale = f"{rationale} (iteration {round_no + 1})"
                marks = None
            yield path, kind, op, title, confidence, rationale, before, after, plans, marks


def _accepted_rival(db: Database, pid: str) -> bool:
    """Whether another proposal for the same path and base was accepted already (the store refuses both)."""
    row = db.execute("SELECT path, before_body FROM proposals WHERE id = ?", [pid]).fetchone()
    return db.execute("SELECT 1 FROM proposals WHERE path = ? AND COALESCE(before_body, '') = ? AND id != ?"
                      " AND status = 'accepted'", [row[0], row[1] or "", pid]).fetchone() is not None


def _populate_proposals(db: Database, rng: random.Random) -> tuple[int, int]:
    clock = BASE + timedelta(days=2)
    gates = 0
    count = 0
    for path, kind, op, title, confidence, rationale, before, after, plans, marks in _rounds():
        count += 1
        clock += timedelta(hours=rng.randint(1, 7), minutes=rng.randint(0, 59))
        if marks is None:
            status, who, note = rng.choice(LATER_MARKS)
            # a later mark with a status always names its reviewer and carries a note
            marks = [cast(tuple[str, str, str], (status, who, note))] if status else []
        payload = {"path": path, "kind": kind, "operation": op, "edit_mode": rng.choice(["full_page", "patch"])
                   if op == "update" else "full_page", "title": title, "confidence": confidence,
                   "rationale": rationale, "before_body": before, "after_body": after,
                   "expected_base_body_sha256": None}
        pid = None
        for plan in plans:
            clock += timedelta(minutes=rng.randint(2, 50))
            result = gate_proposal(db, _config(plan), payload, actor=rng.choice(["ci-nightly", "run-60", "run-61"]),
                                   source=f"/srv/loop/proposals/{path.replace('/', '-')}.json",
                                   at=clock.strftime("%Y-%m-%dT%H:%M:%S.000000Z"))
            pid = result["proposal_id"]
            gates += 1
        assert pid is not None  # every proposal has at least one gate plan, so the gate recorded it
        for status, who, note in marks:
            clock += timedelta(hours=rng.randint(1, 9), minutes=rng.randint(0, 59))
            at = clock.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
            if status == "accepted" and staleness(db, pid) is None and _accepted_rival(db, pid):
                # another version of this path was accepted on the same base: this one must be rebased first
                status, note = "needs_changes", "Another version of this file was accepted first; rebase on it."
            override = ("read the diff myself: the gate failed on the scorer, not on the change"
                        if status == "accepted" and failed_gate(db, pid) else None)
            mark_proposal(db, pid, status, actor=who, note=note, at=at, override_gate=override)
    return count, gates


# cases whose evidence comes from gatepost's own evaluator: (id, title, path, skill, candidate, baseline)
CASE_EVALUATIONS = [
    ("case-e01", "Release notes skill adds breaking-change and link rules", "skills/release-notes/SKILL.md",
     "release-notes", "v3", "v1"),
    ("case-e02", "Loop moves the incident triage rules into the global rules", "_rules/incident-triage.md",
     "incident-triage", "v3", "v1"),
    ("case-e03", "SQL review skill drops the limit and join rules", "skills/sql-review/SKILL.md",
     "sql-review", "v1", "v3"),
]


def _populate_case_evaluations(db: Database, rng: random.Random) -> int:
    """`gatepost case evaluate`, as a loop's independent checker runs it: guard, two tuning runs, held-out."""
    suites = _suites()
    clock = BASE + timedelta(days=3)  # mid-history: the newest runs are the nightly standalone ones
    for case_id, title, path, skill, cand, base in CASE_EVALUATIONS:
        clock += timedelta(hours=rng.randint(2, 8))
        at = clock.strftime("%Y-%m-%dT%H:%M:%SZ")
        cases.import_case(db, {
            "protocol": "eval.gated_change/1", "id": case_id, "title": title, "author": "run-41",
            "candidate": {"path": path, "content": _skill_text(skill, cand),
                          "basis": {"baseline": f"{skill}@{base}", "question_set": f"{skill}-suite",
                                    "data_revision": "d-2026-11", "design": f"design-{skill}-1"}},
            "independent": {"different_agent_run": ["run-53", "ana"]},
        }, actor="run-41", at=at)
        # these suites are too small for the default rule to decide anything (the noise part shows that); under
        # the strict rule, a visible choice the case names, each result the evaluator records is shown (mock
        # evidence never counts under either rule)
        evaluate_case(db, case_id, suites[skill], settings=RunSettings(executor=MockExecutor(), decision_rule="strict"),
                      producer="run-53", surface=["skills/*"], baseline_text=_skill_text(skill, base),
                      baseline_path=f"skills/{skill}/SKILL.md@{base}", at=at)
    return len(CASE_EVALUATIONS)


def populate(db: Database, rng: random.Random, person: str) -> str:
    runs = _populate_runs(db, rng)
    evaluated = _populate_case_evaluations(db, rng)
    proposals, gates = _populate_proposals(db, rng)
    return (f"{len(SUITES)} suites, {runs + 3 * evaluated} evaluation runs ({evaluated} cases evaluated), "
            f"{proposals} proposals ({gates} gate results)")
