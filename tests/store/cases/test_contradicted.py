"""Decisions contradicted later (issue 15 item 7): the protocol with the evidence up to the decision
against all of it, by store sequence; accepted proposals and approved drafts likewise."""

import pytest

from gatepost.store import cases, flows, proposals, skills
from gatepost.store.kernel import add_actor, freeze
from gatepost.store.proposals import GateConfig, gate_proposal
from tests.evaluator_helpers import scorer
from tests.store.proposals.test_gate import SAMPLE_DATA

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean"), ("design_review", "passed"), ("tuning_comparison", "reproduced"),
        ("heldout_comparison", "held")]


@pytest.fixture
def people(db):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for",
                                    "proposal.review", "loop_change.apply_outside_surface"])
    add_actor(db, "bruno", "person", ["manifest.review"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews designs; whose evidence counts never decides
    return db


def new_case(db, case_id="c-1", evidence=GOOD, at="2026-12-01T07:00:00Z", path="procedures/release.md"):
    return cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": case_id, "title": f"Candidate {case_id}", "author": "run-41",
        "candidate": {"path": path, "content": "Use the checklist.", "basis": dict(BASIS)},
        "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
        "evidence": [{"kind": k, "result": r, "producer": "erin" if k == "design_review" else "run-52",
                      "about": "design-2" if k == "design_review" else "current"} for k, r in evidence],
    }, actor="ana", at=at)


def test_a_kept_case_whose_held_out_came_back_regressed_is_contradicted(people):
    with freeze("2026-12-01T08:00:00Z"):
        new_case(people)
        flows.decide(people, "c-1", "kept", actor="ana", note="every keep claim holds")
    assert cases.case_contradiction(people, "c-1") is None  # nothing came after
    with freeze("2026-12-01T18:00:00Z"):
        cases.add_evidence(people, "c-1", kind="heldout_comparison", result="regressed", actor="run-52")
    found = cases.case_contradiction(people, "c-1")
    assert found["line"] == "kept at 2026-12-01 08:00; held-out came back regressed at 18:00"
    assert found["claims"]["heldout.not_regressed"][0] == "TRUE" != found["claims"]["heldout.not_regressed"][1]
    assert found["kind"] == "heldout_comparison" and found["producer"] == "run-52"
    assert cases.get_case(people, "c-1")["status"] == "closed"  # a closed case is closed
    assert cases.contradicted_case_ids(people) == ["c-1"]
    assert [r["id"] for r in cases.list_cases(people, contradicted=True)[0]] == ["c-1"]
    assert cases.show_json(cases.case_view(people, "c-1"))["contradicted"]["line"] == found["line"]


def test_order_is_the_store_sequence_not_the_callers_clock(people):
    new_case(people)
    flows.decide(people, "c-1", "kept", actor="ana", note="ok")
    # recorded after the decision, but said to be observed a day before it: still later evidence
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="regressed", actor="run-52",
                       at="2026-11-01T00:00:00Z")
    assert cases.contradicted_case_ids(people) == ["c-1"]


def test_later_evidence_that_only_settles_an_unknown_claim_is_no_contradiction(people):
    new_case(people, evidence=GOOD[:3])
    flows.decide(people, "c-1", "inconclusive", actor="ana", note="the held-out split is being rebuilt")
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="held", actor="run-52")
    assert cases.case_contradiction(people, "c-1") is None
    cases.add_evidence(people, "c-1", kind="tuning_comparison", result="not_better", actor="run-52")
    found = cases.case_contradiction(people, "c-1")
    assert found["claims"]["tuning.improved"][0] == "TRUE" and found["kind"] == "tuning_comparison"
    assert found["line"].startswith("inconclusive at ")


def test_evidence_that_agrees_or_does_not_count_changes_nothing(people):
    new_case(people)
    flows.decide(people, "c-1", "kept", actor="ana", note="ok")
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="held", actor="run-52")
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="regressed", producer="run-41",
                       actor="ana")  # the author's own run: not independent
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="regressed", actor="run-52",
                       details={"mock": True})  # a mock executor never establishes a claim
    assert cases.case_contradiction(people, "c-1") is None
    assert cases.contradicted_case_ids(people) == []
    assert cases.case_view(people, "c-1")["contradicted"] is None


