"""A queue's own rubric: the store's administrator sets the questions every decision on proposals, manifest drafts
or regressions answers; a decision without every answer is refused and writes nothing; the answers are stored with
the decision's event and record; verify rebuilds both the rubric and the answers and names a hand edit. One bulk
decision answers the rubric of every item it is taken on, each item checked by its own act."""

import json
import sqlite3

import pytest

from gatepost.store import rubrics
from gatepost.store.batch import NO_RUBRIC, decide_each
from gatepost.store.cases import import_case
from gatepost.store.flows import decide_on, may
from gatepost.store.kernel import InputError, RefusedError, add_actor
from gatepost.store.proposals import add_proposal, get_proposal
from gatepost.store.protocol import parse_rubric
from gatepost.store.skills import acknowledge, create_draft, evaluate, import_manifest, record_run
from gatepost.store.views import verify_store
from tests.store.preferences.test_rubrics_and_preferences import case_doc

RUBRIC = parse_rubric([{"key": "read_diff", "question": "Did you read the whole diff?"},
                       {"key": "confidence", "question": "How sure are you?", "scale": 3}], "review.yaml")
ANSWERS = {"read_diff": "yes", "confidence": "2"}
MANIFEST = "digest:\n  min_words: 3\n  required_patterns: [\"Top\"]\n"


def proposal(db, n: int) -> str:
    pid, _ = add_proposal(db, {"path": f"procedures/p{n}.md", "operation": "create", "edit_mode": "full_page",
                               "title": f"Procedure {n}", "after_body": "b"}, actor="run-41")
    return pid


@pytest.fixture
def store(db):
    add_actor(db, "root", "person", ["store.admin"])
    add_actor(db, "ana", "person", ["proposal.review", "case.close"])
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    add_actor(db, "run-41", "producer", ["evidence.record"])
    return db


def events(db) -> int:
    return db.execute("SELECT MAX(seq) FROM events").fetchone()[0]


def test_only_the_administrator_sets_a_queue_rubric_and_it_is_an_event(store):
    with pytest.raises(RefusedError, match=r"set the rubric of proposals: refused: capability: ana does not hold "
                                           "store.admin"):
        rubrics.set_queue_rubric(store, "proposal", RUBRIC, actor="ana")
    made = rubrics.set_queue_rubric(store, "proposal", RUBRIC, actor="root", note="what review asks")
    kind, subject, payload = store.execute("SELECT kind, subject_id, payload FROM events WHERE seq = ?",
                                           [made.seq]).fetchone()
    assert (kind, subject) == ("rubric.set", "proposal")
    assert json.loads(payload)["questions"][1] == {"key": "confidence", "question": "How sure are you?", "scale": 3}
    assert rubrics.queue_rubric(store, "proposal").rubric.keys() == ["read_diff", "confidence"]
    assert rubrics.queue_rubric(store, "draft") is None
    with pytest.raises(InputError, match="QUEUE: expected one of proposal, draft, skill"):
        rubrics.set_queue_rubric(store, "case", RUBRIC, actor="root")


def test_a_proposal_decision_without_every_answer_is_refused_and_writes_nothing(store):
    pid = proposal(store, 1)
    rubrics.set_queue_rubric(store, "proposal", RUBRIC, actor="root")
    before = events(store)
    with pytest.raises(RefusedError) as refused:
        decide_on(store, "proposal", "declined", pid, actor="ana", note="not now", answers={"read_diff": "yes"})
    assert str(refused.value) == (f"mark {pid} declined: refused: rubric: proposals ask every decision their "
                                  "rubric; unanswered: confidence (1..3) (--answer KEY=VALUE)")
    with pytest.raises(InputError, match="confidence expects 1..3, got '7'"):
        decide_on(store, "proposal", "declined", pid, actor="ana", note="n", answers={**ANSWERS, "confidence": "7"})
    assert events(store) == before and get_proposal(store, pid)["status"] == "waiting"
    # may I asks before the person is asked the questions: the rubric does not disable the decision
    assert may(store, "proposal", pid, actor="ana", names=["declined"])["declined"].allowed


def test_the_answers_are_stored_with_the_decision_and_rebuilt_by_verify(store):
    pid = proposal(store, 1)
    rubrics.set_queue_rubric(store, "proposal", RUBRIC, actor="root")
    decide_on(store, "proposal", "declined", pid, actor="ana", note="not now", answers=ANSWERS)
    [given] = rubrics.answers_on(store, "proposal", pid)
    assert (given["decision"], given["answers"], given["person"]) == ("declined", {"read_diff": "yes",
                                                                                  "confidence": 2}, "ana")
    assert [q.key for q in given["questions"]] == ["read_diff", "confidence"]
    payload = json.loads(store.execute("SELECT payload FROM events WHERE kind = 'proposal.marked'").fetchone()[0])
    assert payload["rubric"] == {"read_diff": "yes", "confidence": 2}
    assert verify_store(store).intact
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.execute("UPDATE rubric_answers SET answers = '{}'")
    store.execute("DROP TRIGGER rubric_answers_no_update")
    store.execute("UPDATE rubric_answers SET answers = ?", [json.dumps({"read_diff": "no", "confidence": 3})])
    store.execute("UPDATE queue_rubrics SET questions = '[]'")
    store.conn.commit()
    found = "\n".join(str(line) for line in verify_store(store).findings)
    assert "rubric_answers" in found and "queue_rubrics" in found


