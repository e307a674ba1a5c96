"""Issue 18 item 6 on the command line: `--about` names a known design of the case or is refused;
a suite's guard_allow; a leaked guard makes `case evaluate` exit 1 naming the task and the string."""

import json
from pathlib import Path

import pytest

from gatepost.store.cases import import_case, revise_candidate
from gatepost.store.kernel import add_actor, open_store
from tests.conftest import run_gatepost
from tests.evaluator_helpers import contains_task, executor, write_suite


def _store(tmp_path: Path, content: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "store.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["eval_design.review"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    import_case(db, {
        "protocol": "eval.gated_change/1", "id": "case-7", "title": "Changelog skill", "author": "run-41",
        "candidate": {"path": "skills/changelog/SKILL.md", "content": content,
                      "basis": {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1",
                                "design": "design-2"}},
        "independent": {"different_agent_run": ["run-52", "ana"]},
    }, actor="ana")
    revise_candidate(db, "case-7", basis={"design": "design-3"}, actor="run-41")
    db.close()
    return path


@pytest.mark.slow
def test_about_must_name_a_known_design_of_the_case(tmp_path):
    path = _store(tmp_path, "Write a changelog.")
    base = ("--db", str(path), "case", "evidence", "case-7", "--kind", "design_review", "--result", "passed",
            "--as", "ana")
    typo = run_gatepost(*base, "--about", "design-1")
    assert typo.returncode == 3
    assert typo.stderr.strip().splitlines() == [
        "gatepost: record evidence on case-7: refused: design: --about design-1 is not a design of case-7 (its designs: "
        "design-2, design-3; current names the basis' design)"]
    assert run_gatepost(*base, "--about", "design-2").returncode == 0  # an earlier design: known, stale
    assert run_gatepost(*base, "--about", "current").returncode == 0
    shown = json.loads(run_gatepost("--db", str(path), "case", "show", "case-7", "--json").stdout)
    assert [(e["about"], e["status"]) for e in shown["evidence"]] == [("design-2", "stale"), ("design-3", "counting")]


def _suite(tmp_path: Path, allow: list[str] | None) -> Path:
    suite = write_suite(tmp_path / "suite", [
        contains_task("t1", "write the changelog of 1.2", ["### Added"]),
        contains_task("t2", "which tier for accuracy 0.9?", ["tier is high"]),
        contains_task("h1", "write the changelog of 1.3", ["### Added"], split="heldout"),
    ])
    if allow is not None:
        with suite.open("a", encoding="utf-8") as f:
            f.write("guard_allow:\n" + "".join(f"  - {json.dumps(a)}\n" for a in allow))
    return suite


def _evaluate(path: Path, suite: Path) -> object:
    return run_gatepost("--db", str(path), "case", "evaluate", "case-7", "--suite", str(suite), "--executor",
                        executor("follow"), "--producer", "run-52", "--surface", "skills/*", "--as", "run-52")


def test_a_leaked_guard_exits_1_naming_the_task_and_the_string(tmp_path):
    path = _store(tmp_path, "Sections: ### Added, ### Fixed. Never say the tier is HIGH.")
    result = _evaluate(path, _suite(tmp_path, None))
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert "leaked: task t1 expects '### Added' and the candidate contains it (a suite may allow it: guard_allow)" \
        in lines
    assert any(line.startswith("leaked: task h1 expects '### Added'") for line in lines)
    assert any(line.startswith("leaked: task t2 expects 'tier is high'") for line in lines)


@pytest.mark.slow
def test_guard_allow_lets_a_candidate_spell_out_its_own_output_format(tmp_path):
    path = _store(tmp_path, "Sections: ### Added, ### Fixed.")
    result = _evaluate(path, _suite(tmp_path, ["### added"]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "guard_check: clean" in result.stdout and "allowed by the suite's guard_allow" in result.stdout
    still = _store(tmp_path / "other", "### Added; the tier is high")
    assert _evaluate(still, _suite(tmp_path / "other", ["### Added"])).returncode == 1  # allowed only what it lists


def test_guard_allow_must_list_expected_answers(tmp_path):
    suite = _suite(tmp_path, ["### Removed"])
    result = run_gatepost("suite", "validate", str(suite))
    assert result.returncode == 2
    assert "guard_allow: '### Removed' is not an expected answer of any contains task" in result.stdout + result.stderr
