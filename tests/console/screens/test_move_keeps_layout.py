"""A cursor move redraws the rows that changed, not the screen: the list keeps its place and its width when
what the queue bar says about the shown item (● changed since you looked) comes and goes, and when the ● is
read away from the row the person left. Each such shift laid the whole screen out and repainted it (a 68 KB
write in a terminal for one move)."""

import pytest

from gatepost.app import GatepostApp
from gatepost.store.cases import add_evidence
from gatepost.store.flows import mark_seen
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.paged_list import PagedList
from tests.console.screens.test_seen_mark_row import _case, _marked
from tests.console_helpers import settle


async def test_the_list_keeps_its_place_and_width_when_a_mark_comes_and_goes(store_path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    for case_id in ("case-40", "case-41", "case-42"):
        _case(db, case_id)
        mark_seen(db, "ana", "case", case_id)
    add_evidence(db, "case-40", kind="tuning_comparison", result="reproduced", producer="run-52")
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one(PagedList)
        assert paged.current_key == "case-40" and _marked(paged, "case-40")
        assert "● " in str(screen.looked)
        region = paged.region
        await pilot.press("down")
        await settle(pilot)
        assert paged.current_key != "case-40" and not _marked(paged, "case-40")
        assert not str(screen.looked)
        assert paged.region == region  # not moved up by a shorter queue bar, not narrowed by the ● gone
        await pilot.press("down")
        await settle(pilot)
        assert paged.region == region


@pytest.mark.render_floor  # a fast path of console/render/ (table.FastRows._set_hover_cursor)
async def test_a_cursor_move_draws_only_the_row_it_leaves_and_the_row_it_reaches(store_path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    for i in range(6):
        _case(db, f"case-{50 + i}")
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        table = app.screen.query_one(PagedList).table
        for _ in range(3):
            await pilot.press("down")
            await settle(pilot)
        drawn: list[int] = []
        render_line = table.render_line

        def counting(y: int):
            drawn.append(y)
            return render_line(y)

        table.render_line = counting  # type: ignore[method-assign]
        await pilot.press("down")
        await settle(pilot)
        header = 1  # the column titles take the table's first line
        # rows 3 and 4 (the one left and the one reached); DataTable also redrew row 0, where the mouse
        # hover cursor had been turned off already, on every key
        assert sorted(set(drawn)) == [header + 3, header + 4]
