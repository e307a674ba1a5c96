"""`case list --contradicted` and the line in `case show` (issue 15 item 7), as a user runs them."""

import json

import pytest

from gatepost.store import cases, flows
from gatepost.store.kernel import add_actor, freeze, open_store
from tests.conftest import run_gatepost
from tests.store.cases.test_contradicted import new_case


@pytest.mark.slow
def test_case_list_contradicted_and_case_show_say_what_later_evidence_changed(tmp_path):
    path = tmp_path / "store.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    with freeze("2026-12-01T08:00:00Z"):
        new_case(db, "c-1")
        new_case(db, "c-2", path="procedures/deploy.md")  # another path: both may be kept on one base
        flows.decide(db, "c-1", "kept", actor="ana", note="every keep claim holds")
        flows.decide(db, "c-2", "kept", actor="ana", note="every keep claim holds")
    with freeze("2026-12-01T18:00:00Z"):
        cases.add_evidence(db, "c-1", kind="heldout_comparison", result="regressed", actor="run-52")
        cases.add_evidence(db, "c-2", kind="heldout_comparison", result="held", actor="run-52")
    db.close()

    listed = run_gatepost("--db", str(path), "case", "list", "--contradicted")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("c-1") and "kept ⚠" in lines[0]

    every = run_gatepost("--db", str(path), "case", "list", "--json")
    flags = {c["id"]: c["contradicted"] for c in json.loads(every.stdout)["cases"]}
    assert flags == {"c-1": True, "c-2": False}

    shown = run_gatepost("--db", str(path), "case", "show", "c-1")
    assert shown.returncode == 0, shown.stderr
    assert ("⚠ contradicted later: kept at 2026-12-01 08:00; held-out came back regressed at 18:00 "
            "(heldout.not_regressed TRUE → UNKNOWN, change.supported TRUE → UNKNOWN)") in shown.stdout.splitlines()
    assert "contradicted" not in run_gatepost("--db", str(path), "case", "show", "c-2").stdout

    doc = json.loads(run_gatepost("--db", str(path), "case", "show", "c-1", "--json").stdout)
    assert doc["contradicted"]["decided"] == "kept" and doc["contradicted"]["result"] == "regressed"
    assert doc["contradicted"]["recorded_at"].startswith("2026-12-01T18:00")
    assert json.loads(run_gatepost("--db", str(path), "case", "show", "c-2", "--json").stdout)["contradicted"] is None
