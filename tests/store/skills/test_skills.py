"""Recording runs, evaluating the latest against the active manifest, and the skills CLI."""

import json
import sqlite3

import pytest

from gatepost.store.kernel import InputError, RefusedError, add_actor
from gatepost.store.skills import (
    evaluate,
    get_state,
    history,
    import_manifest,
    record_run,
    skill_detail,
)
from tests.conftest import FIXTURES, run_gatepost

SKILLS = FIXTURES / "skills"
MANIFEST = str(SKILLS / "evals.yaml")
GOOD = (SKILLS / "token-movers.good.md").read_text()
BAD = (SKILLS / "token-movers.refusal.md").read_text()


@pytest.fixture
def store(db):
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    add_actor(db, "dara", "person", [])
    import_manifest(db, MANIFEST, actor="bruno")
    return db


def _run(db, text, day, **kw):
    return record_run(db, "token-movers", text, actor="run-52", at=f"2026-05-{day:02d}T08:00:00Z", **kw)


def test_record_stores_output_word_count_and_producer(store):
    run = _run(store, GOOD, 1)
    assert (run["id"], run["status"], run["word_count"], run["producer"]) == ("token-movers-0001", "ok", 71, "run-52")
    assert run["output"] == GOOD
    assert run["at"] == "2026-05-01T08:00:00.000000Z"
    with pytest.raises(InputError, match="already recorded"):
        record_run(store, "token-movers", GOOD, actor="run-52", run_id="token-movers-0001")
    with pytest.raises(RefusedError, match="dara does not hold evidence.record"):
        record_run(store, "token-movers", GOOD, actor="dara")
    with pytest.raises(InputError, match="--at"):
        record_run(store, "token-movers", GOOD, actor="run-52", at="yesterday")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.execute("UPDATE skill_runs SET output = 'x'")


def test_eval_stores_every_assertion_and_the_state(store):
    _run(store, GOOD, 1)
    [result] = evaluate(store, actor="bruno", skill="token-movers")
    assert result["state"] == "PASS" and len(result["assertions"]) == 5
    _run(store, BAD, 2)
    [result] = evaluate(store, actor="bruno", skill="token-movers")
    assert (result["state"], result["severity"]) == ("NEW_FAIL", "low")
    failing = {a["assertion"]: a["message"] for a in result["assertions"] if not a["passed"]}
    assert failing["min_words"] == "13 words, needs 40"
    stored = store.execute("SELECT COUNT(*) FROM assertion_results").fetchone()[0]
    assert stored == 10
    state = get_state(store, "token-movers")
    assert (state["state"], state["fail_streak"], state["pass_streak"], state["broken_streak"]) == (
        "NEW_FAIL", 1, 0, 1)
    assert state["last_run"] == "2026-05-02T08:00:00.000000Z" and "forbidden_patterns" in state["failing"]


def test_eval_without_a_new_run_changes_nothing(store):
    _run(store, BAD, 1)
    evaluate(store, actor="bruno")
    [again] = [r for r in evaluate(store, actor="bruno") if r["skill"] == "token-movers"]
    assert again["status"] == "unchanged" and again["state"] == "NEW_FAIL"
    assert store.execute("SELECT COUNT(*) FROM skill_evals").fetchone()[0] == 1


def test_new_manifest_re_evaluates_the_same_run_without_counting_it_twice(store):
    for day in (1, 2, 3):
        _run(store, GOOD, day)
        evaluate(store, actor="bruno", skill="token-movers")
    _run(store, BAD, 4)
    [r] = evaluate(store, actor="bruno", skill="token-movers")
    assert (r["state"], r["severity"]) == ("NEW_FAIL", "medium")
    import_manifest(store, "looser.yaml", actor="bruno", text="token-movers:\n  min_words: 5\n")
    [r] = evaluate(store, actor="bruno", skill="token-movers")
    assert r["status"] == "evaluated" and r["manifest_version"] == 2
    assert (r["state"], r["pass_streak"]) == ("PASS", 4)  # 3 passes before, this run now passes: not NEW_PASS


def test_error_run_fails_its_eval(store):
    _run(store, GOOD, 1, status="error")
    [r] = evaluate(store, actor="bruno", skill="token-movers")
    assert r["state"] == "NEW_FAIL"
    assert r["assertions"][0] == {"assertion": "run_status", "passed": False, "message": "the run ended in error"}


def test_skills_without_manifest_or_runs_are_reported_not_evaluated(store):
    record_run(store, "hn-digest", "text", actor="run-52")
    results = {r["skill"]: r for r in evaluate(store, actor="bruno")}
    assert results["narrative-tracker"]["status"] == "no_runs"
    # no manifest: a coverage gap, listed (issue 18 item 5), not a failure
    assert results["hn-digest"]["status"] == "no_manifest" and results["hn-digest"]["evaluated"] is False
    [r] = evaluate(store, actor="bruno", skill="hn-digest")
    assert r["status"] == "no_manifest" and "gatepost bootstrap --skill hn-digest" in r["why"]
    with pytest.raises(InputError, match="no skill 'nope'"):
        evaluate(store, actor="bruno", skill="nope")


