"""The detail pane follows the cursor without blocking: after a short rest, read in a worker, stale reads
dropped, drawn in place; a busy or read-only store is said in one line and browsing goes on.

Every wait is on the app itself (its workers, its `detail_settled` event, its messages), never a sleep."""

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import TextArea

from gatepost.app import WAITING, GatepostApp
from gatepost.screens.list_detail import ListDetailScreen
from gatepost.store import cases
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.queue_bar import QueueBar
from tests.console_helpers import settle

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean", "run-52", "current"), ("design_review", "passed", "erin", "design-2"),
        ("tuning_comparison", "reproduced", "run-52", "current"), ("heldout_comparison", "held", "run-52", "current")]
REVIEWER = ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"]


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", REVIEWER)
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    for i in range(6):
        evidence = GOOD[: 1 + i % 4]  # claim trees of different shapes from one row to the next
        cases.import_case(db, {
            "id": f"case-{i}", "title": f"Candidate number {i}", "author": "run-41",
            "candidate": {"path": f"procedures/p{i}.md", "content": f"Step {i}.", "basis": BASIS},
            "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
            "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in evidence],
        }, actor="ana")
    return store_path


def shown_keys(messages: list) -> list[str | None]:
    """The rows drawn, in order: each DetailShown once (the hook sees a message at every pump it reaches)."""
    unique = {id(m): m for m in messages if isinstance(m, ListDetailScreen.DetailShown)}
    return [m.key for m in unique.values()]


async def open_cases(pilot) -> ListDetailScreen:
    await pilot.press("2")
    await settle(pilot)
    screen = pilot.app.screen
    screen.apply_filter(status="any")
    await settle(pilot)
    return screen


async def test_the_detail_follows_the_cursor_and_draws_the_row_it_rests_on(store):
    messages: list = []
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50), message_hook=messages.append) as pilot:
        screen = await open_cases(pilot)
        keys = screen.paged.keys
        assert screen.shown == keys[0]
        for row in (1, 2, 3):
            await pilot.press("down")
            await settle(pilot)
            assert screen.shown == keys[row]
            assert keys[row] in screen.query_one(LineDetail).text("head")
            tree = screen.query_one(LineDetail).block("tree")
            view = cases.case_view(app.reader, keys[row], actor="ana")
            # the tree, relabelled in place, holds exactly this case's claims and records (none left from before)
            labels = [str(n.label) for n in tree.root.children]
            assert len(labels) == len(view["claim_order"])
            assert all(name in label for name, label in zip(view["claim_order"], labels, strict=True))
            records = [str(leaf.label) for n in tree.root.children for m in n.children for leaf in m.children]
            assert len(records) == sum(len(m["children"]) for name in view["claim_order"]
                                       for m in view["trees"][name]["children"])
        assert shown_keys(messages)[-3:] == keys[1:4]


async def test_holding_a_key_down_reads_and_draws_only_the_row_it_stops_on(store):
    messages: list = []
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50), message_hook=messages.append) as pilot:
        screen = await open_cases(pilot)
        keys = screen.paged.keys
        screen.follow_idle = 3.0  # a rest far longer than three key presses take, even on a loaded machine
        messages.clear()
        await pilot.press("down", "down", "down")
        assert screen.shown == keys[0] and not screen.detail_settled.is_set()  # still resting: nothing read yet
        await settle(pilot)  # waits for the app's own timer and the read it starts
        assert shown_keys(messages) == [keys[3]] and screen.shown == keys[3]


async def test_a_read_overtaken_by_a_newer_one_is_never_drawn(store):
    messages: list = []
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50), message_hook=messages.append) as pilot:
        screen = await open_cases(pilot)
        keys = screen.paged.keys
        messages.clear()
        with app.read_lock:  # both reads wait for the read connection: the first is stale before it starts
            screen.show(keys[4])
            screen.show(keys[2])
        await settle(pilot)
        assert shown_keys(messages) == [keys[2]]
        assert screen.shown == keys[2] and keys[2] in screen.query_one(LineDetail).text("head")


async def test_while_another_process_holds_the_store_the_cursor_and_detail_keep_moving(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await open_cases(pilot)
        keys = screen.paged.keys
        screen.open_item("case-3")  # its evidence is complete: it can be kept
        await settle(pilot)
        after = keys[keys.index("case-3") + 1]
        other = sqlite3.connect(str(store), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the write lock
        try:
            await pilot.press("k")
            await settle(pilot)
            app.screen.query_one(TextArea).insert("kept while busy")
            await pilot.press("ctrl+s")
            for _ in range(2000):  # the header says why the decision waits (its 0.3 s timer)
                await pilot.pause()
                if WAITING in app.sub_title:
                    break
            assert WAITING in app.sub_title
            await pilot.press("down")  # reads never wait for the writer: the detail follows meanwhile
            await screen.detail_settled.wait()
            assert screen.shown == after and WAITING in app.sub_title
            assert cases.get_case(app.reader, "case-3")["status"] == "open"
        finally:
            other.execute("COMMIT")
            other.close()
        await settle(pilot)
        assert cases.get_case(app.reader, "case-3")["outcome"] == "kept"  # landed once the lock freed
        assert WAITING not in app.sub_title


async def test_working_the_queue_on_a_read_only_store_says_why_in_one_line(store: Path):
    app = GatepostApp(store, person="ana")
    app.db.close()
    app.db = open_store(store, create=False, read_only=True)  # the writer's connection as on read-only media
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert app.is_running and app.return_code is None  # no traceback: the console goes on
        screen = app.screen
        assert not screen.queue.active
        bar = str(screen.query_one(QueueBar).render())
        assert "queue stopped" in bar and "read-only" in bar
        screen.apply_filter(status="any")
        await settle(pilot)
        keys, before = screen.paged.keys, screen.shown
        await pilot.press("down")  # browsing goes on
        await settle(pilot)
        assert screen.shown == keys[keys.index(before) + 1]
