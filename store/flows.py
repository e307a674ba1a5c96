"""Flows that cross domains, in one place: each is a sequence of guarded acts of the domains.

- a case decided `proposed` becomes a proposal through `proposals.add_proposal`, in the decision's
  transaction;
- `decide_on` is every decision a person takes on an item (a case, a proposal, a draft, a skill), and `may`
  answers "what may this person do to this item now, and if not, why" by rehearsing those same acts;
- `evaluate_case` runs a task suite for a case and records what it shows as the case's evidence;
  `compare_case` records the same comparisons from runs stored already (any format), by the same rules;
- `new_case` makes a loop's case from a file (`case new --loop`), its basis and independence from the
  loop's registry; `loop_evaluation` settles an evaluation's settings from that registry.

The domains never import each other for these; the flows import the domains. They use each domain through
its package face at call time (`cases.add_evidence(...)`), so importing this module loads no domain's
modules: a command such as `gatepost case list`, whose module also holds the writing commands, starts
without the evaluator, the suites' YAML or the manifests (store/kernel/lazy.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatepost.store import cases, evaluation, loops, proposals, protocol, rubrics, skills
from gatepost.store.kernel import (
    CAPABILITY,
    IDENTITY,
    OPEN,
    SELF_DEALING,
    InputError,
    RefusedError,
    Subject,
    Verdict,
    capabilities_held,
    check_name,
    find_actor,
    guarded,
    last_seq,
    now_iso,
    observed_at,
    read_text,
    refusal,
    rehearse_all,
    same_actor,
    transaction,
)

if TYPE_CHECKING:
    from sqlite_utils import Database

    from gatepost.store.evaluation import RunSettings, Suite
    from gatepost.store.protocol import Rubric


def decide(db: Database, case_id: str, outcome: str, *, actor: str | None, note: str | None = None,
           based_on_seq: int | None = None, at: str | None = None, answers: Mapping[str, Any] | None = None,
           answers_later: bool = False) -> int:
    """Close a case (cases.decide_case, with its rubric's answers); a case decided `proposed` becomes a waiting
    proposal at once."""
    with transaction(db):
        decision_id = cases.decide_case(db, case_id, outcome, actor=actor, note=note,
                                        based_on_seq=based_on_seq, at=at, answers=answers,
                                        answers_later=answers_later)
        if outcome == "proposed":
            _propose(db, case_id, actor=actor, note=(note or "").strip() or None)  # the decision's note
    return decision_id


def _propose(db: Database, case_id: str, *, actor: str | None, note: str | None) -> None:
    case = cases.get_case(db, case_id)
    decided_at, decided_seq = db.execute(
        "SELECT at, event_seq FROM decisions WHERE case_id = ? ORDER BY id DESC LIMIT 1", [case_id]).fetchone()
    proposal = proposals.case_proposal(case, note)
    pid, new = proposals.add_proposal(db, proposal, actor=actor, source=f"case {case_id}", at=decided_at or now_iso(),
                                      case_id=case_id, id=f"case:{case_id}",
                                      made_by_event=decided_seq)
    if not new:
        raise RefusedError(f"case {case_id}: proposed refused: proposal {pid} already exists")


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    return content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False, sort_keys=True)


def weighed(rule: str, alpha: float, *runs: dict[str, Any]) -> dict[str, Any]:
    """What a comparison's evidence details carry about the noise of its comparisons (each run summary:
    run_id, delta, comparison)."""
    return {"runs": [r["run_id"] for r in runs], "deltas": [r["delta"] for r in runs],
            "decision_rule": rule, "alpha": alpha, "decided_by": evaluation.rule_words(rule, alpha),
            "comparisons": [r["comparison"]["words"] for r in runs],
            "p_values": [r["comparison"]["p_value"] for r in runs],
            "intervals": [[r["comparison"]["low"], r["comparison"]["high"]] for r in runs],
            "inside_noise": [evaluation.inside_noise(r["comparison"]) for r in runs]}


def tuning_result(rule: str, first: dict[str, Any], second: dict[str, Any]) -> str | None:
    """The tuning_comparison two comparisons (the improvement, then its reproduction) make under the rule:
    strict: the first better (delta > 0) and the second better -> reproduced, the second not ->
    not_reproduced, the first not -> not_better; significant: the same, each "better" or "worse" only when
    the exact test decides it; None when that leaves it undecided (nothing is recorded)."""
    if rule == "strict":
        if first["delta"] <= 0:
            return "not_better"
        return "reproduced" if second["delta"] > 0 else "not_reproduced"
    one, two = first["comparison"]["decided"], second["comparison"]["decided"]
    return {("worse", None): "not_better", ("worse", "better"): "not_better",
            ("worse", "worse"): "not_better", ("better", "better"): "reproduced",
            ("better", "worse"): "not_reproduced"}.get((one, two))


def heldout_result(rule: str, alpha: float, held: dict[str, Any],
                   max_regression: float | None = None) -> str | None:
    """The heldout_comparison one comparison makes under the rule. strict: any drop is a regression.
    significant: a held-out set that can detect a drop of `max_regression` at alpha records any drop as
    regressed (noise never hides a regression) and a tie or better as held; one that cannot records only a
    drop the exact test decides, else None (nothing is recorded: it cannot tell). `max_regression` None:
    evaluation.MAX_REGRESSION (a default read at call time, so importing this module loads no evaluator)."""
    if max_regression is None:
        max_regression = evaluation.MAX_REGRESSION
    plain = "held" if held["delta"] >= 0 else "regressed"
    if rule == "strict" or held["comparison"]["decided"] == "worse":
        return plain
    return plain if evaluation.can_detect(held["comparison"]["tasks"], max_regression, alpha) else None


def undecided_note(alpha: float, *runs: dict[str, Any]) -> str:
    """Why a tuning_comparison was not recorded under the significant rule, naming each undecided run."""
    undecided = [f"run {i} {r['run_id']}: {r['comparison']['words']}"
                 for i, r in enumerate(runs, start=1) if r["comparison"]["decided"] is None]
    return (f"tuning_comparison not recorded: decision rule significant (\u03b1 = {alpha:g}) and "
            + "; ".join(undecided))


def heldout_note(alpha: float, held: dict[str, Any], max_regression: float) -> str:
    """Why a heldout_comparison was not recorded under the significant rule: too few held-out tasks."""
    tasks = held["comparison"]["tasks"]
    return (f"heldout_comparison not recorded: decision rule significant (\u03b1 = {alpha:g}) and run "
            f"{held['run_id']}: {held['comparison']['words']}; too few tasks to tell: "
            f"{evaluation.detect_words(tasks, alpha, what='held-out tasks')}, not a regression of "
            f"{evaluation.pp(max_regression, sign=False)} pp (the suite's max_regression)")


def evaluate_case(
    db: Database,
    case_id: str,
    suite: Suite,
    *,
    settings: RunSettings,
    producer: str,
    surface: list[str] | tuple[str, ...] = (),
    baseline_text: str = "",
    baseline_path: str | None = None,
    actor: str | None = None,
    at: str | None = None,
    ran_with: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run candidate.evaluate for a case and record each result as evidence about its current revision.

    Tuning: two runs of the candidate against the baseline; the first better
    and the second better -> reproduced, the first better and the second not
    -> not_reproduced, the first not better -> not_better. Held-out: the
    candidate not below the baseline -> held, else regressed. A split the
    suite does not have records nothing (and says so).

    "Better" depends on the decision rule (the settings', else the suite's
    `decision_rule`): under `significant` (the default) a comparison counts
    only when the exact sign test decides it at alpha; when a tuning
    comparison is undecided no tuning_comparison is recorded (the case says
    which and by how much) and tuning.improved stays UNKNOWN. A held-out set
    too small to detect a drop of the suite's max_regression at alpha records
    nothing either, unless the drop it shows is decided; one large enough
    records any drop as regressed. Under `strict` (a registered, visible
    choice: "noise may pass") better is a strictly higher pass rate and any
    held-out drop is a regression (docs/statistics.md).
    """
    if not (producer or "").strip():
        raise InputError("--producer: expected the name of the run or person that produces this evidence")
    try:
        rule, alpha = evaluation.check_rule(settings.decision_rule or suite.decision_rule,
                                            suite.alpha if settings.alpha is None else settings.alpha)
    except ValueError as exc:
        raise InputError(f"--{exc}") from None
    producer = producer.strip()
    case = cases.get_case(db, case_id)
    if case.get("status") not in (None, "open"):
        raise RefusedError(f"case {case_id}: evaluate refused: the case is closed ({case.get('outcome')});"
                           " a closed case is closed")
    revision = case["current_revision"]
    content = _content_text(case.get("content"))
    path = case.get("candidate_path")
    executor, settings = settings.executor, replace(settings, decision_rule=rule, alpha=alpha)
    report: dict[str, Any] = {"case_id": case_id, "revision": revision, "producer": producer, "evidence": [],
                              "runs": [], "skipped": [], "undecided": [], "decision_rule": rule, "alpha": alpha}

    start = datetime.fromisoformat(at.replace("Z", "+00:00")) if at else None
    step = [0]

    def moment() -> str | None:
        """Given `at` (the demo, a replay), each run and record one second after the one before."""
        if start is None:
            return None
        step[0] += 1
        return (start + timedelta(seconds=step[0])).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def record(kind: str, result: str, details: dict[str, Any]) -> None:
        details = dict(details, suite=str(suite.path), suite_id=suite.id, executor=executor.identity,
                       mock=executor.mock, **({"ran_with": ran_with} if ran_with else {}))
        evidence_id = cases.add_evidence(db, case_id, kind=kind, result=result, producer=producer, about=revision,
                                         details=details, actor=actor, at=moment())
        report["evidence"].append({"id": evidence_id, "kind": kind, "result": result, "details": details})

    guard = evaluation.guard_check(path, content, suite, surface)
    record("guard_check", guard.result, guard.details())

    def run(split: str, purpose: str) -> dict[str, Any]:
        artifact = evaluation.evaluate(db, suite, candidate_text=content, candidate_path=path, baseline_text=baseline_text,
                            baseline_path=baseline_path, settings=settings, split=split, actor=actor or producer,
                            case_id=case_id, purpose=purpose, at=moment())
        summary = {k: artifact[k] for k in ("run_id", "execution_pass_rate", "baseline_pass_rate", "delta",
                                            "verdict", "truth_anchor", "warnings")}
        summary["comparison"] = artifact["statistics"]["comparison"]
        report["runs"].append(dict(summary, purpose=purpose, split=split))
        return summary

    if suite.tasks_in("tuning"):
        first = run("tuning", "tuning-1")
        second = run("tuning", "tuning-2")
        result = tuning_result(rule, first, second)
        if result is not None:
            record("tuning_comparison", result, weighed(rule, alpha, first, second))
        else:
            note = undecided_note(alpha, first, second)
            cases.note_undecided(db, case_id, kind="tuning_comparison", producer=producer, note=note,
                                 details=weighed(rule, alpha, first, second), actor=actor, at=moment())
            report["undecided"].append(note)
    else:
        report["skipped"].append("tuning_comparison: the suite has no tuning tasks")
    if suite.tasks_in("heldout"):
        held = run("heldout", "heldout")
        outcome = heldout_result(rule, alpha, held, suite.max_regression)
        if outcome is not None:
            record("heldout_comparison", outcome, dict(weighed(rule, alpha, held), max_regression=suite.max_regression))
        else:
            note = heldout_note(alpha, held, suite.max_regression)
            cases.note_undecided(db, case_id, kind="heldout_comparison", producer=producer, note=note,
                                 details=weighed(rule, alpha, held), actor=actor, at=moment())
            report["undecided"].append(note)
    else:
        report["skipped"].append("heldout_comparison: the suite has no held-out tasks (split: heldout)")
    return report


