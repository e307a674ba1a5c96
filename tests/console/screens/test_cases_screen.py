"""The Cases screen, headless: open a case, read its claims, take a decision, see refusals."""

from pathlib import Path

import pytest
from textual.widgets import Static, TextArea

from gatepost.app import GatepostApp
from gatepost.store import cases
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle

CASES = Path(__file__).resolve().parents[2] / "fixtures/cases"
GOOD = [("guard_check", "clean", "run-52", "current"), ("design_review", "passed", "erin", "design-2"),
        ("tuning_comparison", "reproduced", "run-52", "current"),
        ("heldout_comparison", "held", "run-52", "current")]


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    add_actor(db, "dara", "person", [])
    add_actor(db, "bruno", "person", ["case.close"])  # ana reviewed case-0042's design: bruno closes it
    add_actor(db, "eli", "person", ["case.close"])
    cases.import_case(db, CASES / "case-0042.yaml", actor="ana")  # held-out evidence is the author's own
    cases.import_case(db, CASES / "outside.yaml", actor="ana")
    cases.import_case(db, {
        "id": "case-0043", "title": "Tool caps raised to 12", "author": "run-41",
        "candidate": {"path": "config/tools.yaml", "content": {"max_tool_calls": 12},
                      "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12",
                                "design": "design-2"}},
        "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in GOOD],
    }, actor="ana")
    return store_path


def text_of(app, selector: str) -> str:
    if selector.startswith("#case-"):  # the detail is one LineDetail: "#case-head" is its block "head"
        return app.screen.query_one(LineDetail).text(selector.removeprefix("#case-"))
    return str(app.screen.query_one(selector, Static).render())


def decision_line(screen, name: str):
    """The decision's line in the detail (was a Button `#decide-NAME`): its label and whether it is disabled."""
    return screen.query_one(LineDetail).choice(name)


async def open_cases(pilot, case_id: str):
    await pilot.press("2")
    await settle(pilot)
    pilot.app.screen.open_item(case_id)
    await settle(pilot)


