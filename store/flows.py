"""Flows that cross domains, in one place: each is a sequence of guarded acts of the domains.

- a case decided `proposed` becomes a proposal through `proposals.add_proposal`, in the decision's
  transaction;
- `evaluate_case` runs a task suite for a case and records what it shows as the case's evidence.

The domains never import each other for these; the flows import the domains.
"""

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from gatepost.store import cases, evaluation, proposals
from gatepost.store.evaluation import Executor, JudgeSettings, Suite, guard_check
from gatepost.store.kernel import InputError, RefusedError, now_iso, transaction


def decide(db: Database, case_id: str, outcome: str, *, actor: str | None, note: str | None = None,
           based_on_seq: int | None = None, at: str | None = None) -> int:
    """Close a case (cases.decide_case); a case decided `proposed` becomes a waiting proposal at once."""
    with transaction(db):
        decision_id = cases.decide_case(db, case_id, outcome, actor=actor, note=note,
                                        based_on_seq=based_on_seq, at=at)
        if outcome == "proposed":
            _propose(db, case_id, actor=actor, note=note)
    return decision_id


def _propose(db: Database, case_id: str, *, actor: str | None, note: str | None) -> None:
    case = cases.get_case(db, case_id)
    content = case["content"]
    body = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
    decided_at, decided_seq = db.execute(
        "SELECT at, event_seq FROM decisions WHERE case_id = ? ORDER BY id DESC LIMIT 1", [case_id]).fetchone()
    proposal = {"path": case["candidate_path"], "kind": "case", "operation": "update", "edit_mode": "full_page",
                "title": case["title"], "confidence": None, "rationale": note, "before_body": "",
                "after_body": body, "expected_base_body_sha256": None}
    pid, new = proposals.add_proposal(db, proposal, actor=actor, source=f"case {case_id}", at=decided_at or now_iso(),
                                      case_id=case_id, id=f"case:{case_id}",
                                      made_by_event=decided_seq)
    if not new:
        raise RefusedError(f"case {case_id}: proposed refused: proposal {pid} already exists")


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    return content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False, sort_keys=True)


def evaluate_case(
    db: Database,
    case_id: str,
    suite: Suite,
    *,
    executor: Executor,
    producer: str,
    surface: list[str] | tuple[str, ...] = (),
    baseline_text: str = "",
    baseline_path: str | None = None,
    judges: JudgeSettings | None = None,
    pass_k: int = 1,
    cache_dir: str | Path | None = None,
    artifact_dir: str | Path | None = None,
    actor: str | None = None,
    at: str | None = None,
    decision_rule: str | None = None,
    alpha: float | None = None,
) -> dict[str, Any]:
    """Run candidate.evaluate for a case and record each result as evidence about its current revision.

    Tuning: two runs of the candidate against the baseline; the first better
    and the second better -> reproduced, the first better and the second not
    -> not_reproduced, the first not better -> not_better. Held-out: the
    candidate not below the baseline -> held, else regressed. A split the
    suite does not have records nothing (and says so).

    "Better" depends on the decision rule (the suite's `decision_rule`, or the
    argument): `strict` (the default, the seed's) is a strictly higher pass
    rate; under `significant` a comparison counts only when the exact sign
    test decides it at alpha, and when either tuning comparison is undecided
    no tuning_comparison is recorded: the case says which comparison was
    undecided and by how much, and tuning.improved stays UNKNOWN. Held-out
    stays strict under both rules: any drop is a regression (docs/statistics.md).
    """
    if not (producer or "").strip():
        raise InputError("--producer: expected the name of the run or person that produces this evidence")
    try:
        rule, alpha = evaluation.check_rule(decision_rule or suite.decision_rule,
                                            suite.alpha if alpha is None else alpha)
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

    def record(kind: str, result: str, details: dict) -> None:
        details = dict(details, suite=str(suite.path), suite_id=suite.id, executor=executor.identity,
                       mock=executor.mock)
        evidence_id = cases.add_evidence(db, case_id, kind=kind, result=result, producer=producer, about=revision,
                                         details=details, actor=actor, at=moment())
        report["evidence"].append({"id": evidence_id, "kind": kind, "result": result, "details": details})

    guard = guard_check(path, content, suite, surface)
    record("guard_check", guard.result, guard.details())

    def run(split: str, purpose: str) -> dict:
        artifact = evaluation.evaluate(db, suite, candidate_text=content, candidate_path=path, baseline_text=baseline_text,
                            baseline_path=baseline_path, executor=executor, judges=judges, pass_k=pass_k,
                            split=split, cache_dir=cache_dir, artifact_dir=artifact_dir, actor=actor or producer,
                            case_id=case_id, purpose=purpose, at=moment(), alpha=alpha)
        summary = {k: artifact[k] for k in ("run_id", "execution_pass_rate", "baseline_pass_rate", "delta",
                                            "verdict", "truth_anchor", "warnings")}
        summary["comparison"] = artifact["statistics"]["comparison"]
        report["runs"].append(dict(summary, purpose=purpose, split=split))
        return summary

    def weighed(*runs: dict) -> dict[str, Any]:
        """What a record's details carry about the noise of its comparisons."""
        return {"runs": [r["run_id"] for r in runs], "deltas": [r["delta"] for r in runs],
                "decision_rule": rule, "alpha": alpha,
                "comparisons": [r["comparison"]["words"] for r in runs],
                "p_values": [r["comparison"]["p_value"] for r in runs],
                "intervals": [[r["comparison"]["low"], r["comparison"]["high"]] for r in runs],
                "inside_noise": [evaluation.inside_noise(r["comparison"]) for r in runs]}

    if suite.tasks_in("tuning"):
        first = run("tuning", "tuning-1")
        second = run("tuning", "tuning-2")
        result: str | None
        if rule == "strict":
            if first["delta"] <= 0:
                result = "not_better"
            elif second["delta"] > 0:
                result = "reproduced"
            else:
                result = "not_reproduced"
        else:
            one, two = first["comparison"]["decided"], second["comparison"]["decided"]
            result = {("worse", None): "not_better", ("worse", "better"): "not_better",
                      ("worse", "worse"): "not_better", ("better", "better"): "reproduced",
                      ("better", "worse"): "not_reproduced"}.get((one, two))
        if result is not None:
            record("tuning_comparison", result, weighed(first, second))
        else:
            undecided = [f"run {i} {r['run_id']}: {r['comparison']['words']}"
                         for i, r in ((1, first), (2, second)) if r["comparison"]["decided"] is None]
            note = (f"tuning_comparison not recorded: decision rule significant (\u03b1 = {alpha:g}) and "
                    + "; ".join(undecided))
            cases.note_undecided(db, case_id, kind="tuning_comparison", producer=producer, note=note,
                                 details=weighed(first, second), actor=actor, at=moment())
            report["undecided"].append(note)
    else:
        report["skipped"].append("tuning_comparison: the suite has no tuning tasks")
    if suite.tasks_in("heldout"):
        held = run("heldout", "heldout")
        record("heldout_comparison", "held" if held["delta"] >= 0 else "regressed", weighed(held))
    else:
        report["skipped"].append("heldout_comparison: the suite has no held-out tasks (split: heldout)")
    return report
