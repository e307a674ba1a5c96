"""An acknowledgement covers the failure it acknowledged, never the skill: CI's `--fail-on` sees a new one."""

import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_gatepost


@pytest.fixture
def gp(tmp_path: Path):
    db = str(tmp_path / "store.db")

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_gatepost("--db", db, *args, cwd=tmp_path)

    for args in (["init"], ["actors", "add", "ana", "--capability", "manifest.review", "--capability",
                            "regression.triage"],
                 ["actors", "add", "run-52", "--kind", "producer", "--capability", "evidence.record"],
                 ["actors", "add", "ci", "--kind", "producer", "--capability", "evidence.record"]):
        assert run(*args).returncode == 0
    (tmp_path / "evals.yaml").write_text("digest:\n  min_words: 3\n  forbidden_patterns: ['TODO']\n", "utf-8")
    assert run("manifest", "import", "evals.yaml", "--as", "ana").returncode == 0
    for name, text in (("long.md", "one two three four\n"), ("short.md", "one\n"),
                       ("short-todo.md", "one TODO\n")):
        (tmp_path / name).write_text(text, "utf-8")

    def record_and_eval(output: str, fail_on: str = "NEW_FAIL") -> subprocess.CompletedProcess:
        assert run("skills", "record", "digest", "--output", output, "--as", "run-52").returncode == 0
        return run("skills", "eval", "--fail-on", fail_on, "--as", "ci")

    run.record_and_eval = record_and_eval  # type: ignore[attr-defined]
    return run


def _acknowledge(gp) -> None:
    done = gp("skills", "acknowledge", "digest", "--note", "fixing in #12", "--until", "2099-01-01", "--as", "ana")
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_a_failure_after_a_pass_is_new_whatever_until_said(gp):
    assert gp.record_and_eval("long.md").returncode == 0
    assert gp.record_and_eval("short.md").returncode == 1  # NEW_FAIL
    _acknowledge(gp)
    assert gp("skills", "eval", "--fail-on", "NEW_FAIL", "--as", "ci").returncode == 0
    assert gp.record_and_eval("short.md").returncode == 0  # the same assertion still fails: still covered
    assert gp.record_and_eval("long.md").returncode == 0  # it passes
    again = gp.record_and_eval("short-todo.md")  # and fails, now on another assertion too
    assert again.returncode == 1, again.stdout
    assert "acknowledged by ana" not in again.stdout


@pytest.mark.slow
def test_a_newly_failing_assertion_is_not_covered(gp):
    assert gp.record_and_eval("long.md").returncode == 0
    assert gp.record_and_eval("short.md").returncode == 1
    _acknowledge(gp)
    quiet = gp.record_and_eval("short.md", "NEW_FAIL,STABLE_FAIL")  # the acknowledged failure, carried forward
    assert quiet.returncode == 0 and "acknowledged by ana until 2099-01-01" in quiet.stdout
    loud = gp.record_and_eval("short-todo.md", "NEW_FAIL,STABLE_FAIL")  # forbidden_patterns fails as well
    assert loud.returncode == 1, loud.stdout
    assert "acknowledged by ana" not in loud.stdout
