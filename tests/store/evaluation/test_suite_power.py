"""Small suites say so before they run (`suite validate`, `loop add`), and a loop's decision rule is a registered,
visible choice: changing it is a store.admin act, and an evaluator cannot choose another."""

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_gatepost


def _suite(path: Path, tuning: int, heldout: int = 0, **top) -> Path:
    tasks = [{"id": f"t{i}", "prompt": "p", "judge": {"type": "contains", "expected": ["x"]}} for i in range(tuning)]
    tasks += [{"id": f"h{i}", "prompt": "p", "split": "heldout", "judge": {"type": "contains", "expected": ["x"]}}
              for i in range(heldout)]
    path.write_text(yaml.safe_dump({"skill_id": "s", "version": "1.0", **top, "tasks": tasks}), "utf-8")
    return path


@pytest.mark.parametrize("tuning,heldout,said,warned", [
    (7, 0, "7 tuning tasks detect only ±86 pp at α = 0.05", True),
    (3, 0, "3 tuning tasks cannot decide any change at α = 0.05", True),
    (12, 0, "12 tuning tasks detect only ±50 pp at α = 0.05", False),  # the default floor: 50 pp
])
def test_suite_validate_reports_the_smallest_change_it_can_decide(tmp_path: Path, tuning, heldout, said, warned):
    suite = _suite(tmp_path / "suite.yaml", tuning, heldout)
    done = run_gatepost("suite", "validate", str(suite), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"decision rule significant: {said}" in done.stdout
    assert ("warning: " + said in done.stdout) is warned


def test_the_floor_and_max_regression_are_the_suites_to_set(tmp_path: Path):
    strict = _suite(tmp_path / "a.yaml", 12, 2, must_detect=0.3, decision_rule="strict")
    done = run_gatepost("suite", "validate", str(strict), cwd=tmp_path)
    assert ("warning: 12 tuning tasks detect only ±50 pp at α = 0.05, coarser than the suite's floor "
            "(must_detect: 30 pp): under the strict rule a smaller change is kept on noise") in done.stdout
    assert ("warning: 2 held-out tasks cannot decide any change at α = 0.05, so a regression of 10 pp "
            "(max_regression) goes unseen") in done.stdout
    enough = _suite(tmp_path / "b.yaml", 12, 12, max_regression=0.5)
    done = run_gatepost("suite", "validate", str(enough), cwd=tmp_path)
    assert "12 held-out tasks detect only ±50 pp" in done.stdout and "warning" not in done.stdout
    bad = _suite(tmp_path / "c.yaml", 12, max_regression=10, must_detect=0)
    done = run_gatepost("suite", "validate", str(bad), cwd=tmp_path)
    assert done.returncode == 2
    assert "max_regression: expected the held-out drop to detect, a fraction between 0 and 1" in done.stderr
    assert "must_detect: expected the tuning change to decide" in done.stderr


@pytest.fixture
def store(tmp_path: Path):
    db = str(tmp_path / "store.db")

    def gp(*args: str) -> subprocess.CompletedProcess:
        return run_gatepost("--db", db, *args, cwd=tmp_path)

    for args in (["init", "--admin", "admin"],
                 ["actors", "add", "ana", "--capability", "manifest.review", "--as", "admin"],
                 ["actors", "add", "run-52", "--kind", "producer", "--capability", "evidence.record", "--as", "admin"]):
        assert gp(*args).returncode == 0
    return gp, tmp_path


def _add(gp, suite, *extra, who="admin"):
    return gp("loop", "add", "writer", "--surface", "skills/*", "--suite", str(suite), "--mock",
              "--evaluator", "run-52", *extra, "--as", who)


@pytest.mark.slow
def test_loop_add_reports_what_its_suite_can_decide_and_records_the_rule(store):
    gp, tmp = store
    suite = _suite(tmp / "suite.yaml", 7, 1)
    added = _add(gp, suite)
    assert added.returncode == 0, added.stderr
    assert ("decision rule: significant at α = 0.05 · 7 tuning tasks detect only ±86 pp at α = 0.05 · "
            "1 held-out task cannot decide any change at α = 0.05") in added.stdout
    assert "warning: 7 tuning tasks detect only ±86 pp" in added.stdout
    assert json.loads(gp("loop", "show", "writer", "--json").stdout)["decision_rule"] == "significant"
    # strict is a choice the registry records; choosing it is a store.admin act, a new version, named in the audit
    assert _add(gp, suite, "--decision-rule", "strict", who="ana").returncode == 3
    changed = _add(gp, suite, "--decision-rule", "strict")
    assert changed.returncode == 0 and "decision rule: strict: noise may pass" in changed.stdout
    shown = gp("loop", "show", "writer")
    assert "decision rule: strict (noise may pass)" in shown.stdout
    events = [json.loads(x) for x in gp("events", "--subject", "loop:writer", "--json").stdout.splitlines()]
    assert [e["kind"] for e in events] == ["loop.added", "loop.changed"]
    assert events[-1]["actor"] == "admin"
    assert events[-1]["payload"]["decision_rule_changed"] == {"from": "significant", "to": "strict"}


@pytest.mark.slow
def test_an_evaluator_cannot_choose_a_loops_rule(store):
    gp, tmp = store
    suite = _suite(tmp / "suite.yaml", 3)
    assert _add(gp, suite).returncode == 0
    (tmp / "new.md").write_text("a candidate", "utf-8")
    assert gp("actors", "add", "run-41", "--kind", "producer", "--as", "admin").returncode == 0
    made = gp("case", "new", "--loop", "writer", "--path", "skills/a", "--content-file", "new.md", "--json",
              "--as", "run-41")
    assert made.returncode == 0, made.stderr
    case_id = json.loads(made.stdout)["case_id"]
    refused = gp("case", "evaluate", case_id, "--producer", "run-52", "--decision-rule", "strict", "--as", "run-52")
    assert refused.returncode == 3 and "decision_rule of loop writer come from its registry" in refused.stderr
    done = gp("case", "evaluate", case_id, "--producer", "run-52", "--json", "--as", "run-52")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["decision_rule"] == "significant"
