"""The case lists' totals kept as the cases change (case_counts): every filter's total is what the cases count,
through imports, evidence, decisions and a rehearsal rolled back; verify finds a count edited by hand or a trigger
dropped; the migration counts the cases a store already holds."""

import itertools

import pytest

from gatepost.store import cases, flows
from gatepost.store.kernel import add_actor
from gatepost.store.views import verify_store
from tests.store.cases.test_cases import GOOD, new_case

STATUSES = (None, "open", "closed", "needs_decision")
OUTCOMES = (None, "kept", "rejected", "inconclusive", "proposed")


@pytest.fixture
def people(db):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    return db


def _every_total_is_counted(db) -> None:
    for status, outcome in itertools.product(STATUSES, OUTCOMES):
        _rows, total = cases.list_cases(db, status=status, outcome=outcome, limit=1)
        where, params = ["1"], []
        if status == "needs_decision":
            where.append("status = 'open' AND needs_decision = 1")
        elif status:
            where.append("status = ?")
            params.append(status)
        if outcome:
            where.append("outcome = ?")
            params.append(outcome)
        counted = db.execute(f"SELECT COUNT(*) FROM cases WHERE {' AND '.join(where)}", params).fetchone()[0]
        assert total == counted, (status, outcome)
    assert cases.counts_differ(db) == []


def test_the_totals_follow_imports_evidence_and_decisions(people):
    db = people
    for i in range(4):
        new_case(db, f"c-{i}", evidence=GOOD if i % 2 else [("guard_check", "clean")])
    _every_total_is_counted(db)
    assert cases.list_cases(db, status="needs_decision")[1] == 2
    cases.add_evidence(db, "c-0", kind="design_review", result="passed", producer="ana", about="design-2",
                       actor="ana")
    cases.decide(db, "c-1", "kept", note="held", actor="ana")
    cases.decide(db, "c-2", "inconclusive", note="no more runs", actor="ana")
    _every_total_is_counted(db)
    assert cases.list_cases(db, status="closed")[1] == 2 and cases.list_cases(db, outcome="kept")[1] == 1


def test_a_rehearsal_leaves_the_totals_as_they_were(people):
    db = people
    new_case(db, "c-1", evidence=GOOD)
    before = db.execute("SELECT * FROM case_counts ORDER BY 1, 2, 3").fetchall()
    assert flows.may(db, "case", "c-1", actor="ana", names=["kept"])  # the decision rehearsed and rolled back
    assert db.execute("SELECT * FROM case_counts ORDER BY 1, 2, 3").fetchall() == before
    _every_total_is_counted(db)


def test_verify_finds_a_count_edited_by_hand_or_a_trigger_dropped(people):
    db = people
    new_case(db, "c-1", evidence=GOOD)
    assert verify_store(db).findings == []
    db.execute("UPDATE case_counts SET n = n + 5 WHERE n = 1")
    found = [line for line in verify_store(db).findings if line.startswith("case counts:")]
    assert len(found) == 1 and "open/no outcome/needs a decision: 6 kept, 1 counted" in found[0], found
    cases.create_case_counts(db)  # counted again from the cases (as the migration does)
    assert verify_store(db).findings == []
    db.execute("DROP TRIGGER case_counts_insert")
    found = [line for line in verify_store(db).findings if line.startswith("case counts:")]
    assert found and "case_counts_insert" in found[0], found


def test_verify_finds_a_same_named_trigger_that_keeps_no_count(people):
    db = people
    new_case(db, "c-1", evidence=GOOD)
    db.execute("DROP TRIGGER case_counts_update")
    db.execute("CREATE TRIGGER case_counts_update AFTER UPDATE ON cases BEGIN SELECT 1; END")
    found = [line for line in verify_store(db).findings if line.startswith("case counts:")]
    assert len(found) == 1 and "trigger case_counts_update is not the schema's" in found[0], found


def test_the_migration_counts_the_cases_a_store_holds(people):
    db = people
    for i in range(3):
        new_case(db, f"c-{i}", evidence=GOOD)
    cases.decide(db, "c-0", "inconclusive", note="no", actor="ana")
    db.execute("DELETE FROM case_counts")  # as a store from before the counts has none
    cases.create_case_counts(db)
    _every_total_is_counted(db)
