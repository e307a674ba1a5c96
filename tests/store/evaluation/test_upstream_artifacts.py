"""The real improvement-evaluator's artifacts, both ways: every shape its evaluate.py writes imports with
the same rates, deltas and verdicts; a stored run exports in its shape; an artifact that contradicts
itself is refused naming both values. All on copies of the real files (tests/fixtures/reference)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gatepost.store.evaluation import (
    CommandExecutor,
    RunSettings,
    evaluate,
    export_artifact,
    get_run,
    import_artifact,
    load_suite,
    run_tasks,
)
from gatepost.store.kernel import InputError
from tests.evaluator_helpers import contains_task, executor, write_suite

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "improvement-evaluator"
ARTIFACTS = sorted((UPSTREAM / "upstream-outputs" / "artifacts").glob("*.json"))
EVALUATOR = UPSTREAM / "upstream" / "skills" / "improvement-evaluator"

TASK_FIELDS = ("task_id", "passed", "score", "details", "duration_ms", "error")


def _gatepost(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gatepost", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_there_are_eleven_real_artifacts():
    assert len(ARTIFACTS) == 11


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: p.stem)
def test_every_real_artifact_imports_with_its_rates_delta_and_verdict(db, path: Path):
    data = json.loads(path.read_text())
    block = data["evaluation"]
    run_id, created = import_artifact(db, path, actor="ana")
    assert created
    run = get_run(db, run_id)
    assert run["verdict"] == block["verdict"]
    if "pass_rate" in block:  # standalone: one side, no baseline
        assert run["execution_pass_rate"] == block["pass_rate"]
        assert run["baseline_pass_rate"] is None and run["delta"] is None
        tasks = run_tasks(db, run_id)
        assert sorted(t["task_id"] for t in tasks) == sorted(r["task_id"] for r in data["task_results"])
        assert sum(1 for t in tasks if t["candidate"]["passed"]) == block["passed"]
    else:
        assert run["execution_pass_rate"] == block["execution_pass_rate"]
        assert run["baseline_pass_rate"] == block["baseline_pass_rate"]
        assert run["delta"] == block["delta"]
        counts = dict(db.execute("SELECT side, COUNT(*) FROM task_results WHERE run_id = ? GROUP BY side",
                                 [run_id]).fetchall())
        assert counts.get("candidate", 0) == len(data.get("candidate_results") or [])
        assert counts.get("baseline", 0) == len(data.get("baseline_results") or [])


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: p.stem)
def test_every_real_artifact_round_trips_in_upstreams_shape(db, path: Path, tmp_path: Path):
    original = json.loads(path.read_text())
    run_id, _ = import_artifact(db, path, actor="ana")
    exported = export_artifact(db, run_id)
    for key in ("schema_version", "lane", "run_id", "stage", "status", "created_at"):
        assert exported[key] == original[key], key
    if "pass_rate" in original["evaluation"]:
        assert exported["evaluation"] == original["evaluation"]
        sides = [("task_results", "task_results")]
    else:
        for key in ("execution_pass_rate", "baseline_pass_rate", "delta", "verdict", "reason"):
            assert exported["evaluation"].get(key) == original["evaluation"].get(key), key
        if "baseline_health" in original["evaluation"]:
            assert exported["evaluation"]["baseline_health"] == original["evaluation"]["baseline_health"]
        sides = [("candidate_results", "candidate_results"), ("baseline_results", "baseline_results")]
        assert ("candidate_results" in exported) == ("candidate_results" in original)
    for key, _ in sides:
        if key not in original:
            continue
        if original[key] is None:
            assert exported[key] is None
            continue
        assert [{f: r[f] for f in TASK_FIELDS} for r in exported[key]] == original[key]
    # and what gatepost wrote imports again to the same numbers
    again = tmp_path / "again.json"
    again.write_text(json.dumps(exported))
    second, created = import_artifact(db, again, actor="ana")
    assert created and second != run_id
    a, b = get_run(db, run_id), get_run(db, second)
    assert (a["execution_pass_rate"], a["baseline_pass_rate"], a["delta"], a["verdict"]) == \
        (b["execution_pass_rate"], b["baseline_pass_rate"], b["delta"], b["verdict"])


def test_the_real_evaluate_py_writes_what_gatepost_imports(tmp_path: Path):
    """Run upstream's own evaluate.py --mock (a copy, so no bytecode lands in the fixtures) and import it."""
    root = tmp_path / "up"
    shutil.copytree(UPSTREAM / "upstream" / "lib", root / "lib")
    shutil.copytree(EVALUATOR, root / "skills" / "improvement-evaluator")
    suite = root / "skills" / "improvement-evaluator" / "task_suites" / "deslop" / "task_suite.yaml"
    out = tmp_path / "standalone-deslop.json"
    proc = subprocess.run([sys.executable, str(root / "skills" / "improvement-evaluator" / "scripts" / "evaluate.py"),
                           "--standalone", "--task-suite", str(suite), "--mock", "--output", str(out),
                           "--state-root", str(tmp_path / "state")], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    written = json.loads(out.read_text())
    store = tmp_path / "review.db"
    result = _gatepost("--db", str(store), "suite", "import-artifact", str(out), "--as", "ana")
    assert result.returncode == 0, result.stderr
    run_id = result.stdout.split(": ")[-1].strip()
    listed = _gatepost("--db", str(store), "suite", "export-artifact", run_id)
    assert listed.returncode == 0, listed.stderr
    exported = json.loads(listed.stdout)
    assert exported["evaluation"] == written["evaluation"]
    assert exported["evaluation"]["verdict"] in ("pass", "fail")


def test_gatepost_writes_upstreams_shape_for_its_own_runs(db, tmp_path: Path):
    """Upstream's orchestrator reads evaluation.verdict and evaluation.execution_pass_rate; gatepost's flat
    fields stay beside them, equal."""
    suite = load_suite(write_suite(tmp_path / "suite", [contains_task("t-a", "word?", ["alpha"]),
                                                          contains_task("t-b", "word?", ["bravo"])]))
    out = tmp_path / "artifact.json"
    evaluate(db, suite, candidate_text="alpha", baseline_text="alpha bravo", output=out,
             settings=RunSettings(executor=CommandExecutor(executor("follow"))), actor="ci")
    written = json.loads(out.read_text())
    assert written["schema_version"] == "1.0" and written["stage"] == "evaluated"
    assert written["evaluation"]["execution_pass_rate"] == written["execution_pass_rate"] == 0.5
    assert written["evaluation"]["baseline_pass_rate"] == 1.0
    assert written["evaluation"]["delta"] == -0.5 and written["evaluation"]["verdict"] == "fail"
    failing = next(r for r in written["candidate_results"] if not r["passed"])
    assert set(TASK_FIELDS) <= set(failing) and failing["details"]
    run_id, created = import_artifact(db, out, actor="ana")
    assert created and get_run(db, run_id)["verdict"] == "fail"


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "contradicts.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("change,message", [
    ({"delta": 0.5}, r"contradicts.json: evaluation.delta: 0.5 contradicts the pass rates \(1.0 - 1.0 = 0.0\)"),
    ({"verdict": "fail"}, r"contradicts.json: evaluation.verdict: 'fail' contradicts delta 0.0"),
])
def test_a_pipeline_artifact_that_contradicts_its_rates_is_refused(db, tmp_path: Path, change, message):
    data = json.loads((UPSTREAM / "upstream-outputs" / "artifacts" / "pipeline-pass.json").read_text())
    data["evaluation"].update(change)
    with pytest.raises(InputError, match=message):
        import_artifact(db, _write(tmp_path, data))
    assert db.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0] == 0


