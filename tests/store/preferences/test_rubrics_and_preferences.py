"""Rubrics and pairwise preferences: a protocol's rubric is answered before a case is decided and stored with
the decision; a person's preference between a task's two outputs is recorded always and counts as evidence only
where the case's protocol lists the kind; verify rebuilds both from the events and names a hand edit."""

import json
import sqlite3
from pathlib import Path

import pytest

from gatepost.store.cases import case_view, get_case, import_case
from gatepost.store.evaluation import MockExecutor, RunSettings, evaluate, load_suite
from gatepost.store.flows import decide, decide_on, may
from gatepost.store.kernel import InputError, RefusedError, add_actor, open_store
from gatepost.store.preferences import pairwise, preferences_of, record_preference
from gatepost.store.protocol import parse_rubric, protocol_for
from gatepost.store.views import verify_store
from tests.evaluator_helpers import contains_task, write_suite


def case_doc(case_id: str, protocol: str = "eval.gated_change/2") -> dict:
    return {"protocol": protocol, "id": case_id, "title": "Tone rules", "author": "run-41",
            "candidate": {"path": "guides/tone.md", "content": "word alpha",
                          "basis": {"baseline": "b", "question_set": "q", "data_revision": "d", "design": "d1"}},
            "independent": {"different_agent_run": ["run-52"]}}


@pytest.fixture
def store(db, tmp_path: Path):
    add_actor(db, "ana", "person", ["case.close", "loop_change.keep"])
    add_actor(db, "chen", "person", ["eval_design.review"])
    add_actor(db, "dara", "person", ["item.comment"])
    add_actor(db, "run-52", "producer", ["evidence.record", "eval_design.review"])
    import_case(db, case_doc("case-2"), actor="run-41")
    import_case(db, case_doc("case-1", "eval.gated_change/1"), actor="run-41")
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("t1", "which word?", ["alpha"]),
                                                    contains_task("t2", "which word?", ["beta"])]))
    for case_id in ("case-2", "case-1", None):
        evaluate(db, suite, candidate_text="word alpha", baseline_text="word beta", baseline_path="b.md",
                 settings=RunSettings(executor=MockExecutor()), case_id=case_id, actor="run-52")
    return db


def run_of(db, case_id: str | None) -> str:
    where = "case_id = ?" if case_id else "case_id IS NULL"
    return db.execute(f"SELECT id FROM evaluation_runs WHERE {where}", [case_id] if case_id else []).fetchone()[0]


# --- rubrics ------------------------------------------------------------------------------------------------
def test_a_decision_without_every_answer_is_refused_and_writes_nothing(store):
    before = store.execute("SELECT MAX(seq) FROM events").fetchone()[0]
    with pytest.raises(RefusedError) as refused:
        decide(store, "case-2", "inconclusive", actor="ana", note="settles nothing", answers={"risk": "2"})
    assert str(refused.value) == ("decide case-2 inconclusive: refused: rubric: eval.gated_change/2 asks every "
                                  "decision its rubric; unanswered: read_outputs (yes or no) (--answer KEY=VALUE)")
    assert store.execute("SELECT MAX(seq) FROM events").fetchone()[0] == before
    assert get_case(store, "case-2")["status"] == "open"


@pytest.mark.parametrize(("answers", "why"), [
    ({"read_outputs": "maybe", "risk": "2"}, "read_outputs expects yes or no, got 'maybe'"),
    ({"read_outputs": "yes", "risk": "6"}, "risk expects 1..5, got '6'"),
    ({"read_outputs": "yes", "risk": "2", "mood": "ok"}, "mood is no question of the rubric"),
])
def test_an_answer_in_the_wrong_form_is_bad_input(store, answers, why):
    with pytest.raises(InputError, match=why):
        decide(store, "case-2", "inconclusive", actor="ana", note="n", answers=answers)


def test_the_answers_are_stored_with_the_decision_shown_and_rebuilt_by_verify(store):
    decide(store, "case-2", "inconclusive", actor="ana", note="settles nothing",
           answers={"read_outputs": "YES", "risk": "2"})
    view = case_view(store, "case-2")
    assert view["decisions"][0]["rubric"] == {"read_outputs": "yes", "risk": 2}
    assert [q["key"] for q in view["rubric"]] == ["read_outputs", "risk"]
    payload = json.loads(store.execute("SELECT payload FROM events WHERE kind = 'case.decided'").fetchone()[0])
    assert payload["rubric"] == {"read_outputs": "yes", "risk": 2}
    assert verify_store(store).intact


def test_a_protocol_without_a_rubric_takes_no_answers(store):
    with pytest.raises(InputError, match="eval.gated_change/1 asks no rubric questions"):
        decide(store, "case-1", "inconclusive", actor="ana", note="n", answers={"risk": "2"})
    decide(store, "case-1", "inconclusive", actor="ana", note="n")
    assert case_view(store, "case-1")["decisions"][0]["rubric"] is None


def test_the_console_asks_before_the_answers_and_decides_with_them(store):
    """`may` rehearses the act before the dialog asks the questions: the rubric does not disable the key."""
    verdicts = may(store, "case", "case-2", actor="ana", names=["inconclusive"])
    assert verdicts["inconclusive"].allowed
    decide_on(store, "case", "inconclusive", "case-2", actor="ana", note="n",
              answers={"read_outputs": "no", "risk": "5"})
    assert case_view(store, "case-2")["decisions"][0]["rubric"] == {"read_outputs": "no", "risk": 5}


