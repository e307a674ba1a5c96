"""Lists are live: a screen shown again reloads what changed since (the Audit log included, newest first), and
paging back puts the cursor on the first row of the page."""

from gatepost.app import GatepostApp
from gatepost.screenshots import settle
from gatepost.store.flows import decide_on
from gatepost.store.kernel import last_seq, open_store
from gatepost.widgets.paged_list import PagedList


def _waiting(db) -> str:
    return db.execute("SELECT id FROM proposals WHERE status = 'waiting' AND id LIKE 'prop-%' ORDER BY id").fetchone()[0]


async def test_audit_shown_again_has_what_another_process_decided_newest_first(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        total = paged.total
        paged.table.move_cursor(row=0)
        await pilot.press("2")  # away, and someone decides meanwhile from the CLI
        await settle(pilot)
        other = open_store(demo_copy)
        pid = _waiting(other)
        decide_on(other, "proposal", "declined", pid, actor="ana", note="from the CLI",  # the demo's queue rubric
                  seen_seq=last_seq(other, "proposal", pid),
                  answers={"read_diff": "yes", "reversible": "no", "confidence": "3"})
        newest = other.execute("SELECT MAX(seq) FROM events").fetchone()[0]
        other.close()
        await pilot.press("7")
        await settle(pilot)
        await settle(pilot)
        assert paged.total > total
        assert paged.keys[0] == str(newest)  # newest first
        assert paged.current_key == str(newest)  # the cursor was on the newest: it still is
        assert "ana" in app.screen._choices["actor"]


async def test_paging_back_puts_the_cursor_on_the_first_row(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        assert paged.total > paged.page_size
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert paged.page_offset == paged.page_size
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert paged.page_offset == 0 and paged.table.cursor_row == 0
