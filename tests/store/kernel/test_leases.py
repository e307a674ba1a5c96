"""Leases: one person works a queue item at a time; others are refused until it expires."""

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from gatepost.store.cases import import_case
from gatepost.store.kernel import ConflictError, RefusedError, add_actor, leases, list_events
from gatepost.store.proposals import add_proposal
from gatepost.store.skills import create_draft

BASIS = {"baseline": "b-1", "question_set": "q-1", "data_revision": "d-1", "design": "x-1"}


@pytest.fixture
def db(db):
    """A store holding the items the tests lease: a lease is taken only on an item that exists, by who could
    decide it."""
    everything = ["case.close", "proposal.review", "manifest.review", "regression.triage"]
    add_actor(db, "ana", "person", everything)
    add_actor(db, "bruno", "person", everything)
    add_actor(db, "dara", "person", [])
    for case_id in ("case-1", "c-1", "c-2", "case-9"):
        import_case(db, {"id": case_id, "title": f"Case {case_id}", "author": "run-41",
                         "candidate": {"path": "procedures/a.md", "content": case_id, "basis": BASIS}},
                    actor="run-41")
    add_proposal(db, {"path": "procedures/a.md", "operation": "create", "edit_mode": "full_page",
                      "after_body": "x"}, actor="ana", id="p-1")
    return db


def _draft(db) -> str:
    return create_draft(db, "hn-digest", {"min_words": 10}, author="bruno", origin="bootstrap")["id"]


def test_take_refuses_another_person_until_expiry(db):
    t0 = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
    leases.take(db, "case", "case-1", "ana", now=t0)
    with pytest.raises(ConflictError, match="ana is working on it"):
        leases.take(db, "case", "case-1", "bruno", now=t0 + timedelta(minutes=14))
    lease = leases.take(db, "case", "case-1", "bruno", now=t0 + timedelta(minutes=16))
    assert lease["holder"] == "bruno"
    kinds = [e["kind"] for e in list_events(db, subject_type="case", subject_id="case-1", kind="lease.")]  # after its import
    assert kinds == ["lease.taken", "lease.taken"]


def test_renewal_keeps_the_holder_and_extends(db):
    t0 = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
    leases.take(db, "proposal", "p-1", "ana", now=t0)
    leases.take(db, "proposal", "p-1", "ana", now=t0 + timedelta(minutes=10))
    assert leases.holder(db, "proposal", "p-1", now=t0 + timedelta(minutes=20))["holder"] == "ana"
    assert list_events(db)[0]["kind"] == "lease.renewed"


def test_release_frees_the_item_and_only_the_holder_can(db):
    d1 = _draft(db)
    leases.take(db, "draft", d1, "ana")
    assert not leases.release(db, "draft", d1, "bruno")
    assert leases.release(db, "draft", d1, "ana")
    assert leases.holder(db, "draft", d1) is None
    leases.check_free(db, "draft", d1, "bruno")


def test_only_who_could_decide_an_item_takes_its_lease(db):
    """A lease keeps everyone else from deciding the item: holding one needs a capability its decisions need."""
    before = len(list_events(db))
    with pytest.raises(RefusedError, match="take case case-1: refused: capability: dara holds none of "
                                           "loop_change.keep, case.close"):
        leases.take(db, "case", "case-1", "dara", now=datetime(2099, 1, 1, tzinfo=UTC))
    with pytest.raises(RefusedError, match="take proposal p-1: refused: identity: mallory is not a known actor"):
        leases.take(db, "proposal", "p-1", "mallory")
    assert len(list_events(db)) == before and leases.holder(db, "case", "case-1") is None


def test_held_by_others_lists_what_a_queue_skips(db):
    leases.take(db, "case", "c-1", "ana")
    leases.take(db, "case", "c-2", "bruno")
    assert set(leases.held_by_others(db, "case", "ana")) == {"c-2"}


TAKE = """
import sys
from gatepost.store.kernel import open_store
from gatepost.store.kernel import leases
from gatepost.store.kernel import ConflictError
db = open_store(sys.argv[1])
try:
    leases.take(db, "case", "case-9", sys.argv[2])
    print("took")
except ConflictError as exc:
    print("refused:", exc)
"""


def test_two_processes_leasing_the_same_item(store_path, db):
    procs = [subprocess.Popen([sys.executable, "-c", TAKE, str(store_path), who], stdout=subprocess.PIPE, text=True)
             for who in ("ana", "bruno")]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert sorted(o.split(":")[0] for o in outs) == ["refused", "took"], outs
    winner = "ana" if outs[0] == "took" else "bruno"
    assert leases.holder(db, "case", "case-9")["holder"] == winner
