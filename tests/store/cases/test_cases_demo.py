"""The demo's cases cover every outcome and every way a claim can be UNKNOWN."""

import random
from collections import Counter

from gatepost.store import cases
from gatepost.store.demo import actors as demo_actors
from gatepost.store.demo import cases as demo_cases


def test_demo_cases_cover_every_state(db):
    rng = random.Random(7)
    demo_actors.populate(db, rng, "me")
    assert demo_cases.populate(db, rng, "me").endswith("cases")
    rows, total = cases.list_cases(db, limit=1000)
    assert total >= 36
    outcomes = Counter(r["outcome"] for r in rows if r["status"] == "closed")
    assert set(outcomes) == {"kept", "rejected", "proposed", "inconclusive"}
    decidable = {o for r in rows if r["status"] == "open" for o in r["allowed"] if o != "inconclusive"}
    assert decidable == {"kept", "rejected", "proposed"}
    assert any(r["allowed"] == ["inconclusive"] for r in rows if r["status"] == "open")  # blocked ones
    views = [cases.case_view(db, r["id"]) for r in rows]
    whys = [w for v in views if v["status"] == "open" for n, w in v["explanations"].items()
            if v["claims"][n] == "UNKNOWN"]
    assert any("missing" in w for w in whys)
    assert any("stale: about revision" in w for w in whys)
    assert any("not independent on different_agent_run" in w for w in whys)
    deciders = {d["actor"] for v in views for d in v["decisions"]}
    assert {"ana", "bruno", "me"} <= deciders
    assert db.execute("SELECT COUNT(*) FROM proposals WHERE kind = 'case'").fetchone()[0] == outcomes["proposed"]
    assert any(w.startswith("records disagree: ") for w in whys)  # Canon: disagreeing records leave UNKNOWN
    late = [v for v in views if v["outcome"] == "kept" and v["claims"]["heldout.not_regressed"] == "UNKNOWN"]
    assert late and late[0]["status"] == "closed"  # evidence after the decision did not reopen it


def test_a_case_detail_reads_each_table_once(db):
    """Issue 15: one case detail was 28 queries (the whole actor with sqlite-utils' schema lookups, the
    evidence and the applications twice); every cursor move in the console reads one."""
    rng = random.Random(7)
    demo_actors.populate(db, rng, "me")
    demo_cases.populate(db, rng, "me")
    rows, _total = cases.list_cases(db, limit=1000)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    try:
        counts: dict[str, list[int]] = {"open": [], "closed": []}
        for row in rows:
            statements.clear()
            cases.case_view(db, row["id"], actor="me")
            counts[row["status"]].append(len(statements))
            assert not any("sqlite_master" in s for s in statements), statements
            assert sum(s.startswith("SELECT * FROM evidence") for s in statements) == 1
    finally:
        db.conn.set_trace_callback(None)
    # a closed case with evidence after its decision is evaluated again to the decision (contradicted.py)
    assert max(counts["open"]) <= 13 and max(counts["closed"]) <= 17, counts
