"""The design reviewers' queue kept in the cases projection: the mark follows every event that moves a case in
or out of the queue, the overview counts it through an index, and a store from before the mark is marked."""

import json

import pytest

from gatepost.store import cases, schema, views
from gatepost.store.kernel import add_actor
from tests.store.cases.test_cases import GOOD, new_case

NO_REVIEW = [e for e in GOOD if e[0] != "design_review"]


@pytest.fixture
def people(db):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "erin", "person", ["eval_design.review"])
    return db


def _waiting_by_rule(db) -> list[str]:
    """The open cases the rule (waits_on_design_review over each case's claims) puts in the queue."""
    return sorted(c for c, p, claims in db.execute("SELECT id, protocol, claims FROM cases WHERE status = 'open'")
                  if cases.waits_on_design_review(p, json.loads(claims)))


def test_the_mark_follows_evidence_and_decisions(people):
    db = people
    new_case(db, "c-1", evidence=NO_REVIEW)  # waits only on the review
    new_case(db, "c-2", evidence=GOOD)  # reviewed: decidable
    new_case(db, "c-3", evidence=[("guard_check", "clean")])  # waits on more than the review
    assert cases.waiting_on_design_review(db, cases.DEFAULT_PROTOCOL) == ["c-1"] == _waiting_by_rule(db)
    assert views.counts(db)["cases"]["design_review"] == 1
    new_case(db, "c-4", evidence=NO_REVIEW)
    assert views.counts(db)["cases"]["design_review"] == 2
    cases.add_evidence(db, "c-1", kind="design_review", result="passed", producer="erin", about="design-2",
                       actor="ana")  # reviewed: out of the queue
    assert cases.waiting_on_design_review(db, cases.DEFAULT_PROTOCOL) == ["c-4"] == _waiting_by_rule(db)
    cases.decide(db, "c-4", "inconclusive", note="closed while waiting", actor="ana")  # closed: out of it
    assert views.counts(db)["cases"]["design_review"] == 0 == len(_waiting_by_rule(db))


def test_the_overview_counts_the_queue_in_an_index_not_the_cases(people):
    sql = "SELECT COUNT(*) FROM cases WHERE status = 'open' AND design_review = 1 AND protocol = ?"
    plan = " ".join(row[3] for row in people.execute(f"EXPLAIN QUERY PLAN {sql}", [cases.DEFAULT_PROTOCOL]))
    assert "USING COVERING INDEX idx_cases_design_review" in plan, plan


def test_a_store_from_before_the_mark_is_marked_by_the_protocols_rule(people):
    db = people
    new_case(db, "c-1", evidence=NO_REVIEW)
    new_case(db, "c-2", evidence=GOOD)
    db.execute("UPDATE cases SET design_review = 0")  # as the column's default leaves a store's cases
    schema.mark_design_review_waiting(db)
    assert cases.waiting_on_design_review(db, cases.DEFAULT_PROTOCOL) == ["c-1"]
