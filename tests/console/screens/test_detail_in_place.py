"""Every detail is drawn in place. Proposals' is blocks of Statics: a block that reads the same is left untouched
(not replaced, so nothing about it is laid out or painted again); one that differs is replaced. Cases, Regressions
and Manifests draw theirs as one LineDetail: a line that reads the same is not painted again."""

import pytest
from textual.widgets import Static

from gatepost.app import GatepostApp
from gatepost.widgets.line_detail import LineDetail
from tests.console_helpers import settle


async def open_screen(pilot, key: str):
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    screen = pilot.app.screen
    statics = list(screen.query(f"#{screen.NAME}-detail Static").results(Static))
    return screen, statics


@pytest.mark.parametrize("key", ["6"], ids=["proposals"])
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


@pytest.mark.parametrize("key", ["2", "4", "5"], ids=["cases", "regressions", "manifests"])
async def test_the_same_item_drawn_again_paints_no_line(demo_copy, key, monkeypatch):
    painted: list[tuple[int, int]] = []
    refresh_lines = LineDetail.refresh_lines

    def counted(self, y_start: int, line_count: int = 1):  # noqa: ANN202
        painted.append((y_start, line_count))
        return refresh_lines(self, y_start, line_count)

    monkeypatch.setattr(LineDetail, "refresh_lines", counted)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, _statics = await open_screen(pilot, key)
        before = screen.query_one(LineDetail).drawn()
        assert screen.shown and before
        painted.clear()
        screen.show(screen.shown)  # read and drawn again: the same item, nothing changed in the store
        await settle(pilot)
        assert painted == [] and screen.query_one(LineDetail).drawn() == before
        await pilot.press("down")  # another item: its lines are painted
        await settle(pilot)
        assert painted