def test_an_accepted_case_proposal_is_contradicted_by_evidence_after_its_acceptance(people):
    new_case(people, evidence=[("guard_check", "outside"), ("design_review", "passed")])
    flows.decide(people, "c-1", "proposed", actor="ana", note="outside")
    cases.add_evidence(people, "c-1", kind="tuning_comparison", result="reproduced", actor="run-52")
    with freeze("2026-12-01T08:00:00Z"):
        proposals.mark_proposal(people, "case:c-1", "accepted", actor="ana", note="looks right")
    assert proposals.get_proposal(people, "case:c-1")["contradicted"] is None  # it was accepted on that evidence
    with freeze("2026-12-01T18:00:00Z"):
        cases.add_evidence(people, "c-1", kind="tuning_comparison", result="not_better", actor="run-52")
    found = proposals.get_proposal(people, "case:c-1")["contradicted"]
    assert found["line"] == "accepted at 2026-12-01 08:00; tuning came back not_better at 18:00"
    assert proposals.contradicted_proposal_ids(people) == ["case:c-1"]
    assert [r["id"] for r in proposals.list_proposals(people, status="contradicted")[0]] == ["case:c-1"]


def test_an_accepted_proposal_whose_gate_later_fails_is_contradicted(people):
    at = "2026-12-01T08:00:00.000000Z"
    passing = GateConfig(enabled=True, command=scorer("structure"), timeout_secs=5, targets=["procedures"])
    with freeze(at):
        pid = gate_proposal(people, passing, dict(SAMPLE_DATA), actor="ci-nightly")["proposal_id"]
        proposals.mark_proposal(people, pid, "accepted", actor="ana", note="gate passed")
    assert proposals.get_proposal(people, pid)["contradicted"] is None
    failing = GateConfig(enabled=True, command=scorer("reject"), timeout_secs=5, targets=["procedures"])
    with freeze("2026-12-01T18:00:00Z"):
        gate_proposal(people, failing, dict(SAMPLE_DATA), actor="ci-nightly")
    found = proposals.get_proposal(people, pid)["contradicted"]
    assert found["line"] == "accepted at 2026-12-01 08:00; the gate came back failed at 18:00"
    assert proposals.contradicted_proposal_ids(people) == [pid]  # the list's one-query filter keeps it


def _doc(words: int) -> str:
    return "## Summary\n" + " ".join(["word"] * words)


def test_an_approved_draft_is_contradicted_by_a_later_run_failing_what_its_sample_passed(people):
    for i in range(5):
        skills.record_run(people, "digest", _doc(100 + i), actor="run-52", at=f"2026-11-0{i + 1}T08:00:00Z")
    draft = skills.bootstrap(people, "digest", actor="bruno")
    with freeze("2026-12-01T08:00:00Z"):
        skills.approve_draft(people, draft["id"], actor="bruno")
    with freeze("2026-12-01T09:00:00Z"):
        skills.record_run(people, "digest", _doc(120), actor="run-52")  # passes: nothing contradicted
    assert skills.draft_contradiction(people, skills.get_draft(people, draft["id"])) is None
    with freeze("2026-12-01T18:00:00Z"):
        skills.record_run(people, "digest", "## Summary\nshort", actor="run-52", run_id="r-short")
        skills.record_run(people, "digest", "broken", actor="run-52", status="error")  # errors never count
    found = skills.draft_contradiction(people, skills.get_draft(people, draft["id"]))
    assert found["line"] == "approved at 2026-12-01 08:00; run r-short came back failing min_words at 18:00"
    assert skills.contradicted_draft_ids(people) == [draft["id"]]
    assert [d["id"] for d in skills.contradicted_drafts(people)[0]] == [draft["id"]]
