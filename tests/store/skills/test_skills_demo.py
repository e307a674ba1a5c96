"""The demo's skills part: every regression state, realistic histories, drafts in every status."""

import random

import pytest

from gatepost.store.demo import actors as demo_actors
from gatepost.store.demo import skills as demo_skills
from gatepost.store.kernel import open_store
from gatepost.store.skills import HIGH_FROM
from gatepost.store.views import counts


def _build(path):
    db = open_store(path)
    rng = random.Random(7)
    demo_actors.populate(db, rng, "tester")
    summary = demo_skills.populate(db, rng, "tester")
    return db, summary


@pytest.mark.slow
def test_demo_has_every_state_severity_and_draft_status(tmp_path):
    db, summary = _build(tmp_path / "demo.db")
    data = counts(db)
    assert all(n >= 5 for n in data["regressions"].values()), data["regressions"]
    assert all(n >= 3 for n in data["severity"].values()), data["severity"]
    assert data["drafts"]["pending"] >= 8 and data["drafts"]["approved"] >= 3
    assert data["drafts"]["rejected"] >= 3 and data["drafts"]["superseded"] >= 3
    origins = {r[0] for r in db.execute("SELECT origin FROM manifest_drafts WHERE status = 'pending'")}
    assert origins == {"bootstrap", "edit", "mismatch"}
    lengths = [n for (n,) in db.execute("SELECT COUNT(*) FROM skill_evals GROUP BY skill")]
    # 6-15 runs (a high NEW_FAIL: a pass streak of HIGH_FROM..+4 broken), plus a re-evaluation after an approval
    assert min(lengths) >= 6 and max(lengths) <= max(16, HIGH_FROM + 6)
    assert db.execute("SELECT COUNT(*) FROM skill_runs WHERE status = 'error'").fetchone()[0] > 0
    assert db.execute("SELECT COUNT(*) FROM events WHERE kind = 'regression.acknowledged'").fetchone()[0] == 3
    assert "skills" in summary and "pending" in summary
    db.close()


@pytest.mark.slow
def test_demo_is_deterministic(tmp_path):
    states = []
    for name in ("a.db", "b.db"):
        db, _ = _build(tmp_path / name)
        states.append(db.execute("SELECT skill, state, severity, fail_streak, pass_streak FROM regression_states"
                                 " ORDER BY skill").fetchall())
        db.close()
    assert states[0] == states[1]
