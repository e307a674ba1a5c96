"""A preference across two runs of one suite: the task's output in a run against its output in another run of
the same suite, recorded through the guarded pipeline on the run, counted as no case's evidence, rebuilt by
verify; two runs of different suites, or a task one of them lacks, is bad input naming what was expected."""

import json

import pytest

from gatepost.store.cases import import_case
from gatepost.store.evaluation import MockExecutor, RunSettings, evaluate, load_suite
from gatepost.store.kernel import InputError, RefusedError, add_actor
from gatepost.store.preferences import pairwise, preferences_of, record_preference
from gatepost.store.views import verify_store
from tests.evaluator_helpers import contains_task, write_suite
from tests.store.preferences.test_rubrics_and_preferences import case_doc


@pytest.fixture
def runs(db, tmp_path):
    add_actor(db, "chen", "person", ["eval_design.review"])
    add_actor(db, "erin", "person", ["case.close"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("t1", "which word?", ["alpha"]),
                                                    contains_task("t2", "which word?", ["beta"])]))
    other = load_suite(write_suite(tmp_path / "o", [contains_task("t1", "which other word?", ["gamma"])]))
    import_case(db, {**case_doc("case-2"), "author": "erin"}, actor="erin")
    made = []
    for text, case_id, of in (("word alpha", None, suite), ("word beta", "case-2", suite), ("gamma", None, other)):
        made.append(evaluate(db, of, candidate_text=text, baseline_text="none", baseline_path="b.md",
                             settings=RunSettings(executor=MockExecutor()), case_id=case_id,
                             actor="run-52")["run_id"])
    return db, made


def test_a_preference_across_two_runs_is_recorded_counts_for_nothing_and_verify_rebuilds_it(runs):
    db, (newer, older, _elsewhere) = runs
    view = pairwise(db, newer, "t1", against=older)
    assert view["against"] == older and view["counts"] is False
    assert "alpha" in view["outputs"]["candidate"]["output"] and "beta" in view["outputs"]["baseline"]["output"]
    made = record_preference(db, newer, "t1", "candidate", actor="chen", note="names the word", against=older)
    assert (made["against_run_id"], made["counted"], made["evidence_seq"]) == (older, False, None)
    payload = json.loads(db.execute("SELECT payload FROM events WHERE seq = ?", [made["event_seq"]]).fetchone()[0])
    assert payload["against"] == older
    assert [p["choice"] for p in pairwise(db, newer, "t1", against=older)["preferences"]] == ["candidate"]
    assert preferences_of(db, newer, "t1") == []  # the run's own two sides: none
    assert db.execute("SELECT COUNT(*) FROM evidence WHERE kind = 'preference'").fetchone()[0] == 0
    assert verify_store(db).intact
    db.execute("DROP TRIGGER preferences_no_update")
    db.execute("UPDATE preferences SET against_run_id = ?", [newer])
    db.conn.commit()
    assert any("against_run_id" in str(line) for line in verify_store(db).findings)


def test_two_runs_of_different_suites_or_a_missing_run_are_bad_input(runs):
    db, (newer, older, elsewhere) = runs
    with pytest.raises(InputError, match=rf"--against: run {elsewhere} is of suite .*; a preference compares one "
                                         "task of two runs of the same suite"):
        record_preference(db, newer, "t1", "tie", actor="chen", against=elsewhere)
    with pytest.raises(InputError, match="--against: no evaluation run ev-none"):
        pairwise(db, newer, "t1", against="ev-none")
    with pytest.raises(InputError, match="--against: expected another run"):
        record_preference(db, newer, "t1", "tie", actor="chen", against=newer)
    with pytest.raises(InputError, match="neither run"):
        pairwise(db, newer, "t9", against=older)
    assert db.execute("SELECT COUNT(*) FROM preferences").fetchone()[0] == 0


def test_the_author_of_either_runs_case_never_prefers(runs):
    db, (newer, older, _elsewhere) = runs
    with pytest.raises(RefusedError, match=f"refused: self-dealing: erin is the author of run {older}'s case"):
        record_preference(db, newer, "t1", "candidate", actor="erin", against=older)
    with pytest.raises(RefusedError, match="refused: self-dealing: erin is the run's case's author"):
        record_preference(db, older, "t1", "candidate", actor="erin", against=newer)
