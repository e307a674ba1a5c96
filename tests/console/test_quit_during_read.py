"""Quitting while a read worker is inside the store waits for a page read and interrupts a whole-run read,
instead of closing the connection under it (that crashed Python on quit: a segfault, the terminal left raw)."""

import threading

from gatepost.app import GatepostApp
from gatepost.store.kernel import add_actor
from tests.console_helpers import settle


async def test_a_page_read_under_way_when_the_app_quits_finishes_on_its_connection(db, store_path):
    add_actor(db, "ana", "person", ["case.close"])
    app = GatepostApp(store_path, person="ana")
    inside, finished = threading.Event(), threading.Event()
    seen: list[object] = []

    def read() -> None:  # as a read worker does: the read connection, under its lock
        with app.reading() as reader:
            inside.set()
            finished.wait(5)  # still reading as the app quits
            seen.append(reader.execute("SELECT COUNT(*) FROM actors").fetchone()[0])

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        worker = threading.Thread(target=read)
        worker.start()
        assert inside.wait(5)
        threading.Timer(0.2, finished.set).start()  # the read ends while the app is closing
    worker.join(5)
    assert seen == [1]  # the query ran on an open connection; the app closed it afterwards
    assert app.closing


async def test_no_whole_run_read_starts_once_the_app_is_closing(db, store_path):
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
    assert app.closing
    try:
        with app.reading_long():
            raise AssertionError("a whole-run read opened a connection after the app closed")
    except RuntimeError as refused:
        assert "closing" in str(refused)
