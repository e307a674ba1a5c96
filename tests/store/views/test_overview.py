"""The overview on the demo store: real counts, and each line opens its list already filtered."""

import re

import pytest
from textual.widgets import OptionList

from gatepost.app import GatepostApp
from gatepost.store import cases, skills
from gatepost.store.skills import manifests
from gatepost.widgets.paged_list import PagedList
from tests.console_helpers import settle


@pytest.fixture
def demo(demo_copy):
    """A copy of the demo store (tests/conftest.py): opening screens writes read receipts."""
    return demo_copy


def _shown(app, option_id: str) -> int:
    options = app.screen.query_one("#overview-lines", OptionList)
    option = options.get_option(option_id)
    return int(re.search(r"([\d,]+)", str(option.prompt)).group(1).replace(",", ""))


@pytest.mark.slow
async def test_counts_are_the_stores(demo):
    app = GatepostApp(demo, person="ana")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        db = app.db
        assert _shown(app, "cases|status|open") == cases.list_cases(db, status="open")[1] > 0
        assert _shown(app, "cases|status|needs_decision") == cases.list_cases(db, status="needs_decision")[1] > 0
        assert _shown(app, "cases|outcome|kept") == cases.list_cases(db, outcome="kept")[1] > 0
        assert _shown(app, "regressions|state|NEW_FAIL") == skills.list_skills(db, state="NEW_FAIL")[1] > 0
        assert _shown(app, "regressions|state|CHRONIC") == skills.list_skills(db, state="CHRONIC")[1] > 0
        assert _shown(app, "manifests|status|pending") == manifests.list_drafts(db, status="pending")[1] > 0


@pytest.mark.slow
@pytest.mark.parametrize("option_id, mode", [
    ("cases|status|open", "cases"),
    ("regressions|state|CHRONIC", "regressions"),
    ("manifests|status|pending", "manifests"),
    ("proposals|status|waiting", "proposals"),
])
async def test_each_line_opens_its_list_filtered(demo, option_id, mode):
    app = GatepostApp(demo, person="ana")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        expected = _shown(app, option_id)
        options = app.screen.query_one("#overview-lines", OptionList)
        options.highlighted = options.get_option_index(option_id)
        options.focus()
        await pilot.press("enter")
        await settle(pilot)
        await settle(pilot)
        assert app.current_mode == mode
        assert app.screen.query(PagedList).first().total == expected
