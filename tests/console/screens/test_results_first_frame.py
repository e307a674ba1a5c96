"""The Results screen's first page reaches the terminal in one frame that already holds the runs, the first run's
tasks and that task's diff. The run, its tasks and the task's outputs were read one after the other, each laid
out and drawn on its own (a first frame with an empty task list, then more frames as each came); and Textual
rendered the screen while the mode switch held frames back, a frame it then threw away."""

import pytest
from textual._compositor import Compositor
from textual.widgets import Static

import gatepost.render.frames as frames
from gatepost.app import GatepostApp
from gatepost.screens.results import ResultsScreen
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle

# checks a fast path of console/render/: skipped when the console runs plain
pytestmark = pytest.mark.render_floor


async def test_the_first_frame_shows_the_runs_the_run_s_tasks_and_the_task_s_diff(demo_copy, monkeypatch):
    # the screen holds its first frame until its first page is in: however slow the machine, it is in by then
    monkeypatch.setattr(frames, "FIRST_PAGE_HOLD", 60.0)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        shown: list[tuple[int, int, bool, str]] = []  # each frame written: runs, tasks, a diff shown, full or not
        rendered_while_held: list[int] = []
        display, render_update = app._display, Compositor.render_update

        def written(screen, renderable) -> None:  # noqa: ANN001
            if renderable is not None and not app._batch_count and isinstance(screen, ResultsScreen):
                runs, tasks = screen.query_one("#results-list", PagedList), screen.query_one("#run-tasks", PagedList)
                diff = str(screen.query_one("#out-diff", Static).render())
                shown.append((len(runs.keys), len(tasks.keys), "Diff of" in diff, type(renderable).__name__))
            display(screen, renderable)

        def rendered(compositor, *args, **kwargs):  # noqa: ANN001, ANN202
            if app._batch_count:
                rendered_while_held.append(app._batch_count)
            return render_update(compositor, *args, **kwargs)

        app._display = written  # type: ignore[method-assign]
        monkeypatch.setattr(Compositor, "render_update", rendered)
        await pilot.press("3")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
        runs, tasks, has_diff, first_kind = shown[0]
        assert runs and tasks and has_diff, f"the first frame shown lacked some of the first page: {shown[0]}"
        assert first_kind == "LayoutUpdate"  # the whole screen, once
        assert [kind for *_, kind in shown].count("LayoutUpdate") == 1, shown
        assert rendered_while_held == []  # nothing rendered only to be dropped


@pytest.mark.parametrize(("key", "screen_name"), [("3", "ResultsScreen")])
async def test_a_new_list_screen_is_first_laid_out_with_its_first_page_in(demo_copy, monkeypatch, key, screen_name):
    """Shown, Textual laid the new screen out at once, its lists empty, and laid it out again when the rows came
    (every widget measured and sent a Resize twice): its first layout now waits for the page, whose widths are
    known from the screen's width, and the picture is the same (the layout snapshots)."""
    monkeypatch.setattr(frames, "FIRST_PAGE_HOLD", 60.0)
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        laid_out: list[list[int]] = []  # at each layout of the new screen: how many rows each of its lists held
        layout = frames.FrameControl._refresh_layout

        def counted(screen, *args, **kwargs):  # noqa: ANN001, ANN202
            if type(screen).__name__ == screen_name and screen.is_attached:
                rows = [len(p.keys) for p in screen.query(PagedList)]
                layout(screen, *args, **kwargs)
                if screen._size:  # laid out (not put off)
                    laid_out.append(rows)
                return None
            return layout(screen, *args, **kwargs)

        monkeypatch.setattr(frames.FrameControl, "_refresh_layout", counted)
        await pilot.press(key)
        await settle(pilot)
        assert type(app.screen).__name__ == screen_name
        assert laid_out, "the screen was never laid out"
        assert all(rows and all(rows) for rows in laid_out), f"laid out with a list empty: {laid_out}"

