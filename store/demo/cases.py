"""Demo part: eval.gated_change/1 cases in every state, built through store.cases only.

Open cases a reviewer can decide now (keep, reject, propose), open ones that
wait (evidence missing, stale after a basis move, from a run that is not
independent), and closed ones in every outcome, decided by different people.
"""

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TypedDict

from sqlite_utils import Database

from gatepost.store import cases, flows

ORDER = 20
BASE = datetime(2026, 11, 16, 8, 0, tzinfo=UTC)
AUTHORS = ["run-41", "run-60"]
CHECKERS = ["run-52", "run-53", "run-61", "ci-nightly"]


def _topics(rng: random.Random) -> list[tuple[str, str, object]]:
    cap = rng.choice([8, 10, 12, 16])
    return [
        ("procedures/release.md", "Release procedure adds smoke checks",
         "# Release\n\n1. Tag the release.\n2. Run the smoke checks (login, search, checkout).\n"
         "3. Announce only after the smoke checks pass.\n"),
        ("procedures/incident.md", "Incident guidance: page the owner before rolling back",
         "# Incidents\n\nPage the owning team first. Roll back only when the owner agrees or after 15 minutes\n"
         "without an answer. Write the timeline as you go.\n"),
        ("skills/summarize/SKILL.md", "Summaries cite their sources inline",
         "## Summaries\n\nEvery claim in a summary carries its source inline as `Source: <url>`.\n"
         "Prefer three bullets to a paragraph.\n"),
        ("skills/triage/SKILL.md", "Triage asks for a reproduction first",
         "## Triage\n\nBefore labelling a bug, ask for the smallest reproduction. Label `needs-repro` when none.\n"),
        ("config/tools.yaml", f"Raise the tool-call cap to {cap}",
         {"max_tool_calls": cap, "timeout_secs": 60, "tools": ["search", "read_file", "run_tests"]}),
        ("config/tools.yaml", "Lower the search tool's timeout to 20 s",
         {"max_tool_calls": 10, "timeout_secs": 20, "tools": ["search", "read_file"]}),
        ("guidance/code-review.md", "Code review guidance: test names before style",
         "Review the test names first: they say what the change claims. Style comes last.\n"),
        ("guidance/answers.md", "Answers lead with the result, then the reasoning",
         "Lead with the answer in one sentence. Then give the reasoning, then caveats.\n"),
        ("guidance/sql.md", "SQL guidance: page with keyset, not OFFSET, past 10k rows",
         "When a list can pass 10,000 rows, page by key (WHERE id < ?) instead of OFFSET.\n"),
        ("skills/research/SKILL.md", "Research skill keeps a [sources] list at the end",
         "## Research\n\nEnd with a `[sources]` list: one `[link=...]` per line, newest first.\n"
         "Never write [bold] markup into answers.\n"),
        ("guidance/tone.md", "Shorter apologies in support answers",
         "Apologise once, in one sentence, then fix the problem.\n"),
        ("procedures/backup.md", "Backups: verify a restore weekly",
         "# Backups\n\nEvery Monday, restore last night's backup into staging and run the checks.\n"),
    ]


OUTSIDE: list[tuple[str, str, object]] = [
    ("prompts/system.md", "Loop rewrites the system prompt's refusal rules",
     "You are a helpful assistant. You may run any shell command the user asks for.\n"),
    ("config/permissions.yaml", "Loop grants itself write access to deploy keys",
     {"deploy_keys": "write", "secrets": "read"}),
    ("prompts/system.md", "Loop removes the 'ask before deleting' rule",
     "You are a helpful assistant. Delete files when it helps.\n"),
    ("config/permissions.yaml", "Loop widens network access to every host",
     {"network": {"allow": ["*"]}}),
]


class _Evidence(TypedDict):
    """One check of a demo case: add_evidence's keywords."""

    kind: str
    result: str
    producer: str
    about: str
    at: str


DESIGN_REVIEWERS = ["chen", "dara"]
GOOD = {"guard_check": "clean", "design_review": "passed", "tuning_comparison": "reproduced",
        "heldout_comparison": "held"}

# (scenario, how many)
PLAN = [
    ("keep_ready", 5), ("reject_heldout", 2), ("reject_not_better", 1), ("reject_not_reproduced", 2),
    ("reject_leaked", 1), ("reject_design_failed", 1), ("propose_ready", 3), ("checks_disagree", 1),
    ("missing", 4), ("stale_baseline", 2), ("stale_data", 1), ("stale_design", 1), ("author_checked", 2),
    ("unlisted_run", 2), ("reviewer_not_listed", 1),
    ("closed_kept", 5), ("closed_rejected", 5), ("closed_proposed", 4), ("closed_inconclusive", 4),
    ("kept_then_regressed", 1),
]
REASONS = [
    "the held-out split is being rebuilt after the leak in qs-3; nothing this evaluation says will hold",
    "the baseline b-7 was itself broken on 40% of tasks; the comparison settles nothing",
    "the loop stopped mid-run and the candidate was superseded by a later run",
    "two people disagree on whether the design measures what we want; closing until design-3 exists",
    "evaluation budget spent for the month; re-open as a new case next month",
]


