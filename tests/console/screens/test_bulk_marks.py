"""Marking rows (Space) on a deciding screen, then one decision with one note: each item is its own act and event;
the refused (an item a colleague holds a lease on) are listed with their refusal and stay marked. A assigns the
marked items the same way."""

import sqlite3

from textual.widgets import Input, TextArea

from gatepost.app import GatepostApp
from gatepost.store.kernel import leases, open_store
from gatepost.widgets.bulk import AssignDialog, BulkReport
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle


def _held_by_chen(path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT subject_id FROM leases WHERE holder = 'chen' AND subject_type ="
                                           " 'skill' AND expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")]


def _events(path, kind: str) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT subject_id, actor, note FROM events WHERE kind = ? ORDER BY seq", [kind]).fetchall()


async def _mark(pilot, keys: list[str]) -> None:
    paged = pilot.app.screen.query_one(PagedList)
    for key in keys:
        assert paged.move_to_key(key), key
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)


async def test_one_acknowledgement_on_marked_regressions_each_its_own_act(demo_copy):
    db = open_store(demo_copy)
    leases.take(db, "skill", "rss-digest", "chen")  # a colleague works the worst regression right now
    db.close()
    held = _held_by_chen(demo_copy)
    before = len(_events(demo_copy, "regression.acknowledged"))
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one(PagedList)
        busy = [k for k in held if k in paged.keys]
        assert busy  # worst first: a regression chen holds is on the first page
        free = [k for k in paged.keys if k not in held][:3]
        chosen = [*free, busy[0]]
        await _mark(pilot, chosen)
        assert list(screen.marked) == chosen
        assert all(str(paged.table.get_row(k)[screen.mark_column()]).startswith("■") for k in chosen)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog) and f"{len(chosen)} marked skills" in app.screen.title_text
        app.screen.query_one(TextArea).text = "provider outage; one cause"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        done = _events(demo_copy, "regression.acknowledged")[before:]
        assert [(k, a, n) for k, a, n in done] == [(k, "ana", "provider outage; one cause") for k in free]
        assert isinstance(app.screen, BulkReport)
        lines = app.screen.lines()
        assert lines[0].startswith("✘ ") and "refused: lease: chen is working on it" in lines[0]
        assert sum(line.startswith("✔ ") for line in lines) == 3
        await pilot.press("escape")
        await settle(pilot)
        assert list(screen.marked) == busy[:1]  # the refused stays marked; the done left the marks

async def test_assign_marked_items_and_the_refused_are_listed(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("6")
        await settle(pilot)
        app.open_list("proposals", status="waiting")
        await settle(pilot)
        keys = app.screen.query_one(PagedList).keys[:2]
        await _mark(pilot, keys)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, AssignDialog)
        app.screen.query_one("#assign-to", Input).value = "dara"  # holds no proposal.review
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, BulkReport)
        assert all("dara does not hold proposal.review" in line for line in app.screen.lines())
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        app.screen.query_one("#assign-to", Input).value = "chen"
        app.screen.query_one("#assign-note", Input).value = "procedures"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert not isinstance(app.screen, BulkReport) and app.screen.marked == {}
    with sqlite3.connect(demo_copy) as conn:
        got = conn.execute("SELECT subject_id, assignee, assigned_by FROM assignments WHERE subject_type = 'proposal'"
                           " AND subject_id IN (?, ?) ORDER BY subject_id", keys).fetchall()
    assert got == sorted((k, "chen", "ana") for k in keys)
