"""Demo part: a loop's working day, through the functions `gatepost loop/case new/case evaluate/case applied`
run.

The store's person registers the `skill-writer` loop and records what is current at
`skills/release-notes/SKILL.md`; the loop (run-41) makes a case from a file; its independent evaluator
(run-53) evaluates it with the loop's registered settings; ana reviews the design and keeps it; the loop
records where it landed. A second iteration written on the old base is left stale (it says why), and a
third, made on the new current content, waits for ana. A second loop on the same path (`notes-tuner`, run-60)
makes a case on that same base and ana keeps it: it is kept and not landed yet, so keeping skill-writer's
third case is refused as `pending` (one landing per base) until it lands.
"""

import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from sqlite_utils import Database

from gatepost.store import cases, flows, loops
from gatepost.store.evaluation import Attempt, RunSettings, Suite, parse_suite

from .suites import BASE

ORDER = 40
LOOP = "skill-writer"
SECOND_LOOP = "notes-tuner"
PATH = "skills/release-notes/SKILL.md"
DESIGN = "design-release-notes-2"
SUITE_PATH = Path("/srv/loop/task_suites/release-notes-loop/task_suite.yaml")
# (task id, split, prompt, expected answer, the skill word that makes the demo's AI give it). Enough tasks for
# the default decision rule to decide: a rule that wins 6 of 6 tuning tasks is decided at alpha 0.05
# (p = 0.031), and 12 held-out tasks can detect the suite's max_regression of 50 pp.
RELEASES = [f"2.{minor}" for minor in range(4, 10)]
TASKS = [
    *((f"rl-breaking-{r}", "tuning", f"Write the notes of release {r}, which renames a config key",
       "renamed config key listed first", "breaking") for r in RELEASES),
    *((f"rl-links-{r}", "tuning", f"Write the notes of release {r} (12 pull requests)", "each change with its PR",
       "link") for r in RELEASES),
    ("rl-plain", "tuning", "Write the notes of release 2.6 for operators", "plain words for operators", "plain"),
    *((f"rl-empty-{r}", "heldout", f"Release {r}.1 has no user-facing change: write its notes",
       "nothing changed for users", "plain") for r in [*RELEASES, *(f"3.{minor}" for minor in range(6))]),
]
MAX_REGRESSION = 0.5
SKILL = {
    "v1": "# Release notes\n- Write release notes in plain language.\n",
    "v2": "# Release notes\n- Write release notes in plain language.\n- Put breaking changes first.\n",
    "v2b": "# Release notes\n- Write release notes in plain language.\n- Keep them under 200 words.\n",
    "v3": "# Release notes\n- Write release notes in plain language.\n- Put breaking changes first.\n"
          "- Link every pull request.\n",
    "v4": "# Release notes\n- Write release notes in plain language.\n- Put breaking changes first.\n"
          "- Link each change to its pull request.\n",
}


class DemoExecutor:
    """The demo's stand-in AI: it gives a task's answer when the skill holds the rule that leads to it (it
    paraphrases, so the candidate never contains the expected answer itself: the guard stays clean).

    It plays a real executor (not mock), so the loop's day can reach "kept": mock evidence never counts,
    and the demo's other parts show mock evaluations that settle nothing."""

    mock = False
    identity = command = "demo:stand-in-ai"

    def run(self, task_id: str, prompt: str, skill: str, *, timeout: float, attempt: int = 1) -> Attempt:
        answer = next((expected for tid, _s, _p, expected, word in TASKS if tid == task_id and word in skill.lower()),
                      "release notes")
        return Attempt(output=f"{prompt}\n{answer}\n", reason=None, duration_ms=1, mock=False)


def _suite() -> Suite:
    tasks = [{"id": tid, "prompt": prompt, "judge": {"type": "contains", "expected": [expected]},
              **({"split": split} if split != "tuning" else {})} for tid, split, prompt, expected, _w in TASKS]
    text = yaml.safe_dump({"skill_id": "release-notes", "version": "1.0", "max_regression": MAX_REGRESSION,
                           "tasks": tasks}, sort_keys=False)
    suite, errors = parse_suite(text, path=SUITE_PATH)
    if errors or suite is None:
        raise ValueError(f"demo loop suite: {errors[0]}")
    return suite


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def _evaluate(db: Database, case_id: str, suite: Suite, loop: dict[str, Any], moment: datetime) -> None:
    """What `gatepost case evaluate ID --producer run-53` does with a loop's case: the loop's settings."""
    current = loops.current_of(db, PATH)
    flows.evaluate_case(db, case_id, suite, settings=RunSettings(executor=DemoExecutor()),
                        producer=loop["evaluators"][0], surface=loop["surface"],
                        baseline_text=current["content"] if current else "", baseline_path=f"{PATH}@current",
                        actor=loop["evaluators"][0], at=_at(moment))


