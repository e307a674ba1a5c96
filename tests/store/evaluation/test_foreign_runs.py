"""Evidence from any run: real JUnit reports (pytest's, of a gatepost test file before and after a change) and
real Inspect AI logs (Inspect 0.3.285 on a small task with its mock model; tests/fixtures/foreign/SOURCES.txt)
import as stored runs, and `case compare` turns two of them into a comparison the protocol counts."""

import json
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from gatepost.store import cases
from gatepost.store.evaluation import (
    export_artifact,
    import_artifact,
    import_foreign,
    run_statistics,
)
from gatepost.store.kernel import add_actor
from tests.conftest import run_gatepost

FOREIGN = Path(__file__).resolve().parents[2] / "fixtures" / "foreign"
BEFORE, AFTER = FOREIGN / "junit-gate-before.xml", FOREIGN / "junit-gate-after.xml"
BASE, CAND = FOREIGN / "inspect-release-baseline.eval", FOREIGN / "inspect-release-candidate.eval"
BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}


def _rows(db, run_id):
    return {r[0]: r[1:] for r in db.execute(
        "SELECT task_id, group_concat(passed), group_concat(score), group_concat(duration_ms), group_concat(reason,"
        " ' | ') FROM (SELECT * FROM task_results WHERE run_id = ? ORDER BY attempt) GROUP BY task_id", [run_id])}


def test_a_junit_report_imports_each_test_with_its_result_score_and_duration(db):
    before, created, artifact = import_foreign(db, BEFORE)
    assert created and artifact["format"] == "junit" and (artifact["passed"], artifact["total_tasks"]) == (0, 6)
    rows = _rows(db, before)
    cases_xml = ElementTree.parse(BEFORE).getroot().iter("testcase")
    for case in cases_xml:
        passed, score, duration, reason = rows[f"{case.get('classname')}.{case.get('name')}"]
        assert (passed, score, int(duration)) == ("0", "0.0", round(float(case.get("time")) * 1000))
        assert reason.startswith("failure: ")
    after, _, artifact = import_foreign(db, AFTER)
    assert (artifact["passed"], artifact["total_tasks"], artifact["verdict"]) == (6, 6, "pass")
    assert set(_rows(db, after)) == set(rows)
    figures = run_statistics(db, after)["candidate"]
    assert (figures["rate"], figures["low"], figures["high"]) == (1.0, 0.6097, 1.0)  # Wilson, 95 %
    assert import_foreign(db, AFTER)[1] is False  # the same bytes: stored once


def test_an_inspect_log_imports_each_sample_with_its_epochs_as_attempts(db, tmp_path: Path):
    base, _, artifact = import_foreign(db, BASE)
    assert (artifact["format"], artifact["scorer"], artifact["epochs"]) == ("inspect", "includes", 2)
    assert (artifact["passed"], artifact["total_tasks"]) == (4, 8)
    cand, _, artifact = import_foreign(db, CAND)
    assert (artifact["passed"], artifact["total_tasks"]) == (7, 8)  # q7 right at its second epoch: pass@2
    assert artifact["inspect_metrics"]["includes.accuracy"] == 0.8125  # Inspect's own mean, kept beside
    rows = _rows(db, cand)
    assert rows["q7"][:2] == ("0,1", "0.0,1.0") and rows["q8"][0] == "0,0"
    assert "includes: 'I': I am not sure." in rows["q8"][3]
    assert int(rows["q1"][2].split(",")[0]) > 0
    exported = tmp_path / "exported.json"  # written back as upstream's standalone artifact, read again as one
    exported.write_text(json.dumps(export_artifact(db, cand)))
    again = import_artifact(db, exported)[0]
    assert _rows(db, again).keys() == rows.keys() and run_statistics(db, again)["candidate"]["passed"] == 7
    json_run, created, same = import_foreign(db, FOREIGN / "inspect-release-baseline.json")
    assert created and json_run != base and _rows(db, json_run) == _rows(db, base)  # the JSON form, the same log


def _one_line(done, *words):
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and all(w in done.stderr for w in words), done.stderr


