"""Large artifacts stream (issue 19 item 2): parsed value by value in bounded memory, results stored in
batches inside the import's one transaction, with the same checks and one-line errors as small files."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gatepost.store.evaluation import artifacts, get_run, parse_artifact, stream_artifact
from gatepost.store.kernel import InputError, open_store

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "improvement-evaluator"
ARTIFACTS = sorted((UPSTREAM / "upstream-outputs" / "artifacts").glob("*.json"))


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: p.stem)
def test_streaming_reads_every_real_artifact_as_parsing_it_whole_does(path: Path, monkeypatch):
    monkeypatch.setattr(artifacts, "STREAM_CHUNK", 7)  # values cut at every possible place
    rows: list = []
    streamed = stream_artifact(path, name=path.name, on_rows=rows.extend, batch=1)
    whole = parse_artifact(path.read_text(), name=path.name)
    assert rows == whole.rows
    for key in ("shape", "execution_pass_rate", "baseline_pass_rate", "delta", "verdict", "warnings",
                "baseline_health", "mock"):
        assert getattr(streamed, key) == getattr(whole, key), key


def _artifact(n: int, **changes) -> dict:
    results = [{"task_id": f"t-{i}", "passed": i % 2 == 0, "score": 1.0, "duration_ms": 3, "output": "x" * 300}
               for i in range(n)]
    data = {"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0, "verdict": "pass",
            "candidate_results": results, "baseline_results": [dict(r) for r in results], "warnings": []}
    data.update(changes)
    return data


@pytest.mark.parametrize("mutate, says", [
    (lambda d: d["candidate_results"][7].update(passed="yes"), r"candidate_results\[7\].passed: expected true or false"),
    (lambda d: d.update(delta=0.25), "delta: 0.25 contradicts the pass rates"),
    (lambda d: d.update(verdict="fail"), "verdict: 'fail' contradicts delta 0.0"),
])
def test_a_bad_large_artifact_is_refused_in_one_line_naming_the_field(tmp_path: Path, mutate, says):
    data = _artifact(20)
    mutate(data)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=says):
        stream_artifact(path, name=path.name, on_rows=lambda rows: None, batch=3)


@pytest.mark.parametrize("text, says", [
    ('{"delta": 0, "delta": 1}', "duplicate key 'delta'"),
    ('{"execution_pass_rate": 1} trailing', "extra data"),
    ('{"candidate_results": [{"task_id": "a", "passed": true},', "not valid JSON"),
    ('[1, 2]', "expected an object"),
])
def test_malformed_json_is_one_line(tmp_path: Path, text: str, says: str):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(InputError, match=says) as caught:
        stream_artifact(path, name=path.name, on_rows=lambda rows: None)
    assert "\n" not in str(caught.value)


def _write_piecewise(path: Path, n: int, *, bad_last_baseline_score: object = None) -> None:
    head = {k: v for k, v in _artifact(0).items() if k not in ("candidate_results", "baseline_results")}
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(head)[:-1])
        for key in ("candidate_results", "baseline_results"):
            out.write(f', "{key}": [')
            for i in range(n):
                r = {"task_id": f"t-{i}", "passed": i % 2 == 0, "score": 1.0, "duration_ms": 3, "output": "x" * 300}
                if key == "baseline_results" and i == n - 1 and bad_last_baseline_score is not None:
                    r["score"] = bad_last_baseline_score
                out.write(("," if i else "") + json.dumps(r))
            out.write("]")
        out.write("}")


@pytest.mark.slow
def test_a_large_artifact_imports_through_the_cli_in_one_transaction(tmp_path: Path):
    """Over the 64 MiB limit of other files: streamed. A bad result at the very end stores nothing."""
    n = 120_000
    path = tmp_path / "large.json"
    _write_piecewise(path, n)  # never the whole document in this process's memory (its RSS is measured elsewhere)
    assert path.stat().st_size > 64 * 1024 * 1024
    store = tmp_path / "r.db"
    done = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(store), "suite", "import-artifact",
                           str(path), "--as", "ana"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.strip().split(": ")[-1]
    db = open_store(store)
    run = get_run(db, run_id, with_results=False)
    assert (run["execution_pass_rate"], run["delta"], run["verdict"]) == (0.5, 0.0, "pass")
    assert db.execute("SELECT COUNT(*) FROM task_results WHERE run_id = ?", [run_id]).fetchone()[0] == 2 * n
    before = db.execute("SELECT COUNT(*) FROM task_results").fetchone()[0]
    db.close()
    bad = tmp_path / "bad.json"
    _write_piecewise(bad, n, bad_last_baseline_score="high")
    refused = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(store), "suite", "import-artifact",
                              str(bad), "--as", "ana"], capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2
    assert f"baseline_results[{n - 1}].score: expected a number or null" in refused.stderr
    db = open_store(store)
    assert db.execute("SELECT COUNT(*) FROM task_results").fetchone()[0] == before
    assert db.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0] == 1
    db.close()
