"""Real processes writing one store at once: racing reviewers, and eight producers.

Every process opens its own connection (store.db.open_store); a file-based
start line makes them really race. Nothing here measures time.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gatepost.store import cases
from gatepost.store.kernel import add_actor, last_seq, open_store

ROOT = Path(__file__).resolve().parents[3]
WORKER = Path(__file__).resolve().parents[2] / "fixtures" / "reliability" / "worker.py"
BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean", "run-52", "current"), ("design_review", "passed", "erin", "design-2"),
        ("tuning_comparison", "reproduced", "run-52", "current"), ("heldout_comparison", "held", "run-52", "current")]
WAIT = 120  # seconds any one process may take on a busy 2-core machine before the test gives up


def _case(db, case_id: str) -> None:
    cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": case_id, "title": f"Candidate {case_id}", "author": "run-41",
        "candidate": {"path": f"procedures/{case_id}.md", "content": f"Use the checklist ({case_id}).",
                      "basis": dict(BASIS)},
        "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in GOOD],
    }, actor="ana")


def _spawn(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, str(WORKER), *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _start_together(procs: list[subprocess.Popen], ready: list[Path], go: Path) -> None:
    """Wait (bounded) until every process is at the start line, then let them all go at once."""
    deadline = time.monotonic() + WAIT
    while not all(p.exists() for p in ready):
        dead = [p for p in procs if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            for p in procs:
                p.kill()
            out = [p.communicate()[1] for p in procs]
            pytest.fail(f"workers did not reach the start line: {out}")
        time.sleep(0.01)
    go.write_text("go")


def _finish(procs: list[subprocess.Popen]) -> list[tuple[int, str, str]]:
    results = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a worker did not finish in time")
        results.append((p.returncode, out, err))
    return results


def _consistent(db) -> None:
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "chen", "person", ["loop_change.keep", "case.close"])
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    for i in range(8):
        add_actor(db, f"p-{i}", "producer", ["evidence.record"])
    db.close()
    return path


@pytest.mark.slow
def test_two_reviewers_deciding_one_case_at_once_one_wins_the_other_is_told_it_changed(store, tmp_path):
    rounds = 3
    for n in range(rounds):
        case_id = f"race-{n}"
        db = open_store(store)
        _case(db, case_id)
        seen = last_seq(db, "case", case_id)  # both reviewers looked at the same state
        events_before = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        db.close()
        go = tmp_path / f"go-{n}"
        ready = [tmp_path / f"ready-{n}-{who}" for who in ("ana", "chen")]
        procs = [_spawn("decide", str(store), case_id, "kept", "ana", str(seen), str(ready[0]), str(go)),
                 _spawn("decide", str(store), case_id, "inconclusive", "chen", str(seen), str(ready[1]), str(go))]
        _start_together(procs, ready, go)
        results = _finish(procs)

        codes = sorted(code for code, _out, _err in results)
        assert codes == [0, 3], results
        winner = next(i for i, r in enumerate(results) if r[0] == 0)
        loser_err = results[1 - winner][2]
        assert "case changed since you looked" in loser_err and "Traceback" not in loser_err
        assert loser_err.count("\n") == 1, loser_err  # one line
        assert results[winner][2] == ""

        db = open_store(store)
        _consistent(db)
        decisions = db.execute("SELECT outcome, actor, based_on_seq FROM decisions WHERE case_id = ?",
                               [case_id]).fetchall()
        expected = [("kept", "ana"), ("inconclusive", "chen")][winner]
        assert [(o, a) for o, a, _s in decisions] == [expected]
        assert decisions[0][2] == seen
        decided = db.execute("SELECT COUNT(*) FROM events WHERE kind = 'case.decided' AND subject_id = ?",
                             [case_id]).fetchone()[0]
        assert decided == 1
        assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == events_before + 1
        row = cases.get_case(db, case_id)
        assert (row["status"], row["outcome"]) == ("closed", expected[0])
        assert row["last_seq"] == last_seq(db, "case", case_id)  # the projection matches the events
        db.close()


@pytest.mark.slow
def test_eight_producers_writing_at_once_every_row_lands_and_no_lock_reaches_anyone(store, tmp_path):
    producers, writes = 8, 50
    db = open_store(store)
    _case(db, "busy-case")
    events_before = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    evidence_before = db.execute("SELECT COUNT(*) FROM evidence").fetchone()[0]
    db.close()
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(producers)]
    procs = [_spawn("produce", str(store), f"p-{i}", str(writes), "busy-case", "token-movers", str(ready[i]),
                    str(go)) for i in range(producers)]
    _start_together(procs, ready, go)
    results = _finish(procs)

    for code, _out, err in results:
        assert "locked" not in err and "busy" not in err.lower()
        assert (code, err) == (0, "")
    db = open_store(store)
    _consistent(db)
    half = writes // 2
    per_producer = dict(db.execute("SELECT producer, COUNT(*) FROM evidence WHERE case_id = 'busy-case'"
                                   " AND producer LIKE 'p-%' GROUP BY producer").fetchall())
    assert per_producer == {f"p-{i}": half for i in range(producers)}
    assert db.execute("SELECT COUNT(*) FROM evidence").fetchone()[0] == evidence_before + producers * half
    runs = dict(db.execute("SELECT producer, COUNT(*) FROM skill_runs GROUP BY producer").fetchall())
    assert runs == {f"p-{i}": half for i in range(producers)}
    ids = [r[0] for r in db.execute("SELECT id FROM skill_runs").fetchall()]
    assert len(set(ids)) == producers * half  # generated run ids never collided
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == events_before + producers * writes
    row = cases.get_case(db, "busy-case")
    assert row["last_seq"] == last_seq(db, "case", "busy-case")
    db.close()
