"""The Cases detail is one LineDetail: a decision's line is clicked like a button (a disabled one does nothing),
a claim's line opens what it rests on, and moving the cursor redraws the same widget (nothing is remounted)."""

import pytest

from gatepost.app import GatepostApp
from gatepost.store import cases
from gatepost.store.kernel import add_actor
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from tests.console.screens.test_detail_follows import BASIS, GOOD, REVIEWER
from tests.console_helpers import settle


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", REVIEWER)
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    for i, evidence in enumerate((GOOD, GOOD[:1])):  # case-0 can be kept; case-1 cannot
        cases.import_case(db, {
            "id": f"case-{i}", "title": f"Candidate {i}", "author": "run-41",
            "candidate": {"path": f"procedures/p{i}.md", "content": f"Step {i}.", "basis": BASIS},
            "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
            "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in evidence],
        }, actor="ana")
    return store_path


async def open_case(pilot, case_id: str):
    """Cases opened on `case_id`: (the screen, its LineDetail)."""
    await pilot.press("2")
    await settle(pilot)
    screen = pilot.app.screen
    screen.open_item(case_id)
    await settle(pilot)
    return screen, screen.query_one(LineDetail)


def line_with(detail: LineDetail, text: str) -> int:
    """The one line a person sees `text` on, among the lines drawn."""
    lines = [i for i, line in enumerate(detail.drawn()) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


async def click_line(pilot, detail: LineDetail, line: int) -> None:
    detail.scroll_to(y=line, animate=False, immediate=True)
    await pilot.pause()
    await pilot.click(detail, offset=(4, line - detail.scroll_offset.y))
    await settle(pilot)


async def test_a_decision_line_is_clicked_like_a_button_and_a_disabled_one_does_nothing(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_case(pilot, "case-1")
        keep = detail.choice("kept")
        assert keep is not None and keep.disabled
        await click_line(pilot, detail, line_with(detail, keep.label.plain[:12]))
        assert app.screen is screen  # no dialog
        screen.open_item("case-0")
        await settle(pilot)
        keep = detail.choice("kept")
        assert keep is not None and not keep.disabled
        await click_line(pilot, detail, line_with(detail, keep.label.plain[:12]))
        assert isinstance(app.screen, NoteDialog) and "keep" in app.screen.title_text.lower()


async def test_a_claim_line_opens_what_it_rests_on_and_moving_keeps_the_same_widget(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_case(pilot, "case-0")
        closed = next(n for n in detail.block("tree").root.children if n.children and not n.expanded)
        under = closed.children[0].label.plain
        assert not any(under in line for line in detail.drawn())
        await click_line(pilot, detail, line_with(detail, "▶ " + closed.label.plain))
        assert closed.expanded and any(under in line for line in detail.drawn())
        pane = screen.query_one("#cases-detail")
        keys = screen.paged.keys
        await pilot.press("down" if keys.index("case-0") == 0 else "up")  # the keys stay with the list
        await settle(pilot)
        assert screen.shown == "case-1" and "case-1" in detail.text("head")
        assert list(pane.children) == [detail]  # drawn in place: the one widget, not remounted


async def test_focused_the_keys_move_over_the_lines_that_act_and_enter_acts_as_a_click(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_case(pilot, "case-0")
        detail.focus()
        await pilot.press("down")
        first = detail.block("tree").root.children[0]
        assert detail.cursor is first and not first.expanded
        under = first.children[0].label.plain
        await pilot.press("enter")
        assert first.expanded and any(under in line for line in detail.drawn())
        await pilot.press("space")
        assert not first.expanded
        keep = detail.choice("kept")
        assert keep is not None and not keep.disabled
        while detail.cursor is not keep:  # down through the claims to the decisions
            before = detail.cursor
            await pilot.press("down")
            assert detail.cursor is not before, "the cursor stopped before the decisions"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog) and "keep" in app.screen.title_text.lower()


async def test_a_new_items_lines_read_each_component_style_once(store, monkeypatch):
    """A new item's lines read the guide's colour for every node of its outline and a choice's for every choice,
    each a walk of the DOM; each component style is read once, and again only when the pane's colours change."""
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen, detail = await open_case(pilot, "case-0")
        read: list[str] = []
        component = LineDetail.get_component_rich_style

        def counting(self, name, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            read.append(name)
            return component(self, name, *args, **kwargs)

        monkeypatch.setattr(LineDetail, "get_component_rich_style", counting)
        detail.notify_style_update()  # as a theme change: every block drawn again, the component styles read again
        assert read and len(read) == len(set(read))
        read.clear()
        detail._drawn.clear()
        screen.render_detail(screen.detail)  # drawn again under the same colours: nothing read again
        assert read == [] and "keep" in detail.plain()
