"""The gate as ai-memory runs it, with ai-memory's (engram fork's) real scorers, and as an operator
expects it: target matching, default targets, a non-string reason, the base hash always sent, the
scorer command relative to its config file, a missing scorer exit 2 and never recorded."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gatepost.store.kernel import add_actor, open_store
from gatepost.store.proposals import (
    GateConfig,
    judge_answer,
    load_gate_config,
    run_gate,
    validate_proposal,
)

EXAMPLE = (Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "ai-memory" / "engram" / "docs"
           / "examples" / "auto-improve-eval")
SAMPLE = json.loads((EXAMPLE / "sample-proposal.json").read_text())

VARIATIONS = {
    "sample": {},
    "create": {"operation": "create", "before_body": ""},
    "patch": {"edit_mode": "patch", "after_body": SAMPLE["after_body"] + "\n## Checklist\n- Tag the release.\n"},
    "todo": {"after_body": "# Release Procedure\n\n## Steps\n- TODO\n"},
    "rule": {"path": "_rules/commits.md", "kind": "rule", "before_body": "# Commits\n",
             "after_body": "# Commits\n\nAlways sign commits; never force-push main.\n"},
    "weak-rule": {"path": "_rules/style.md", "kind": "rule", "before_body": "# Style\n",
                  "after_body": "# Style\n\nSome thoughts about style.\n"},
    "rule-folder": {"path": "_rules", "kind": "rule", "before_body": "", "after_body": "# Rules\n\nPrefer small PRs.\n"},
}
SCORERS = {"py": "score_proposal.py", "sh": "score_proposal.sh"}


def _command(kind: str) -> str:
    return f"{sys.executable} score_proposal.py" if kind == "py" else "sh score_proposal.sh"


@pytest.fixture
def setup(tmp_path: Path) -> Path:
    """A config folder holding the real scorers and a config naming them relatively."""
    folder = tmp_path / "ai-memory"
    folder.mkdir()
    for name in SCORERS.values():
        shutil.copy(EXAMPLE / name, folder / name)
    return folder


def _direct(folder: Path, kind: str, proposal: dict) -> dict:
    request = {**proposal}
    request.setdefault("expected_base_body_sha256", None)
    argv = _command(kind).split()
    done = subprocess.run(argv, input=json.dumps(request), capture_output=True, text=True, cwd=folder, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _gatepost(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gatepost", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(SCORERS))
@pytest.mark.parametrize("variation", sorted(VARIATIONS))
def test_real_scorers_give_the_same_result_directly_and_through_the_gate(setup: Path, tmp_path: Path, kind: str,
                                                                        variation: str):
    proposal = {**SAMPLE, **VARIATIONS[variation]}
    config = setup / "ai-memory.toml"
    config.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{_command(kind)}"\ntimeout_secs = 60\n')
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(proposal))
    direct = _direct(setup, kind, proposal)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()  # run from another folder: the relative command still means the config's folder
    done = _gatepost("--db", str(tmp_path / "r.db"), "gate", "--config", str(config), "--proposal", str(path),
                     "--json", cwd=elsewhere)
    assert done.returncode == (0 if direct["passed"] else 1), done.stderr
    result = json.loads(done.stdout)
    assert result["passed"] is direct["passed"] and result["status"] == ("passed" if direct["passed"] else "failed")
    assert result["score_after"] == direct.get("score_after")
    assert result["score_before"] == direct.get("score_before")
    if not direct["passed"]:
        assert direct["reason"] in result["reason"]


def test_a_target_gates_itself_and_what_lies_under_it_only():
    config = GateConfig(enabled=True, command="true", targets=["procedures", "_rules/"])
    assert config.targets_path("procedures/release.md") and config.targets_path("procedures")
    assert config.targets_path("_rules/x.md") and config.targets_path("_rules")
    assert not config.targets_path("procedures-archive/x.md")
    assert not config.targets_path("_rulesets/x.md") and not config.targets_path("notes/procedures/x.md")


def test_without_targets_the_gate_guards_rules_and_procedures_as_ai_memory_does(tmp_path: Path):
    config = tmp_path / "c.toml"
    config.write_text('[auto_improve.eval]\nenabled = true\ncommand = "true"\n')
    loaded = load_gate_config(config)
    assert loaded.targets == ["_rules", "procedures"]
    assert loaded.targets_path("procedures/release.md") and not loaded.targets_path("notes/x.md")
    config.write_text('[auto_improve.eval]\nenabled = true\ncommand = "true"\ntargets = []\n')
    assert not load_gate_config(config).targets_path("procedures/release.md")  # said so: nothing gated


@pytest.mark.parametrize("reason", ["7", "true", '["bad"]', '{"why": "x"}'])
def test_a_non_string_reason_fails_closed(reason: str):
    outcome = judge_answer(f'{{"passed": true, "score_before": 0.1, "score_after": 0.9, "reason": {reason}}}',
                           GateConfig(enabled=True, command="true"))
    assert outcome.status == "failed" and outcome.reason.startswith("invalid reason: expected a string")
    assert judge_answer('{"passed": true, "reason": null}', GateConfig(enabled=True, command="true")).passed


def test_the_base_hash_is_always_sent(setup: Path, tmp_path: Path, monkeypatch):
    recorder = setup / "record.py"
    recorder.write_text("import json, sys\nopen('seen.json', 'w').write(sys.stdin.read())\n"
                        "print(json.dumps({'passed': True}))\n")
    config = GateConfig(enabled=True, command=f"{sys.executable} record.py", folder=str(setup))
    assert run_gate(config, validate_proposal(dict(SAMPLE))).passed
    seen = json.loads((setup / "seen.json").read_text())
    assert "expected_base_body_sha256" in seen and seen["expected_base_body_sha256"] is None


@pytest.mark.parametrize("command", ["./missing-scorer.sh", "no-such-scorer-program", "{python} missing.py"])
def test_a_missing_scorer_is_exit_2_and_never_recorded(setup: Path, tmp_path: Path, command: str):
    config = setup / "ai-memory.toml"
    config.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{command.format(python=sys.executable)}"\n')
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(SAMPLE))
    store = tmp_path / "r.db"
    done = _gatepost("--db", str(store), "gate", "--config", str(config), "--proposal", str(path), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and "ai-memory.toml: auto_improve.eval.command" in done.stderr
    if store.exists():
        db = open_store(store)
        assert db.execute("SELECT COUNT(*) FROM gate_results").fetchone()[0] == 0
        db.close()


def test_proposal_show_json_says_booleans(setup: Path, tmp_path: Path):
    config = setup / "ai-memory.toml"
    config.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{_command("py")}"\n')
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps(SAMPLE))
    store = str(tmp_path / "r.db")
    gated = json.loads(_gatepost("--db", store, "gate", "--config", str(config), "--proposal", str(path), "--json",
                                 cwd=tmp_path).stdout)
    shown = _gatepost("--db", store, "proposal", "show", gated["proposal_id"], "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    result = json.loads(shown.stdout)["gate_results"][0]
    assert result["passed"] is True and result["targeted"] is True


@pytest.mark.slow
def test_accepting_a_proposal_whose_gate_failed_needs_an_override_with_a_reason(setup: Path, tmp_path: Path):
    config = setup / "ai-memory.toml"
    config.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{_command("py")}"\n')
    path = tmp_path / "proposal.json"
    path.write_text(json.dumps({**SAMPLE, **VARIATIONS["todo"]}))
    store = tmp_path / "r.db"
    gated = _gatepost("--db", str(store), "gate", "--config", str(config), "--proposal", str(path), "--json",
                      cwd=tmp_path)
    assert gated.returncode == 1
    pid = json.loads(gated.stdout)["proposal_id"]
    db = open_store(store)
    add_actor(db, "chen", "person", ("proposal.review",))
    db.close()
    refused = _gatepost("--db", str(store), "proposal", "mark", pid, "accepted", "--note", "fine", "--as", "chen",
                        cwd=tmp_path)
    assert refused.returncode == 3
    assert f"mark {pid} accepted: refused: gate: its latest gate result failed" in refused.stderr
    assert "--override-gate" in refused.stderr
    done = _gatepost("--db", str(store), "proposal", "mark", pid, "accepted", "--note", "fine", "--as", "chen",
                     "--override-gate", "the TODO is a tracked follow-up", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = _gatepost("--db", str(store), "proposal", "show", pid, cwd=tmp_path)
    assert "gate overridden: the TODO is a tracked follow-up" in shown.stdout
    marks = json.loads(_gatepost("--db", str(store), "proposal", "show", pid, "--json", cwd=tmp_path).stdout)["marks"]
    assert marks[0]["override_gate"] == "the TODO is a tracked follow-up"