COMPARISON_KINDS = {"tuning_comparison": 2, "heldout_comparison": 1}  # how many run pairs each weighs


def compare_case(db: Database, case_id: str, *, kind: str, pairs: list[tuple[str, str]], producer: str,
                 actor: str | None = None, decision_rule: str | None = None, alpha: float | None = None,
                 at: str | None = None, max_regression: float | None = None) -> dict[str, Any]:
    """Record a tuning_comparison or heldout_comparison from stored runs, for a loop whose evaluation ran
    elsewhere (a JUnit report, an Inspect log, an upstream artifact, gatepost's own runs).

    Each pair is (candidate run, baseline run) of the same tasks, weighed by `evaluation.compare_runs`; the
    result follows evaluate_case's rules (`tuning_result` over two pairs: the improvement, then its
    reproduction; `heldout_result` over one, with the held-out drop `max_regression` it must be able to
    see), under the same decision rule, and a significant rule that leaves a comparison undecided records
    nothing and says why on the case.
    """
    if max_regression is None:
        max_regression = evaluation.MAX_REGRESSION
    if kind not in COMPARISON_KINDS:
        raise InputError(f"--kind: expected one of {', '.join(COMPARISON_KINDS)}, got {kind!r}")
    if not (producer or "").strip():
        raise InputError("--producer: expected the name of the run or person that produces this evidence")
    wanted = COMPARISON_KINDS[kind]
    if len(pairs) != wanted:
        raise InputError(f"--candidate/--baseline: a {kind} weighs {wanted} pair{'s' if wanted > 1 else ''} of runs"
                         + (" (the improvement, then its reproduction)" if wanted > 1 else "")
                         + f", got {len(pairs)}")
    try:
        rule, alpha = evaluation.check_rule(decision_rule, alpha)
    except ValueError as exc:
        raise InputError(f"--{exc}") from None
    producer = producer.strip()
    case = cases.get_case(db, case_id)
    if case.get("status") not in (None, "open"):
        raise RefusedError(f"case {case_id}: compare refused: the case is closed ({case.get('outcome')});"
                           " a closed case is closed")
    revision = case["current_revision"]
    runs = [evaluation.compare_runs(db, candidate, baseline, alpha=alpha) for candidate, baseline in pairs]
    details = dict(weighed(rule, alpha, *runs), compared=[{"candidate": r["candidate_run"],
                                                          "baseline": r["baseline_run"]} for r in runs])
    report: dict[str, Any] = {"case_id": case_id, "revision": revision, "producer": producer, "kind": kind,
                              "decision_rule": rule, "alpha": alpha, "runs": runs, "evidence": None,
                              "undecided": None}
    result = (tuning_result(rule, *runs) if kind == "tuning_comparison"
              else heldout_result(rule, alpha, runs[0], max_regression))
    if result is None:
        note = (undecided_note(alpha, *runs) if kind == "tuning_comparison"
                else heldout_note(alpha, runs[0], max_regression))
        cases.note_undecided(db, case_id, kind=kind, producer=producer, note=note, details=details, actor=actor,
                             at=at)
        report["undecided"] = note
        return report
    evidence_id = cases.add_evidence(db, case_id, kind=kind, result=result, producer=producer, about=revision,
                                     details=details, actor=actor, at=at)
    report["evidence"] = {"id": evidence_id, "kind": kind, "result": result, "details": details}
    return report


