"""Judgments that carry forward: an acknowledged regression stays quiet while the same assertions fail,
and comes back, saying which, when a new one fails; each person sees what changed since they looked."""

import json

import pytest
from textual.widgets import OptionList, Static

from gatepost.app import GatepostApp
from gatepost.store.cases import add_evidence, decide_case, import_case
from gatepost.store.flows import assign, mark_seen
from gatepost.store.kernel import RefusedError, add_actor, list_events, open_store
from gatepost.store.skills import acknowledge, evaluate, import_manifest, list_skills, record_run
from gatepost.store.views import assignment_of, changes_since_seen, queue_state
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle

MANIFEST = "token-movers:\n  min_words: 5\n  required_patterns: [Top]\n  forbidden_patterns: [sorry]\n"
GOOD = "Top movers today: SOL ARB TIA PEPE LINK OP"


def _run(db, text: str, day: int) -> None:
    record_run(db, "token-movers", text, actor="bruno", at=f"2026-05-{day:02d}T08:00:00Z")
    evaluate(db, actor="bruno", skill="token-movers")


def _row(db) -> dict:
    [row], _ = list_skills(db, search="token-movers")
    return row


def test_an_acknowledged_regression_stays_quiet_while_the_same_assertions_fail(db):
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage", "evidence.record"])
    import_manifest(db, "m.yaml", actor="bruno", text=MANIFEST)
    _run(db, GOOD, 1)
    _run(db, "Movers today: SOL ARB TIA PEPE LINK OP", 2)  # required_patterns fails: NEW_FAIL
    assert "token-movers" in queue_state(db, "regressions", "bruno").keys
    acknowledge(db, "token-movers", actor="bruno", note="seen; repair queued")
    assert "token-movers" not in queue_state(db, "regressions", "bruno").keys
    for day in (3, 4, 5):  # the same assertion keeps failing: STABLE_FAIL, then CHRONIC
        _run(db, "Movers today: SOL ARB TIA PEPE LINK OP again", day)
        row = _row(db)
        assert row["acknowledged"] is True and row["returned_because"] == []
    assert row["state"] == "CHRONIC"
    assert "token-movers" not in queue_state(db, "regressions", "bruno").keys
    carried = list_events(db, kind="regression.carried")  # the audit trail says no person acknowledged these
    assert len(carried) == 3 and carried[0]["actor"] is None
    assert "the same assertions fail" in carried[0]["note"]
    # a newly failing assertion brings it back to the queue, saying which
    _run(db, "Movers today: sorry, SOL ARB TIA PEPE LINK OP", 6)
    row = _row(db)
    assert row["acknowledged"] is False
    assert row["returned_because"] == ["forbidden_patterns"]
    assert "token-movers" in queue_state(db, "regressions", "bruno").keys


def test_a_pass_in_between_ends_the_acknowledgement(db):
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage", "evidence.record"])
    import_manifest(db, "m.yaml", actor="bruno", text=MANIFEST)
    _run(db, GOOD, 1)
    _run(db, "Movers today: SOL ARB TIA PEPE LINK OP", 2)
    acknowledge(db, "token-movers", actor="bruno", note="seen")
    _run(db, GOOD, 3)
    _run(db, "Movers today: SOL ARB TIA PEPE LINK OP", 4)  # the same failure, but after a pass: a new one
    row = _row(db)
    assert row["state"] == "NEW_FAIL" and row["acknowledged"] is False and row["returned_because"] == []
    assert "token-movers" in queue_state(db, "regressions", "bruno").keys


# --- changed since you looked ---------------------------------------------------------------------
def _open_case(db, case_id="case-40", author="run-41"):
    import_case(db, {"protocol": "eval.gated_change/1", "id": case_id, "title": "t", "author": author,
                     "candidate": {"path": "skills/a.md", "content": "x",
                                   "basis": {"baseline": "b", "question_set": "q", "data_revision": "d",
                                             "design": "g"}},
                     "independent": {"different_agent_run": ["run-52"]}}, actor="run-41")
    return case_id


def test_each_person_sees_what_changed_since_they_last_opened_an_item(db):
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "chen", "person", ["case.close"])
    _open_case(db)
    assert changes_since_seen(db, "ana", "case", ["case-40"]) == {}  # never opened: nothing to compare with
    mark_seen(db, "ana", "case", "case-40")
    mark_seen(db, "chen", "case", "case-40")
    add_evidence(db, "case-40", kind="guard_check", result="clean", producer="run-52")
    add_evidence(db, "case-40", kind="tuning_comparison", result="reproduced", producer="run-52")
    assert changes_since_seen(db, "ana", "case", ["case-40"]) == {
        "case-40": "changed since you looked: 2 new evidence records"}
    mark_seen(db, "ana", "case", "case-40")  # ana looks again; chen has not
    assert changes_since_seen(db, "ana", "case", ["case-40"]) == {}
    assert "2 new evidence records" in changes_since_seen(db, "chen", "case", ["case-40"])["case-40"]
    # kept per person in the store: a new connection sees the same marks
    assert db.execute("SELECT COUNT(*) FROM seen_marks WHERE subject_id = 'case-40'").fetchone()[0] == 2


