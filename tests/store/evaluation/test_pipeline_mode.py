"""`suite run`'s pipeline mode, as upstream's evaluate.py: the real ranking artifact the real discriminator wrote
(run1), its candidates evaluated or skipped, each artifact compared with the one upstream wrote for the same
command (upstream-outputs/artifacts/pipeline-{pass,skipped}.json), and verdict error in upstream's error shape."""

import json
import shutil
from pathlib import Path

import pytest

from gatepost.store.evaluation import parse_artifact
from tests.conftest import run_gatepost

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "improvement-evaluator"
OUTPUTS = UPSTREAM / "upstream-outputs"
EVALUATOR = UPSTREAM / "upstream" / "skills" / "improvement-evaluator"
SUITE = EVALUATOR / "tests" / "fixtures" / "sample_task_suite.yaml"
# what changes from one machine or run to the next (upstream's artifacts hold the paths of where they were made)
VARYING = {"created_at", "truth_anchor", "source_ranking_artifact", "task_suite", "target"}


@pytest.fixture
def ranking(tmp_path: Path) -> Path:
    """ranking-run1.json with its target where this machine has it: a copy of upstream's sample_skill (the
    target propose.py was given, SOURCES.txt)."""
    target = tmp_path / "skill"
    shutil.copytree(EVALUATOR / "tests" / "fixtures" / "sample_skill", target)
    data = json.loads((OUTPUTS / "pipeline-inputs" / "ranking-run1.json").read_text())
    data["target"]["path"] = str(target)
    path = tmp_path / "ranking-run1.json"
    path.write_text(json.dumps(data))
    return path


def _run(tmp_path: Path, ranking: Path, candidate: str, *args: str):
    out = tmp_path / f"{candidate}.json"
    done = run_gatepost("--db", str(tmp_path / "s.db"), "suite", "run", "--suite", str(SUITE), "--input", str(ranking),
                        "--candidate-id", candidate, "--mock", "--output", str(out), "-q", *args, cwd=tmp_path)
    return done, (json.loads(out.read_text()) if out.exists() else None)


def _same_upstream_fields(ours: dict, theirs: dict, *, results: bool = True) -> None:
    """Every field upstream wrote is there; the same value but where it varies by machine, or, for a run
    (`results=False`: gatepost's --mock answers otherwise than upstream's), where it comes from the results."""
    for key, value in theirs.items():
        if key in VARYING:
            assert key in ours, key
        elif not results and key in ("evaluation", "warnings"):
            assert set(value) <= set(ours[key]) if isinstance(value, dict) else isinstance(ours[key], list), key
        elif key in ("candidate_results", "baseline_results"):
            assert [r["task_id"] for r in ours[key]] == [r["task_id"] for r in value]
        else:
            assert ours[key] == value, key


def test_a_candidate_scored_below_the_threshold_is_skipped_as_upstream_writes_it(tmp_path: Path, ranking: Path):
    done, ours = _run(tmp_path, ranking, "cand-02-skill-prompt")
    assert done.returncode == 0, done.stderr
    assert "cand-02-skill-prompt: skipped: score 0.5 < threshold 1.0" in done.stdout
    theirs = json.loads((OUTPUTS / "artifacts" / "pipeline-skipped.json").read_text())
    _same_upstream_fields(ours, theirs)
    assert parse_artifact(json.dumps(ours), name="ours").verdict == "skipped"  # gatepost reads back its own
    done, kept = _run(tmp_path, ranking, "cand-02-skill-prompt", "--eval-threshold", "0.5", "--force")
    assert done.returncode == 0, done.stderr
    assert "candidate_results" in kept and kept["candidate_id"] == "cand-02-skill-prompt"  # 0.5 is not below 0.5


def test_a_candidate_at_the_threshold_runs_and_writes_upstreams_pipeline_artifact(tmp_path: Path, ranking: Path):
    done, ours = _run(tmp_path, ranking, "cand-01-skill")
    assert done.returncode == 0, done.stderr
    theirs = json.loads((OUTPUTS / "artifacts" / "pipeline-pass.json").read_text())
    _same_upstream_fields(ours, theirs, results=False)
    assert ours["run_id"] == "run1" and ours["candidate_score"] == 2.5 and ours["target"]["path"] == str(
        tmp_path / "skill")


def test_a_candidate_with_nothing_to_run_is_verdict_error(tmp_path: Path, ranking: Path):
    data = json.loads(ranking.read_text())
    data["target"]["path"] = str(tmp_path / "moved-away")
    ranking.write_text(json.dumps(data))
    done, ours = _run(tmp_path, ranking, "cand-01-skill")
    assert done.returncode == 1
    assert (ours["status"], ours["evaluation"]["verdict"], ours["next_step"], ours["next_owner"]) == (
        "error", "error", "abort", "human")  # upstream's _build_artifact for a verdict other than skipped
    assert ours["evaluation"]["reason"].startswith("Cannot find SKILL.md content for candidate or at ")
    listed = run_gatepost("--db", str(tmp_path / "s.db"), "suite", "import-artifact", str(tmp_path / "cand-01-skill.json"))
    assert listed.returncode == 0, listed.stderr  # the error artifact reads as upstream's error shape


def test_pipeline_mode_needs_its_candidate(tmp_path: Path, ranking: Path):
    done, _ = _run(tmp_path, ranking, "cand-99")
    assert done.returncode == 2 and "--candidate-id: 'cand-99' not found in ranking-run1.json's scored_candidates" \
        in done.stderr
    both = run_gatepost("suite", "run", "--suite", str(SUITE), "--skill", str(EVALUATOR / "tests/fixtures/sample_skill"),
                        "--input", str(ranking), "--candidate-id", "cand-01-skill", "--mock", cwd=tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr
