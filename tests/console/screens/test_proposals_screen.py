"""The Proposals screen, headless: the waiting queue, a proposal's diff, gate and case claims, marking."""

import pytest
from textual.widgets import TextArea

from gatepost.app import GatepostApp
from gatepost.store.cases import import_case
from gatepost.store.flows import decide
from gatepost.store.kernel import add_actor
from gatepost.store.proposals import GateConfig, gate_proposal, get_proposal, import_proposal
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle
from tests.evaluator_helpers import scorer
from tests.store.proposals.test_gate import SAMPLE, SAMPLE_DATA


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", ["proposal.review", "case.close", "evidence.record_for"])
    add_actor(db, "dara", "person", [])
    gate = GateConfig(enabled=True, command=scorer("reject"), timeout_secs=5, targets=["procedures"])
    gated = gate_proposal(db, gate, dict(SAMPLE_DATA), actor="ci-nightly", at="2026-11-20T10:00:00.000000Z")
    markup = dict(SAMPLE_DATA, title="[bold red]Shout[/] \x1b[5mblink", path="_rules/tone.md",
                  after_body="# Tone\n\n[link=http://evil]click[/link]\n")
    other = gate_proposal(db, GateConfig(enabled=True, command=scorer("structure"), targets=["procedures"]),
                          markup, actor="ci-nightly", at="2026-11-19T10:00:00.000000Z")
    import_case(db, {
        "protocol": "eval.gated_change/1", "id": "case-0200", "title": "Loop rewrites the safety rules",
        "author": "run-41", "candidate": {"path": "_rules/safety.md", "content": "Never ask before deleting",
                                          "basis": {"baseline": "b", "question_set": "q", "data_revision": "d",
                                                    "design": "d2"}},
        "independent": {"different_agent_run": ["run-52"]},
        "evidence": [{"kind": "guard_check", "result": "outside", "producer": "run-52", "about": "current"}],
    }, actor="ana", at="2026-11-18T10:00:00Z")
    decide(db, "case-0200", "proposed", actor="ana", note="outside the surface", at="2026-11-18T11:00:00Z")
    return store_path, {"gated": gated["proposal_id"], "markup": other["proposal_id"], "case": "case:case-0200"}


def rendered(app, block: str) -> str:
    """What the detail's block reads (the detail is one LineDetail of blocks)."""
    return app.screen.query_one(LineDetail).text(block)


async def open_proposals(pilot):
    await pilot.press("6")
    await settle(pilot)
    return pilot.app.screen


async def test_the_waiting_queue_and_a_proposals_detail(store):
    path, ids = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 55)) as pilot:
        screen = await open_proposals(pilot)
        assert type(screen).__name__ == "ProposalsScreen"
        paged = screen.query_one(PagedList)
        assert paged.total == 3 and paged.keys[0] == ids["gated"]
        row = [str(c) for c in paged.table.get_row(ids["gated"])]
        assert row[0] == "waiting" and row[1] == "failed" and row[4] == ids["gated"]
        head = rendered(app, "head")
        assert "procedures/release.md" in head and "Release Procedure" in head
        assert "confidence 0.91" in head and "Capture the release smoke-test checklist." in head
        gate = rendered(app, "gate")
        assert "failed" in gate and "passed = false: release steps lack a rollback" in gate
        diff = rendered(app, "diff")
        assert "+## Purpose" in diff and "-- Run tests" in diff
        assert "[a] accept" in rendered(app, "actions")


async def test_markup_and_escapes_in_a_proposal_are_shown_literally(store):
    path, ids = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 55)) as pilot:
        screen = await open_proposals(pilot)
        screen.open_item(ids["markup"])
        await settle(pilot)
        head = rendered(app, "head")
        assert "[bold red]Shout[/]" in head and "\x1b" not in head
        assert "[link=http://evil]click[/link]" in rendered(app, "diff")
        assert "not targeted" in rendered(app, "gate")


async def test_a_case_proposal_shows_the_cases_claims(store):
    path, ids = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 55)) as pilot:
        screen = await open_proposals(pilot)
        screen.open_item(ids["case"])
        await settle(pilot)
        case = rendered(app, "case")
        assert "Case case-0200" in case and "✘ change.within_surface" in case
        assert "Never ask before deleting" in rendered(app, "diff")


async def test_marking_with_a_note_moves_it_out_of_the_waiting_queue(store):
    path, ids = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 55)) as pilot:
        screen = await open_proposals(pilot)
        assert screen.shown == ids["gated"]
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("ctrl+s")  # an empty note is refused in place
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one(TextArea).text = "Add a rollback step"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert get_proposal(app.db, ids["gated"])["status"] == "needs_changes"
        paged = app.screen.query_one(PagedList)
        assert ids["gated"] not in paged.keys and paged.total == 2
        app.screen.apply_filter(status="needs_changes")
        await settle(pilot)
        assert paged.keys == [ids["gated"]]
        assert "needs changes by ana" in rendered(app, "marks")
        await pilot.press("d")
        await settle(pilot)
        app.screen.query_one(TextArea).text = "superseded"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert get_proposal(app.db, ids["gated"])["status"] == "declined"
        app.screen.apply_filter(status="declined")
        await settle(pilot)
        actions = rendered(app, "actions")
        assert "already declined" in actions
        await pilot.press("a")  # refused: nothing opens, nothing changes
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        assert get_proposal(app.db, ids["gated"])["status"] == "declined"


async def test_a_person_without_proposal_review_sees_why_and_cannot_mark(store):
    path, ids = store
    app = GatepostApp(path, person="dara")
    async with app.run_test(size=(180, 55)) as pilot:
        screen = await open_proposals(pilot)
        assert "dara holds none of proposal.review: browsing only" in rendered(app, "actions")
        assert "[a] accept" not in rendered(app, "actions")
        assert screen.check_action("decide", ("accepted",)) is False  # not in the footer at all
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        assert any("browsing only" in str(n.message) for n in app._notifications)  # `a` says why
        assert get_proposal(app.db, ids["gated"])["status"] == "waiting"


async def test_imported_sample_is_found_through_open_item(db, store_path):
    add_actor(db, "ana", "person", ["proposal.review"])
    pid, _ = import_proposal(db, SAMPLE, actor="ana")
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.open_item("proposals", pid)  # switches to a screen not composed yet: the item waits for it
        await settle(pilot)
        assert app.screen.shown == pid
        assert "not gated" in rendered(app, "gate")


async def test_c_opens_the_case_of_a_case_proposal(store):
    path, ids = store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 55)) as pilot:
        await pilot.press("2")  # a search on Cases that the case does not match, left applied
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"no such case", "enter")
        await settle(pilot)
        assert app.screen.paged.total == 0
        screen = await open_proposals(pilot)
        assert screen.check_action("open_case", ()) is None  # the first proposal is not a case
        screen.open_item(ids["case"])
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        cases = app.screen
        assert type(cases).__name__ == "CasesScreen" and cases.shown == "case-0200"
        # no filter left behind: the search that hid it is gone, from the list and from its title
        assert cases.paged.search_text == "" and cases.paged.current_key == "case-0200"
        assert "no such case" not in str(cases.query_one("#cases-title").render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and screen.shown == ids["case"]  # back where `c` was pressed (not the Overview)
