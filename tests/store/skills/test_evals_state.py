"""evals-state.json: import then export gives the same JSON; bad files are one-line errors."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.kernel import InputError, RefusedError, add_actor
from gatepost.store.skills import (
    dumps,
    evaluate,
    export_state,
    import_manifest,
    import_state,
    list_skills,
    parse_state,
    record_run,
    replay,
)
from tests.conftest import FIXTURES

STATE = FIXTURES / "skills" / "evals-state.json"


@pytest.fixture
def store(db):
    add_actor(db, "run-52", "producer", ["evidence.record"])
    add_actor(db, "bruno", "person", ["manifest.review"])
    return db


def test_round_trip_is_byte_for_byte(store, cli, tmp_path):
    assert cli("state", "import", str(STATE), "--as", "run-52").exit_code == 0
    out = tmp_path / "out.json"
    result = cli("state", "export", str(out))
    assert result.exit_code == 0 and "wrote 3 skill states" in result.output
    assert out.read_text() == STATE.read_text()


def test_import_feeds_the_console_list_in_urgency_order(store):
    import_state(store, STATE, actor="run-52")
    rows, total = list_skills(store)
    assert [(r["skill"], r["state"], r["severity"]) for r in rows] == [
        ("token-movers", "NEW_FAIL", "high"), ("narrative-tracker", "CHRONIC", None), ("paper-pick", "NEW_PASS", None)]


def test_streaks_continue_from_an_imported_state(store):
    import_state(store, STATE, actor="run-52")
    import_manifest(store, "m.yaml", actor="bruno", text="narrative-tracker:\n  min_words: 3\n")
    record_run(store, "narrative-tracker", "one two three four", actor="run-52")
    [r] = evaluate(store, actor="bruno", skill="narrative-tracker")
    assert r["state"] == "NEW_PASS"  # a pass after the imported 4-run fail streak
    record_run(store, "narrative-tracker", "short", actor="run-52")
    [r] = evaluate(store, actor="bruno", skill="narrative-tracker")
    assert (r["state"], r["severity"]) == ("NEW_FAIL", "low")


def _entry(**kw):
    base = {"state": "PASS", "severity": None, "fail_streak": 0, "pass_streak": 3, "broken_pass_streak": None,
            "last_run": None, "last_run_id": None, "failing": []}
    return json.dumps({"version": 1, "skills": {"s": {**base, **kw}}})


@pytest.mark.parametrize("text,message", [
    ("{", "not valid JSON at line 1"),
    ("[]", "expected an object with version and skills"),
    ('{"version": 2, "skills": {}}', "version: expected 1, got 2"),
    ('{"version": 1, "skills": {}, "extra": 1}', "extra: unknown key"),
    (_entry(state="BROKEN"), "skills.s: state: expected one of"),
    (_entry(colour="red"), "skills.s.colour: unknown key"),
    (_entry(state="NEW_FAIL", fail_streak=1, pass_streak=0, failing=["x"]), "severity: NEW_FAIL needs one of"),
    (_entry(severity="low"), "severity: only NEW_FAIL has a severity"),
    (_entry(state="CHRONIC", fail_streak=2, pass_streak=0, failing=["x"]), "CHRONIC needs fail_streak 4+"),
    (_entry(state="NEW_FAIL", severity="low", fail_streak=1, pass_streak=0, broken_pass_streak=31, failing=["x"]),
     "a broken pass streak of 31 makes high, not low"),
    (_entry(fail_streak=-1), "fail_streak: expected an integer >= 0"),
    (_entry(last_run="soon"), "last_run: expected an ISO 8601 time"),
    (_entry(failing=["min_words"]), "PASS with failing"),
])
def test_bad_state_files_are_one_line_errors(text, message):
    with pytest.raises(InputError) as err:
        parse_state(text, source="evals-state.json")
    assert message in str(err.value) and str(err.value).startswith("evals-state.json")


def test_missing_keys_are_named(store):
    data = json.loads(_entry())
    del data["skills"]["s"]["last_run_id"]
    with pytest.raises(InputError, match=r"skills.s.last_run_id: missing"):
        parse_state(json.dumps(data))


def test_import_needs_evidence_record(store):
    with pytest.raises(RefusedError, match="bruno does not hold evidence.record"):
        import_state(store, STATE, actor="bruno")
    assert export_state(store) == {"version": 1, "skills": {}}


def test_export_of_evaluated_skills_imports_back(store, tmp_path):
    import_manifest(store, "m.yaml", actor="bruno", text="a:\n  min_words: 2\nb:\n  min_words: 2\n")
    for skill, texts in {"a": ["one two", "x"], "b": ["x", "x", "x", "x", "x"]}.items():
        for text in texts:
            record_run(store, skill, text, actor="run-52")
            evaluate(store, actor="bruno", skill=skill)
    exported = export_state(store)
    assert exported["skills"]["a"]["state"] == "NEW_FAIL" and exported["skills"]["a"]["broken_pass_streak"] == 1
    assert exported["skills"]["b"]["state"] == "CHRONIC"
    assert parse_state(dumps(exported)) == exported["skills"]


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True),
                       st.lists(st.booleans(), min_size=1, max_size=12), min_size=1, max_size=5))
def test_any_reachable_state_round_trips(tmp_path_factory, histories):
    from gatepost.store.kernel import open_store

    db = open_store(tmp_path_factory.mktemp("s") / "s.db")
    add_actor(db, "run-52", "producer", ["evidence.record"])
    skills = {}
    for skill, history in histories.items():
        step = replay(history)
        skills[skill] = {"state": step.state, "severity": step.severity, "fail_streak": step.fail_streak,
                         "pass_streak": step.pass_streak, "broken_pass_streak": step.broken_streak,
                         "last_run": "2026-05-12T08:00:00Z", "last_run_id": f"{skill}-1",
                         "failing": [] if history[-1] else ["min_words"]}
    text = dumps({"version": 1, "skills": dict(sorted(skills.items()))})
    import_state(db, "evals-state.json", actor="run-52", text=text)
    assert dumps(export_state(db)) == text
    db.close()


def test_export_to_stdout_and_errors_through_the_cli(store, cli, tmp_path):
    assert cli("state", "import", str(STATE), "--as", "bruno").exit_code == 3
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "skills": {"s": []}}')
    failed = cli("state", "import", str(bad), "--as", "run-52")
    assert failed.exit_code == 2 and "skills.s: expected an object" in failed.output
    cli("state", "import", str(STATE), "--as", "run-52")
    printed = cli("state", "export", "-")
    assert printed.exit_code == 0 and printed.output == STATE.read_text()


WORKED_EXAMPLE = STATE.with_name("bankrbot-worked-example.json")


def test_bankrbots_worked_example_imports_with_its_severities(store, cli, tmp_path):
    """BankrBot's aeon-skill-evals output: pass streaks of 17 and 8 broken, both "Severity: medium"."""
    result = cli("state", "import", str(WORKED_EXAMPLE), "--as", "run-52")
    assert result.exit_code == 0, result.output
    rows, _ = list_skills(store)
    severities = {r["skill"]: (r["state"], r["severity"]) for r in rows}
    assert severities["token-movers"] == ("NEW_FAIL", "medium")
    assert severities["paper-pick"] == ("NEW_FAIL", "medium")
    assert severities["some-skill"] == ("CHRONIC", None)
    # and the old reading ("high" for a broken streak of 17) is what gatepost now refuses
    data = json.loads(WORKED_EXAMPLE.read_text())
    data["skills"]["token-movers"]["severity"] = "high"
    bad = tmp_path / "bad-state.json"
    bad.write_text(json.dumps(data))
    refused = cli("state", "import", str(bad), "--as", "run-52")
    assert refused.exit_code == 2 and "a broken pass streak of 17 makes medium, not high" in refused.output
