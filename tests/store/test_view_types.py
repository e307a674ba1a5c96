"""The typed views are what the store returns: every key a view holds is declared, and every declared key is
there, on every case, proposal, run, skill and draft of the demo store (which shows every state).

The console's reads are checked by mypy against these declarations; this keeps the declarations true.
"""

import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from gatepost.store import cases, evaluation, proposals, skills
from gatepost.store.kernel import Held, Lease, holder, open_store
from gatepost.store.views import Assignment, assignment_of, queue_state


def _typeddicts(hint: Any) -> list[tuple[str, Any]]:
    """The TypedDicts a field's type holds: itself, X | None, list[X], dict[str, X]."""
    if is_typeddict(hint):
        return [("", hint)]
    origin = get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return [found for arg in get_args(hint) for found in _typeddicts(arg)]
    if origin is list:
        return [("[]", t) for _p, t in _typeddicts(get_args(hint)[0])]
    if origin is dict:
        return [("{}", t) for _p, t in _typeddicts(get_args(hint)[1])]
    return []


def mismatches(shape: Any, value: Any, where: str = "") -> list[str]:
    """How `value` differs from the TypedDict `shape`, in its keys and its nested typed parts."""
    if not isinstance(value, dict):
        return [f"{where or shape.__name__}: expected a mapping, got {type(value).__name__}"]
    out = []
    extra = sorted(set(value) - set(shape.__annotations__))
    missing = sorted(shape.__required_keys__ - set(value))
    out += [f"{where or shape.__name__}.{k}: returned, not declared in {shape.__name__}" for k in extra]
    out += [f"{where or shape.__name__}.{k}: declared in {shape.__name__}, not returned" for k in missing]
    for key, hint in get_type_hints(shape).items():
        if key not in value or value[key] is None:
            continue
        for how, nested in _typeddicts(hint):
            items = value[key] if how == "[]" else value[key].values() if how == "{}" else [value[key]]
            for item in items:
                out += mismatches(nested, item, f"{where or shape.__name__}.{key}")
    return out


@pytest.fixture(scope="module")
def db(demo_store: Path):
    return open_store(str(demo_store))


def _all(db: Any, sql: str) -> list[str]:
    return [r[0] for r in db.execute(sql).fetchall()]


def test_case_views_and_rows_are_what_their_types_declare(db):
    found = []
    for case_id in _all(db, "SELECT id FROM cases ORDER BY id"):
        found += mismatches(cases.CaseView, cases.case_view(db, case_id, actor="ana"))
    rows, total = cases.list_cases(db, limit=1000)
    assert len(rows) == total > 0
    for row in rows:
        found += mismatches(cases.CaseRow, row)
    assert not found, "\n".join(sorted(set(found)))


def test_the_demo_shows_the_nested_parts_of_a_case_view(db):
    """Evidence, decisions, a contradiction and a stale base: parts the check above would skip when empty."""
    views = [cases.case_view(db, cid) for cid in _all(db, "SELECT id FROM cases ORDER BY id")]
    assert any(v["evidence"] for v in views) and any(v["decisions"] for v in views)
    assert any(v["contradicted"] for v in views) and any(v["base"]["stale"] for v in views)


def test_proposal_views_and_rows_are_what_their_types_declare(db):
    found = []
    views = [proposals.get_proposal(db, pid) for pid in _all(db, "SELECT id FROM proposals ORDER BY id")]
    for view in views:
        found += mismatches(proposals.ProposalView, view)
    assert any(v and v["gate_results"] for v in views) and any(v and v["marks"] for v in views)
    assert any(v and v["case"] for v in views)
    rows, total = proposals.list_proposals(db, limit=1000)
    assert len(rows) == total > 0
    for row in rows:
        found += mismatches(proposals.ProposalRow, row)
    assert not found, "\n".join(sorted(set(found)))


def test_runs_are_what_their_types_declare(db):
    found = []
    for run_id in _all(db, "SELECT id FROM evaluation_runs ORDER BY id"):
        found += mismatches(evaluation.RunDetail, evaluation.get_run(db, run_id, with_results=False))
        previous = evaluation.previous_run(db, run_id)
        if previous is not None:
            found += mismatches(evaluation.RunRow, previous)
    rows, total = evaluation.list_runs(db, limit=1000)
    assert len(rows) == total > 0
    for row in rows:
        found += mismatches(evaluation.RunRow, row)
    assert not found, "\n".join(sorted(set(found)))


def test_skills_and_drafts_are_what_their_types_declare(db):
    found = []
    for name in _all(db, "SELECT name FROM skills ORDER BY name"):
        found += mismatches(skills.SkillDetail, skills.skill_detail(db, name))
    rows, total = skills.list_skills(db, limit=1000)
    assert len(rows) == total > 0
    for row in rows:
        found += mismatches(skills.SkillRow, row)
    for draft_id in _all(db, "SELECT id FROM manifest_drafts ORDER BY id"):
        found += mismatches(skills.Draft, skills.get_draft(db, draft_id))
    rows, total = skills.list_drafts(db, status=None, limit=1000)
    assert len(rows) == total > 0
    for row in rows:
        found += mismatches(skills.DraftRow, row)
    assert not found, "\n".join(sorted(set(found)))


def test_queue_items_leases_and_assignments_are_what_their_types_declare(db):
    found = []
    leased = db.execute("SELECT subject_type, subject_id FROM leases").fetchall()
    assigned = db.execute("SELECT subject_type, subject_id FROM assignments").fetchall()
    assert leased and assigned
    for subject_type, subject_id in assigned:
        found += mismatches(Assignment, assignment_of(db, subject_type, subject_id))
    for subject_type, subject_id in leased:
        lease = holder(db, subject_type, subject_id)
        if lease is not None:  # the demo's leases may have expired by the store's clock
            found += mismatches(Lease, lease)
    for name in ("cases", "proposals", "drafts", "regressions"):
        for held in queue_state(db, name, "nobody").held.values():
            found += mismatches(Held, held)
    assert not found, "\n".join(sorted(set(found)))


def test_the_check_names_a_key_returned_but_not_declared_and_one_declared_but_missing():
    assert mismatches(Held, {"holder": "ana", "expires_at": "x", "extra": 1}) == [
        "Held.extra: returned, not declared in Held"]
    assert mismatches(Held, {"holder": "ana"}) == ["Held.expires_at: declared in Held, not returned"]
    nested = {"id": 1, "outcome": "kept"}
    assert "CaseView.decisions.actor: declared in DecisionItem, not returned" in mismatches(
        cases.CaseView, {"decisions": [nested]})