@pytest.mark.slow
def test_what_is_not_read_is_refused_in_one_line(tmp_path: Path):
    store = ["--db", str(tmp_path / "s.db")]
    _one_line(run_gatepost(*store, "suite", "import-artifact", str(FOREIGN / "inspect-release-candidate.zstd.eval")),
              "zip method 93 (zstd)", "inspect log convert --to json")
    bomb = tmp_path / "laughs.xml"
    bomb.write_text('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>\n'
                    '<testsuite name="x" tests="1"><testcase name="a&lol2;"/></testsuite>\n')
    _one_line(run_gatepost(*store, "suite", "import-artifact", str(bomb)), "laughs.xml", "DOCTYPE or entity")
    wrong = tmp_path / "counts.xml"
    wrong.write_text(BEFORE.read_text().replace('tests="6"', 'tests="7"'))
    _one_line(run_gatepost(*store, "suite", "import-artifact", str(wrong)), 'tests="7" contradicts its test cases (6)')
    old = tmp_path / "old.eval"
    with zipfile.ZipFile(CAND) as zin, zipfile.ZipFile(old, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "header.json":
                data = json.dumps({**json.loads(data), "version": 1}).encode()
            zout.writestr(info.filename, data)
    _one_line(run_gatepost(*store, "suite", "import-artifact", str(old)), "Inspect log version 1", "reads version 2")


def test_skipped_tests_are_not_counted_and_said(db, tmp_path: Path):
    report = tmp_path / "skips.xml"
    report.write_text('<testsuites><testsuite name="unit" tests="3" failures="0" errors="1" skipped="1">'
                      '<testcase classname="a" name="ok" time="0.5"/><testcase classname="a" name="later">'
                      '<skipped message="not yet"/></testcase><testcase classname="a" name="boom" time="1">'
                      '<error message="RuntimeError: no disk"/></testcase></testsuite></testsuites>')
    run_id, _, artifact = import_foreign(db, report)
    assert artifact["warnings"] == ["1 skipped test not counted"] and artifact["total_tasks"] == 2
    assert _rows(db, run_id)["a.boom"] == ("0", "0.0", "1000", "error: RuntimeError: no disk")


@pytest.fixture
def case_store(db, store_path):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "ci-eval", "producer", ["evidence.record"])
    cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": "c-1", "title": "Release steps", "author": "run-41",
        "candidate": {"path": "procedures/release.md", "content": "Run the smoke checks.", "basis": dict(BASIS)},
        "independent": {"different_agent_run": ["ci-eval", "ana"]}, "evidence": []}, actor="ana")
    store = ["--db", str(store_path)]
    for path in (BEFORE, AFTER, BASE, CAND):
        assert run_gatepost(*store, "suite", "import-artifact", str(path), "--as", "ci-eval").returncode == 0
    return db, store


def _run(db, path):
    return import_foreign(db, path)[0]  # already stored: its id


def _compare(store, *args):
    return run_gatepost(*store, "case", "compare", "c-1", *args, "--producer", "ci-eval", "--as", "ci-eval")


@pytest.mark.slow
def test_a_junit_report_and_an_inspect_log_become_comparisons_the_protocol_counts(case_store):
    db, store = case_store
    junit = ("--candidate", _run(db, AFTER), "--baseline", _run(db, BEFORE))
    inspect = ("--candidate", _run(db, CAND), "--baseline", _run(db, BASE))
    # these runs are too small for the default rule to decide (test_compare_follows_...): strict, chosen visibly
    held = _compare(store, *junit, "--kind", "heldout_comparison", "--decision-rule", "strict")
    assert held.returncode == 0, held.stderr
    assert "heldout_comparison: held" in held.stdout and "+100 pp" in held.stdout
    tuned = _compare(store, *inspect, *junit, "--kind", "tuning_comparison", "--json", "--decision-rule", "strict")
    assert tuned.returncode == 0, tuned.stderr
    report = json.loads(tuned.stdout)
    assert report["evidence"]["result"] == "reproduced"
    assert [r["delta"] for r in report["runs"]] == [0.375, 1.0]
    assert report["evidence"]["details"]["compared"][0] == {"candidate": _run(db, CAND), "baseline": _run(db, BASE)}
    view = cases.case_view(db, "c-1", actor="ana")
    assert view["claims"]["heldout.not_regressed"] == "TRUE" and view["claims"]["tuning.improved"] == "TRUE"


@pytest.mark.slow
def test_compare_follows_case_evaluates_decision_rule(case_store):
    db, store = case_store
    inspect = ("--candidate", _run(db, CAND), "--baseline", _run(db, BASE))
    junit = ("--candidate", _run(db, AFTER), "--baseline", _run(db, BEFORE))
    # significant: 3 tasks differ (p = 0.25), undecided: nothing recorded, the case says why
    quiet = _compare(store, *inspect, *junit, "--kind", "tuning_comparison", "--decision-rule", "significant")
    assert quiet.returncode == 0 and "settled nothing: tuning_comparison not recorded" in quiet.stdout
    assert "run 1 " in quiet.stdout and "p = 0.25" in quiet.stdout
    assert db.execute("SELECT COUNT(*) FROM evidence WHERE case_id = 'c-1'").fetchone()[0] == 0
    regressed = _compare(store, "--candidate", _run(db, BEFORE), "--baseline", _run(db, AFTER),
                         "--kind", "heldout_comparison")
    assert "heldout_comparison: regressed" in regressed.stdout
    _one_line(_compare(store, *inspect, "--kind", "tuning_comparison"), "weighs 2 pairs of runs", "got 1")
    _one_line(_compare(store, "--candidate", _run(db, CAND), "--baseline", _run(db, BEFORE), "--kind",
                       "heldout_comparison"), "--baseline: run", "lacks task q1", "the same tasks")
