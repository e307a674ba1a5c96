"""The Manifests screen, driven with Pilot: draft beside the active version, diff, evidence, decisions."""

import pytest
from textual.widgets import TextArea

from gatepost.app import GatepostApp
from gatepost.screens.manifests import EditDraftDialog
from gatepost.store.skills import active_version, get_draft, list_drafts
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle
from tests.fixtures.skills.store_builder import build


def _text(screen, block: str) -> str:
    """What the detail's block reads (the detail is one LineDetail of blocks; `draft` and `active` are the two
    sides of its `yaml` block)."""
    detail = screen.query_one(LineDetail)
    if block in ("draft", "active"):
        pair = detail.block("yaml")
        return (pair.left if block == "draft" else pair.right).plain
    return detail.text(block)


async def _manifests(app, pilot):
    await pilot.press("5")
    await settle(pilot)
    assert type(app.screen).__name__ == "ManifestsScreen"
    return app.screen


async def test_pending_draft_beside_active_version_with_diff_and_evidence(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await _manifests(app, pilot)
        assert screen.query_one(PagedList).keys == [draft["id"]]
        assert f"{draft['id']} · hn-digest · ✎ pending" in _text(screen, "head")
        assert "min_words: 9" in _text(screen, "draft")  # every sampled run has 9 words
        assert "Active v1" in _text(screen, "active") and "min_words: 5" in _text(screen, "active")
        drawn = screen.query_one(LineDetail).drawn()  # side by side, each in its box
        assert any(line.count("│") == 4 and "Draft" in line and "Active v1" in line for line in drawn)
        assert any("min_words: 9" in line and "min_words: 5" in line for line in drawn)
        diff = _text(screen, "diff")
        assert "-  min_words: 5" in diff and "+  min_words: 9" in diff
        evidence = _text(screen, "evidence")
        assert "5 successful runs sampled" in evidence and "→ min_words 9" in evidence
        assert "✔ Top stories  in 5" in evidence


async def test_approve_makes_the_draft_active(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await _manifests(app, pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("ctrl+s")  # the note is optional for an approval
        await settle(pilot)
        assert get_draft(app.db, draft["id"])["status"] == "approved"
        assert active_version(app.db, "hn-digest")["version"] == 2
        assert screen.query_one(PagedList).total == 0  # no longer pending
        screen.apply_filter(status="approved")
        await settle(pilot)
        assert screen.query_one(PagedList).keys == [draft["id"]]


@pytest.mark.slow
async def test_reject_requires_a_note(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        await _manifests(app, pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)  # refused in place: a reason is required
        assert get_draft(app.db, draft["id"])["status"] == "pending"
        await pilot.press(*"drops max_words")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert get_draft(app.db, draft["id"])["status"] == "rejected"
        assert active_version(app.db, "hn-digest")["version"] == 1
        app.screen.apply_filter(status="rejected")
        await settle(pilot)
        assert "rejected by bruno: drops max_words" in _text(app.screen, "head")


async def test_edit_validates_live_and_saves_a_new_draft_by_the_editor(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        await _manifests(app, pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, EditDraftDialog)
        area = dialog.query_one(TextArea)
        area.load_text("hn-digest:\n  min_wordz: 3\n")
        await settle(pilot)
        assert "min_wordz: unknown assertion" in str(dialog.query_one("#edit-status").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is dialog  # invalid YAML is not saved
        area.load_text("hn-digest:\n  min_words: 9\n  must_cite_source: false\n")
        await settle(pilot)
        assert "✔ valid: 2 assertions" in str(dialog.query_one("#edit-status").render())
        await pilot.press("ctrl+s")
        await settle(pilot)
        rows, total = list_drafts(app.db)
        assert total == 1
        new = get_draft(app.db, rows[0]["id"])
        assert (new["author"], new["origin"], new["parent_id"]) == ("bruno", "edit", draft["id"])
        assert new["assertions"] == {"min_words": 9, "must_cite_source": False}
        assert get_draft(app.db, draft["id"])["status"] == "superseded"
        assert f"edit of {draft['id']}" in _text(app.screen, "head")


async def test_a_person_without_manifest_review_cannot_decide(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    app = GatepostApp(store_path, person="dara")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await _manifests(app, pilot)
        assert "dara holds none of manifest.review: browsing only" in _text(screen, "actions")
        for key in ("a", "r", "e"):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen
        assert get_draft(app.db, draft["id"])["status"] == "pending"


async def test_open_item_from_the_palette_finds_a_decided_draft(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    from gatepost.store.skills import reject_draft

    reject_draft(db, draft["id"], actor="bruno", note="no")
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        app.open_item("manifests", draft["id"])
        await settle(pilot)
        await settle(pilot)
        assert app.screen.query_one(PagedList).current_key == draft["id"]
        assert "✘ rejected" in _text(app.screen, "head")


async def test_escape_in_the_editor_asks_once_before_dropping_an_edit(db, store_path):
    build(db)
    [draft], _ = list_drafts(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        screen = await _manifests(app, pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EditDraftDialog)
        await pilot.press("escape")  # nothing edited: closes at once
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one(TextArea).insert("# a comment typed\n")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, EditDraftDialog)  # asked, not dropped
        assert "your edit is not saved" in str(app.screen.query_one("#edit-status").render())
        assert "# a comment typed" in app.screen.query_one(TextArea).text
        await pilot.press("escape")  # the second Escape drops it
        await settle(pilot)
        assert app.screen is screen
        assert get_draft(app.db, draft["id"])["status"] == "pending"
