"""The console frame, headless: it opens on the overview with the store's real counts."""

from textual.widgets import OptionList

from gatepost.app import GatepostApp
from gatepost.store.kernel import add_actor
from tests.console_helpers import settle


def _overview_text(app) -> str:
    options = app.screen.query_one("#overview-lines", OptionList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


async def test_opens_on_the_overview_for_a_known_person(db, store_path):
    add_actor(db, "ana", "person", ["loop_change.keep"])
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "OverviewScreen"
        assert "ana · loop_change.keep" in app.sub_title  # few capabilities are listed
        text = _overview_text(app)
        assert "cases a reviewer can decide now" in text
        assert "NEW_FAIL" in text


async def test_unknown_person_browses_only(db, store_path):
    app = GatepostApp(store_path, person="mallory")
    async with app.run_test() as pilot:
        await settle(pilot)
        assert app.capabilities == []
        assert "browsing only" in app.sub_title


async def test_audit_log_shows_events_and_help_lists_bindings(db, store_path):
    add_actor(db, "ana", "person", ["case.close"])
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        assert type(app.screen).__name__ == "AuditScreen"
        from gatepost.widgets.paged_list import PagedList

        paged = app.screen.query_one(PagedList)
        assert paged.total == 2  # actor.added, capability.granted
        await pilot.press("question_mark")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "OverviewScreen"


async def test_the_header_names_every_screen_but_the_overview(db, store_path):
    add_actor(db, "ana", "person", ["case.close"])
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert (app.screen.title or app.title) == "gatepost"  # the overview is the console's front page
        named = {}
        for mode, key, _label, _target in app.screen_specs[1:]:
            await pilot.press(key)
            await settle(pilot)
            named[mode] = app.screen.title or app.title  # what the header shows
        # Results and Audit said "gatepost" where Cases, Regressions, Manifests and Proposals named themselves
        assert named == {"cases": "Cases", "results": "Results", "regressions": "Regressions",
                         "manifests": "Manifest drafts", "proposals": "Proposals", "audit": "Audit log"}
