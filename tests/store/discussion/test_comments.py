"""Comments: a thread on any item, each an event in the chain; `@name` mentions show in that person's Overview;
verify rebuilds the threads and names a hand edit."""

import sqlite3

import pytest
from sqlite_utils import Database

from gatepost.store.cases import import_case
from gatepost.store.discussion import add_comment, mentions_of, thread
from gatepost.store.flows import decide
from gatepost.store.kernel import (
    ConflictError,
    InputError,
    RefusedError,
    add_actor,
    last_seq,
    leases,
)
from gatepost.store.views import verify_store

CASE = {
    "protocol": "eval.gated_change/1", "id": "case-0300", "title": "Loop rewrites the tone rules",
    "author": "run-41", "candidate": {"path": "_rules/tone.md", "content": "Be brief",
                                      "basis": {"baseline": "b", "question_set": "q", "data_revision": "d",
                                                "design": "d2"}},
    "independent": {"different_agent_run": ["run-52"]},
}


@pytest.fixture
def store(db):
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "bruno", "person", ["item.comment"])
    add_actor(db, "dara", "person", [])
    add_actor(db, "run-41", "producer", ["evidence.record"])
    import_case(db, CASE, actor="run-41")
    return db


def test_a_thread_is_in_order_and_each_comment_is_an_event(store):
    first = add_comment(store, "case", "case-0300", "@bruno is the tone rule tested?", actor="ana")
    second = add_comment(store, "case", "case-0300", "not yet, @ana", actor="bruno")
    rows = thread(store, "case", "case-0300")
    assert [r["note"] for r in rows] == ["@bruno is the tone rule tested?", "not yet, @ana"]
    assert [r["author"] for r in rows] == ["ana", "bruno"]
    kinds = store.execute("SELECT kind, actor, note FROM events WHERE seq IN (?, ?) ORDER BY seq",
                          [first["event_seq"], second["event_seq"]]).fetchall()
    assert kinds == [("comment.added", "ana", "@bruno is the tone rule tested?"),
                     ("comment.added", "bruno", "not yet, @ana")]
    assert first["mentions"] == ["bruno"] and second["mentions"] == ["ana"]


def test_a_mention_assigns_nothing_and_shows_for_that_person(store):
    add_comment(store, "case", "case-0300", "@bruno @nobody and mail ana@example.com", actor="ana")
    assert [m["note"] for m in mentions_of(store, "bruno")] == ["@bruno @nobody and mail ana@example.com"]
    assert mentions_of(store, "ana") == [] and mentions_of(store, "nobody") == []
    assert store.execute("SELECT COUNT(*) FROM assignments").fetchone()[0] == 0


def test_who_may_comment(store):
    with pytest.raises(RefusedError, match="refused: capability: dara holds none of item.comment"):
        add_comment(store, "case", "case-0300", "can I say something?", actor="dara")
    with pytest.raises(RefusedError, match="capability: run-41 holds none of"):
        add_comment(store, "case", "case-0300", "my own change is fine", actor="run-41")
    with pytest.raises(InputError, match="no such case"):
        add_comment(store, "case", "case-9999", "hello", actor="ana")
    with pytest.raises(InputError, match="--note: expected the comment's text"):
        add_comment(store, "case", "case-0300", "   ", actor="ana")
    assert thread(store, "case", "case-0300") == []


def test_a_comment_on_a_closed_or_leased_item_is_taken_and_moves_its_seen_seq(store):
    leases.take(store, "case", "case-0300", "ana")
    seen = last_seq(store, "case", "case-0300")
    add_comment(store, "case", "case-0300", "@ana wait: the baseline moved", actor="bruno")  # ana holds it
    with pytest.raises(ConflictError, match="seen-seq"):  # ana decides on what she saw before the comment
        decide(store, "case-0300", "inconclusive", actor="ana", note="no", based_on_seq=seen)
    decide(store, "case-0300", "inconclusive", actor="ana", note="no",
           based_on_seq=last_seq(store, "case", "case-0300"))
    add_comment(store, "case", "case-0300", "closed for the record", actor="bruno")
    assert len(thread(store, "case", "case-0300")) == 2


def test_verify_rebuilds_threads_and_names_a_hand_edit(store, store_path):
    add_comment(store, "case", "case-0300", "@bruno look", actor="ana")
    assert verify_store(store).findings == []
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.execute("UPDATE comments SET note = 'edited'")
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TRIGGER comments_no_update")
    conn.execute("UPDATE comments SET note = 'edited'")
    conn.execute("DELETE FROM comment_mentions")
    conn.commit()
    found = "\n".join(verify_store(Database(conn)).findings)
    assert "comments" in found and "note: the events say '@bruno look'" in found
    assert "comment_mentions bruno/" in found and "deleted by hand" in found
