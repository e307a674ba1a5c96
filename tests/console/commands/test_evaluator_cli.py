"""The CLI as a user runs it: suite validate/run/import-artifact, gate, proposal, case evaluate."""

import json
import os
import sqlite3
from pathlib import Path

import pytest

from gatepost.store.cases import get_case, import_case
from gatepost.store.kernel import add_actor, open_store
from tests.conftest import run_gatepost
from tests.evaluator_helpers import (
    BASIC,
    BROKEN,
    GOOD_SKILL,
    WEAK_SKILL,
    contains_task,
    executor,
    scorer,
    write_suite,
)
from tests.store.proposals.test_gate import SAMPLE


def test_validate_prints_every_problem_and_exits_2(cli):
    result = cli("suite", "validate", str(BROKEN))
    assert result.exit_code == 2
    assert "task dup: id: duplicate task id" in result.output and "13 problems in suite.yaml" in result.output
    ok = cli("suite", "validate", str(BASIC))
    assert ok.exit_code == 0 and "valid (skill quality-tiers, 5 tasks: 4 tuning, 1 held-out)" in ok.output


def test_run_with_mock_prints_a_summary_and_writes_the_artifact_beside_the_store(cli, store_path: Path):
    result = cli("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--baseline", str(WEAK_SKILL),
                 "--mock", "--split", "heldout")
    assert result.exit_code == 0, result.output
    assert "verdict pass" in result.output and "[mock]" in result.output
    artifacts = list((store_path.parent / "evaluations").glob("ev-*.json"))
    assert len(artifacts) == 1
    data = json.loads(artifacts[0].read_text())
    assert data["truth_anchor"] == str(artifacts[0].resolve()) and data["mock"] is True


def test_run_json_and_fail_on_regression(cli, tmp_path: Path):
    suite = write_suite(tmp_path / "s", [contains_task("t1", "word one?", ["alpha"])])
    better, worse = tmp_path / "better.md", tmp_path / "worse.md"
    better.write_text("alpha")
    worse.write_text("nothing")
    out = tmp_path / "a.json"
    common = ["--suite", str(suite), "--executor", executor("follow"), "--output", str(out)]
    regress = cli("suite", "run", *common, "--skill", str(worse), "--baseline", str(better), "--json",
                  "--fail-on-regression")
    assert regress.exit_code == 1
    assert json.loads(regress.output)["verdict"] == "fail"
    assert json.loads(out.read_text())["delta"] == -1.0
    plain = cli("suite", "run", *common, "--skill", str(worse), "--baseline", str(better))
    assert plain.exit_code == 0 and "verdict fail" in plain.output  # without the flag a fail is reported, not raised
    assert "--fail-on-regression" in cli("suite", "run", "--help").output


def test_run_refuses_bad_input_with_one_line(cli, tmp_path: Path):
    both = cli("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--mock", "--executor", "echo")
    assert both.exit_code == 2 and "not both" in both.output
    missing = cli("suite", "run", "--suite", str(BASIC), "--skill", str(tmp_path / "nope.md"), "--mock")
    assert missing.exit_code == 2 and "no such skill file" in missing.output
    broken = cli("suite", "run", "--suite", str(BROKEN), "--skill", str(GOOD_SKILL), "--mock")
    assert broken.exit_code == 2 and "more problems" in broken.output
    nocmd = cli("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--executor", "no-such-ai-cli")
    assert nocmd.exit_code == 2 and "command not found" in nocmd.output


def test_import_artifact_round_trips_a_run(cli, tmp_path: Path):
    out = tmp_path / "a.json"
    cli("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--mock", "--split", "heldout",
        "--output", str(out))
    first = cli("suite", "import-artifact", str(out))
    assert first.exit_code == 0 and first.output.startswith("imported: imp-")
    assert cli("suite", "import-artifact", str(out)).output.startswith("already imported")


