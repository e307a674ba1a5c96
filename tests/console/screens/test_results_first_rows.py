"""A run's first rows never wait for its statistics: the statistics read every task of the run (seconds on a
run of 1,000,000 tasks), so they are read after the rows are shown, on a read connection of their own."""

import shutil
import threading

from textual.widgets import Static

import gatepost.screens.results as results_screen
from gatepost.app import GatepostApp
from gatepost.widgets.paged_list import PagedList
from tests.console.screens.test_results_screen import template  # noqa: F401  (the module's store, built once)
from tests.console_helpers import settle


async def test_the_rows_show_while_the_statistics_are_still_being_read(template, store_path, monkeypatch):  # noqa: F811
    path, runs = template
    shutil.copyfile(path, store_path)
    real = results_screen.run_statistics
    release, started = threading.Event(), threading.Event()

    def slow_statistics(db, run_id, **kwargs):
        started.set()
        assert release.wait(30), "the test never let the statistics finish"
        return real(db, run_id, **kwargs)

    monkeypatch.setattr(results_screen, "run_statistics", slow_statistics)
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("3")
        screen = app.screen
        tasks = screen.query_one("#run-tasks", PagedList)
        for _ in range(500):  # the app's own message loop, turn by turn: no sleeps
            await pilot.pause()
            if started.is_set() and tasks.keys:
                break
        assert tasks.keys, "the run's rows waited for its statistics"
        assert started.is_set() and "delta     " not in str(screen.query_one("#run-head", Static).render())
        release.set()
        await settle(pilot)
        assert "delta     " in str(screen.query_one("#run-head", Static).render())  # then the statistics
