"""A screen shown again redraws only when the store changed since: opening an item writes a read receipt
(a seen mark), which is not a change anyone else sees, so a revisit reuses what is drawn; a decision made
meanwhile by another process is always drawn."""

from gatepost.app import GatepostApp
from gatepost.store import cases
from gatepost.store.kernel import open_store
from gatepost.widgets.paged_list import PagedList
from tests.console.screens.test_detail_follows import open_cases, store  # noqa: F401  (the six-case store)
from tests.console_helpers import settle


def loads(messages: list) -> int:
    return len({id(m) for m in messages if isinstance(m, PagedList.Loaded)})


async def test_a_revisit_after_only_looking_does_not_read_the_list_again(store):  # noqa: F811
    messages: list = []
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50), message_hook=messages.append) as pilot:
        screen = await open_cases(pilot)
        for _ in range(3):
            await pilot.press("down")  # each item opened writes its seen mark
            await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        messages.clear()
        await pilot.press("2")
        await settle(pilot)
        assert app.screen is screen and loads(messages) == 0


async def test_a_revisit_after_another_process_decided_shows_the_decision(store):  # noqa: F811
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_cases(pilot)
        await pilot.press("down")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        other = open_store(store, create=False)
        cases.decide(other, "case-3", "kept", actor="ana", note="kept from the CLI")
        other.close()
        await pilot.press("2")
        await settle(pilot)
        row = [getattr(c, "plain", str(c)) for c in screen.paged.table.get_row("case-3")]
        assert "kept" in row