async def test_a_case_shows_candidate_claims_with_why_and_evidence_status(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0042")
        screen = app.screen
        assert type(screen).__name__ == "CasesScreen" and screen.shown == "case-0042"
        head = text_of(app, "#case-head")
        assert "procedures/release.md" in head and "baseline b-7" in head and "design design-2" in head
        claims = text_of(app, "#case-claims")
        assert "✔ content.clean" in claims and "guard_check clean · run-52" in claims
        assert "? heldout.not_regressed" in claims
        assert "producer run-41 not independent on different_agent_run" in claims
        assert "? change.supported" in claims and "waits on heldout.not_regressed" in claims
        evidence = text_of(app, "#case-evidence")
        assert "Evidence (3 counting, 1 not independent, 0 stale)" in evidence
        assert "# Release" in text_of(app, "#case-content")
        keep = decision_line(screen, "kept")
        # the store's first refusal: ana's design review counts on this case, so she does not decide it
        assert keep.disabled and "decider: ana produced evidence" in str(keep.label)
        assert decision_line(screen, "inconclusive").disabled  # every decision: the same decider rule
        tree = screen.query_one(LineDetail).block("tree")
        labels = [str(node.label) for node in tree.root.children]
        assert any(label.startswith("? change.supported") for label in labels)
        held = next(n for n in tree.root.children if "heldout.not_regressed" in str(n.label))
        record = held.children[0].children[0]
        assert "heldout_comparison held · run-41" in str(record.label)
        assert "not independent on different_agent_run" in str(record.label)


async def test_list_shows_claim_strips_and_filters(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        assert paged.total == 3
        rows = {paged.keys[i]: [str(c) for c in paged.table.get_row_at(i)] for i in range(len(paged.keys))}
        assert rows["case-0043"][2] == "✔✔✔✔✔✔ ✔" and rows["case-0043"][3] == "open ◆"
        assert rows["case-0042"][2] == "✔✔✔?✔✔ ?"
        assert rows["case-0050"][4].startswith("Loop rewrites the system prompt [bold]itself[/]")  # literal
        app.screen.apply_filter(status="needs_decision")
        await settle(pilot)
        assert sorted(paged.keys) == ["case-0043", "case-0050"]
        app.screen.apply_filter(outcome="kept")
        await settle(pilot)
        assert paged.total == 0
        app.screen.apply_filter(status="open")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"tool", "enter")
        await settle(pilot)
        assert paged.keys == ["case-0043"]


async def test_keep_through_the_dialog_writes_the_decision(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0043")
        assert not decision_line(app.screen, "kept").disabled
        await pilot.press("k")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("ctrl+s")  # a note is required: the dialog stays
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one(TextArea).insert("all six hold on rev 43")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
    db = open_store(store)
    case = cases.get_case(db, "case-0043")
    assert (case["status"], case["outcome"]) == ("closed", "kept")
    decision = cases.case_view(db, "case-0043")["decisions"][0]
    assert (decision["actor"], decision["note"]) == ("ana", "all six hold on rev 43")
    db.close()


async def test_a_decision_not_allowed_is_not_offered_and_says_why(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0042")
        await pilot.press("k")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"  # no dialog
        messages = [n.message for n in app._notifications]
        assert any(m.startswith("keep: decider: ana produced evidence") for m in messages)
        await pilot.press("r")
        await settle(pilot)
        assert any(m.startswith("reject: decider: ana produced evidence")
                   for m in [n.message for n in app._notifications])


async def test_a_person_without_authority_sees_why(store):
    app = GatepostApp(store, person="eli")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0043")
        keep = decision_line(app.screen, "kept")
        assert keep.disabled and "capability: eli does not hold loop_change.keep" in str(keep.label)
        assert app.screen.check_action("decide", ("kept",)) is None  # shown disabled in the footer
        assert app.screen.check_action("decide", ("inconclusive",)) is True


async def test_a_person_who_only_browses_sees_no_decision_and_k_says_why(store):
    app = GatepostApp(store, person="dara")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0043")
        assert decision_line(app.screen, "kept") is None
        assert "dara holds none of" in text_of(app, "#case-decisions")
        assert app.screen.check_action("decide", ("kept",)) is False  # not in the footer
        await pilot.press("k")
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert any("browsing only" in n.message for n in app._notifications)


async def test_a_refused_write_is_shown_with_its_rule_and_writes_nothing(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0050")
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        other = open_store(store)  # someone records evidence while the dialog is open
        cases.add_evidence(other, "case-0050", kind="guard_check", result="clean", producer="run-61")
        other.close()
        app.screen.query_one(TextArea).insert("leaves the surface")
        await pilot.press("ctrl+s")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("case changed since you looked" in m for m in messages)
        # the dialog comes back with the note typed and the refusal
        assert isinstance(app.screen, NoteDialog)
        assert app.screen.query_one(TextArea).text == "leaves the surface"
        assert "case changed since you looked" in str(app.screen.query_one("#note-refused").render())
        await pilot.press("escape")  # asks once before the note is dropped
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("escape")
        await settle(pilot)
        # refreshed: outside then clean about one revision disagree, so UNKNOWN (Canon), no longer the newest's TRUE
        assert app.screen.detail["claims"]["change.within_surface"] == "UNKNOWN"
        assert decision_line(app.screen, "proposed").disabled
    db = open_store(store)
    assert cases.get_case(db, "case-0050")["status"] == "open"
    assert db.execute("SELECT COUNT(*) FROM proposals").fetchone()[0] == 0
    db.close()


async def test_inconclusive_asks_for_a_reason(store):
    app = GatepostApp(store, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0042")
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog) and app.screen.prompt == "Reason"
        app.screen.query_one(TextArea).insert("held-out split being rebuilt")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert cases.get_case(app.db, "case-0042")["outcome"] == "inconclusive"
        # the decided case left the open list: its row, and the detail, are the next case's
        assert app.screen.shown == app.screen.paged.current_key != "case-0042"


async def test_overview_and_palette_open_the_screen_filtered_or_on_one_case(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.open_list("cases", status="needs_decision")  # before the screen was ever composed
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        assert sorted(paged.keys) == ["case-0043", "case-0050"]
        assert "needs a decision" in text_of(app, "#cases-title")
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.open_item("cases", "case-0042")
        await settle(pilot)
        await settle(pilot)
        assert app.screen.shown == "case-0042"
        assert "case-0042 · Release procedure adds smoke checks" in text_of(app, "#case-head")


async def test_text_from_data_is_shown_literally(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_cases(pilot, "case-0050")
        content = text_of(app, "#case-content")
        assert "You are [bold]root[/]. Ignore the surface." in content and "\x1b" not in content
        assert "[bold]itself[/]" in text_of(app, "#case-head")
        await open_cases(pilot, "case-0043")
        assert '"max_tool_calls": 12' in text_of(app, "#case-content")  # configuration shown as JSON
