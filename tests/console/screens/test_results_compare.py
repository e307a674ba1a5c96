"""Results: marking runs (Space) and `m` shows them against the first marked, regressions first; the run's head shows
its suite's pass rate over its runs as a sparkline; `C` comments on a run and its thread shows in the head."""

from textual.widgets import Static, TextArea

from gatepost.app import GatepostApp
from gatepost.store.evaluation import import_foreign
from gatepost.store.kernel import add_actor
from gatepost.widgets.compare_view import CompareView
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle
from tests.store.views.test_compare import junit


def _store(db, tmp_path):
    add_actor(db, "ana", "person", ["evidence.record", "item.comment"])
    made = {}
    for name, fails in (("base", {0}), ("same", {0, 5}), ("worse", set(range(1, 12)))):
        made[name] = import_foreign(db, str(junit(tmp_path / f"{name}.xml", fails)), actor="ana")[0]
    return made


async def test_mark_runs_and_compare_them(db, store_path, tmp_path):
    runs = _store(db, tmp_path)
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        listed = screen.query_one("#results-list", PagedList)
        head = str(screen.query_one("#run-head", Static).render())
        assert "trend" in head and "3 runs of the suite" in head
        for name in ("base", "same", "worse"):
            assert listed.move_to_key(runs[name])
            await settle(pilot)
            await pilot.press("space")
            await settle(pilot)
        assert screen.marked_runs == [runs["base"], runs["same"], runs["worse"]]
        assert any(str(cell).startswith("■ ") for cell in listed.table.get_row(runs["base"]))  # marked, whatever the width
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, CompareView)
        await app.screen.workers.wait_for_complete()
        await settle(pilot)
        text = app.screen.text()
        assert f"baseline {runs['base']}: 92 %" in text and "worse beyond the noise" in text
        lines = text.splitlines()
        first_task = next(i for i, line in enumerate(lines) if line.startswith("s.t"))
        assert lines[first_task].split()[:4] == ["s.t05", "pass", "FAIL↓", "FAIL↓"]  # regressed in both: first
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, CompareView)


async def test_comment_on_a_run(db, store_path, tmp_path):
    runs = _store(db, tmp_path)
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert screen.query_one("#results-list", PagedList).move_to_key(runs["worse"])
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one(TextArea).text = "this one ran on the old image"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        head = str(screen.query_one("#run-head", Static).render())
        assert "Comments (1)" in head and "this one ran on the old image" in head