def test_history_and_detail(store):
    for day, text in enumerate([GOOD, GOOD, BAD, BAD, GOOD], start=1):
        _run(store, text, day)
        evaluate(store, actor="bruno")
    strip = history(store, "token-movers")
    assert [h["passed"] for h in strip] == [True, True, False, False, True]
    assert [h["state"] for h in strip] == ["PASS", "PASS", "NEW_FAIL", "STABLE_FAIL", "NEW_PASS"]
    detail = skill_detail(store, "token-movers")
    assert detail["state"] == "NEW_PASS" and detail["evaluated_run"]["output"] == GOOD
    assert detail["manifest"]["version"] == 1 and detail["runs"] == 5


# --- the CLI -----------------------------------------------------------------------------------------

def test_cli_record_eval_show(store, cli, tmp_path):
    good, bad = SKILLS / "token-movers.good.md", SKILLS / "token-movers.refusal.md"
    assert cli("skills", "record", "token-movers", "--output", str(good), "--as", "run-52",
               "--at", "2026-05-01T08:00:00Z").exit_code == 0
    assert cli("skills", "eval", "--as", "bruno").exit_code == 0
    result = cli("skills", "record", "token-movers", "--output", str(bad), "--as", "run-52", "--run-id", "tm-2")
    assert result.exit_code == 0 and "recorded tm-2" in result.output
    evaluated = cli("skills", "eval", "--skill", "token-movers", "--json", "--as", "bruno")
    assert evaluated.exit_code == 0
    [entry] = json.loads(evaluated.output)
    assert entry["state"] == "NEW_FAIL" and entry["severity"] == "low" and entry["run_id"] == "tm-2"
    assert {"assertion": "min_words", "passed": False, "message": "13 words, needs 40"} in entry["assertions"]
    shown = json.loads(cli("skills", "show", "--json").output)
    assert shown[0] == {"skill": "token-movers", "state": "NEW_FAIL", "severity": "low", "fail_streak": 1,
                        "pass_streak": 0, "last_run": shown[0]["last_run"],
                        "failing": ["min_words", "required_patterns", "forbidden_patterns", "must_cite_source",
                                    "min_distinct_items"]}
    assert shown[1]["skill"] == "narrative-tracker" and shown[1]["state"] is None
    text = cli("skills", "show").output
    assert "✘ token-movers" in text and "NEW_FAIL (low)" in text


def test_cli_errors_are_one_line_with_exit_codes(store, cli, tmp_path):
    missing = cli("skills", "record", "token-movers", "--output", str(tmp_path / "nope.md"), "--as", "run-52")
    assert missing.exit_code == 2 and "nope.md" in missing.output
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"\xff\xfe")
    bad = cli("skills", "record", "token-movers", "--output", str(binary), "--as", "run-52")
    assert bad.exit_code == 2 and "not valid UTF-8" in bad.output
    refused = cli("skills", "record", "token-movers", "--output", str(SKILLS / "token-movers.good.md"),
                  "--as", "dara")
    assert refused.exit_code == 3 and refused.output.count("\n") == 1
    assert cli("skills", "eval", "--fail-on", "BROKEN").exit_code == 2


def test_fail_on_exits_1_only_for_the_named_states(store, store_path, tmp_path):
    db_args = ["--db", str(store_path)]
    _run(store, GOOD, 1)
    evaluate(store, actor="bruno")
    _run(store, BAD, 2)
    store.close()
    result = run_gatepost(*db_args, "skills", "eval", "--fail-on", "CHRONIC", "--as", "bruno")
    assert result.returncode == 0, result.stderr
    result = run_gatepost(*db_args, "skills", "eval", "--fail-on", "NEW_FAIL,CHRONIC", "--as", "bruno")
    assert result.returncode == 1  # unchanged NEW_FAIL still counts: the skill ends in that state
    assert "token-movers" in result.stderr
    help_text = run_gatepost("skills", "eval", "--help").stdout
    assert "--fail-on" in help_text and "exit 1" in help_text


def test_cli_triage_commands(store, cli):
    _run(store, BAD, 1)
    evaluate(store, actor="bruno")
    assert cli("skills", "acknowledge", "token-movers", "--note", "mine", "--as", "dara").exit_code == 3
    ok = cli("skills", "acknowledge", "token-movers", "--note", "mine", "--as", "bruno")
    assert ok.exit_code == 0 and "acknowledged token-movers" in ok.output
    flagged = cli("skills", "mismatch", "token-movers", "--note", "the manifest is off", "--as", "bruno")
    assert flagged.exit_code == 0 and "no draft" in flagged.output and "needs the last 5" in flagged.output


def test_record_reads_stdin_and_overview_counts_follow_the_projections(store, cli):
    from gatepost.store.views import counts

    result = cli("skills", "record", "token-movers", "--output", "-", "--as", "run-52", input=GOOD)
    assert result.exit_code == 0 and "71 words" in result.output
    evaluate(store, actor="bruno")
    assert counts(store)["regressions"]["PASS"] == 1
    record_run(store, "token-movers", BAD, actor="run-52")
    evaluate(store, actor="bruno")
    data = counts(store)
    assert data["regressions"]["PASS"] == 0 and data["regressions"]["NEW_FAIL"] == 1
    assert data["severity"]["low"] == 1
