"""Loops are registered (issue 18 item 1), and a bootstrap draft says which sampled runs it fails (issue 17
item 10): real subprocesses on a store in tmp_path."""

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_gatepost


@pytest.fixture
def store(tmp_path: Path):
    db = str(tmp_path / "store.db")

    def gp(*args: str) -> subprocess.CompletedProcess:
        return run_gatepost("--db", db, *args, cwd=tmp_path)

    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"skill_id": "s", "version": "1.0", "tasks": [
        {"id": "t1", "prompt": "p", "judge": {"type": "contains", "expected": ["x"]}}]}), "utf-8")
    for args in (["init", "--admin", "admin"],
                 ["actors", "add", "ana", "--capability", "manifest.review", "--capability", "loop_change.keep",
                  "--as", "admin"],
                 ["actors", "add", "run-52", "--kind", "producer", "--capability", "evidence.record", "--as", "admin"]):
        assert gp(*args).returncode == 0
    return gp, suite, tmp_path


def _add(gp, suite, *extra, who="admin"):
    return gp("loop", "add", "writer", "--surface", "skills/*/SKILL.md", "--suite", str(suite), "--mock",
              "--evaluator", "run-52", "--reviewer", "ana", *extra, "--as", who)


@pytest.mark.slow
def test_only_store_admin_registers_a_loop(store):
    gp, suite, _ = store
    refused = _add(gp, suite, who="ana")
    assert refused.returncode == 3
    assert refused.stderr.startswith("gatepost: loop add writer: refused: ") and "store.admin" in refused.stderr
    assert json.loads(gp("loop", "list", "--json").stdout) == {"schema": "gatepost.loops/1", "loops": []}


@pytest.mark.slow
def test_loop_add_list_show_and_a_new_version_when_settings_change(store):
    gp, suite, _ = store
    assert _add(gp, suite).returncode == 0
    shown = json.loads(gp("loop", "show", "writer", "--json").stdout)
    assert shown["schema"] == "gatepost.loop/1" and shown["version"] == 1
    assert shown["surface"] == ["skills/*/SKILL.md"] and shown["paths"] == ["skills/*/SKILL.md"]
    assert shown["evaluators"] == ["run-52"] and shown["reviewers"] == ["ana"] and shown["mock"] is True
    assert shown["suite_hash"] == hashlib.sha256(suite.read_bytes()).hexdigest()
    assert shown["baseline"] == "current"
    assert _add(gp, suite).returncode == 0  # the same settings: no new version
    assert json.loads(gp("loop", "show", "writer", "--json").stdout)["version"] == 1
    assert _add(gp, suite, "--path", "skills/**", "--path", "_rules/*").returncode == 0
    again = json.loads(gp("loop", "show", "writer", "--json").stdout)
    assert again["version"] == 2 and again["paths"] == ["skills/**", "_rules/*"]
    listed = gp("loop", "list")
    assert listed.returncode == 0 and listed.stdout.startswith("writer")
    kinds = [json.loads(x)["kind"] for x in gp("events", "--subject", "loop:writer", "--json").stdout.splitlines()]
    assert kinds == ["loop.added", "loop.changed"]


@pytest.mark.slow
def test_loop_add_bad_input_is_exit_2_naming_the_option(store):
    gp, suite, _ = store
    both = gp("loop", "add", "writer", "--surface", "x", "--suite", str(suite), "--evaluator", "run-52",
              "--as", "admin")
    assert both.returncode == 2 and "--executor/--mock" in both.stderr
    person_as_evaluator = gp("loop", "add", "writer", "--surface", "x", "--suite", str(suite), "--mock",
                             "--evaluator", "ana", "--as", "admin")
    assert person_as_evaluator.returncode == 2 and "--evaluator: ana is a person" in person_as_evaluator.stderr
    escaping = gp("loop", "add", "writer", "--surface", "../x", "--suite", str(suite), "--mock",
                  "--evaluator", "run-52", "--as", "admin")
    assert escaping.returncode == 2 and "--surface: ../x" in escaping.stderr
    assert gp("loop", "show", "nope").returncode == 2


@pytest.mark.slow
def test_current_set_needs_store_admin_and_shows_where_it_came_from(store):
    gp, _, tmp = store
    (tmp / "a.md").write_text("hello\n", "utf-8")
    refused = gp("current", "skills/a/SKILL.md", "--set", "a.md", "--as", "ana")
    assert refused.returncode == 3 and "store.admin" in refused.stderr
    empty = json.loads(gp("current", "skills/a/SKILL.md", "--json").stdout)
    assert empty["recorded"] is False and empty["content"] is None
    assert gp("current", "skills/a/SKILL.md", "--set", "a.md", "--ref", "v1", "--as", "admin").returncode == 0
    doc = json.loads(gp("current", "skills/a/SKILL.md", "--json").stdout)
    assert doc["content_hash"] == "sha256:" + hashlib.sha256(b"hello\n").hexdigest()
    assert doc["source"]["ref"] == "v1" and doc["source"]["actor"] == "admin"
    assert gp("current", "skills/a/SKILL.md", "--content").stdout == "hello\n"


@pytest.mark.slow
def test_a_bootstrap_draft_says_which_sampled_runs_it_would_fail(store):
    gp, _, tmp = store
    words = [40, 80, 90, 100, 20]  # oldest first: the newest run is the shortest, below p25
    for i, n in enumerate(words):
        out = tmp / f"run{i}.md"
        out.write_text("## Summary\n" + " ".join(["word"] * n) + "\n", "utf-8")
        done = gp("skills", "record", "digest", "--output", str(out), "--at", f"2026-05-0{i + 1}T08:00:00Z",
                  "--as", "run-52")
        assert done.returncode == 0, done.stderr
    made = gp("bootstrap", "--skill", "digest", "--json", "--as", "ana")
    doc = json.loads(made.stdout)
    failing = {(f["run_id"], f["assertion"], f["newest"]) for f in doc["would_fail"]}
    assert ("digest-0005", "min_words", True) in failing and ("digest-0001", "min_words", False) not in failing
    shown = gp("manifest", "show", doc["id"])
    assert "warning: would fail sampled run digest-0005 (the newest run: the next eval fails at once, NEW_FAIL) " \
           "on min_words" in shown.stdout
    approved = gp("manifest", "approve", doc["id"], "--as", "ana")
    assert approved.returncode == 0 and "would fail sampled run digest-0005" in approved.stderr