# --- judgments and work across domains ---------------------------------------------------
# The items a person can be assigned, and for each its subject loader and the capability its judgment needs
# (built on first use: naming the domains' functions here would load their modules with this one).
ASSIGNABLE = ("case", "proposal", "draft", "skill")


@cache
def assignment_rules() -> dict[str, tuple[Callable[[str], Callable[[Database], Subject]], str]]:
    rules = {
        "case": (cases.case_subject, cases.CLOSE_CAPABILITY),
        "proposal": (proposals.proposal_subject, "proposal.review"),
        "draft": (skills.draft_subject, "manifest.review"),
        "skill": (skills.regression_subject, "regression.triage"),
    }
    assert tuple(rules) == ASSIGNABLE
    return rules


def assign(db: Database, subject_type: str, subject_id: str, assignee: str | None, *, actor: str | None,
           note: str | None = None, at: str | None = None) -> int:
    """Assign an item to a reviewer (None: clear the assignment), through the guarded pipeline.

    Who assigns holds the item's capability; the assignee is a known person who holds it too and
    is not the item's author. An event records it (assignment.set / assignment.cleared); the
    assignments table is its projection. Returns the event's seq.
    """
    if subject_type not in ASSIGNABLE:
        raise InputError(f"item: expected one of {', '.join(ASSIGNABLE)}, got {subject_type!r}")
    loader, capability = assignment_rules()[subject_type]
    doing = f"assign {subject_type} {subject_id}"
    when = observed_at(at) or now_iso()

    def assignee_may(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        if assignee is None:
            return
        person = find_actor(db, check_name(assignee, field="--to"))
        if person is None or person["kind"] != "person":
            raise refusal(doing, IDENTITY, f"{assignee} is not a person of this store (gatepost actors add)")
        if capability not in capabilities_held(db, person["name"]):
            raise refusal(doing, CAPABILITY, f"{person['name']} does not hold {capability}, so could not judge it")
        if subject is not None and subject.author and same_actor(subject.author, person["name"]):
            raise refusal(doing, SELF_DEALING, f"{person['name']} is the {subject.noun}'s {subject.author_role}; "
                                               "nobody judges their own change")

    with guarded(db, doing, actor=actor, capability=capability if actor is not None else None,
                 subject=loader(subject_id), lease=False, authority=assignee_may) as act:
        if assignee is None:
            seq = act.event("assignment.cleared", note=note, at=when, payload={"assignee": None, "note": note})
            db.execute("DELETE FROM assignments WHERE subject_type = ? AND subject_id = ?", [subject_type, subject_id])
            return seq
        name = (find_actor(db, assignee) or {"name": assignee})["name"]
        seq = act.event("assignment.set", note=note, at=when, payload={"assignee": name, "note": note})
        db.execute("INSERT INTO assignments (subject_type, subject_id, assignee, assigned_by, at, event_seq)"
                   " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(subject_type, subject_id) DO UPDATE SET"
                   " assignee = excluded.assignee, assigned_by = excluded.assigned_by, at = excluded.at,"
                   " event_seq = excluded.event_seq", [subject_type, subject_id, name, act.actor, when, seq])
    return seq


def mark_seen(db: Database, person: str | None, subject_type: str, subject_id: str) -> None:
    """A person opened an item: remember its newest event for them ("changed since you looked" counts from it).

    A read receipt, not a judgment: it changes nothing anyone else sees, so it appends no event and
    needs no capability; an unknown or missing person leaves no mark. Nor is it waited on: its commit is not
    synced to disk (a power cut may lose the last marks; the items then show what changed again).
    """
    found = find_actor(db, person) if person and person.strip() else None
    if found is None:
        return
    person = found["name"]
    with transaction(db, synced=False):
        seq = last_seq(db, subject_type, subject_id)
        db.execute("INSERT INTO seen_marks (person, subject_type, subject_id, seq, at) VALUES (?, ?, ?, ?, ?)"
                   " ON CONFLICT(person, subject_type, subject_id) DO UPDATE SET seq = excluded.seq, at = excluded.at",
                   [person, subject_type, subject_id, seq, now_iso()])


def new_case(db: Database, loop_name: str, path: str, content: str, *, actor: str | None, title: str | None = None,
             case_id: str | None = None, data_revision: str | None = None, at: str | None = None) -> dict[str, Any]:
    """A loop's case from a file's content: the revision computed, the basis and independence from the registry.

    The basis records what the candidate was made on: `baseline` the hash of the path's current
    content (or of the loop's baseline file), `question_set` the suite's content hash, `design` and
    `data_revision` the loop's. The path must be one the loop may touch; outside its surface the case
    can only be proposed (the guard says so). Returns {case_id, revision, basis, within_surface, ...}.
    """
    loop = loops.get_loop(db, loop_name)
    path = loops.check_path(path, "--path")
    doing = f"case new --loop {loop['name']}"

    def loop_rules(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        name = who["name"] if who else check_name(actor, field="--as")
        if any(same_actor(name, other) for other in [*loop["evaluators"], *loop["reviewers"]]):
            raise refusal(doing, SELF_DEALING, f"{name} is listed as an independent evaluator or reviewer of loop "
                                               f"{loop['name']}; the run that writes a candidate never evaluates it")
        allowed, why = loops.may_touch(loop, path)
        if not allowed:
            raise refusal(doing, "paths", why)

    # A loop's run writes its candidate: a named, printable actor, not one of the loop's own evaluators or
    # reviewers, on a path the loop may touch; the case itself is then imported by cases.import_case's act.
    with guarded(db, doing, actor=actor or "", known=False, authority=loop_rules) as act:
        actor = act.actor or actor
        base = loops.current_hash(db, path) if loop["baseline"] == loops.BASELINE_CURRENT else loop["baseline_hash"]
        basis = {"baseline": base, "question_set": loops.HASH_PREFIX + loop["suite_hash"],
                 "design": loop["design"], "data_revision": (data_revision or "").strip() or loop["data_revision"]}
        independent = [n for n in [*loop["evaluators"], *loop["reviewers"]] if n != actor]
        data = {"title": (title or "").strip() or f"{loop['name']}: {path}", "author": actor,
                "candidate": {"path": path, "content": content, "basis": basis},
                "independent": {cases.AUTHOR_DIMENSION: independent}}
        if case_id:
            data["id"] = case_id
        made = cases.import_case(db, data, actor=actor, at=at, loop=loop["name"])
        if loops.loop_case(db, made) is None:
            loops.link_case(db, made, loop["name"], path, base, loop["version"], last_seq(db, "case", made))
        row = cases.get_case(db, made)
    return {"schema": "gatepost.case-new/1", "case_id": made, "revision": row["current_revision"], "path": path,
            "loop": loop["name"], "loop_version": loop["version"], "basis": basis,
            "content_hash": loops.text_hash(content), "within_surface": loops.inside_surface(loop, path),
            "status": row["status"], "last_seq": row["last_seq"]}


def loop_evaluation(db: Database, case_id: str, *, suite: str | None = None, surface: list[str] | None = None,
                    executor: str | None = None, mock: bool = False, baseline: str | None = None,
                    judge_command: str | None = None, actor: str | None = None,
                    decision_rule: str | None = None, alpha: float | None = None,
                    pass_k: int | None = None) -> dict[str, Any] | None:
    """The settings of an evaluation of a loop's case, from the loop's registry; None for a case of no loop.

    The suite file is checked against the case's basis (`question_set`) and the baseline against its
    `baseline` (the content the candidate was made on): a mismatch is refused, never evaluated. Settings
    asked for that differ from the registry are refused unless `actor` may change the loop (then audited).
    What runs must be what was registered: the suite and its fixtures, the files the executor's and the
    judge's commands name inside the loop's root, by hash; a file changed, gone or new since is refused
    (rule `registered`) until an administrator registers the new version. Returns {loop, suite (a Suite),
    surface, executor, mock, judge_command, baseline_text, baseline_path, overridden, ran_with, decision_rule,
    alpha, pass_k};
    `ran_with` (the loop, its version and the hashes of the files) goes into every record the evaluation
    makes. The decision rule is the loop's registered one (a loop registered before it was recorded: its
    suite's), and asking for another is an override like any other setting; so are the level `alpha` (the
    registered suite's) and `pass_k` (one attempt per task unless the registry says otherwise).
    """
    link = loops.loop_case(db, case_id)
    if link is None:
        return None
    loop = loops.get_loop(db, link["loop"])
    case = cases.get_case(db, case_id)
    doing = f"case evaluate {case_id}"
    asked: dict[str, Any] = {"surface": list(surface) if surface else None}
    if executor or mock:
        asked["executor"] = executor or None
        asked["mock"] = bool(mock)
    if judge_command:
        asked["judge_command"] = " ".join(judge_command.split())
    root = Path(loop["root"]) if loop.get("root") else None
    registered = [key for key, _what in loops.RAN_WITH
                  if not {"suite_files": suite, "executor_files": executor or mock,
                          "judge_files": judge_command}[key]]
    changed = loops.drift(loop, tuple(registered))
    if changed:
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        raise RefusedError(f"{doing}: refused: registered: {changed[0]}{more}; what runs is what was registered: "
                           f"an administrator registers the new version (gatepost loop add {loop['name']} …)")
    assert root is not None  # drift() refuses a loop registered without a root
    loaded = evaluation.load_suite(suite or root / loop["suite_path"])
    if suite:
        asked["suite_hash"] = loaded.id
    base_path = None
    if baseline:
        base_path, base_text = evaluation.read_skill(baseline, option="--baseline")
        asked["baseline_hash"] = loops.text_hash(base_text)
    want_suite = case["basis"].get("question_set")
    if not suite and want_suite != loops.HASH_PREFIX + loaded.id:
        raise RefusedError(f"{doing}: refused: basis: the suite {loaded.path} (sha256:{loaded.id[:12]}…) is not the "
                           f"question set the case was made on ({want_suite}); make a new case on it")
    if not baseline:
        if loop["baseline"] == loops.BASELINE_CURRENT:
            now = loops.current_of(db, link["path"])
            base_text = now["content"] if now else ""
        else:
            base_path = loop["baseline_path"]
            base_text = read_text(base_path, what="baseline skill")
        stale = cases.staleness(db, case)
        if stale:
            raise RefusedError(f"{doing}: refused: {stale}")
        if loops.text_hash(base_text) != case["basis"].get("baseline"):
            raise RefusedError(f"{doing}: refused: basis: the baseline ({loops.text_hash(base_text)[:19]}…) is not "
                               f"the content the case was made on ({case['basis'].get('baseline')})")
    registered_rule = loop.get("decision_rule") or loaded.decision_rule
    registered_alpha, registered_k = loop.get("alpha") or loaded.alpha, loop.get("pass_k") or 1
    if decision_rule:
        asked["decision_rule"] = decision_rule
    if alpha is not None:
        asked["alpha"] = alpha
    if pass_k is not None and pass_k != registered_k:
        asked["pass_k"] = pass_k
    overridden = loops.check_override(db, dict(loop, decision_rule=registered_rule, alpha=registered_alpha,
                                                pass_k=registered_k), asked, actor=actor,
                                      case_id=case_id)  # refused, or audited
    command = asked.get("executor", loop["executor"])
    judge = asked.get("judge_command", loop.get("judge_command"))
    ran_with = {"loop": loop["name"], "version": loop["version"],
                "suite_files": loops.suite_files(Path(loaded.path), root),
                "executor_files": loops.command_files(command, root),
                "judge_files": loops.command_files(judge, root)}
    return {"loop": loop["name"], "suite": loaded, "surface": asked["surface"] or loop["surface"],
            "executor": loops.absolute_command(command, root), "mock": asked.get("mock", loop["mock"]),
            "judge_command": loops.absolute_command(judge, root), "baseline_text": base_text,
            "baseline_path": base_path, "overridden": overridden, "ran_with": ran_with,
            "decision_rule": decision_rule or registered_rule,
            "alpha": registered_alpha if alpha is None else alpha, "pass_k": pass_k or registered_k}


def record_case_applied(db: Database, case_id: str, *, ref: str | None, actor: str | None,
                        at: str | None = None) -> dict[str, Any]:
    """`case applied`: where a kept case landed (cases.record_applied)."""
    return cases.record_applied(db, case_id, ref=ref, actor=actor, at=at)


# --- the decisions a person takes on an item, and may I --------------------------------------------
DESIGN_RESULTS = {"design_passed": "passed", "design_failed": "failed"}
REHEARSAL_NOTE = "a rehearsal: may this be decided now"  # the note a rehearsed act carries (never written)


def _decide_case(name: str) -> Callable[..., Any]:
    def act(db: Database, key: str, *, actor: str | None, note: str | None, seen_seq: int | None,
            answers: Mapping[str, Any] | None = None) -> Any:
        return decide(db, key, name, actor=actor, note=note, based_on_seq=seen_seq, answers=answers,
                      answers_later=_later(note))
    return act


def _design_review(name: str) -> Callable[..., Any]:
    result = DESIGN_RESULTS[name]

    def act(db: Database, key: str, *, actor: str | None, note: str | None, seen_seq: int | None) -> Any:
        # a person's design review is evidence for a case still to be decided: once closed nothing waits on it
        with transaction(db):
            case = cases.get_case(db, key)
            if case["status"] != "open":
                raise refusal(f"record design_review {result} on {key}", OPEN,
                              f"the case is closed ({case['outcome']}); a design review no longer decides it")
            return cases.add_evidence(db, key, kind=cases.DESIGN_REVIEW_KIND, result=result, about="current",
                                      actor=actor, details={"note": note} if note else None,
                                      based_on_seq=seen_seq)
    return act


def _later(note: str | None) -> bool:
    """A rehearsal asks before the person answered the rubric: the dialog asks its questions after."""
    return note is REHEARSAL_NOTE


def _mark(status: str) -> Callable[..., Any]:
    def act(db: Database, key: str, *, actor: str | None, note: str | None, seen_seq: int | None,
            answers: Mapping[str, Any] | None = None) -> Any:
        return proposals.mark_proposal(db, key, status, actor=actor, note=note or "", expected_seq=seen_seq,
                                       answers=answers, answers_later=_later(note))
    return act


def _approve(db: Database, key: str, *, actor: str, note: str | None, seen_seq: int | None,
             answers: Mapping[str, Any] | None = None) -> Any:
    return skills.approve_draft(db, key, actor=actor, note=note or None, expected_seq=seen_seq, answers=answers,
                                answers_later=_later(note))


def _reject(db: Database, key: str, *, actor: str, note: str | None, seen_seq: int | None,
            answers: Mapping[str, Any] | None = None) -> Any:
    return skills.reject_draft(db, key, actor=actor, note=note or "", expected_seq=seen_seq, answers=answers,
                               answers_later=_later(note))


def _edit(db: Database, key: str, *, actor: str, note: str | None, seen_seq: int | None) -> Any:
    """The note is the edited YAML; a rehearsal (no YAML yet) asks what the edit meets before it is read."""
    if note is REHEARSAL_NOTE:
        skills.check_edit(db, key, actor=actor, expected_seq=seen_seq)
        return None
    return skills.edit_draft(db, key, note or "", actor=actor, expected_seq=seen_seq)


def _acknowledge(db: Database, key: str, *, actor: str, note: str | None, seen_seq: int | None,
                 answers: Mapping[str, Any] | None = None) -> Any:
    return skills.acknowledge(db, key, actor=actor, note=note or "", expected_seq=seen_seq, answers=answers,
                              answers_later=_later(note))


def _mismatch(db: Database, key: str, *, actor: str, note: str | None, seen_seq: int | None,
              answers: Mapping[str, Any] | None = None) -> Any:
    return skills.flag_mismatch(db, key, actor=actor, note=note or "", expected_seq=seen_seq, answers=answers,
                                answers_later=_later(note))


# subject type → decision name → the act. The console's decisions are these, by the same names.
DECISIONS: dict[str, dict[str, Callable[..., Any]]] = {
    "case": {**{o: _decide_case(o) for o in ("kept", "rejected", "proposed", "inconclusive")},
             **{d: _design_review(d) for d in DESIGN_RESULTS}},
    "proposal": {s: _mark(s) for s in ("accepted", "declined", "needs_changes")},
    "draft": {"approve": _approve, "reject": _reject, "edit": _edit},
    "skill": {"acknowledge": _acknowledge, "mismatch": _mismatch},
}


# The decisions that answer their queue's rubric (a draft's edit is a new text, not a judgment of it).
ANSWERED = frozenset({"accepted", "declined", "needs_changes", "approve", "reject", "acknowledge", "mismatch"})


def _act(subject: str, name: str) -> Callable[..., Any]:
    try:
        return DECISIONS[subject][name]
    except KeyError:
        raise InputError(f"decision: expected one of {', '.join(DECISIONS.get(subject, {})) or 'none'} "
                         f"on a {subject}, got {name!r}") from None


def rubric_of(db: Database, subject: str, name: str, key: str) -> Rubric | None:
    """The rubric decision `name` on item `key` asks now (None: none): a case's is its protocol's (a design
    review asks none: it records evidence, it decides nothing), the other queues' is the store's (store/rubrics)."""
    if subject == "case":
        if name in DESIGN_RESULTS:
            return None
        return protocol.protocol_for(cases.get_case(db, key)["protocol"]).rubric
    if subject in rubrics.QUEUES and name in ANSWERED:
        found = rubrics.queue_rubric(db, subject)
        return found.rubric if found else None
    return None


def decide_on(db: Database, subject: str, name: str, key: str, *, actor: str | None, note: str | None,
              seen_seq: int | None = None, answers: Mapping[str, Any] | None = None) -> Any:
    """Take decision `name` on item `key` of `subject` type, as `actor`, on the item as seen at `seen_seq`
    (with the rubric's `answers`): the act's own guarded pipeline decides; returns what the act returns."""
    act = _act(subject, name)
    if answers is not None:
        return act(db, key, actor=actor, note=note, seen_seq=seen_seq, answers=answers)
    return act(db, key, actor=actor, note=note, seen_seq=seen_seq)


def may(db: Database, subject: str, key: str, *, actor: str | None, seen_seq: int | None = None,
        names: list[str] | None = None) -> dict[str, Verdict]:
    """What `actor` may decide on `key` now, and if not, why: each decision (or those `names`) rehearsed, its
    act run for real through every rule and rolled back (guarded.rehearse_all), so the answer is the act's own."""
    acts = {name: _act(subject, name) for name in (names if names is not None else list(DECISIONS[subject]))}
    return rehearse_all(db, {name: (lambda d, act=act: act(d, key, actor=actor, note=REHEARSAL_NOTE,  # type: ignore[misc]
                                                            seen_seq=seen_seq))
                             for name, act in acts.items()})
