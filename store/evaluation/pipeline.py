"""The improvement-evaluator's pipeline mode: a candidate picked from the discriminator's ranking artifact.

As upstream's evaluate.py (`--input ranking.json --candidate-id ID [--eval-threshold X]`): the candidate is
found by id in `scored_candidates`; below the threshold (default 1.0) it is not run and the artifact says
verdict `skipped` with `score S < threshold T`; its skill text is its own `skill_content` / `content` /
`body`, else the target's SKILL.md; the baseline is the target's SKILL.md (none: a baseline rate of 0).
A candidate with no text to run is verdict `error` (upstream logs it and writes nothing; gatepost writes
upstream's error artifact, `next_step: abort`, `next_owner: human`, so an orchestrator stops on it). The
artifact carries the ranking's run id, lane and target, the candidate's id and score and the ranking's path.
"""

from pathlib import Path
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import InputError, now_iso, parse_json, read_text

from .artifacts import write_artifact
from .runner import content_hash
from .runs import store_run
from .suites import Suite

DEFAULT_EVAL_THRESHOLD = 1.0  # upstream's --eval-threshold default ("accepts most candidates")


def read_ranking(path: str | Path, candidate_id: str) -> dict[str, Any]:
    """{ranking, candidate, score, input}: the ranking artifact and the candidate named in it."""
    name = Path(path).name
    ranking = parse_json(read_text(path, what="ranking artifact"), source=name)
    if not isinstance(ranking, dict) or not isinstance(ranking.get("run_id"), str):
        raise InputError(f"{name}: expected the discriminator's ranking artifact (run_id, scored_candidates)")
    scored = ranking.get("scored_candidates", [])
    if not isinstance(scored, list):
        raise InputError(f"{name}: scored_candidates: expected a list of candidates")
    found = [c for c in scored if isinstance(c, dict) and c.get("id") == candidate_id]
    if not found:
        ids = ", ".join(str(c.get("id")) for c in scored if isinstance(c, dict)) or "none"
        raise InputError(f"--candidate-id: {candidate_id!r} not found in {name}'s scored_candidates (it has {ids})")
    candidate = found[0]
    score = candidate.get("score", 0.0)
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        raise InputError(f"{name}: scored_candidates[{candidate_id}].score: expected a number, got {score!r}")
    target = ranking.get("target") if isinstance(ranking.get("target"), dict) else {}
    return {"ranking": ranking, "candidate": candidate, "score": score, "target": target,
            "input": str(Path(path).resolve())}


def _target_skill(target: dict[str, Any]) -> Path:
    target_path = Path(str(target.get("path", "")))
    return target_path / "SKILL.md" if target_path.is_dir() else target_path


def candidate_skill(picked: dict[str, Any]) -> tuple[str | None, str] | None:
    """(path, text) of the candidate: its inline content, else the target's SKILL.md; None when neither."""
    candidate = picked["candidate"]
    for key in ("skill_content", "content", "body"):
        if isinstance(candidate.get(key), str) and candidate[key]:
            return None, candidate[key]
    return baseline_skill(picked)


def baseline_skill(picked: dict[str, Any]) -> tuple[str, str] | None:
    """(path, text) of the target's SKILL.md, the baseline; None when it is not there."""
    path = _target_skill(picked["target"])
    if not str(picked["target"].get("path", "")) or not path.is_file():
        return None
    return str(path.resolve()), read_text(path, what="baseline skill file")


def pipeline_fields(picked: dict[str, Any], *, lane: str | None = None) -> dict[str, Any]:
    """The fields upstream's pipeline artifact takes from the ranking and the candidate."""
    ranking = picked["ranking"]
    return {"lane": lane or ranking.get("lane") or "generic-skill", "source_run_id": ranking["run_id"],
            "source_ranking_artifact": picked["input"], "candidate_id": picked["candidate"]["id"],
            "candidate_score": picked["score"], "target": picked["target"]}


def record_unrun(db: Database, suite: Suite, picked: dict[str, Any], *, verdict: str, reason: str,
                 output: str | Path | None, artifact_dir: str | Path | None, actor: str | None) -> dict[str, Any]:
    """A candidate not run (verdict skipped or error): stored as a run without results and written in
    upstream's skip/error artifact shape (its `_build_artifact`: lane generic-skill, rates 0, the reason)."""
    at = now_iso()
    run_id = "ev-" + content_hash("\x00".join([suite.id, picked["ranking"]["run_id"], str(picked["candidate"]["id"]),
                                                verdict, at]))[:12]
    artifact: dict[str, Any] = {
        "run_id": run_id, "skill_id": suite.skill_id, "suite": str(suite.path), "suite_id": suite.id,
        "split": "all", "pass_k": None, "executor": None, "mock": False,
        "candidate": {"path": None, "sha256": None}, "baseline": {"path": None, "sha256": None},
        "execution_pass_rate": 0.0, "baseline_pass_rate": 0.0, "delta": 0.0, "verdict": verdict,
        "evaluation_reason": reason, "shape": "upstream-skipped", "candidate_results": [], "baseline_results": [],
        "baseline_health": {}, "warnings": [f"{verdict}: {reason}"], "purpose": "standalone", "case_id": None,
        "started_at": at, "finished_at": at, "created_at": at, "truth_anchor": None,
        **pipeline_fields(picked, lane="generic-skill"),
    }
    if output is None and artifact_dir is not None:
        output = Path(artifact_dir) / f"{run_id}.json"
    if output is not None:
        artifact["truth_anchor"] = write_artifact(artifact, Path(output))
    store_run(db, suite, artifact, actor=actor)
    return artifact


__all__ = ["DEFAULT_EVAL_THRESHOLD", "baseline_skill", "candidate_skill", "pipeline_fields", "read_ranking",
           "record_unrun"]
