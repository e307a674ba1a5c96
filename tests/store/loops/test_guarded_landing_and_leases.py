"""The acts issue 11 moved into the guarded pipeline: leases, proposal import, the gate's record, and
`case applied` / `proposal applied`, which now share one set of checks and one wording."""

import pytest

from gatepost.store import flows, proposals
from gatepost.store.kernel import (
    ConflictError,
    InputError,
    RefusedError,
    add_actor,
    leases,
    list_events,
)
from gatepost.store.proposals import GateConfig
from tests.store.kernel.test_leases_decisions import store  # noqa: F401 (the fixture this file builds on)

PROPOSAL = {"path": "procedures/other.md", "operation": "update", "edit_mode": "full_page", "title": "Other",
            "before_body": "a", "after_body": "b"}


@pytest.fixture
def people(store):  # noqa: F811 (the fixture imported above)
    """The leases-and-decisions store (case-1 by run-41, reviewers ana and chen), and two more actors."""
    add_actor(store, "run-41", "producer", ["evidence.record"])  # the loop run that wrote case-1
    add_actor(store, "dora", "person", ["manifest.review"])  # holds none of the capabilities that record a landing
    return store


def test_a_lease_refusal_names_its_rule_and_a_missing_item_is_bad_input(people):
    leases.take(people, "case", "case-1", "chen")
    with pytest.raises(ConflictError, match=r"^take case case-1: refused: lease: chen is working on it"):
        leases.take(people, "case", "case-1", "ana")
    with pytest.raises(InputError, match="case case-404: no such case in this store"):
        leases.take(people, "case", "case-404", "ana")
    with pytest.raises(InputError, match="invisible or control character U\\+200B"):
        leases.take(people, "case", "case-1", "ana\u200b")
    assert [e["actor"] for e in list_events(people, kind="lease.")] == ["chen"]


def test_import_and_gate_refuse_an_actor_that_names_nobody_and_write_nothing(people):
    with pytest.raises(RefusedError, match=r"^import proposal prop-\w+: refused: identity: no actor given"):
        proposals.add_proposal(people, PROPOSAL, actor=" ")
    with pytest.raises(RefusedError, match=r"refused: identity: no actor given"):
        proposals.gate_proposal(people, GateConfig(), dict(PROPOSAL), actor="")
    assert proposals.list_proposals(people)[1] == 0
    gated = proposals.gate_proposal(people, GateConfig(), dict(PROPOSAL), actor="ci-nightly")
    kinds = [e["kind"] for e in list_events(people, subject_type="proposal", subject_id=gated["proposal_id"])]
    assert kinds == ["proposal.gated", "proposal.imported"]


def test_case_and_proposal_landings_are_refused_in_the_same_words(people):
    pid, _ = proposals.add_proposal(people, PROPOSAL, actor="ana")
    refusals = []
    for land in (lambda: flows.record_case_applied(people, "case-1", ref="r1", actor="ana"),
                 lambda: proposals.record_applied(people, pid, ref="r1", actor="ana")):
        with pytest.raises(RefusedError) as caught:
            land()
        refusals.append(str(caught.value))
    assert refusals == ["case applied case-1: refused: approved: the case is open; only a kept case lands (a proposed "
                        "one lands as its proposal: gatepost proposal applied)",
                        f"proposal applied {pid}: refused: approved: the proposal is waiting; only an accepted "
                        "proposal lands"]

    flows.decide(people, "case-1", "kept", actor="ana", note="holds")
    proposals.mark_proposal(people, pid, "accepted", actor="ana", note="fine")
    for land in (lambda: flows.record_case_applied(people, "case-1", ref="r1", actor="dora"),
                 lambda: proposals.record_applied(people, pid, ref="r1", actor="dora")):
        with pytest.raises(RefusedError, match="refused: capability: dora is not the (case|proposal)'s author and "
                                               "holds none of loop_change.keep, proposal.review, store.admin"):
            land()
    assert flows.record_case_applied(people, "case-1", ref="r1", actor="run-41")["recorded"]  # its author may
    assert proposals.record_applied(people, pid, ref="r2", actor="ana")["recorded"]
    for land, doing in ((lambda: flows.record_case_applied(people, "case-1", ref="r3", actor="ana"), "case applied case-1"),
                        (lambda: proposals.record_applied(people, pid, ref="r3", actor="ana"), f"proposal applied {pid}")):
        with pytest.raises(RefusedError, match=f"^{doing}: refused: applied: already recorded applied$"):
            land()
