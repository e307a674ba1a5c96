"""Failures become tasks: a run's failed task (or a skill's failing output) drafted into its suite file as a case
for the suite's owner; the file is never written, the reviewer never decides it, the owner's Overview lists it."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from gatepost.store.discussion import mentions_of
from gatepost.store.evaluation import parse_suite
from gatepost.store.failures import add_to_suite
from gatepost.store.flows import decide
from gatepost.store.kernel import InputError, RefusedError, add_actor, open_store
from tests.conftest import FIXTURES, run_gatepost
from tests.fixtures.skills.store_builder import build


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A repository folder with the basic suite, a weak skill and a store holding a mock run of them."""
    shutil.copytree(FIXTURES / "evaluator" / "suites" / "basic", tmp_path / "suites")
    shutil.copy(FIXTURES / "evaluator" / "skill_weak.md", tmp_path / "skill.md")
    monkeypatch.chdir(tmp_path)
    gp = lambda *a: run_gatepost("--db", "store.db", *a, cwd=tmp_path)  # noqa: E731
    assert gp("init", "--admin", "ana").returncode == 0
    assert gp("actors", "grant", "ana", "case.close", "--as", "ana").returncode == 0
    assert gp("actors", "add", "bruno", "--capability", "case.close", "--as", "ana").returncode == 0
    done = gp("suite", "run", "--suite", "suites/suite.yaml", "--skill", "skill.md", "--mock", "--as", "ana",
              "--json")
    assert done.returncode == 0, done.stderr
    return tmp_path, json.loads(done.stdout)["run_id"], gp


def test_a_failed_task_becomes_a_case_for_the_suites_owner(here):
    folder, run_id, _gp = here
    before = (folder / "suites" / "suite.yaml").read_text(encoding="utf-8")
    db = open_store(folder / "store.db")
    made = add_to_suite(db, None, owner="bruno", actor="ana", note="must name the tier in capitals", run_id=run_id,
                        task_id="heldout-tier", expected=["POWERFUL"])
    assert (folder / "suites" / "suite.yaml").read_text(encoding="utf-8") == before  # never written
    case = db.execute("SELECT author, candidate_path, status FROM cases WHERE id = ?", [made["case_id"]]).fetchone()
    assert case == ("ana", "suites/suite.yaml", "open")
    content = db.execute("SELECT content FROM candidate_revisions WHERE case_id = ?", [made["case_id"]]).fetchone()[0]
    suite, errors = parse_suite(json.loads(content), path=folder / "suites" / "suite.yaml")  # stored as JSON
    assert errors == [] and suite is not None
    new = suite.tasks[-1]
    assert new.id == "heldout-tier-regression" and new.split == "heldout"
    assert new.prompt == "Given accuracy 0.95, what quality tier?" and new.judge["expected"] == ["POWERFUL"]
    assert [t.id for t in suite.tasks[:-1]] == [t["id"] for t in yaml.safe_load(before)["tasks"]]
    assert [m["subject_id"] for m in mentions_of(db, "bruno")] == [made["case_id"]]
    with pytest.raises(RefusedError, match="self-dealing"):
        decide(db, made["case_id"], "inconclusive", actor="ana", note="mine")
    again = add_to_suite(db, None, owner="bruno", actor="ana", note="the tier again, judged by a rubric",
                         run_id=run_id, task_id="heldout-tier")
    assert again["task"]["id"] == "heldout-tier-regression" and again["task"]["judge"]["type"] == "llm-rubric"
    assert again["task"]["judge"]["rubric"] == "the tier again, judged by a rubric"


def test_bad_input(here):
    folder, run_id, _gp = here
    db = open_store(folder / "store.db")
    with pytest.raises(InputError, match="--owner: nobody is not a person"):
        add_to_suite(db, None, owner="nobody", actor="ana", note="x", run_id=run_id, task_id="heldout-tier")
    with pytest.raises(InputError, match="--task: run .* holds no task 'nope'"):
        add_to_suite(db, None, owner="bruno", actor="ana", note="x", run_id=run_id, task_id="nope")
    with pytest.raises(InputError, match="--note"):
        add_to_suite(db, None, owner="bruno", actor="ana", note=" ", run_id=run_id, task_id="heldout-tier")
    assert db.execute("SELECT COUNT(*) FROM cases").fetchone()[0] == 0


def test_the_cli(here):
    folder, run_id, gp = here
    out = gp("suite", "add-task", "--run", run_id, "--task", "heldout-tier", "--owner", "bruno", "--note",
             "capitals", "--expected", "POWERFUL", "--as", "ana", "--json")
    assert out.returncode == 0, out.stderr
    made = json.loads(out.stdout)
    assert made["suite_path"] == "suites/suite.yaml" and made["task"]["id"] == "heldout-tier-regression"
    shown = gp("comment", f"case:{made['case_id']}")
    assert "@bruno a task for suite.yaml, drafted from run" in shown.stdout
    assert gp("verify").returncode == 0
    outside = gp("suite", "add-task", "--suite", str(Path("/tmp") / "nowhere.yaml"), "--run", run_id, "--task",
                 "heldout-tier", "--owner", "bruno", "--note", "x", "--as", "ana")
    assert outside.returncode == 2 and "Traceback" not in outside.stderr


def test_a_skills_failing_output_becomes_a_task(db, tmp_path, monkeypatch):
    build(db)
    add_actor(db, "ana", "person", ["regression.triage"])
    add_actor(db, "bruno", "person", ["case.close"])
    shutil.copytree(FIXTURES / "evaluator" / "suites" / "basic", tmp_path / "suites")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="--prompt: expected the task's prompt"):
        add_to_suite(db, "suites/suite.yaml", owner="bruno", actor="ana", note="too short", skill="token-movers")
    made = add_to_suite(db, "suites/suite.yaml", owner="bruno", actor="ana", note="needs the Top movers heading",
                        skill="token-movers", prompt="List today's top token movers", expected=["Top movers"])
    assert made["task"]["id"] == "token-movers-failure" and made["source"]["skill"] == "token-movers"
    assert made["source"]["failing_output"]  # what the reviewer saw travels with the case
    with pytest.raises(InputError, match="has no failing evaluation"):
        add_to_suite(db, "suites/suite.yaml", owner="bruno", actor="ana", note="x", skill="hn-digest", prompt="p")
