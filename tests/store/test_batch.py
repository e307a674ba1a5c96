"""One decision on many items: each item its own act and event, with its own checks; the refused are listed."""

import pytest

from gatepost.store.batch import assign_each, decide_each
from gatepost.store.cases import import_case
from gatepost.store.kernel import InputError, add_actor, last_seq, leases
from gatepost.store.views import verify_store
from tests.store.discussion.test_comments import CASE


@pytest.fixture
def store(db):
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "bruno", "person", ["case.close"])
    add_actor(db, "dara", "person", [])
    for n in range(4):
        import_case(db, {**CASE, "id": f"case-{n}"}, actor="run-41")
    return db


def _decided(db) -> list[tuple[str, str, str]]:
    return db.execute("SELECT subject_id, actor, note FROM events WHERE kind = 'case.decided' ORDER BY seq").fetchall()


def test_each_item_its_own_act_and_the_refused_listed(store):
    leases.take(store, "case", "case-1", "bruno")
    seen = {f"case-{n}": last_seq(store, "case", f"case-{n}") for n in range(4)}
    from_before = dict(seen, **{"case-2": seen["case-2"] - 1})  # ana looked at case-2 before its last event
    results = decide_each(store, "case", "inconclusive", ["case-0", "case-1", "case-2", "case-3", "case-0", "nope"],
                          actor="ana", note="the suite is being rebuilt", seen=from_before)
    assert [(r.key, r.done) for r in results] == [("case-0", True), ("case-1", False), ("case-2", False),
                                                  ("case-3", True), ("nope", False)]
    assert "refused: lease: bruno is working on it" in results[1].message
    assert "refused: seen-seq" in results[2].message
    assert "no such case" in results[4].message
    assert _decided(store) == [("case-0", "ana", "the suite is being rebuilt"),
                               ("case-3", "ana", "the suite is being rebuilt")]
    assert results[0].seq == last_seq(store, "case", "case-0")
    assert verify_store(store).findings == []


def test_who_may_not_decides_nothing(store):
    results = decide_each(store, "case", "inconclusive", ["case-0", "case-1"], actor="dara", note="x")
    assert not any(r.done for r in results) and all("dara does not hold case.close" in r.message for r in results)
    assert _decided(store) == []


def test_bad_input_is_refused_before_any_act(store):
    with pytest.raises(InputError, match="edit is taken on one draft at a time"):
        decide_each(store, "draft", "edit", ["d1"], actor="ana", note="x")
    with pytest.raises(InputError, match="expected one or more ids"):
        decide_each(store, "case", "inconclusive", [" ", ""], actor="ana", note="x")
    with pytest.raises(InputError, match="decision: expected one of"):
        decide_each(store, "case", "approve", ["case-0"], actor="ana", note="x")


def test_assign_each(store):
    results = assign_each(store, "case", ["case-0", "case-1"], "bruno", actor="ana", note="this week")
    assert all(r.done for r in results)
    refused = assign_each(store, "case", ["case-2"], "dara", actor="ana")
    assert not refused[0].done and "dara does not hold case.close" in refused[0].message
    assert store.execute("SELECT subject_id, assignee FROM assignments ORDER BY subject_id").fetchall() == [
        ("case-0", "bruno"), ("case-1", "bruno")]
