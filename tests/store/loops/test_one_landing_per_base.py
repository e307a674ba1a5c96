"""Two changes kept on one base can never both land: the second keep waits (`pending`) until the first is
recorded applied, and is then stale; kept changes that never landed are listed."""

import pytest

from gatepost.store import cases, flows
from gatepost.store.kernel import RefusedError, get_actor
from gatepost.store.views import counts
from tests.store.kernel.test_leases_decisions import BASIS, GOOD, store  # noqa: F401 (the fixture used here)


def _case(db, case_id: str, content: str, path: str = "procedures/release.md") -> None:
    cases.import_case(db, {
        "id": case_id, "title": case_id, "author": "run-41",
        "candidate": {"path": path, "content": content, "basis": BASIS},
        "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in GOOD],
    }, actor="ana")


def test_a_second_keep_on_the_same_base_is_pending_until_the_first_lands_then_stale(store):  # noqa: F811
    _case(store, "case-2", "Run the smoke checks twice.")
    _case(store, "case-3", "Other file.", path="procedures/other.md")
    flows.decide(store, "case-1", "kept", actor="ana", note="holds")
    with pytest.raises(RefusedError, match=r"^decide case-2 kept: refused: pending: case case-1 for "
                                           r"procedures/release.md was kept on the same base \(b-7\)"):
        flows.decide(store, "case-2", "kept", actor="ana", note="holds too")
    assert cases.get_case(store, "case-2")["status"] == "open"
    flows.decide(store, "case-3", "kept", actor="ana", note="another path is no rival")
    rows, total = cases.list_cases(store, kept_not_landed=True)
    assert total == 2 and {r["id"] for r in rows} == {"case-1", "case-3"}
    assert counts(store)["cases"]["kept_not_landed"] == 2
    flows.record_case_applied(store, "case-1", ref="r1", actor="ana")
    assert {r["id"] for r in cases.list_cases(store, status="kept_not_landed")[0]} == {"case-3"}
    with pytest.raises(RefusedError, match=r"^decide case-2 kept: refused: stale: content of procedures/release.md "
                                           "was recorded applied after this candidate was made"):
        flows.decide(store, "case-2", "kept", actor="ana", note="holds too")
    flows.decide(store, "case-2", "inconclusive", actor="ana", note="rebase it")  # other outcomes are not landings
    # the loop's run records where its own change landed with no capability of its own (no evidence.record)
    assert get_actor(store, "run-41")["capabilities"] == []
    assert flows.record_case_applied(store, "case-3", ref="r2", actor="run-41")["recorded"]
