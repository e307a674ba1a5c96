"""Proposals, Regressions and Manifests draw their detail in place, as Cases does: a block that reads the same
is left untouched (not replaced, so nothing about it is laid out or painted again); one that differs is replaced."""

import pytest
from textual.widgets import Static

from gatepost.app import GatepostApp
from tests.console_helpers import settle


async def open_screen(pilot, key: str):
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    screen = pilot.app.screen
    statics = list(screen.query(f"#{screen.NAME}-detail Static").results(Static))
    return screen, statics


@pytest.mark.parametrize("key", ["6", "4", "5"], ids=["proposals", "regressions", "manifests"])
async def test_the_same_item_drawn_again_replaces_no_block(demo_copy, key):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, statics = await open_screen(pilot, key)
        before = [s.content for s in statics]
        assert screen.shown and any(str(c) for c in before)
        screen.show(screen.shown)  # read and drawn again: the same item, nothing changed in the store
        await settle(pilot)
        assert all(s.content is c for s, c in zip(statics, before, strict=True))


async def test_moving_to_the_next_proposal_replaces_only_the_blocks_that_differ(demo_copy):
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, statics = await open_screen(pilot, "6")
        before = {s.id: s.content for s in statics if s.id}
        await pilot.press("down")
        await settle(pilot)
        after = {s.id: s.content for s in statics if s.id}
        assert after["proposal-head"] is not before["proposal-head"]
        assert after["proposal-actions"] is before["proposal-actions"]  # "[a] accept …" reads the same