# --- work assigned to people ----------------------------------------------------------------------
def test_assign_needs_the_capability_names_a_reviewer_who_could_judge_and_is_audited(db):
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "chen", "person", ["case.close"])
    add_actor(db, "dara", "person", [])
    _open_case(db)
    _open_case(db, "case-41")
    with pytest.raises(RefusedError, match=r"assign case case-40: refused: capability: dara does not hold case.close"):
        assign(db, "case", "case-40", "chen", actor="dara")
    with pytest.raises(RefusedError, match=r"refused: capability: dara does not hold case.close, so could not"):
        assign(db, "case", "case-40", "dara", actor="ana")
    with pytest.raises(RefusedError, match=r"refused: identity: run-41 is not a person of this store"):
        assign(db, "case", "case-40", "run-41", actor="ana")
    add_actor(db, "bo", "person", ["case.close"])
    _open_case(db, "case-39", author="bo")
    with pytest.raises(RefusedError, match=r"assign case case-39: refused: self-dealing: bo is the case's author"):
        assign(db, "case", "case-39", "bo", actor="ana")
    seq = assign(db, "case", "case-41", "chen", actor="ana", note="chen knows this skill")
    [event] = [e for e in list_events(db, kind="assignment.set")]
    assert (event["seq"], event["actor"], event["subject_id"]) == (seq, "ana", "case-41")
    assert assignment_of(db, "case", "case-41")["assignee"] == "chen"
    # chen's queue offers it first; ana's keeps the queue's own order
    add_evidence(db, "case-40", kind="guard_check", result="outside", producer="run-52")
    add_evidence(db, "case-41", kind="guard_check", result="outside", producer="run-52")
    assert queue_state(db, "cases", "chen").keys[0] == "case-41"
    assert queue_state(db, "cases", "ana").keys == ["case-40", "case-41"]
    assert queue_state(db, "cases", "chen").keys == ["case-41", "case-40"]
    # clearing is an act too
    assign(db, "case", "case-41", None, actor="ana")
    assert assignment_of(db, "case", "case-41") is None
    assert queue_state(db, "cases", "chen").keys == ["case-40", "case-41"]


def test_team_progress_and_the_cli(cli, store_path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "chen", "person", ["case.close"])
    _open_case(db)
    _open_case(db, "case-41")
    db.close()
    done = cli("assign", "case", "case-40", "--to", "chen", "--as", "ana", "--note", "yours")
    assert done.exit_code == 0, done.output
    assert "case case-40: assigned to chen" in done.output
    assert cli("assign", "case", "case-41", "--to", "chen", "--as", "ana").exit_code == 0
    refused = cli("assign", "case", "case-40", "--to", "ana", "--as", "chen")
    assert refused.exit_code == 0  # chen holds case.close and ana could judge it: a reassignment
    bad = cli("assign", "case", "case-40", "--to", "nobody", "--as", "chen")
    assert bad.exit_code == 3 and "refused: identity: nobody is not a person of this store" in bad.output
    db = open_store(store_path)
    add_evidence(db, "case-41", kind="guard_check", result="outside", producer="run-52")
    decide_case(db, "case-41", "inconclusive", actor="chen", note="cannot tell")
    db.close()
    team = json.loads(cli("team", "--json").output)
    rows = {r["person"]: r for r in team}
    assert rows["ana"] == {"person": "ana", "assigned": 1, "waiting": 1, "done_today": 0}
    assert rows["chen"] == {"person": "chen", "assigned": 1, "waiting": 0, "done_today": 1}
    assert "chen: 1 assigned, 0 waiting, 1 done today" in cli("team").output


# --- the console ----------------------------------------------------------------------------------
async def test_lists_mark_changed_and_assigned_items_and_the_overview_shows_the_team(store_path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "chen", "person", ["case.close"])
    _open_case(db)
    _open_case(db, "case-41")
    add_evidence(db, "case-40", kind="guard_check", result="outside", producer="run-52")
    add_evidence(db, "case-41", kind="guard_check", result="outside", producer="run-52")
    assign(db, "case", "case-41", "ana", actor="chen")
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        overview = " ".join(str(o.prompt) for o in app.screen.query_one(OptionList)._options)
        assert "Team: assigned · waiting · done today" in overview and "ana" in overview
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        screen.open_item("case-40")  # ana looks at case-40 now
        await settle(pilot)
        paged = screen.query_one(PagedList)
        assert str(paged.table.get_row("case-41")[0]).startswith("→")  # assigned to ana
        assert not str(paged.table.get_row("case-40")[0]).startswith("●")
    # chen adds evidence; next time ana's list marks case-40 and its detail says what changed
    db = open_store(store_path)
    add_evidence(db, "case-40", kind="tuning_comparison", result="reproduced", producer="run-52")
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one(PagedList)
        assert str(paged.table.get_row("case-40")[0]).startswith("●")
        screen.open_item("case-40")
        await settle(pilot)
        bar = str(screen.query_one("#queue-bar", Static).render())
        assert "● changed since you looked: 1 new evidence record" in bar
        screen.open_item("case-41")
        await settle(pilot)
        assert "→ assigned to you by chen" in str(screen.query_one("#queue-bar", Static).render())


def test_verify_accepts_a_carried_acknowledgement(cli, store_path):
    db = open_store(store_path)
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage", "evidence.record"])
    import_manifest(db, "m.yaml", actor="bruno", text=MANIFEST)
    _run(db, GOOD, 1)
    _run(db, "Movers today: SOL ARB TIA PEPE LINK OP", 2)
    acknowledge(db, "token-movers", actor="bruno", note="seen")
    _run(db, "Movers today: SOL ARB TIA PEPE LINK OP again", 3)
    db.close()
    result = cli("verify")
    assert result.exit_code == 0, result.output
    assert "intact" in result.output
