"""`gatepost verify` computes a case's cached columns (claims, outcomes allowed, whether it needs a decision) once per
shape of case: cases whose protocol, status, revisions, independence lists and evidence the projection reads alike.
Producers are part of a shape only by the independence lists that hold them; whatever the producers and lists,
the columns verify computes for every case must be those its own acts stored."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store import cases
from gatepost.store.kernel import add_actor, open_store
from gatepost.store.views import verify_store

PRODUCERS = ["run-41", "run-52", "run-53", "ana", "bo"]
EVIDENCE = [("design_review", "failed"), ("design_review", "passed"), ("guard_check", "clean"),
            ("guard_check", "leaked"), ("heldout_comparison", "held"), ("heldout_comparison", "regressed"),
            ("tuning_comparison", "not_better"), ("tuning_comparison", "reproduced")]
# cases with the same evidence kinds and results, each its own producers and independent runs: shapes that differ by
# the producers alone
kinds = st.lists(st.sampled_from(EVIDENCE), min_size=1, max_size=4)
independents = st.lists(st.sampled_from(PRODUCERS[1:]), unique=True, max_size=3)  # never the author's run


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(evidence=kinds, many=st.lists(st.tuples(independents, st.lists(st.sampled_from(PRODUCERS), min_size=4,
                                                                       max_size=4)), min_size=2, max_size=8))
def test_cases_of_one_shape_get_each_its_own_projection(tmp_path_factory: pytest.TempPathFactory, evidence, many):
    path: Path = tmp_path_factory.mktemp("shapes") / "s.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["store.admin", "case.close", "evidence.record_for", "evidence.record",
                                 "eval_design.review"])
    for i, (independent, producers) in enumerate(many):
        cases.import_case(db, {
            "protocol": "eval.gated_change/1", "id": f"case-{i}", "title": f"change {i}", "author": "run-41",
            "candidate": {"path": "p.md", "content": "step\n",
                          "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-1",
                                    "design": "design-2"}},
            "independent": {"different_agent_run": independent},
            "evidence": [{"kind": kind, "result": result, "producer": producer}
                         for (kind, result), producer in zip(evidence, producers, strict=False)]}, actor="ana")
    report = verify_store(db)
    assert report.intact, report.findings
    db.close()
