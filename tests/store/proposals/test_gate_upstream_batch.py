"""Where gatepost's gate used to differ from ai-memory's, checked with ai-memory's (engram fork's) real scorer,
its real config template and the lines of its gate code quoted beside each test: the unrounded f64 delta,
invalid UTF-8 in an answer, unknown keys, an enabled gate without a command, and a batch of proposals."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gatepost.store.kernel import open_store
from gatepost.store.proposals import (
    GateConfig,
    judge_answer,
    load_gate_config,
    run_gate,
    validate_proposal,
)

ENGRAM = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "ai-memory" / "engram"
EXAMPLE = ENGRAM / "docs" / "examples" / "auto-improve-eval"
TEMPLATE = ENGRAM / "crates" / "engram-cli" / "templates" / "config.default.toml"
SAMPLE = json.loads((EXAMPLE / "sample-proposal.json").read_text())
STEPS = {**SAMPLE, "before_body": "# Release Procedure\n", "after_body": "# Release Procedure\n\n## Steps\n- Run tests\n"}
RULE = {**SAMPLE, "path": "_rules/commits.md", "kind": "rule", "before_body": "# Commits\n",
        "after_body": "# Commits\n\nAlways sign commits; never force-push main.\n"}
TODO = {**SAMPLE, "after_body": "# Release Procedure\n\n## Steps\n- TODO\n"}
NOTE = {**SAMPLE, "path": "notes/release.md"}


def _gatepost(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gatepost", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "ai-memory"
    folder.mkdir()
    shutil.copy(EXAMPLE / "score_proposal.py", folder / "score_proposal.py")
    return folder


def _config(folder: Path, body: str) -> Path:
    path = folder / "ai-memory.toml"
    path.write_text(f"[auto_improve.eval]\n{body}")
    return path


def _proposal(tmp_path: Path, name: str, proposal: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(proposal))
    return path


def test_the_delta_is_after_minus_before_in_f64_unrounded(folder: Path, tmp_path: Path):
    # auto_improve.rs: `.map(|(before, after)| after - before)`; `delta.is_none_or(|value| value >= eval.min_delta)`.
    # The real scorer gives a procedure gaining its Steps 0.45 before and 0.7 after: 0.7 - 0.45 is
    # 0.24999999999999994 in f64, below a min_delta of 0.25.
    direct = subprocess.run([sys.executable, "score_proposal.py"], input=json.dumps(STEPS), capture_output=True,
                            text=True, cwd=folder, check=True)
    answer = json.loads(direct.stdout)
    assert (answer["passed"], answer["score_before"], answer["score_after"]) == (True, 0.45, 0.7)
    config = _config(folder, f'enabled = true\ncommand = "{sys.executable} score_proposal.py"\nmin_delta = 0.25\n')
    done = _gatepost("--db", str(tmp_path / "g.db"), "gate", "--config", str(config), "--proposal",
                     str(_proposal(tmp_path, "steps.json", STEPS)), "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and "= 0.24999999999999994, below min_delta 0.25" in result["reason"]
    # the issue's own example: 0.3 - 0.1 = 0.19999999999999998 < 0.2
    strict = GateConfig(enabled=True, command="true", min_delta=0.2)
    assert not judge_answer('{"passed":true,"score_before":0.1,"score_after":0.3}', strict).passed
    assert judge_answer('{"passed":true,"score_before":0.1,"score_after":0.30000000000000004}', strict).passed


def test_an_answer_that_is_not_utf8_fails_closed(folder: Path, tmp_path: Path):
    # auto_improve.rs: `serde_json::from_slice::<AutoImproveEvalResponse>(&stdout)`: invalid UTF-8 is invalid JSON
    (folder / "latin1.py").write_text("import sys\nsys.stdin.read()\n"
                                      "sys.stdout.buffer.write(b'{\"passed\":true,\"reason\":\"gepr\\xfcft\"}')\n")
    config = _config(folder, f'enabled = true\ncommand = "{sys.executable} latin1.py"\n')
    done = _gatepost("--db", str(tmp_path / "g.db"), "gate", "--config", str(config), "--proposal",
                     str(_proposal(tmp_path, "p.json", SAMPLE)), "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and "invalid UTF-8 at byte 29" in result["reason"]
    assert judge_answer('{"passed":true,"reason":"geprüft"}'.encode(), GateConfig(enabled=True)).passed


def test_unknown_keys_are_ignored_with_a_warning(folder: Path, tmp_path: Path):
    # config.rs: "`deny_unknown_fields` is intentionally NOT set"; the real template with a key it does not know
    text = TEMPLATE.read_text().replace("[auto_improve.eval]\nenabled = false\ncommand = \"\"\n",
                                        f"[auto_improve.eval]\nenabled = true\ncommand = \"{sys.executable} "
                                        "score_proposal.py\"\nmax_retries = 3\n")
    assert "max_retries" in text
    config = folder / "config.toml"
    config.write_text(text)
    loaded = load_gate_config(config)
    assert loaded.enabled and loaded.targets == ["_rules", "procedures"]
    assert [w.split(":")[1].strip() for w in loaded.warnings] == ["auto_improve.eval.max_retries"]
    done = _gatepost("--db", str(tmp_path / "g.db"), "gate", "--config", str(config), "--proposal",
                     str(_proposal(tmp_path, "p.json", SAMPLE)), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "passed" in done.stdout
    assert done.stderr.strip() == ("gatepost: warning: config.toml: auto_improve.eval.max_retries: unknown key, "
                                   "ignored as ai-memory ignores it (known: command, enabled, min_delta, "
                                   "targets, timeout_secs)")


def test_enabled_without_a_command_warns_and_accepts_what_it_does_not_target(folder: Path, tmp_path: Path):
    # auto_improve.rs apply_eval_gate_with_before_bodies: the warning, untargeted proposals accepted;
    # run_eval_for_proposal: "eval command is empty" for a targeted one
    config = _config(folder, 'enabled = true\ncommand = ""\n')
    done = _gatepost("--db", str(tmp_path / "g.db"), "gate", "--config", str(config), "--proposal",
                     str(_proposal(tmp_path, "note.json", NOTE)), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "not_targeted"
    assert "auto-improve eval gate enabled without a command; targeted proposals rejected" in done.stderr
    outcome = run_gate(load_gate_config(config), validate_proposal(dict(SAMPLE)))
    assert outcome.status == "failed" and outcome.reason == "command error: eval command is empty"


def test_a_batch_gates_each_proposal_on_its_own(folder: Path, tmp_path: Path):
    # ai-memory gates every proposal of a run: one failing closed does not stop the others
    (folder / "picky.py").write_text(
        "import json, subprocess, sys\nrequest = sys.stdin.read()\n"
        "if json.loads(request)['path'].startswith('_rules/'):\n    sys.exit(3)\n"
        "sys.stdout.write(subprocess.run([sys.executable, 'score_proposal.py'], input=request, text=True,"
        " capture_output=True).stdout)\n")
    config = _config(folder, f'enabled = true\ncommand = "{sys.executable} picky.py"\n')
    files = [_proposal(tmp_path, name, p) for name, p in
             (("rule.json", RULE), ("sample.json", SAMPLE), ("todo.json", TODO), ("note.json", NOTE))]
    store = tmp_path / "g.db"
    done = _gatepost("--db", str(store), "gate", "--config", str(config), *sum((["--proposal", str(f)]
                                                                                for f in files), []),
                     "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["status"] for r in results] == ["failed", "passed", "failed", "not_targeted"]
    assert results[0]["reason"] == "command error: exited with status 3"
    db = open_store(store)
    assert db.execute("SELECT COUNT(*) FROM gate_results").fetchone()[0] == 4
    db.close()

    lines = tmp_path / "batch.jsonl"
    lines.write_text("\n".join(json.dumps(p) for p in (SAMPLE, NOTE)) + "\n\n")
    done = _gatepost("--db", str(tmp_path / "h.db"), "gate", "--config", str(config), "--proposal", str(lines),
                     cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [line.split(": ")[1] for line in done.stdout.splitlines()] == ["passed (score 0.7 -> 0.9)", "not_targeted"]


def test_a_bad_proposal_in_a_batch_gates_none(folder: Path, tmp_path: Path):
    config = _config(folder, f'enabled = true\ncommand = "{sys.executable} score_proposal.py"\n')
    lines = tmp_path / "batch.jsonl"
    lines.write_text(json.dumps(SAMPLE) + "\n{\"path\": 7}\n")
    store = tmp_path / "g.db"
    done = _gatepost("--db", str(store), "gate", "--config", str(config), "--proposal", str(lines), cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "batch.jsonl:2" in done.stderr
    assert not store.exists() or open_store(store).execute("SELECT COUNT(*) FROM gate_results").fetchone()[0] == 0