@pytest.mark.slow
def test_import_artifact_takes_many_files_each_its_own_transaction(tmp_path: Path):
    store = tmp_path / "s.db"
    files = []
    for i in range(3):
        path = tmp_path / f"run-{i}.json"
        path.write_text(json.dumps({"execution_pass_rate": 1.0, "baseline_pass_rate": 1.0, "delta": 0.0,
                                    "verdict": "pass", "candidate_results": [{"task_id": f"t{i}", "passed": True}],
                                    "baseline_results": [{"task_id": f"t{i}", "passed": True}]}))
        files.append(str(path))
    bad = tmp_path / "bad.json"
    bad.write_text('{"execution_pass_rate": 1.0, "candidate_results": [}')
    done = run_gatepost("--db", str(store), "suite", "import-artifact", files[0], files[1], files[0], str(bad),
                        files[2], "--as", "ana")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "bad.json: not valid JSON" in done.stderr
    lines = done.stdout.splitlines()  # one per file before the bad one, naming it; the bad one stops the rest
    assert [line.split(": ")[0] for line in lines] == ["imported", "imported", "already imported"]
    assert lines[0].endswith(f"({files[0]})") and lines[2].endswith(f"({files[0]})")
    with sqlite3.connect(store) as conn:  # the two good files before it stay stored
        assert conn.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0] == 2
    rest = run_gatepost("--db", str(store), "suite", "import-artifact", files[2], "--as", "ana")
    assert rest.returncode == 0 and rest.stdout.startswith("imported: imp-") and "(" not in rest.stdout
    assert run_gatepost("--db", str(store), "suite", "import-artifact").returncode == 2  # no file: usage


def test_gate_cli_records_and_exits_by_status(cli, store_path: Path, tmp_path: Path):
    good = tmp_path / "gate.toml"
    good.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{scorer("structure")}"\n'
                    'targets = ["procedures"]\ntimeout_secs = 5\n')
    passed = cli("gate", "--config", str(good), "--proposal", str(SAMPLE), "--json")
    assert passed.exit_code == 0
    answer = json.loads(passed.output)
    assert answer["status"] == "passed" and answer["score_before"] == 0.7 and answer["score_after"] == 0.9
    bad = tmp_path / "bad.toml"
    bad.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{scorer("garbage")}"\ntargets = ["procedures"]\n')
    failed = cli("gate", "--config", str(bad), "--proposal", str(SAMPLE))
    assert failed.exit_code == 1 and "failed: invalid JSON" in failed.output
    listed = json.loads(cli("proposal", "list", "--json").output)
    assert listed["total"] == 1 and listed["proposals"][0]["gate"] == "failed"


def test_proposal_cli_import_list_show_mark(cli, store_path: Path):
    imported = cli("proposal", "import", str(SAMPLE))
    pid = imported.output.split(": ")[1].strip()
    db = open_store(store_path)
    add_actor(db, "chen", "person", ("proposal.review",))
    add_actor(db, "dara", "person", ())
    db.close()
    assert pid in cli("proposal", "list").output
    refused = cli("proposal", "mark", pid, "accepted", "--as", "dara", "--note", "fine")
    assert refused.exit_code == 3 and "dara does not hold proposal.review" in refused.output
    marked = cli("proposal", "mark", pid, "needs_changes", "--as", "chen", "--note", "add a rollback step")
    assert marked.exit_code == 0 and "needs_changes by chen" in marked.output
    shown = json.loads(cli("proposal", "show", pid, "--json").output)
    assert shown["status"] == "needs_changes" and shown["marks"][0]["note"] == "add a rollback step"
    assert cli("proposal", "show", "prop-nope").exit_code == 2
    assert json.loads(cli("proposal", "list", "--status", "waiting", "--json").output)["total"] == 0


def _case(db, *, content: str, path: str = "skills/tiers/SKILL.md", case_id: str = "case-7") -> str:
    add_actor(db, "run-52", "producer", ("evidence.record",))  # it records its evidence as itself (--as run-52)
    return import_case(db, {
        "protocol": "eval.gated_change/1", "id": case_id, "title": "Tiers skill names the tier",
        "author": "run-41", "candidate": {"path": path, "content": content,
                                          "basis": {"baseline": "b-1", "question_set": "qs-1",
                                                    "data_revision": "d-1", "design": "design-1"}},
        "independent": {"different_agent_run": ["run-52"]},
    }, actor="ana")


