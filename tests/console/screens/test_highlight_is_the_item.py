"""The highlighted row is the item: after a decision, in a queue or not, the cursor and the detail show the same
item, and the next key acts on it, on each of the four deciding screens."""

import pytest
from textual.widgets import Input, TextArea

from gatepost.app import GatepostApp
from gatepost.screenshots import settle
from gatepost.store.kernel import last_seq, open_store
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.rubric_dialog import RubricDialog

SCREENS = [("2", "cases"), ("4", "regressions"), ("5", "manifests"), ("6", "proposals")]


async def _settled(pilot) -> None:
    await settle(pilot)
    await pilot.app.screen.detail_settled.wait()
    await settle(pilot)


async def _decide(pilot, name: str, note: str) -> None:
    screen = pilot.app.screen
    await pilot.press(screen.decision(name).key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, NoteDialog), f"{name} opened no dialog"
    if isinstance(pilot.app.screen, RubricDialog):  # the queue's rubric (the demo's proposals carry one)
        for q in pilot.app.screen.questions:
            pilot.app.screen.query_one(f"#rubric-{q.key}", Input).value = str(q.scale or "yes")
    pilot.app.screen.query_one(TextArea).insert(note)
    await pilot.press("ctrl+s")
    await _settled(pilot)


def _allowed(screen) -> list[str]:
    return [d.name for d in screen.DECISIONS if d.name != "edit" and screen.legal(d.name)[0]]


async def _on_a_decidable_row(pilot, first: int = 2) -> str:
    """Move the cursor down the list to a row (from `first`) whose item has a decision the person may take."""
    screen = pilot.app.screen
    for row in range(first, len(screen.paged.keys)):
        screen.paged.table.move_cursor(row=row)
        await _settled(pilot)
        if _allowed(screen):
            return screen.shown
    raise AssertionError("no item to decide on this screen")


@pytest.mark.slow
@pytest.mark.parametrize(("key", "mode"), SCREENS, ids=[m for _k, m in SCREENS])
async def test_after_a_decision_the_cursor_and_the_detail_show_one_item(demo_copy, key, mode):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press(key)
        await _settled(pilot)
        screen = app.screen
        decided = await _on_a_decidable_row(pilot)
        row = screen.paged.table.cursor_row
        await _decide(pilot, _allowed(screen)[0], "looked at it")
        assert screen.shown == screen.paged.current_key  # one item, whether it stayed on the list or left it
        if decided not in screen.paged.keys:  # it left the list: the next item took its row
            assert screen.paged.table.cursor_row == min(row, len(screen.paged.keys) - 1)
        else:
            assert screen.shown == decided
        # the next key acts on the item shown
        shown = screen.shown
        allowed = _allowed(screen)
        if shown and allowed:
            seq = last_seq(app.db, screen.WORK.subject, shown)
            await _decide(pilot, allowed[0], "and this one")
            db = open_store(demo_copy)
            assert last_seq(db, screen.WORK.subject, shown) > seq  # decided: the one the highlight was on
            db.close()


@pytest.mark.slow
@pytest.mark.parametrize(("key", "mode"), SCREENS, ids=[m for _k, m in SCREENS])
async def test_in_a_queue_the_next_item_is_highlighted_and_shown(demo_copy, key, mode):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press(key)
        await _settled(pilot)
        screen = app.screen
        await pilot.press("w")
        await _settled(pilot)
        for _ in range(3):
            if not screen.queue.active:
                break
            first = screen.shown
            assert first == screen.paged.current_key == screen.queue.key
            allowed = _allowed(screen)
            if not allowed:
                await pilot.press("s")
                await _settled(pilot)
                continue
            await _decide(pilot, allowed[0], "queued")
            assert screen.shown == screen.paged.current_key
            if screen.queue.active:
                assert screen.shown == screen.queue.key != first