def test_a_cleared_rubric_asks_nothing_and_earlier_answers_stay(store):
    first, second = proposal(store, 1), proposal(store, 2)
    rubrics.set_queue_rubric(store, "proposal", RUBRIC, actor="root")
    decide_on(store, "proposal", "declined", first, actor="ana", note="no", answers=ANSWERS)
    rubrics.clear_queue_rubric(store, "proposal", actor="root")
    with pytest.raises(InputError, match="proposals ask no rubric questions"):
        decide_on(store, "proposal", "declined", second, actor="ana", note="no", answers=ANSWERS)
    decide_on(store, "proposal", "declined", second, actor="ana", note="no")
    assert len(rubrics.answers_on(store, "proposal", first)) == 1
    assert verify_store(store).intact


def test_drafts_and_regressions_carry_their_own_rubric(store):
    import_manifest(store, "evals.yaml", actor="bruno", text=MANIFEST)
    record_run(store, "digest", "nothing", actor="run-41")
    evaluate(store, actor="run-41")
    draft = create_draft(store, "digest", {"min_words": 1}, author="run-41", origin="bootstrap")
    rubrics.set_queue_rubric(store, "skill", RUBRIC, actor="root")
    rubrics.set_queue_rubric(store, "draft", parse_rubric([{"key": "ran_it", "question": "Ran it?"}], "d.yaml"),
                             actor="root")
    with pytest.raises(RefusedError, match="refused: rubric: regressions ask every decision their rubric"):
        acknowledge(store, "digest", actor="bruno", note="seen")
    acknowledge(store, "digest", actor="bruno", note="seen", answers=ANSWERS)
    with pytest.raises(RefusedError, match="refused: rubric: manifest drafts ask every decision their rubric; "
                                           "unanswered: ran_it"):
        decide_on(store, "draft", "approve", draft["id"], actor="bruno", note="ok")
    decide_on(store, "draft", "approve", draft["id"], actor="bruno", note="ok", answers={"ran_it": "no"})
    assert [a["answers"] for a in rubrics.answers_on(store, "skill", "digest")] == [{"read_diff": "yes",
                                                                                     "confidence": 2}]
    assert [a["decision"] for a in rubrics.answers_on(store, "draft", draft["id"])] == ["approve"]
    assert verify_store(store).intact


# --- one bulk decision, answered once -----------------------------------------------------------------------
def test_a_bulk_decision_answers_each_items_rubric_each_its_own_act(store):
    pids = [proposal(store, n) for n in range(3)]
    rubrics.set_queue_rubric(store, "proposal", RUBRIC, actor="root")
    unanswered = decide_each(store, "proposal", "declined", pids[:1], actor="ana", note="batch")
    assert not unanswered[0].done and "refused: rubric" in unanswered[0].message
    results = decide_each(store, "proposal", "declined", pids, actor="ana", note="batch", answers=ANSWERS)
    assert [r.done for r in results] == [True, True, True]
    assert store.execute("SELECT COUNT(*) FROM rubric_answers").fetchone()[0] == 3
    seqs = [r["event_seq"] for pid in pids for r in rubrics.answers_on(store, "proposal", pid)]
    assert len(set(seqs)) == 3  # an event each
    assert verify_store(store).intact


def test_a_bulk_case_decision_answers_the_protocols_rubric_where_it_asks_one(db):
    add_actor(db, "ana", "person", ["case.close"])
    import_case(db, case_doc("case-2"), actor="run-41")  # eval.gated_change/2: a rubric
    import_case(db, case_doc("case-1", "eval.gated_change/1"), actor="run-41")  # none
    results = decide_each(db, "case", "inconclusive", ["case-2", "case-1"], actor="ana", note="rebuilding",
                          answers={"read_outputs": "no", "risk": "3"})
    assert [r.done for r in results] == [True, True]
    assert NO_RUBRIC in results[1].message and NO_RUBRIC not in results[0].message
    stored = db.execute("SELECT case_id, rubric FROM decisions ORDER BY case_id").fetchall()
    assert stored == [("case-1", None), ("case-2", json.dumps({"read_outputs": "no", "risk": 3}))]
    wrong = decide_each(db, "case", "inconclusive", ["case-2"], actor="ana", note="x", answers={"mood": "ok"})
    assert not wrong[0].done and "mood is no question of the rubric" in wrong[0].message