@pytest.mark.parametrize(("data", "message"), [
    ([], "r.yaml: expected a non-empty list of questions"),
    ([{"key": "a", "question": "A?"}, {"key": "a", "question": "B?"}], r"r.yaml: \[1\].key: a is asked twice"),
    ([{"key": "a", "question": "A?", "scale": 1}], r"r.yaml: \[0\].scale: expected a whole number 2..10"),
    ([{"key": "a", "question": "A?", "weight": 2}], r"r.yaml: \[0\].weight: unknown key"),
    ([{"key": "A b", "question": "A?"}], r"r.yaml: \[0\].key: expected a short lower-case name"),
])
def test_a_rubric_file_in_the_wrong_shape_is_one_line_naming_file_and_field(data, message):
    with pytest.raises(InputError, match=message):
        parse_rubric(data, "r.yaml", where="")


def test_the_protocol_names_its_rubric_file():
    rubric = protocol_for("eval.gated_change/2").rubric
    assert rubric is not None and rubric.source.endswith("rubrics/case-decision.yaml")
    assert protocol_for("eval.gated_change/1").rubric is None


# --- preferences ----------------------------------------------------------------------------------------------
def test_a_preference_counts_where_the_protocol_lists_the_kind(store):
    run = run_of(store, "case-2")
    made = record_preference(store, run, "t1", "candidate", actor="chen", note="names the word")
    assert made["counted"] and made["case_id"] == "case-2"
    assert get_case(store, "case-2")["claims"]["people.prefer_candidate"] == "TRUE"
    evidence = store.execute("SELECT kind, result, producer FROM evidence WHERE case_id = 'case-2' AND "
                             "kind = 'preference'").fetchall()
    assert evidence == [("preference", "candidate", "chen")]
    record_preference(store, run, "t2", "baseline", actor="ana")
    assert get_case(store, "case-2")["claims"]["people.prefer_candidate"] == "UNKNOWN"  # people disagree
    assert [p["person"] for p in preferences_of(store, run)] == ["chen", "ana"]
    assert verify_store(store).intact


def test_a_preference_elsewhere_is_recorded_and_counts_for_nothing(store):
    for case_id in ("case-1", None):
        run = run_of(store, case_id)
        made = record_preference(store, run, "t1", "tie", actor="chen")
        assert not made["counted"] and made["evidence_seq"] is None
        assert pairwise(store, run, "t1")["counts"] is False
    assert store.execute("SELECT COUNT(*) FROM evidence WHERE kind = 'preference'").fetchone()[0] == 0
    assert store.execute("SELECT COUNT(*) FROM events WHERE kind = 'preference.recorded'").fetchone()[0] == 2


def test_the_pairwise_view_holds_both_outputs(store):
    view = pairwise(store, run_of(store, "case-2"), "t1")
    assert view["outputs"]["candidate"]["output"] and view["outputs"]["baseline"]["output"]
    assert view["counts"] is True and view["preferences"] == []


@pytest.mark.parametrize(("actor", "rule"), [
    ("dara", "capability: dara holds none of case.close"),
    ("run-52", "person: run-52 is a producer"),
    ("run-41", "capability"),
    (None, "identity"),
])
def test_who_may_not_prefer_is_refused(store, actor, rule):
    with pytest.raises(RefusedError, match=rule):
        record_preference(store, run_of(store, "case-2"), "t1", "candidate", actor=actor)
    assert store.execute("SELECT COUNT(*) FROM preferences").fetchone()[0] == 0


def test_the_case_author_never_prefers(store, tmp_path: Path):
    add_actor(store, "erin", "person", ["case.close"])
    import_case(store, {**case_doc("case-3"), "author": "erin"}, actor="erin")
    evaluate(store, load_suite(tmp_path / "s" / "suite.yaml"), candidate_text="word alpha", baseline_text="beta",
             settings=RunSettings(executor=MockExecutor()), case_id="case-3", actor="run-52")
    with pytest.raises(RefusedError, match="refused: self-dealing: erin is the run's case's author"):
        record_preference(store, run_of(store, "case-3"), "t1", "candidate", actor="erin")


def test_bad_input_names_what_was_expected(store):
    run = run_of(store, "case-2")
    with pytest.raises(InputError, match="choice: expected one of candidate, baseline, tie"):
        record_preference(store, run, "t1", "better", actor="chen")
    with pytest.raises(InputError, match="has no task nope"):
        record_preference(store, run, "nope", "tie", actor="chen")
    with pytest.raises(InputError, match="no evaluation run"):
        record_preference(store, "ev-none", "t1", "tie", actor="chen")


def test_verify_names_a_preference_edited_by_hand(store, store_path):
    record_preference(store, run_of(store, "case-1"), "t1", "candidate", actor="chen")
    store.close()
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER preferences_no_update")
    conn.execute("UPDATE preferences SET choice = 'baseline'")
    conn.commit()
    conn.close()
    found = verify_store(open_store(store_path))
    assert any("preferences" in line and "choice" in line for line in found.findings), found.findings
