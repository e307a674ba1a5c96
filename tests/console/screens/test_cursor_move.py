"""A cursor move on a deciding screen: the footer says what the item now shown allows, and a refresh of the
screen's data that arrives while a move waits to be read keeps the move.

Every wait is on the app itself (its workers, its `detail_settled` event), never a sleep."""

from textual.screen import Screen

from gatepost.app import GatepostApp
from gatepost.store import cases
from gatepost.widgets.key_bar import KeyFooter
from tests.console.screens.test_detail_follows import open_cases
from tests.console.screens.test_detail_follows import store as store  # noqa: F401  (the fixture: six cases)
from tests.console_helpers import settle


def keep_entry(app: GatepostApp):  # noqa: ANN201
    entries = [e for e in app.screen.query_one(KeyFooter).entries() if e.plain.endswith("Keep")]
    assert len(entries) == 1
    return entries[0]


def dimmed(entry) -> bool:  # noqa: ANN001
    return any("dim" in str(span.style) for span in entry.spans) or "dim" in str(entry.style)


async def test_the_footer_says_what_each_item_allows_and_asks_no_other_keys_again(store, monkeypatch):  # noqa: F811
    """Keep is shown enabled on an item the store lets ana keep and dimmed on one it does not, as the cursor moves.
    An item changes what the screen's own keys do, never the app's or the list's: the keys of the whole focus chain
    (Screen.active_bindings) are read only when the footer is told something changed."""
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_cases(pilot)
        reads: list[int] = []
        walk = Screen.active_bindings.fget
        monkeypatch.setattr(Screen, "active_bindings", property(lambda s: reads.append(1) or walk(s)))
        seen, changes, before = set(), 0, screen.legal("kept")[0]
        for _ in range(len(screen.paged.keys) - 1):
            await pilot.press("down")
            await settle(pilot)
            allowed = screen.legal("kept")[0]
            assert dimmed(keep_entry(app)) == (not allowed), screen.shown
            seen.add(allowed)
            changes += allowed != before
            before = allowed
        assert seen == {True, False}  # both shown: the footer followed the items
        assert len(reads) <= changes  # the footer reads the keys once when told; a move that changes none, never


async def test_a_refresh_that_comes_while_a_move_waits_keeps_the_move(store, db):  # noqa: F811
    """Back on Cases after the store changed, the screen reads its data again in a worker; the person moves down
    meanwhile. The refresh shows the row the person moved to, and the cursor stays there (it took both back to the
    row shown before the move)."""
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_cases(pilot)
        keys = list(screen.paged.keys)
        await pilot.press("4")  # away; meanwhile the store changes
        await settle(pilot)
        cases.add_evidence(db, keys[-1], kind="guard_check", result="clean", producer="run-52", actor="ana")
        screen.follow_idle = 3.0  # the move waits to be read far longer than the test takes
        with app.read_lock:  # the screen's refresh waits for the read connection until the person has moved
            await pilot.press("2")
            await pilot.press("down")
            assert app.screen is screen and screen.paged.current_key == keys[1] and screen.shown == keys[0]
        await settle(pilot)
        assert screen.paged.current_key == keys[1] and screen.shown == keys[1]
        assert keys[1] in screen.lines.text("head")