@pytest.mark.parametrize("change,message", [
    ({"pass_rate": 0.9}, r"evaluation.pass_rate: 0.9 contradicts passed 4 of 7 tasks"),
    ({"verdict": "fail"}, r"evaluation.verdict: 'fail' contradicts pass_rate"),
    ({"passed": 5, "failed": 2, "pass_rate": 0.7143},
     r"evaluation.passed: 5 of 7 contradicts task_results \(4 of 7 passed\)"),
    ({"failed": 4}, r"evaluation.total_tasks: 7 contradicts passed 4 \+ failed 4"),
])
def test_a_standalone_artifact_that_contradicts_its_counts_is_refused(db, tmp_path: Path, change, message):
    data = json.loads((UPSTREAM / "upstream-outputs" / "artifacts" / "standalone-deslop.json").read_text())
    assert data["evaluation"]["passed"] == 4 and data["evaluation"]["total_tasks"] == 7
    data["evaluation"].update(change)
    with pytest.raises(InputError, match=message):
        import_artifact(db, _write(tmp_path, data))


def test_a_flat_artifact_that_contradicts_itself_is_refused_through_the_cli(tmp_path: Path):
    path = _write(tmp_path, {"execution_pass_rate": 0.5, "baseline_pass_rate": 0.8, "delta": 0.3,
                             "verdict": "pass", "candidate_results": [], "baseline_results": []})
    result = _gatepost("--db", str(tmp_path / "r.db"), "suite", "import-artifact", str(path), "--as", "ana")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "contradicts.json: delta: 0.3 contradicts the pass rates (0.5 - 0.8 = -0.3)" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_every_suite_upstream_accepts_gatepost_accepts_and_what_it_refuses_gatepost_refuses(tmp_path: Path):
    """Upstream's own load_task_suite (run through upstream_verdict.py on a copy) against `suite validate`."""
    root = tmp_path / "up"
    shutil.copytree(UPSTREAM / "upstream" / "lib", root / "lib")
    shutil.copytree(EVALUATOR, root / "skills" / "improvement-evaluator")
    outputs = UPSTREAM / "upstream-outputs"
    suites = [*sorted((outputs / "test-suites-extracted").glob("*.yaml")),
              *sorted((outputs / "forge-suites").glob("*/task_suite.yaml")),
              *sorted((EVALUATOR / "task_suites").glob("*/task_suite.yaml"))]
    verdicts = subprocess.run([sys.executable, str(outputs / "upstream_verdict.py"),
                               str(root / "skills" / "improvement-evaluator"), *map(str, suites)],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert verdicts.returncode == 0, verdicts.stderr
    lines = verdicts.stdout.splitlines()
    assert len(lines) == len(suites) == 22
    refused = 0
    for suite, line in zip(suites, lines, strict=True):
        upstream_valid = line.split("\t")[1] == "valid"
        ours = _gatepost("suite", "validate", str(suite), cwd=tmp_path)
        assert ours.returncode == (0 if upstream_valid else 2), (suite.name, line, ours.stderr)
        assert "Traceback" not in ours.stderr
        refused += not upstream_valid
    assert refused == 7
