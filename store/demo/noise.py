"""Demo part: evidence people can weigh: a delta inside the noise, a decided one, flaky tasks.

- `ops-policy` (7 tasks, decision_rule significant): the candidate names one more policy than its
  baseline; +14 pp on 7 tasks is noise, so case-n01 (evaluated under the suite's significant rule)
  records no tuning_comparison and says why, and case-n02 (the same change under strict) is
  reproduced with a warning that it rests on noise.
- `oncall-policy` (12 tasks): the candidate names every policy, its baseline two; decided at
  alpha 0.05, so case-n03 is reproduced under significant too. Its runs are pass@3 with every
  attempt run: the mock forgets a line now and then, so some tasks are flaky and pass^3 sits
  beside pass@3.
"""

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from sqlite_utils import Database

from gatepost.store import cases
from gatepost.store.evaluation import MockExecutor, RunSettings, Suite, evaluate, parse_suite
from gatepost.store.flows import evaluate_case

ORDER = 40
BASE = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)

POLICIES = [
    ("backups", "restore drill every month"), ("passwords", "rotate them quarterly"),
    ("laptops", "encrypt the disk"), ("vendors", "sign the data agreement"),
    ("outages", "post on the status page"), ("hiring", "two interviewers minimum"),
    ("expenses", "receipts within thirty days"), ("travel", "book through the portal"),
    ("access", "review grants each quarter"), ("logging", "keep ninety days"),
    ("secrets", "store them in the vault"), ("releases", "freeze on fridays"),
]


def _suite(skill: str, policies: list[tuple[str, str]], rule: str | None) -> Suite:
    data: dict[str, Any] = {"skill_id": skill, "version": "1.0",
                  "tasks": [{"id": f"{skill}-{topic}", "prompt": f"Explain our policy for {topic}.",
                             "judge": {"type": "contains", "expected": [phrase]}} for topic, phrase in policies]}
    if rule:
        data["decision_rule"] = rule
    text = yaml.safe_dump(data, sort_keys=False)
    suite, errors = parse_suite(text, path=Path(f"/srv/loop/task_suites/{skill}/task_suite.yaml"))
    if errors or suite is None:
        raise ValueError(f"demo suite {skill}: {errors[:1]}")
    return suite


def _skill(title: str, policies: list[tuple[str, str]]) -> str:
    return f"# {title}\n" + "".join(f"- {topic}: {phrase}\n" for topic, phrase in policies)


def _case(db: Database, case_id: str, title: str, skill: str, content: str, at: str) -> None:
    cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": case_id, "title": title, "author": "run-41",
        "candidate": {"path": f"skills/{skill}/SKILL.md", "content": content,
                      "basis": {"baseline": f"{skill}@v1", "question_set": f"{skill}-suite",
                                "data_revision": "d-2026-11", "design": f"design-{skill}-1"}},
        "independent": {"different_agent_run": ["run-53", "ana"]},
    }, actor="run-41", at=at)


def populate(db: Database, rng: random.Random, person: str) -> str:
    mock = MockExecutor()
    noisy = _suite("ops-policy", POLICIES[:7], "significant")
    decided = _suite("oncall-policy", POLICIES, None)
    clock = BASE

    def at() -> str:
        nonlocal clock
        clock += timedelta(hours=rng.randint(1, 5), minutes=rng.randint(0, 59))
        return clock.strftime("%Y-%m-%dT%H:%M:%S.000000Z")

    noisy_base, noisy_cand = _skill("Ops policy", POLICIES[:3]), _skill("Ops policy", POLICIES[:4])
    decided_base, decided_cand = _skill("On-call policy", POLICIES[:2]), _skill("On-call policy", POLICIES)
    plan = [
        ("case-n01", "Ops policy names the laptop rule (judged by the significant rule)", "ops-policy",
         noisy, noisy_cand, noisy_base, None),
        ("case-n02", "Ops policy names the laptop rule (judged by the strict rule)", "ops-policy",
         noisy, noisy_cand, noisy_base, "strict"),
        ("case-n03", "On-call policy names every policy", "oncall-policy", decided, decided_cand, decided_base,
         "significant"),
    ]
    for case_id, title, skill, suite, content, base, rule in plan:
        when = at()
        _case(db, case_id, title, skill, content, when)
        evaluate_case(db, case_id, suite, settings=RunSettings(executor=mock, decision_rule=rule), producer="run-53",
                      surface=["skills/*"], baseline_text=base, baseline_path=f"skills/{skill}/SKILL.md@v1",
                      at=when)
    # then the nightly runs (the newest): a small delta on 7 tasks, a large one on 12 (pass@3, every attempt)
    for _ in range(2):
        evaluate(db, noisy, candidate_text=noisy_cand, candidate_path="skills/ops-policy/SKILL.md@v2",
                 baseline_text=noisy_base, baseline_path="skills/ops-policy/SKILL.md@v1",
                 settings=RunSettings(executor=mock), actor="ci-nightly", at=at())
        evaluate(db, decided, candidate_text=decided_cand, candidate_path="skills/oncall-policy/SKILL.md@v2",
                 baseline_text=decided_base, baseline_path="skills/oncall-policy/SKILL.md@v1",
                 settings=RunSettings(executor=mock, pass_k=3, every_attempt=True), actor="ci-nightly", at=at())
    return "2 noise suites (a delta inside the noise, a decided one, flaky tasks), 3 cases weighed"
