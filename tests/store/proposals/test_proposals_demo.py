"""The demo's evaluator part: runs with a realistic spread, proposals in every status, every gate reason."""

import random

import pytest

from gatepost.store.demo import actors as demo_actors
from gatepost.store.demo import suites as demo_suites
from gatepost.store.evaluation import list_runs
from gatepost.store.proposals import count_by_status


@pytest.mark.slow
def test_demo_part_builds_runs_and_proposals_in_every_state_deterministically(db, tmp_path):
    from gatepost.store.kernel import open_store

    demo_actors.populate(db, random.Random(7), "tester")
    summary = demo_suites.populate(db, random.Random(7), "tester")
    assert "3 suites" in summary
    again = open_store(tmp_path / "again.db")
    demo_actors.populate(again, random.Random(7), "tester")
    demo_suites.populate(again, random.Random(7), "tester")
    for sql in ("SELECT id, verdict, delta, started_at FROM evaluation_runs ORDER BY id",
                "SELECT id, status, updated_at FROM proposals ORDER BY id",
                "SELECT proposal_id, passed, targeted, at FROM gate_results ORDER BY id"):
        assert db.execute(sql).fetchall() == again.execute(sql).fetchall()
    again.close()
    runs, total = list_runs(db, limit=500)
    assert total >= 40
    verdicts = {r["verdict"] for r in runs}
    assert verdicts == {"pass", "fail"}
    assert any(r["baseline_health"].get("status") == "warning" for r in runs)
    assert any(r["delta"] == 0 for r in runs) and any((r["pass_k"] or 1) > 1 for r in runs)
    assert all(r["mock"] for r in runs)
    assert any(any("not judged" in w for w in r["warnings"]) for r in runs)
    evidence = dict(db.execute("SELECT kind || ':' || result, COUNT(*) FROM evidence WHERE case_id LIKE 'case-e%'"
                               " GROUP BY 1").fetchall())
    assert {"guard_check:leaked", "guard_check:outside", "tuning_comparison:reproduced",
            "tuning_comparison:not_better", "heldout_comparison:held", "heldout_comparison:regressed"} <= set(evidence)
    assert list_runs(db, case_id="case-e01")[1] == 3
    counts = count_by_status(db)
    assert all(counts[s] >= 5 for s in ("waiting", "needs_changes", "accepted", "declined")), counts
    reasons = [r[0] for r in db.execute("SELECT reason FROM gate_results")]
    for start in ("the scorer passed it", "passed = false", "command error: exited", "command error: auto_improve",
                  "timeout:", "invalid JSON", "missing passed", "insufficient score delta", "gate disabled"):
        assert any(r.startswith(start) for r in reasons), start
    assert any("matches no target" in r for r in reasons)