def _case_suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite", [
        contains_task("t1", "which tier for accuracy 0.9?", ["tier is high"]),
        contains_task("t2", "which tier for accuracy 0.5?", ["tier is low"]),
        contains_task("h1", "which tier for accuracy 0.95?", ["tier is high"], split="heldout"),
    ])


def test_case_evaluate_records_guard_tuning_and_heldout_evidence(cli, store_path: Path, tmp_path: Path):
    db = open_store(store_path)
    _case(db, content="Answer with the tier, e.g. 'the tier is HIGH' for accuracy 0.9; never guess.")
    db.close()
    suite = _case_suite(tmp_path)
    # 2 tuning tasks and 1 held-out decide nothing at alpha 0.05: only the strict rule records them
    result = cli("case", "evaluate", "case-7", "--suite", str(suite), "--executor", executor("follow"),
                 "--producer", "run-52", "--surface", "skills/*", "--json", "--as", "run-52",
                 "--decision-rule", "strict")
    assert result.exit_code == 1, result.output  # a leaked guard is a check that found what it looks for
    report = json.loads(result.output)
    kinds = {e["kind"]: e["result"] for e in report["evidence"]}
    # the content holds "the tier is HIGH": an expected answer, so the guard says leaked
    assert kinds == {"guard_check": "leaked", "tuning_comparison": "reproduced", "heldout_comparison": "held"}
    assert [r["purpose"] for r in report["runs"]] == ["tuning-1", "tuning-2", "heldout"]
    db = open_store(store_path)
    case = get_case(db, "case-7")
    assert case["claims"]["result.reproducible"] == "TRUE" and case["claims"]["content.clean"] == "FALSE"
    abouts = {r[0] for r in db.execute("SELECT about FROM evidence WHERE case_id = 'case-7'")}
    assert abouts == {case["current_revision"]}
    runs = db.execute("SELECT COUNT(*) FROM evaluation_runs WHERE case_id = 'case-7'").fetchone()[0]
    db.close()
    assert runs == 3


def test_case_evaluate_not_better_regressed_and_outside(cli, store_path: Path, tmp_path: Path):
    db = open_store(store_path)
    _case(db, content="Be brief.", path="_rules/tiers.md", case_id="case-8")
    db.close()
    suite = _case_suite(tmp_path)
    baseline = tmp_path / "baseline.md"
    baseline.write_text("the tier is high; the tier is low")
    result = cli("case", "evaluate", "case-8", "--suite", str(suite), "--executor", executor("follow"),
                 "--producer", "run-52", "--surface", "skills/*", "--baseline", str(baseline), "--as", "run-52",
                 "--decision-rule", "strict")
    assert result.exit_code == 0, result.output
    assert "guard_check: outside" in result.output and "(decision rule strict: strict: noise may pass)" in result.output
    assert "tuning_comparison: not_better" in result.output and "heldout_comparison: regressed" in result.output


def test_case_evaluate_reports_a_missing_split_and_an_unknown_case(cli, store_path: Path, tmp_path: Path):
    db = open_store(store_path)
    _case(db, content="z", case_id="case-9")  # not the expected answer: a leaked guard would exit 1
    db.close()
    suite = write_suite(tmp_path / "t", [contains_task("t1", "q", ["x"])])
    result = cli("case", "evaluate", "case-9", "--suite", str(suite), "--mock", "--producer", "run-52",
                 "--surface", "skills/**", "--as", "run-52")
    assert result.exit_code == 0 and "not recorded: heldout_comparison" in result.output
    unknown = cli("case", "evaluate", "case-nope", "--suite", str(suite), "--mock", "--producer", "run-52")
    assert unknown.exit_code == 2 and "no such case" in unknown.output


def test_the_real_entry_point_runs_a_suite(tmp_path: Path):
    env = {"GATEPOST_DB": str(tmp_path / "s.db"), "GATEPOST_REVIEWER": "ci"}
    done = run_gatepost("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--mock",
                        "--split", "heldout", "--cache-dir", str(tmp_path / "cache"), cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "verdict pass" in done.stdout
    assert os.listdir(tmp_path / "cache")
