"""The ai-memory scorer gate: targets, the request contract on stdin, and failing closed with a reason."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.kernel import InputError
from gatepost.store.proposals import (
    GateConfig,
    gate_proposal,
    get_proposal,
    load_gate_config,
    run_gate,
    validate_proposal,
)
from tests.evaluator_helpers import scorer

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "ai-memory" / "sample-proposal.json"
SAMPLE_DATA = {
    "path": "procedures/release.md", "kind": "procedure", "operation": "update", "edit_mode": "full_page",
    "title": "Release Procedure", "confidence": 0.91, "rationale": "Capture the release smoke-test checklist.",
    "before_body": "# Release Procedure\n\n## Steps\n- Run tests\n",
    "after_body": "# Release Procedure\n\n## Purpose\nShip a verified engram build.\n\n## Steps\n"
                  "- Run the full local gate.\n- Deploy to the homelab service.\n- Check /admin/status.\n",
    "expected_base_body_sha256": None,
}


def config(mode: str = "structure", **overrides) -> GateConfig:
    values = {"enabled": True, "command": scorer(mode), "timeout_secs": 5, "targets": ["_rules", "procedures"],
              "min_delta": 0.0}
    values.update(overrides)
    return GateConfig(**values)


def proposal(**overrides) -> dict:
    return validate_proposal({**SAMPLE_DATA, **overrides})


def test_the_sample_proposal_passes_a_structure_scorer_like_ai_memorys():
    outcome = run_gate(config(), proposal())
    assert outcome.status == "passed"
    assert (outcome.score_before, outcome.score_after) == (0.7, 0.9)


def test_the_scorer_receives_the_request_contract_on_stdin(tmp_path: Path, monkeypatch):
    record = tmp_path / "request.json"
    monkeypatch.setenv("SCORER_RECORD", str(record))
    assert run_gate(config("record"), proposal()).passed
    received = json.loads(record.read_text())
    assert received == SAMPLE_DATA  # ai-memory always sends expected_base_body_sha256, null when unknown
    assert "expected_base_body_sha256" in received and received["expected_base_body_sha256"] is None


@pytest.mark.parametrize("mode, overrides, words", [
    ("reject", {}, "passed = false: release steps lack a rollback"),
    ("garbage", {}, "invalid JSON"),
    ("nopassed", {}, "missing passed"),
    ("crash", {}, "command error: exited with status 2: scorer: cannot read project files"),
    ("hang", {"timeout_secs": 1}, "timeout: the scorer ran over 1 s"),
    ("dropping", {}, "insufficient score delta"),
    ("structure", {"min_delta": 0.5}, "below min_delta 0.5"),
    ("huge", {}, "more than"),
])
def test_every_failure_fails_closed_with_its_reason(mode, overrides, words):
    outcome = run_gate(config(mode, **overrides), proposal())
    assert outcome.status == "failed" and not outcome.passed and outcome.targeted
    assert words in outcome.reason, outcome.reason


def test_a_missing_scorer_program_is_a_command_error_that_fails_closed():
    outcome = run_gate(config(command="/nonexistent/scorer --x"), proposal())
    assert outcome.status == "failed" and outcome.reason.startswith("command error")


def test_structure_scorer_rejects_a_placeholder_body_with_its_reason():
    outcome = run_gate(config(), proposal(after_body="# Release\n\n## Steps\n- TODO\n"))
    assert outcome.status == "failed" and "TODO/TBD" in outcome.reason


def test_untargeted_paths_and_a_disabled_gate_do_not_run_the_scorer():
    outside = run_gate(config("hang", timeout_secs=1), proposal(path="notes/today.md"))
    assert outside.status == "not_targeted" and not outside.targeted
    disabled = run_gate(config("hang", enabled=False), proposal())
    assert disabled.status == "disabled"
    assert run_gate(config(targets=[]), proposal()).status == "not_targeted"


def test_config_is_read_from_the_auto_improve_eval_table_with_defaults(tmp_path: Path):
    path = tmp_path / "ai-memory.toml"
    path.write_text('[auto_improve.eval]\nenabled = true\ncommand = "python3 score.py"\ntargets = ["procedures"]\n')
    loaded = load_gate_config(path)
    assert (loaded.enabled, loaded.timeout_secs, loaded.min_delta, loaded.targets) == (True, 120, 0.0, ["procedures"])
    path.write_text("[auto_improve.eval]\n")
    assert load_gate_config(path).enabled is False


@pytest.mark.parametrize("text, words", [
    ("[other]\nx = 1\n", "expected an [auto_improve.eval] table"),
    ("[auto_improve.eval]\nenabled = \"yes\"\n", "enabled: expected true or false"),
    ("[auto_improve.eval]\ntimeout_secs = -1\n", "timeout_secs: expected a positive number"),
    ("[auto_improve.eval]\ntargets = \"procedures\"\n", "targets: expected a list"),
    ("not toml [", "not valid TOML"),
])
def test_bad_configs_are_one_line_errors(tmp_path: Path, text: str, words: str):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(InputError, match="c.toml") as caught:
        load_gate_config(path)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_gating_records_the_proposal_once_and_every_gate_result(db):
    first = gate_proposal(db, config("reject"), dict(SAMPLE_DATA), actor="ci-nightly")
    second = gate_proposal(db, config(), dict(SAMPLE_DATA), actor="ci-nightly")
    assert first["proposal_id"] == second["proposal_id"]
    assert first["new_proposal"] and not second["new_proposal"]
    stored = get_proposal(db, first["proposal_id"])
    assert stored["status"] == "waiting"
    assert [(g["passed"], g["targeted"]) for g in stored["gate_results"]] == [(1, 1), (0, 1)]
    assert stored["gate_results"][1]["reason"].startswith("passed = false")
    kinds = [r[0] for r in db.execute("SELECT kind FROM events WHERE subject_type = 'proposal' ORDER BY seq")]
    assert kinds == ["proposal.imported", "proposal.gated", "proposal.gated"]


def test_non_numeric_scores_fail_closed():
    from gatepost.store.proposals import judge_answer

    outcome = judge_answer('{"passed": true, "score_before": "0.7", "score_after": 0.9}', config())
    assert outcome.status == "failed" and "invalid score_before" in outcome.reason
    assert judge_answer('{"passed": true, "score_after": NaN}', config()).status == "failed"
    assert judge_answer('{"passed": true, "score_before": null, "score_after": 0.1}', config()).passed
    assert judge_answer('{"passed": true}\n{"passed": true}', config()).status == "failed"
    assert judge_answer('{"passed": 1}', config()).status == "failed"


@settings(max_examples=100, deadline=None)
@given(st.one_of(
    st.text(max_size=60),
    st.dictionaries(st.sampled_from(["passed", "score_before", "score_after", "reason", "x"]),
                    st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.integers(), st.text(max_size=8)),
                    max_size=5).map(json.dumps),
), st.floats(min_value=-1, max_value=1))
def test_the_gate_passes_only_an_explicit_pass_with_enough_delta(text, min_delta):
    from gatepost.store.proposals import judge_answer

    outcome = judge_answer(text, config(min_delta=min_delta))
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    if outcome.passed:
        assert isinstance(answer, dict) and answer.get("passed") is True
        before, after = answer.get("score_before"), answer.get("score_after")
        if before is not None and after is not None:
            assert after - before >= min_delta - 1e-9
    else:
        assert outcome.status == "failed" and outcome.reason
