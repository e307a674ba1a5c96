"""Quitting while a write is still pending: the leases the app gives back queue behind that write on the
writer thread, instead of running on the UI thread inside the pending write's transaction."""

import asyncio
import threading

from gatepost.app import GatepostApp
from gatepost.store.kernel import leases, open_store
from tests.console.screens.test_queues_screen import store, work_the_cases_queue  # noqa: F401


async def test_quitting_with_a_write_pending_gives_the_lease_back_after_it_on_the_writer(store, monkeypatch):  # noqa: F811
    app = GatepostApp(store, person="ana")
    order: list[tuple[str, str]] = []
    real_release = leases.release

    def release(db, subject, key, person):  # what the queue screen calls to give its item back
        order.append(("release", threading.current_thread().name))
        return real_release(db, subject, key, person)

    monkeypatch.setattr(leases, "release", release)
    inside, finish = threading.Event(), threading.Event()

    def slow_write(db) -> None:  # a decision still being written as the person quits
        inside.set()
        finish.wait(5)
        order.append(("write", threading.current_thread().name))

    async with app.run_test(size=(120, 40)) as pilot:
        await work_the_cases_queue(pilot)
        assert app.lease_holders, "the queue holds no lease"
        held = app.screen.shown
        app.run_worker(app.write(slow_write), group="test-write")
        assert await asyncio.to_thread(inside.wait, 5)  # the write is on the writer thread now
        threading.Timer(0.2, finish.set).start()  # the write ends while the app is closing
    assert [step for step, _ in order] == ["write", "release"]
    assert all(thread.startswith("gatepost-writer") for _, thread in order)
    db = open_store(store, create=False)
    assert leases.holder(db, "case", held) is None  # given back: the next reviewer can take it
