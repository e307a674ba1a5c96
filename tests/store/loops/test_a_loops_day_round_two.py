"""A loop's day, as separate processes on a small store: two registered loops on the same file, their runs
waiting on `case wait`, an evaluator, a reviewer, a backup taken meanwhile. Two changes made on one base can
never both land; `case wait` says whether a kept change is still safe to land."""

import json
import subprocess
import sys

import pytest

from tests.store.loops.test_loop_api import PATH, _json, day  # noqa: F401 (the fixture used here)


def _wait(db: str, case_id: str, cwd) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "gatepost", "--db", db, "case", "wait", case_id, "--timeout", "240"],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_loops_on_one_file_never_both_land(day):  # noqa: F811
    gp, tmp, db = day["gp"], day["tmp"], day["db"]
    shown = _json(gp("loop", "show", "writer", "--json"))
    assert gp("loop", "add", "tuner", "--surface", PATH, "--suite", str(day["suite"]), "--executor", shown["executor"],
              "--evaluator", "run-52", "--reviewer", "ana", "--reviewer", "erin", "--design", "design-rn-1",
              "--as", "admin").returncode == 0
    # each loop's run makes a case on the same base, in its own process
    makers = [subprocess.Popen([sys.executable, "-m", "gatepost", "--db", db, "case", "new", "--loop", loop,
                                "--path", PATH, "--content-file", file, "--json", "--as", run], cwd=tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for loop, file, run in (("writer", "better.md", "run-41"), ("tuner", "other.md", "run-44"))]
    made = [json.loads(m.communicate(timeout=120)[0]) for m in makers]
    first, second = (m["case_id"] for m in made)
    assert made[0]["basis"]["baseline"] == made[1]["basis"]["baseline"]
    waits = {first: _wait(db, first, tmp), second: _wait(db, second, tmp)}
    try:
        backup = subprocess.Popen([sys.executable, "-m", "gatepost", "--db", db, "backup", str(tmp / "noon.db")],
                                  cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        evaluators = [subprocess.Popen([sys.executable, "-m", "gatepost", "--db", db, "case", "evaluate", case_id,
                                        "--producer", "run-52", "--as", "run-52"], cwd=tmp, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True) for case_id in (first, second)]
        for e in evaluators:
            assert e.wait(timeout=240) == 0, e.stderr.read() if e.stderr else ""
        assert backup.wait(timeout=120) == 0, backup.stderr.read() if backup.stderr else ""
        for case_id in (first, second):
            assert gp("case", "evidence", case_id, "--kind", "design_review", "--result", "passed", "--producer",
                      "erin", "--about", "design-rn-1", "--as", "erin").returncode == 0
        assert gp("case", "decide", first, "kept", "--note", "good", "--as", "ana").returncode == 0
        pending = gp("case", "decide", second, "kept", "--note", "good too", "--as", "ana")
        assert pending.returncode == 3
        assert f"refused: pending: case {first} for {PATH} was kept on the same base" in pending.stderr
        assert _json(gp("case", "list", "--kept-not-landed", "--json"))["total"] == 1
        out, err = waits[first].communicate(timeout=120)
        assert waits[first].returncode == 0, err
        assert f"kept, safe to land on base {made[0]['basis']['baseline']}" in out
        # the landing script: current is still the base, then land and say so
        assert _json(gp("current", PATH, "--json"))["content_hash"] == made[0]["basis"]["baseline"]
        (tmp / PATH).parent.mkdir(parents=True, exist_ok=True)
        (tmp / PATH).write_text((tmp / "better.md").read_text("utf-8"), "utf-8")
        assert gp("case", "applied", first, "--ref", "c1", "--as", "run-41").returncode == 0
        stale = gp("case", "decide", second, "kept", "--note", "good too", "--as", "ana")
        assert stale.returncode == 3 and "refused: stale:" in stale.stderr
        assert gp("case", "decide", second, "inconclusive", "--note", "rebase on c1", "--as", "ana").returncode == 0
        waits[second].communicate(timeout=120)
        assert waits[second].returncode == 12
    finally:
        for w in waits.values():
            if w.poll() is None:
                w.kill()
    assert _json(gp("case", "list", "--kept-not-landed", "--json"))["total"] == 0
    assert _json(gp("current", PATH, "--json"))["source"]["subject_id"] == first
    # a change kept on another file, then content landing there outside gatepost: kept, but the base moved
    other = "skills/new-skill/SKILL.md"
    third = _json(gp("case", "new", "--loop", "writer", "--path", other, "--content-file", "better.md", "--json",
                     "--as", "run-41"))["case_id"]
    assert gp("case", "evaluate", third, "--producer", "run-52", "--as", "run-52").returncode == 0
    assert gp("case", "evidence", third, "--kind", "design_review", "--result", "passed", "--producer", "erin",
              "--about", "design-rn-1", "--as", "erin").returncode == 0
    kept = gp("case", "decide", third, "kept", "--note", "fine", "--as", "ana")
    assert kept.returncode == 0, kept.stderr
    assert gp("current", other, "--set", "base.md", "--ref", "hotfix", "--as", "admin").returncode == 0
    moved = gp("case", "wait", third, "--timeout", "5")
    assert moved.returncode == 13 and "kept, but the base moved" in moved.stderr
    assert gp("verify").returncode == 0
    assert run_verify(tmp / "noon.db") == 0


def run_verify(path) -> int:
    return subprocess.run([sys.executable, "-m", "gatepost", "--db", str(path), "verify"], capture_output=True,
                          text=True, timeout=120).returncode
