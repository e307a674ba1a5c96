"""aeon's dialect in the console: skills judged from aeon's real outputs of 2026-05-03 are on the Regressions
screen with their state, the failing check and the output judged; a skill with no output says so."""

import shutil
from pathlib import Path

import pytest

from gatepost.app import GatepostApp
from gatepost.store.kernel import add_actor, freeze, make_admin
from gatepost.store.skills import judge_manifest, read_aeon_manifest, record_aeon_results
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle

RUN = (Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "aeon" / "aeonfun-aeon"
       / "c31d240ff146c1c63e1f2ce939ed40fe90215307")


@pytest.mark.slow
async def test_aeons_skills_show_on_regressions(db, store_path, tmp_path):
    root = tmp_path / "aeon"
    shutil.copytree(RUN / "articles", root / "articles")
    shutil.copytree(RUN / "memory", root / "memory")
    make_admin(db, "ana")
    add_actor(db, "aeon-ci", "producer", ["evidence.record"], by="ana")
    with freeze("2026-05-03T06:41:22Z"):
        results = judge_manifest(read_aeon_manifest(RUN / "skills/skill-evals/evals.json"), root)
        record_aeon_results(db, results, actor="aeon-ci", manifest="evals.json")
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        screen = app.screen
        paged = screen.query_one(PagedList)
        assert len(paged.keys) == 14 and "heartbeat" in paged.keys
        await pilot.press("slash", *"heartbeat", "enter")
        await settle(pilot)
        assert paged.keys == ["heartbeat"]
        detail = screen.query_one(LineDetail)
        assert "NEW_FAIL" in detail.text("head") and "no manifest" in detail.text("head")
        assert "forbidden_pattern:\\$\\{var\\}" in detail.text("failing")
        await pilot.press("slash", *"repo-pulse", "enter")
        await settle(pilot)
        assert paged.keys == ["repo-pulse"]
        assert "no_file_match: no file matches articles/repo-pulse-*.md" in detail.text("failing")
