"""At 80×24 the lists keep what a person reads a row by: Proposals keep their ● / → markers (they used to sit
on the status column, the first one left out) and Results keep the candidate and baseline rates."""

from gatepost.app import GatepostApp
from gatepost.store import flows, proposals
from gatepost.store.kernel import open_store
from tests.console_helpers import settle


def row_text(paged, key: str) -> str:
    table = paged.table
    return " ".join(getattr(c, "plain", str(c)) for c in table.get_row(key))


async def test_a_proposal_assigned_to_you_keeps_its_marker_at_80_columns(demo_copy):
    db = open_store(demo_copy, create=False)
    rows, _total = proposals.list_proposals(db, status="waiting", limit=1, offset=0)
    key = rows[0]["id"]
    flows.assign(db, "proposal", key, "ana", actor="ana")
    db.close()
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        paged = app.screen.paged
        assert "status" not in [paged.columns[i].label for i, _w in paged.shown_columns]  # the narrow layout
        assert "→" in row_text(paged, key)


async def test_results_keep_the_candidate_and_baseline_rates_at_80_columns(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        paged = app.screen.query_one("#results-list")
        shown = [paged.columns[i].label for i, _w in paged.shown_columns]
        assert {"skill", "cand.", "base.", "delta"} <= set(shown), shown
        first = paged.keys[0]
        assert "%" in row_text(paged, first)
