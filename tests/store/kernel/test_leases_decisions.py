"""A decision on an item another person holds a lease on is refused in the store, so the CLI is covered too."""

from datetime import UTC, datetime, timedelta

import pytest

from gatepost.store import cases
from gatepost.store.kernel import ConflictError, add_actor, last_seq, leases, list_events
from gatepost.store.skills import (
    acknowledge,
    approve_draft,
    edit_draft,
    flag_mismatch,
    get_draft,
    get_state,
    list_drafts,
    reject_draft,
)
from tests.fixtures.skills.store_builder import build

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean", "run-52", "current"), ("design_review", "passed", "erin", "design-2"),
        ("tuning_comparison", "reproduced", "run-52", "current"), ("heldout_comparison", "held", "run-52", "current")]
REVIEWER = ["loop_change.keep", "eval_design.review", "case.close", "manifest.review", "regression.triage",
            "proposal.review", "evidence.record_for"]


def _long_ago() -> datetime:
    return datetime.now(UTC) - timedelta(minutes=20)  # a 15-minute lease taken then has expired


@pytest.fixture
def store(db):
    build(db)  # bruno reviews skills; token-movers is NEW_FAIL, paper-pick STABLE_FAIL, one hn-digest draft
    add_actor(db, "ana", "person", REVIEWER)
    add_actor(db, "chen", "person", REVIEWER)
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    cases.import_case(db, {
        "id": "case-1", "title": "Smoke checks", "author": "run-41",
        "candidate": {"path": "procedures/release.md", "content": "Run the smoke checks.", "basis": BASIS},
        "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in GOOD],
    }, actor="ana")
    return db


def test_case_decision_refused_while_another_person_holds_it(store):
    leases.take(store, "case", "case-1", "chen")
    with pytest.raises(ConflictError, match="chen is working on it"):
        cases.decide(store, "case-1", "kept", actor="ana", note="looks right")
    assert cases.get_case(store, "case-1")["status"] == "open"  # nothing written
    cases.decide(store, "case-1", "kept", actor="chen", note="mine")  # the holder decides
    assert cases.get_case(store, "case-1")["outcome"] == "kept"


def test_an_expired_lease_no_longer_refuses(store):
    leases.take(store, "case", "case-1", "chen", now=_long_ago())
    cases.decide(store, "case-1", "kept", actor="ana", note="chen walked away")
    assert cases.get_case(store, "case-1")["outcome"] == "kept"


def test_a_released_lease_no_longer_refuses(store):
    leases.take(store, "case", "case-1", "chen")
    assert leases.release(store, "case", "case-1", "chen")
    cases.decide(store, "case-1", "kept", actor="ana", note="chen let go")


def test_lease_events_do_not_make_what_a_reviewer_saw_stale(store):
    seen = last_seq(store, "case", "case-1")
    leases.take(store, "case", "case-1", "ana")
    leases.take(store, "case", "case-1", "ana")  # a renewal while the item stays open
    assert last_seq(store, "case", "case-1") == seen
    cases.decide(store, "case-1", "kept", actor="ana", note="ok", based_on_seq=seen)
    kinds = [e["kind"] for e in list_events(store, subject_type="case", subject_id="case-1")][:3]
    assert kinds == ["case.decided", "lease.renewed", "lease.taken"]


def test_draft_decisions_refused_while_held(store):
    [draft], _ = list_drafts(store)
    leases.take(store, "draft", draft["id"], "bruno")
    with pytest.raises(ConflictError, match="bruno is working on it"):
        approve_draft(store, draft["id"], actor="ana")
    with pytest.raises(ConflictError, match="bruno is working on it"):
        reject_draft(store, draft["id"], actor="ana", note="too strict")
    yaml_text = get_draft(store, draft["id"])["yaml"]
    assert "min_words: 9" in yaml_text
    with pytest.raises(ConflictError, match="bruno is working on it"):
        edit_draft(store, draft["id"], yaml_text.replace("min_words: 9", "min_words: 7"), actor="ana")
    assert get_draft(store, draft["id"])["status"] == "pending"
    reject_draft(store, draft["id"], actor="bruno", note="too strict")
    assert get_draft(store, draft["id"])["status"] == "rejected"


def test_regression_triage_refused_while_held(store):
    leases.take(store, "skill", "token-movers", "bruno")
    with pytest.raises(ConflictError, match="bruno is working on it"):
        acknowledge(store, "token-movers", actor="ana", note="seen")
    with pytest.raises(ConflictError, match="bruno is working on it"):
        flag_mismatch(store, "token-movers", actor="ana", note="manifest too strict")
    assert get_state(store, "token-movers")["acknowledged_eval_id"] is None
    acknowledge(store, "token-movers", actor="bruno", note="seen, fixing the prompt")
    assert get_state(store, "token-movers")["acknowledged_eval_id"] is not None


def test_the_cli_is_refused_too_with_exit_3(store, cli):
    leases.take(store, "case", "case-1", "chen")
    [draft], _ = list_drafts(store)
    leases.take(store, "draft", draft["id"], "chen")
    leases.take(store, "skill", "token-movers", "chen")
    for args in (["case", "decide", "case-1", "kept", "--note", "ok"],
                 ["manifest", "approve", draft["id"]],
                 ["manifest", "reject", draft["id"], "--note", "no"],
                 ["skills", "acknowledge", "token-movers", "--note", "seen"],
                 ["skills", "mismatch", "token-movers", "--note", "wrong manifest"]):
        result = cli(*args, "--as", "ana")
        assert result.exit_code == 3, (args, result.output)
        assert "chen is working on it" in result.output and "Traceback" not in result.output
    assert cases.get_case(store, "case-1")["status"] == "open"
    assert cli("case", "decide", "case-1", "kept", "--note", "ok", "--as", "chen").exit_code == 0


def test_proposal_marks_refused_while_held_in_the_store_and_the_cli(store, cli):
    from gatepost.store.proposals import add_proposal, get_proposal, mark_proposal

    pid, _ = add_proposal(store, {"path": "procedures/release.md", "operation": "update", "edit_mode": "full_page",
                                  "title": "Smoke checks", "before_body": "a", "after_body": "b"}, actor="ana")
    leases.take(store, "proposal", pid, "chen")
    with pytest.raises(ConflictError, match="chen is working on it"):
        mark_proposal(store, pid, "accepted", actor="ana", note="fine")
    result = cli("proposal", "mark", pid, "declined", "--note", "no", "--as", "ana")
    assert result.exit_code == 3 and "chen is working on it" in result.output
    assert get_proposal(store, pid)["status"] == "waiting"
    mark_proposal(store, pid, "accepted", actor="chen", note="fine")
    assert get_proposal(store, pid)["status"] == "accepted"
