"""Results: S on a failed task drafts it into its suite as a case for the suite's owner."""

import shutil

from textual.widgets import Input

from gatepost.app import GatepostApp
from gatepost.store.discussion import mentions_of
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.add_task import AddTaskDialog
from gatepost.widgets.paged_list import PagedList
from tests.conftest import FIXTURES
from tests.console_helpers import settle
from tests.fixtures.skills.store_builder import build
from tests.store.test_failures import here  # noqa: F401  (the fixture)


async def test_s_on_a_task_drafts_it_into_its_suite(here):  # noqa: F811
    folder, run_id, _gp = here
    app = GatepostApp(folder / "store.db", person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        tasks = screen.query_one("#run-tasks", PagedList)
        assert tasks.move_to_key("heldout-tier")
        await pilot.press("t")
        await settle(pilot)
        assert screen.task_id == "heldout-tier"
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, AddTaskDialog)
        app.screen.query_one("#task-owner", Input).value = "bruno"
        app.screen.query_one("#task-expected", Input).value = "POWERFUL"
        app.screen.query_one("#task-note", Input).value = "must name the tier in capitals"
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert not isinstance(app.screen, AddTaskDialog)
    db = open_store(folder / "store.db")
    mention = mentions_of(db, "bruno")
    assert len(mention) == 1 and "drafted from run" in mention[0]["note"]
    assert db.execute("SELECT title FROM cases").fetchone()[0].startswith("add task heldout-tier-regression")


async def test_s_on_a_regression_drafts_its_failing_output(db, store_path, tmp_path, monkeypatch):
    build(db)
    add_actor(db, "ana", "person", ["regression.triage"])
    add_actor(db, "bruno", "person", ["case.close"])
    shutil.copytree(FIXTURES / "evaluator" / "suites" / "basic", tmp_path / "suites")
    monkeypatch.chdir(tmp_path)
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        app.screen.open_item("token-movers")
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, AddTaskDialog)
        for field, value in (("suite", "suites/suite.yaml"), ("prompt", "List today's top token movers"),
                             ("owner", "bruno"), ("note", "needs the Top movers heading")):
            dialog.query_one(f"#task-{field}", Input).value = value
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        assert not isinstance(app.screen, AddTaskDialog)
    assert [m["author"] for m in mentions_of(db, "bruno")] == ["ana"]