def populate(db: Database, rng: random.Random, person: str) -> str:
    suite = _suite()
    clock = BASE + timedelta(days=9, hours=8)
    settings = {"surface": [PATH], "paths": [PATH, "_rules/release-notes/*"],
                "suite_path": str(suite.path), "suite_hash": suite.id, "baseline": loops.BASELINE_CURRENT,
                "baseline_path": None, "baseline_hash": None, "executor": DemoExecutor.command, "mock": False,
                "evaluators": ["run-53"], "reviewers": ["dara"], "design": DESIGN, "data_revision": "d-2026-11",
                "decision_rule": suite.decision_rule}
    loop = loops.add_loop(db, LOOP, settings, actor=person, note="the release-notes loop", at=_at(clock))
    clock += timedelta(minutes=5)
    loops.set_current(db, PATH, SKILL["v1"], ref="a1b2c3d", actor=person, at=_at(clock))
    # iteration 1: made, evaluated, reviewed, kept, applied
    clock += timedelta(hours=1)
    first = flows.new_case(db, LOOP, PATH, SKILL["v2"], actor="run-41",
                           title="Release notes: breaking changes first", case_id="case-loop-01", at=_at(clock))
    # iteration 1b: another rewrite on the same (old) base, before the first lands
    clock += timedelta(minutes=20)
    flows.new_case(db, LOOP, PATH, SKILL["v2b"],
                   actor="run-41", title="Release notes: keep them short", case_id="case-loop-02", at=_at(clock))
    clock += timedelta(minutes=30)
    _evaluate(db, first["case_id"], suite, loop, clock)
    clock += timedelta(minutes=40)
    cases.add_evidence(db, first["case_id"], kind="design_review", result="passed", producer="dara", about=DESIGN,
                       actor="dara", at=_at(clock))  # the loop's design reviewer; ana, who decides, records nothing
    clock += timedelta(minutes=10)
    view = cases.case_view(db, first["case_id"], actor="ana")
    outcome = "kept" if view["outcomes"]["kept"]["allowed"] else "inconclusive"
    flows.decide(db, first["case_id"], outcome, actor="ana", note="Breaking changes first reads better.",
                 based_on_seq=view["last_seq"], at=_at(clock))
    landed = 0
    if outcome == "kept":
        clock += timedelta(minutes=15)
        flows.record_case_applied(db, first["case_id"], ref="e4f5a6b", actor="run-41", at=_at(clock))
        landed = 1
    # iteration 2: made on the new current content, evaluated, waiting for ana
    clock += timedelta(hours=2)
    third = flows.new_case(db, LOOP, PATH, SKILL["v3"], actor="run-41",
                           title="Release notes: link every pull request", case_id="case-loop-03", at=_at(clock))
    clock += timedelta(minutes=25)
    _evaluate(db, third["case_id"], suite, loop, clock)
    # a second loop on the same path, on the same base: kept first, so the third case waits (pending)
    clock += timedelta(minutes=5)
    second = loops.add_loop(db, SECOND_LOOP, dict(settings, paths=[PATH]), actor=person,
                            note="a second loop tuning the same skill", at=_at(clock))
    clock += timedelta(minutes=10)
    fourth = flows.new_case(db, SECOND_LOOP, PATH, SKILL["v4"], actor="run-60",
                            title="Release notes: link each change (notes-tuner)", case_id="case-loop-04", at=_at(clock))
    clock += timedelta(minutes=25)
    _evaluate(db, fourth["case_id"], suite, second, clock)
    clock += timedelta(minutes=20)
    cases.add_evidence(db, fourth["case_id"], kind="design_review", result="passed", producer="dara", about=DESIGN,
                       actor="dara", at=_at(clock))
    clock += timedelta(minutes=5)
    view = cases.case_view(db, fourth["case_id"], actor="ana")
    kept = 0
    if view["outcomes"]["kept"]["allowed"] and not cases.staleness(db, cases.get_case(db, fourth["case_id"])):
        flows.decide(db, fourth["case_id"], "kept", actor="ana", note="Links help; land it before the other.",
                     based_on_seq=view["last_seq"], at=_at(clock))
        kept = 1
    return (f"2 loops ({LOOP}, {SECOND_LOOP}) on {PATH}: 4 cases, {landed} kept and applied, "
            f"{kept} kept not landed, 1 stale")