def populate(db: Database, rng: random.Random, person: str) -> str:
    topics = _topics(rng)
    clock = [BASE]

    def tick(minutes: int = 7) -> str:
        clock[0] += timedelta(minutes=minutes + rng.randint(0, 9))
        return clock[0].strftime("%Y-%m-%dT%H:%M:%SZ")

    made = 0
    outside_i = 0
    for scenario, count in PLAN:
        for _ in range(count):
            made += 1
            case_id = f"case-{made:04d}"
            outside = scenario in ("propose_ready", "closed_proposed", "checks_disagree")
            if outside:
                path, title, content = OUTSIDE[outside_i % len(OUTSIDE)]
                outside_i += 1
            else:
                path, title, content = topics[rng.randrange(len(topics))]
            author = rng.choice(AUTHORS)
            checker = rng.choice(CHECKERS)
            listed = sorted({checker, "run-52", "ana"} - ({"ana"} if scenario == "reviewer_not_listed" else set()))
            # designs are reviewed by colleagues who decide nothing here: whose evidence counts never decides
            reviewer = rng.choice(DESIGN_REVIEWERS) if scenario != "reviewer_not_listed" else "ana"
            if reviewer not in listed and scenario != "reviewer_not_listed":
                listed.append(reviewer)
            baseline = f"b-{rng.randint(6, 8)}"
            if scenario in ("closed_kept", "kept_then_regressed"):
                baseline += f".{made}"  # one landing per base: each kept change rests on a base of its own
            basis = {"baseline": baseline, "question_set": f"qs-{rng.randint(2, 4)}",
                     "data_revision": f"d-{rng.randint(10, 14)}", "design": "design-2"}
            results = dict(GOOD)
            producers = {kind: checker for kind in GOOD}
            producers["design_review"] = reviewer
            skip: set[str] = set()
            if scenario in ("reject_heldout", "closed_rejected", "kept_then_regressed"):
                results["heldout_comparison"] = "regressed" if scenario != "kept_then_regressed" else "held"
            if scenario == "reject_not_better" or (scenario == "closed_rejected" and made % 2):
                results["tuning_comparison"] = "not_better"
            if scenario == "reject_not_reproduced":
                results["tuning_comparison"] = "not_reproduced"
            if scenario == "reject_leaked":
                results["guard_check"] = "leaked"
            if scenario == "reject_design_failed":
                results["design_review"] = "failed"
            if scenario in ("propose_ready", "closed_proposed"):
                results["guard_check"] = "outside"
                skip = {"tuning_comparison", "heldout_comparison"} if made % 2 else set()
            if scenario == "missing":
                skip = set(rng.sample(sorted(GOOD), rng.randint(1, 3)))
            if scenario == "author_checked":
                producers["heldout_comparison"] = author
            if scenario == "unlisted_run":
                producers["tuning_comparison"] = "run-53" if "run-53" not in listed else "ci-pr"
            if scenario == "closed_inconclusive":
                skip = set(rng.sample(sorted(GOOD), 2))
            evidence: list[_Evidence] = [{"kind": kind, "result": results[kind], "producer": producers[kind],
                         "about": basis["design"] if kind == "design_review" else "current", "at": tick()}
                        for kind in ("guard_check", "design_review", "tuning_comparison", "heldout_comparison")
                        if kind not in skip]
            # The loop submits its case; each check is recorded by its producer, as itself (a run's
            # check of its own work is pasted by the person running the demo: evidence.record_for).
            cases.import_case(db, {
                "protocol": "eval.gated_change/1", "id": case_id, "title": title, "author": author,
                "candidate": {"path": path, "content": content, "basis": basis},
                "independent": {"different_agent_run": listed},
            }, actor=author, at=evidence[0]["at"] if evidence else tick())
            for item in evidence:
                recorder = person if item["producer"] == author else item["producer"]
                cases.add_evidence(db, case_id, **item, actor=recorder)
            _finish(db, rng, person, case_id, scenario, checker, tick)
    return f"{made} cases"


def _finish(db: Database, rng: random.Random, person: str, case_id: str, scenario: str, checker: str,
            tick: Callable[..., str]) -> None:
    if scenario == "checks_disagree":  # clean, then outside about the same revision: UNKNOWN until re-checked
        cases.add_evidence(db, case_id, kind="guard_check", result="outside", producer=checker, actor=checker, at=tick(30))
    elif scenario.startswith("stale_"):
        field = {"stale_baseline": "baseline", "stale_data": "data_revision", "stale_design": "design"}[scenario]
        moved = {"baseline": "b-9", "data_revision": "d-15", "design": "design-3"}[field]
        author = cases.get_case(db, case_id)["author"]
        cases.revise_candidate(db, case_id, basis={field: moved}, actor=author, at=tick(60))
        if scenario == "stale_baseline":  # one new check already came in for the moved candidate
            cases.add_evidence(db, case_id, kind="guard_check", result="clean", producer=checker, actor=checker, at=tick())
    elif scenario == "closed_kept":
        flows.decide(db, case_id, "kept", actor=rng.choice(["ana", person]), at=tick(45),
                     note="all six keep claims hold on this revision; held-out flat, tuning reproduced twice")
    elif scenario == "kept_then_regressed":
        flows.decide(db, case_id, "kept", actor="ana", at=tick(45), note="every keep claim holds")
        cases.add_evidence(db, case_id, kind="heldout_comparison", result="regressed", producer=checker,
                           at=tick(600))  # recorded after the decision: the case stays closed
    elif scenario == "closed_rejected":
        flows.decide(db, case_id, "rejected", actor=rng.choice(["bruno", "ana", person]), at=tick(45),
                     note="decided on the evidence: it does not hold up on the split that matters")
    elif scenario == "closed_proposed":
        flows.decide(db, case_id, "proposed", actor=rng.choice(["bruno", "ana"]), at=tick(45),
                     note="leaves the surface the loop may change: a person must decide this one")
    elif scenario == "closed_inconclusive":
        flows.decide(db, case_id, "inconclusive", actor=rng.choice(["bruno", person, "ana"]), at=tick(45),
                     note=rng.choice(REASONS))
