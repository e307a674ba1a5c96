"""Each audit row says the outcome or mark of what it records, also when the event's kind is the mark."""

import json

from gatepost.store.views.audit import outcome_of


def test_marks_named_by_the_kind_are_shown():
    assert outcome_of(json.dumps({"skill": "lobsters-digest"}), "draft.rejected") == "rejected"
    assert outcome_of(json.dumps({"skill": "x"}), "draft.approved") == "approved"
    assert outcome_of(json.dumps({"state": "NEW_FAIL", "failing": []}), "regression.acknowledged") == \
        "acknowledged NEW_FAIL"
    assert outcome_of(json.dumps({"state": "STABLE_FAIL"}), "regression.mismatch") == "mismatch STABLE_FAIL"
    assert outcome_of(json.dumps({"verdict": "pass", "delta": 0.0}), "suite.run") == "pass"
    assert outcome_of(json.dumps({"outcome": "kept"}), "case.decided") == "kept"
    assert outcome_of(None, "case.applied") == "applied" and outcome_of("not json", "x.y") == ""


def test_the_audit_page_counts_lease_events_apart_through_the_kind_index(db):
    from gatepost.store import cases
    from gatepost.store.kernel import add_actor, leases
    from gatepost.store.views.audit import LEASE_KINDS, audit_page

    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "bo", "person", ["case.close"])
    cases.import_case(db, {"id": "case-1", "title": "one case", "author": "run-41",
                           "candidate": {"path": "a.md", "content": "text", "basis": {
                               "baseline": "b", "question_set": "q", "data_revision": "d", "design": "x"}},
                           "independent": {"different_agent_run": ["run-52"]}}, actor="ana")
    for who in ("ana", "bo", "ana"):
        leases.take(db, "case", "case-1", who)
        leases.release(db, "case", "case-1", who)
    kinds = [k for (k,) in db.execute("SELECT kind FROM events")]
    page = audit_page(db)
    assert page["leases_hidden"] == sum(k.startswith("lease.") for k in kinds) == 6
    assert page["total"] == len(kinds) - 6 == len(page["rows"])
    by_bo = audit_page(db, actor="bo")
    assert (by_bo["total"], by_bo["leases_hidden"]) == (
        sum(1 for (k,) in db.execute("SELECT kind FROM events WHERE actor = 'bo'") if not k.startswith("lease.")), 2)
    assert audit_page(db, leases=True)["total"] == len(kinds)
    plan = " ".join(r[3] for r in db.execute(f"EXPLAIN QUERY PLAN SELECT COUNT(*) FROM events WHERE {LEASE_KINDS}"))
    assert "idx_events_kind_seq (kind>? AND kind<?)" in plan, plan
