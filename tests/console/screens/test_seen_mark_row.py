"""The ● on a list row says the item changed since the person last opened it: it stays while the item is
shown (the list still says what they came to see) and goes once they move on, without a store change."""

import threading

from gatepost.app import GatepostApp
from gatepost.store.cases import add_evidence, import_case
from gatepost.store.flows import mark_seen
from gatepost.store.kernel import add_actor, open_store
from gatepost.store.views import change_seq
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle


def _case(db, case_id: str) -> None:
    import_case(db, {"protocol": "eval.gated_change/1", "id": case_id, "title": "t", "author": "run-41",
                     "candidate": {"path": f"skills/{case_id}.md", "content": "x",
                                   "basis": {"baseline": "b", "question_set": "q", "data_revision": "d",
                                             "design": "g"}},
                     "independent": {"different_agent_run": ["run-52"]}}, actor="run-41")


def _marked(paged: PagedList, key: str) -> bool:
    return str(paged.table.get_row(key)[0]).lstrip("⚠").startswith("●")


async def test_the_mark_stays_on_the_shown_row_and_goes_when_the_person_moves_on(store_path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "chen", "person", ["case.close"])
    for case_id in ("case-40", "case-41"):
        _case(db, case_id)
        mark_seen(db, "ana", "case", case_id)
    add_evidence(db, "case-40", kind="tuning_comparison", result="reproduced", producer="run-52")
    before = change_seq(db)
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        assert paged.current_key == "case-40"
        assert _marked(paged, "case-40")  # opened (the detail follows the cursor), and still marked
        assert "● " in str(app.screen.looked)  # the detail says what changed
        await pilot.press("down")
        await settle(pilot)
        assert paged.current_key == "case-41"
        assert not _marked(paged, "case-40") and not _marked(paged, "case-41")
    db = open_store(store_path)
    assert change_seq(db) == before  # reading changed nothing anyone else sees
    db.close()


async def test_a_row_list_read_again_behind_a_move_keeps_the_row_moved_to(store_path):
    """Moving off a ● row reads the list again (the ● goes); a move made while that read is under way wins:
    the highlighted row stays the shown item, and the next key moves on from it."""
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])
    ids = [f"case-{n}" for n in range(50, 56)]
    for case_id in ids:
        _case(db, case_id)
        mark_seen(db, "ana", "case", case_id)
    for case_id in ids:  # each changed since ana looked: each row opened carries a ● until she moves on
        add_evidence(db, case_id, kind="tuning_comparison", result="reproduced", producer="run-52")
    db.close()
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one(PagedList)
        keys = paged.keys
        assert screen.shown == paged.current_key == keys[0]
        # the list's pages arrive late (a slow read) and the read receipts wait on a busy writer
        late: list = []
        apply = paged._apply
        paged._apply = lambda *args, **kwargs: late.append((args, kwargs))
        writer_free = threading.Event()
        app.writer.submit(writer_free.wait)
        try:
            await pilot.press("down")  # off the first ● row: the list is read again, its ● to go
            for _ in range(5000):  # until the page read behind the move is in (the app's own worker)
                if late:
                    break
                await pilot.pause()
            assert late
            await screen.detail_settled.wait()
            assert screen.shown == keys[1]
            await pilot.press("down")  # a move while that read is under way
            await pilot.pause()
            await screen.detail_settled.wait()
            assert screen.shown == keys[2]
            paged._apply = apply
            for args, kwargs in late:  # the page arrives
                apply(*args, **kwargs)
        finally:
            writer_free.set()
        await settle(pilot)
        assert paged.current_key == screen.shown == keys[2]  # the highlighted row is the item shown
        await pilot.press("down")
        await settle(pilot)
        assert paged.current_key == screen.shown == keys[3]
