"""The Regressions screen, driven with Pilot: urgency order, filters, strip, literal output, triage."""

import pytest

from gatepost.app import GatepostApp
from gatepost.store.kernel import list_events
from gatepost.store.skills import list_drafts
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle
from tests.fixtures.skills.store_builder import build


def _text(screen, block: str) -> str:
    """What the detail's block reads (the detail is one LineDetail of blocks)."""
    return screen.query_one(LineDetail).text(block)


async def test_skills_in_urgency_order_with_strip_failures_and_literal_output(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        screen = app.screen
        assert type(screen).__name__ == "RegressionsScreen"
        paged = screen.query_one(PagedList)
        assert paged.keys == ["token-movers", "paper-pick", "hn-digest"]  # NEW_FAIL high, STABLE_FAIL, PASS
        head = _text(screen, "head")
        assert "✘ NEW_FAIL (medium)" in head and "broke a pass streak of 6" in head
        assert "✔✔✔✔✔✔✘" in _text(screen, "strip")
        failing = _text(screen, "failing")
        assert "✘ min_words: 7 words, needs 8" in failing
        assert 'required_patterns: missing pattern "Top movers"' in failing
        output = screen.query_one(LineDetail).block("output")
        assert "[bold]market data[/bold]" in str(output)  # markup in data stays text
        assert "\x1b" not in str(output) and not any("bold" in str(span.style) and span.start > 20
                                                      for span in output.spans)
        await pilot.press("down")
        await settle(pilot)
        assert "≈ STABLE_FAIL" in _text(screen, "head")
        assert "missing section Read order" in _text(screen, "failing")
        assert "manifest may mismatch" in _text(screen, "triage")


async def test_filter_by_state_and_search(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.open_list("regressions", state="STABLE_FAIL")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        assert paged.keys == ["paper-pick"]
        app.screen.apply_filter(state="PASS")
        await settle(pilot)
        assert paged.keys == ["hn-digest"]
        app.screen.apply_filter(state="all")
        await settle(pilot)
        assert len(paged.keys) == 3
        await pilot.press("slash")
        await pilot.press(*"movers")
        await pilot.press("enter")
        await settle(pilot)
        assert paged.keys == ["token-movers"] and paged.total == 1


async def test_acknowledge_with_a_note_records_an_event(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("ctrl+s")  # an empty note is refused in place
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press(*"repair queued")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ == "RegressionsScreen"
        [event] = list_events(app.db, kind="regression.acknowledged")
        assert (event["actor"], event["subject_id"], event["note"]) == ("bruno", "token-movers", "repair queued")
        assert "acknowledged by bruno: repair queued" in _text(app.screen, "triage")


@pytest.mark.slow
async def test_manifest_mismatch_starts_a_bootstrap_draft(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        assert app.screen.query_one(PagedList).current_key == "token-movers"
        await pilot.press("m")
        await settle(pilot)
        await pilot.press(*"pattern is too strict")
        await pilot.press("ctrl+s")
        await settle(pilot)
        [event] = list_events(app.db, kind="regression.mismatch")
        assert event["note"] == "pattern is too strict"
        rows, _ = list_drafts(app.db, skill="token-movers")
        assert [(r["origin"], r["author"], r["status"]) for r in rows] == [("mismatch", "bruno", "pending")]
        assert rows[0]["id"] in _text(app.screen, "head")


async def test_a_person_without_triage_browses_only(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="dara")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        assert "dara holds none of regression.triage: browsing only" in _text(app.screen, "triage")
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        assert list_events(app.db, kind="regression.acknowledged") == []


async def test_palette_target_opens_the_skill(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.open_item("regressions", "hn-digest")
        await settle(pilot)
        assert app.screen.query_one(PagedList).current_key == "hn-digest"
        assert "hn-digest" in _text(app.screen, "head") and "✔ PASS" in _text(app.screen, "head")
