"""The highlighted row is the item shown when the list puts its cursor back on a row (a refit of its columns)
while a move's highlight is still on its way."""

from gatepost.app import GatepostApp
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.paged_list import PagedList
from tests.console.screens.test_seen_mark_row import _case
from tests.console_helpers import settle


async def test_a_move_whose_highlight_meets_a_refit_of_the_list_is_followed(store_path):
    """The list refits its columns (a resize, a page's new widths) and puts the cursor back on its row, quietly;
    a move made just before, its highlight not yet handled, is still followed by the detail."""
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    for n in range(60, 64):
        _case(db, f"case-{n}")
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one(PagedList)
        keys = paged.keys
        assert screen.shown == paged.current_key == keys[0]
        paged.table.action_cursor_down()  # the person's move: its highlight is on its way to the list
        paged._relayout(force=True)  # the columns refitted before the list handles it
        await settle(pilot)
        assert paged.current_key == screen.shown == keys[1]
