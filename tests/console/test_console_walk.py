"""Walk the whole console on the demo store: every screen, every binding, the palette, back again."""

import sqlite3
import threading

import pytest

from gatepost.app import GatepostApp
from tests.console_helpers import settle

SIZE = (140, 42)


def _screen_bindings(screen) -> list[str]:
    keys = []
    for key, bindings in screen._bindings.key_to_bindings.items():
        if any(b.show or b.description for b in bindings):
            keys.append(key)
    return keys


SKIP_KEYS = {"escape", "q", "ctrl+q", "ctrl+c", "slash", "question_mark", "ctrl+p"}


@pytest.fixture
def statements(monkeypatch) -> list[tuple[bool, str]]:
    """(on the main thread, the SQL) of every statement run by a connection opened from now on: the event
    loop runs on the main thread, workers and the writer on their own."""
    seen: list[tuple[bool, str]] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):  # noqa: ANN002, ANN003
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(lambda sql: seen.append((threading.current_thread() is threading.main_thread(), sql)))
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced)
    return seen


@pytest.mark.slow
async def test_every_screen_opens_and_every_binding_answers_and_no_sql_runs_on_the_event_loop(
        demo_copy, statements):
    app = GatepostApp(demo_copy, person="ana")
    statements.clear()  # opening the store and reading the person happen before the app runs
    async with app.run_test(size=SIZE) as pilot:
        for mode, key, _label, _target in app.screen_specs:
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == mode
            screen = app.screen
            for binding_key in _screen_bindings(screen):
                if binding_key in SKIP_KEYS or binding_key.isdigit():
                    continue
                await pilot.press(binding_key)
                await settle(pilot)
                # whatever opened (a dialog, a detail), Escape leads back to this screen
                for _ in range(3):
                    if app.screen is screen:
                        break
                    await pilot.press("escape")
                    await settle(pilot)
                assert app.screen is screen, (mode, binding_key, app.screen)
            await pilot.press("slash")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.press("escape")
        await settle(pilot)
        assert app.current_mode == "overview"
        # every read ran in a worker and every write on the writer thread: while another process holds the
        # store, no key waits for it (issue 15)
        assert len(statements) > 500  # the walk read and wrote (the trace sees the app's connections)
        assert [sql for on_loop, sql in statements if on_loop] == []


async def test_palette_finds_and_opens_an_item(demo_copy):
    from gatepost.store.views import find

    app = GatepostApp(demo_copy, person="ana")
    items = find(app.db, "")
    if not items:
        pytest.skip("the demo store has no items yet")
    target = items[0]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*target["key"])
        await pilot.pause(0.6)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == target["mode"]
