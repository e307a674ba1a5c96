"""A path a registered loop owns belongs to that loop: a case on it comes through `case new --loop`, stays
inside the loop's paths at every revision, and a case that does not cannot gather evidence."""

import json

import pytest

from gatepost.store import cases, flows, loops
from gatepost.store.kernel import RefusedError, add_actor, list_events
from tests.store.kernel.test_leases_decisions import BASIS, GOOD, store  # noqa: F401 (the fixture used here)

PATH = "skills/notes/SKILL.md"
SETTINGS = {"surface": [PATH], "paths": [PATH, "_rules/notes/*"], "suite_path": "suite.yaml", "suite_hash": "ab" * 32,
            "baseline": loops.BASELINE_CURRENT, "baseline_path": None, "baseline_hash": None,
            "executor": "python run.py", "mock": False, "evaluators": ["run-52"], "reviewers": ["ana"],
            "design": "design-2", "data_revision": "d-1"}


def _file(case_id: str, path: str = PATH, evidence: bool = False) -> dict:
    return {"id": case_id, "title": case_id, "author": "run-41",
            "candidate": {"path": path, "content": "Say less.", "basis": BASIS},
            "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
            "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in GOOD] if evidence else []}


def test_a_registered_path_takes_cases_only_from_its_loop(store):  # noqa: F811
    cases.import_case(store, _file("case-early"), actor="run-41")  # before any loop owned the path
    add_actor(store, "admin", "person", ["store.admin"])
    loops.add_loop(store, "notes", SETTINGS, actor="admin")
    with pytest.raises(RefusedError, match=r"^import case case-x: refused: loop-path: skills/notes/SKILL.md belongs "
                                           r"to registered loop notes; a case on it comes through gatepost case new "
                                           r"--loop notes$"):
        cases.import_case(store, _file("case-x", evidence=True), actor="run-41")
    assert cases.list_cases(store, search="case-x")[1] == 0
    # the case imported before the registration cannot gather evidence on the loop's path
    with pytest.raises(RefusedError, match=r"^record evidence on case-early: refused: loop-path: "):
        cases.add_evidence(store, "case-early", kind="guard_check", result="clean", actor="run-52")
    # nor can a case move onto it by revision
    cases.import_case(store, _file("case-other", path="procedures/other.md"), actor="run-41")
    with pytest.raises(RefusedError, match=r"^revise case-other: refused: loop-path: "):
        cases.revise_candidate(store, "case-other", path=PATH, actor="run-41")
    # through the loop: allowed, the imported event names the loop, and the loop's case stays in its paths
    made = flows.new_case(store, "notes", PATH, "Say less.\n", actor="run-41")
    imported = list_events(store, kind="case.imported", subject_type="case", subject_id=made["case_id"])
    assert json.loads(imported[0]["payload"])["loop"] == "notes"
    cases.add_evidence(store, made["case_id"], kind="guard_check", result="clean", actor="run-52")
    with pytest.raises(RefusedError, match=r"refused: loop-path: procedures/x.md matches none of loop notes's paths"):
        cases.revise_candidate(store, made["case_id"], path="procedures/x.md", actor="run-41")
    cases.revise_candidate(store, made["case_id"], path="_rules/notes/a.md", actor="run-41")  # inside its paths
