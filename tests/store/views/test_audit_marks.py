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
