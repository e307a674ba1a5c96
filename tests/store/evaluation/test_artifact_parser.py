"""The one reader of evaluator artifacts: a file read whole and a file streamed go through it, so the real
upstream files read to what they say, and a bad file is refused in one line naming the file and the field,
in the same words both ways."""

import json
from pathlib import Path

import pytest

from gatepost.store.evaluation import parse_artifact, stream_artifact
from gatepost.store.kernel import InputError

UPSTREAM = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "improvement-evaluator"
ARTIFACTS = sorted((UPSTREAM / "upstream-outputs" / "artifacts").glob("*.json"))
PASS = UPSTREAM / "upstream-outputs" / "artifacts" / "pipeline-pass.json"


def _streamed(path: Path):
    rows: list = []
    parsed = stream_artifact(path, name=path.name, on_rows=rows.extend, batch=2)
    parsed.rows = rows
    return parsed


@pytest.mark.parametrize("path", ARTIFACTS, ids=lambda p: p.stem)
def test_every_real_upstream_artifact_reads_to_what_it_says(path: Path):
    data = json.loads(path.read_text(encoding="utf-8"))
    block = data["evaluation"]
    keys = ["task_results"] if "task_results" in data else ["candidate_results", "baseline_results"]
    expected = [("baseline" if key == "baseline_results" else "candidate", r["task_id"], int(r["passed"]))
                for key in keys for r in data.get(key) or []]
    for parsed in (parse_artifact(path.read_text(encoding="utf-8"), name=path.name), _streamed(path)):
        assert [row[:3] for row in parsed.rows] == expected
        assert parsed.verdict == block["verdict"]
        rate = block.get("execution_pass_rate", block.get("pass_rate"))
        assert parsed.execution_pass_rate == rate
        if "delta" in block:
            assert parsed.delta == block["delta"] and parsed.baseline_pass_rate == block["baseline_pass_rate"]


def _refusal(text: str, tmp_path: Path) -> tuple[str, str]:
    """The error of the file read whole and of the same file streamed."""
    path = tmp_path / "pipeline-pass.json"
    path.write_text(text, encoding="utf-8")
    said = []
    for read in (lambda: parse_artifact(text, name=path.name), lambda: _streamed(path)):
        with pytest.raises(InputError) as caught:
            read()
        said.append(str(caught.value))
    return said[0], said[1]


def _changed(change) -> str:
    data = json.loads(PASS.read_text(encoding="utf-8"))
    change(data)
    return json.dumps(data, indent=2)


@pytest.mark.parametrize("change, says", [
    (lambda d: d["candidate_results"][1].update(passed="yes"), "candidate_results[1].passed: expected true or false"),
    (lambda d: d["baseline_results"][0].pop("task_id"),
     "baseline_results[0].task_id: missing (expected a non-empty string)"),
    (lambda d: d["candidate_results"][0].update(score="high"), "candidate_results[0].score: expected a number or null"),
    (lambda d: d["evaluation"].update(delta=0.5), "evaluation.delta: 0.5 contradicts the pass rates"),
    (lambda d: d["evaluation"].update(verdict="fail"), "evaluation.verdict: 'fail' contradicts delta 0.0"),
    (lambda d: d["evaluation"].update(verdict="maybe"), "evaluation.verdict: expected one of pass, fail"),
    (lambda d: d["evaluation"].pop("baseline_pass_rate"), "evaluation.baseline_pass_rate: missing"),
    (lambda d: d.update(evaluation=[1]), "evaluation: expected an object"),
    (lambda d: d.update(warnings="none"), "warnings: expected a list of strings"),
])
def test_a_bad_field_is_refused_in_one_line_naming_the_file_and_the_field(tmp_path: Path, change, says: str):
    whole, streamed = _refusal(_changed(change), tmp_path)
    assert whole == streamed
    assert whole.startswith("pipeline-pass.json: ") and says in whole and "\n" not in whole


@pytest.mark.parametrize("text, whole_says, streamed_says", [
    ('{\n  "evaluation": {"verdict": "pass",}\n}', "not valid JSON at line 2, column 36", "not valid JSON at character 37"),
    ('{"run_id": "a", "run_id": "b"}', "duplicate key 'run_id'", "duplicate key 'run_id'"),
    ('[{"task_id": "a"}]', "not valid JSON at line 1, column 1: expected an object",
     "not valid JSON at character 0: expected an object"),
    ('{"candidate_results": [{"task_id": "a", "passed": true}', "expected ',' or ']' in candidate_results",
     "expected ',' or ']' in candidate_results"),
    ('{"warnings": []} {}', "extra data after the artifact's object", "extra data after the artifact's object"),
    ('{"candidate_results": [{"task_id": "a", "passed": true, "score": NaN}]}', "candidate_results[0].score: expected",
     "candidate_results[0].score: expected"),
])
def test_malformed_json_is_one_line_where_it_is(tmp_path: Path, text: str, whole_says: str, streamed_says: str):
    whole, streamed = _refusal(text, tmp_path)
    assert whole.startswith("pipeline-pass.json: ") and whole_says in whole and "\n" not in whole
    assert streamed.startswith("pipeline-pass.json: ") and streamed_says in streamed
