"""Proposals: import an ai-memory proposal, list it (waiting first), mark it with a note under proposal.review."""

import json
from pathlib import Path

import pytest

from gatepost.store.cases import import_case
from gatepost.store.flows import decide
from gatepost.store.kernel import ConflictError, InputError, RefusedError, add_actor, last_seq
from gatepost.store.proposals import (
    get_proposal,
    import_proposal,
    list_proposals,
    mark_proposal,
    validate_proposal,
)
from tests.store.proposals.test_gate import SAMPLE, SAMPLE_DATA


@pytest.fixture
def people(db):
    add_actor(db, "ana", "person", ("proposal.review", "case.close", "loop_change.apply_outside_surface", "evidence.record_for"))
    add_actor(db, "dara", "person", ())
    return db


def write(tmp_path: Path, name: str = "p.json", **overrides) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({**SAMPLE_DATA, **overrides}))
    return path


def test_the_reference_sample_imports_and_waits(people, tmp_path: Path):
    pid, created = import_proposal(people, SAMPLE, actor="ana")
    assert created and pid.startswith("prop-")
    found = get_proposal(people, pid)
    assert found["status"] == "waiting" and found["path"] == "procedures/release.md"
    assert found["confidence"] == 0.91 and found["before_body"].startswith("# Release Procedure")
    assert import_proposal(people, SAMPLE, actor="ana") == (pid, False)


@pytest.mark.parametrize("overrides, words", [
    ({"operation": "delete"}, "operation: expected create or update"),
    ({"edit_mode": "rewrite"}, "edit_mode: expected full_page or patch"),
    ({"operation": "create"}, "before_body: expected an empty string for a create proposal"),
    ({"confidence": 1.4}, "confidence: expected a number from 0 to 1"),
    ({"confidence": True}, "confidence: expected a number from 0 to 1"),
    ({"path": ""}, "path: expected a non-empty string"),
    ({"after_body": None}, "after_body: missing"),
    ({"title": 3}, "title: expected a string"),
    ({"expected_base_body_sha256": "abc"}, "expected_base_body_sha256: expected 64 hex digits"),
    ({"expected_base_body_sha256": "a" * 64}, "only patch proposals carry a base hash"),
])
def test_bad_fields_are_named(overrides, words):
    with pytest.raises(InputError) as caught:
        validate_proposal({**SAMPLE_DATA, **overrides}, name="p.json")
    assert str(caught.value).startswith("p.json: ") and words in str(caught.value)


def test_create_and_patch_proposals_are_accepted_as_the_contract_says():
    created = validate_proposal({**SAMPLE_DATA, "operation": "create", "before_body": ""})
    assert created["before_body"] == ""
    patch = validate_proposal({**SAMPLE_DATA, "edit_mode": "patch", "expected_base_body_sha256": "AB" * 32})
    assert patch["expected_base_body_sha256"] == "ab" * 32


def test_unreadable_files_are_one_line_errors(people, tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(InputError, match="bad.json: not valid JSON"):
        import_proposal(people, bad, actor="ana")
    with pytest.raises(InputError, match="no such proposal file"):
        import_proposal(people, tmp_path / "absent.json", actor="ana")


def test_list_pages_waiting_first_and_filters(people, tmp_path: Path):
    ids = [import_proposal(people, write(tmp_path, f"p{i}.json", title=f"Change {i}"), actor="ana")[0]
           for i in range(5)]
    mark_proposal(people, ids[0], "accepted", actor="ana", note="good")
    mark_proposal(people, ids[1], "needs_changes", actor="ana", note="add rollback")
    rows, total = list_proposals(people, limit=3)
    assert total == 5 and [r["status"] for r in rows] == ["waiting"] * 3
    rows, _ = list_proposals(people, limit=3, offset=3)
    assert [r["status"] for r in rows] == ["needs_changes", "accepted"]
    assert list_proposals(people, status="accepted")[1] == 1
    assert list_proposals(people, search="Change 3")[0][0]["id"] == ids[3]
    with pytest.raises(InputError, match="--status"):
        list_proposals(people, status="maybe")


def test_marking_needs_the_capability_a_note_and_is_final_once_decided(people, tmp_path: Path):
    pid, _ = import_proposal(people, SAMPLE, actor="ana")
    with pytest.raises(RefusedError, match="dara does not hold proposal.review"):
        mark_proposal(people, pid, "accepted", actor="dara", note="looks fine")
    with pytest.raises(RefusedError, match="not a known actor"):
        mark_proposal(people, pid, "accepted", actor="zed", note="looks fine")
    with pytest.raises(InputError, match="--note"):
        mark_proposal(people, pid, "accepted", actor="ana", note="  ")
    assert get_proposal(people, pid)["status"] == "waiting"
    seen = last_seq(people, "proposal", pid)
    marked = mark_proposal(people, pid, "needs_changes", actor="ana", note="add a rollback step", expected_seq=seen)
    assert marked["status"] == "needs_changes"
    with pytest.raises(ConflictError):
        mark_proposal(people, pid, "accepted", actor="ana", note="ok now", expected_seq=seen)
    mark_proposal(people, pid, "declined", actor="ana", note="superseded by another change")
    with pytest.raises(RefusedError, match="already declined"):
        mark_proposal(people, pid, "accepted", actor="ana", note="changed my mind")
    marks = get_proposal(people, pid)["marks"]
    assert [(m["status"], m["actor"]) for m in marks] == [("declined", "ana"), ("needs_changes", "ana")]


def test_a_case_decided_proposed_joins_the_queue_with_its_claims(people):
    case_id = import_case(people, {
        "protocol": "eval.gated_change/1", "id": "case-0100", "title": "Loop edits the release rules",
        "author": "run-41", "candidate": {"path": "_rules/release.md", "content": "Always deploy on Friday",
                                          "basis": {"baseline": "b", "question_set": "q", "data_revision": "d",
                                                    "design": "d2"}},
        "independent": {"different_agent_run": ["run-52"]},
        "evidence": [{"kind": "guard_check", "result": "outside", "producer": "run-52", "about": "current"}],
    }, actor="ana")
    decide(people, case_id, "proposed", actor="ana", note="outside the loop's surface")
    rows, _ = list_proposals(people, status="waiting")
    assert [r["id"] for r in rows] == ["case:case-0100"]
    found = get_proposal(people, "case:case-0100")
    assert found["case_id"] == "case-0100"
    assert found["case"]["claims"]["change.within_surface"] == "FALSE"
    assert mark_proposal(people, "case:case-0100", "accepted", actor="ana", note="apply it")["status"] == "accepted"


def test_a_file_with_a_list_imports_all_or_nothing(people, tmp_path: Path):
    from gatepost.store.proposals import import_proposals

    path = tmp_path / "batch.json"
    path.write_text(json.dumps([SAMPLE_DATA, {**SAMPLE_DATA, "path": "procedures/b.md"}]))
    results = import_proposals(people, path, actor="ana")
    assert [created for _pid, created in results] == [True, True]
    path.write_text(json.dumps([{**SAMPLE_DATA, "path": "procedures/c.md"}, {**SAMPLE_DATA, "operation": "x"}]))
    with pytest.raises(InputError, match=r"batch.json\[1\]: operation"):
        import_proposals(people, path, actor="ana")
    assert list_proposals(people)[1] == 2  # the valid first one was not stored either
