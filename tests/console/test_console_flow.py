"""The console rebuilt for flow (issue 15, 17.1, 17.3, 19.3): driven headless through Pilot, waiting on the
app's own workers; each test failed before the change."""

import re
import sqlite3

import pytest
from textual.widgets import TextArea

from gatepost.app import WAITING, GatepostApp
from gatepost.screens.help import HelpScreen
from gatepost.screens.manifests import EditDraftDialog
from gatepost.store import cases
from gatepost.store.kernel import add_actor
from gatepost.store.skills import evaluate, import_manifest, list_drafts, record_run
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QueueBar
from tests.conftest import run_gatepost
from tests.console_helpers import settle
from tests.fixtures.skills.store_builder import build

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean", "run-52", "current"), ("design_review", "passed", "erin", "design-2"),
        ("tuning_comparison", "reproduced", "run-52", "current"), ("heldout_comparison", "held", "run-52", "current")]
REVIEWER = ["loop_change.keep", "eval_design.review", "case.close", "manifest.review", "regression.triage", "evidence.record_for",
            "proposal.review"]


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", REVIEWER)
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    for n in (1, 2, 3):
        cases.import_case(db, {
            "id": f"case-{n}", "title": f"Candidate {n}", "author": "run-41",
            "candidate": {"path": "procedures/release.md", "content": f"Step {n}.", "basis": BASIS},
            "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
            "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in GOOD],
        }, actor="ana")
    return store_path


def title(app) -> str:
    return str(app.screen.query_one("#cases-title").render())


async def test_help_lists_the_keys_of_the_screen_below_not_its_own_and_those_first(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        labels = [label for _key, label, _enabled in app.screen.rows]
        assert {"Keep", "Reject", "Work queue", "Search"} <= set(labels)  # Skip: only while working the queue
        assert "Close" not in labels and "help_quit" not in labels  # the dialog's own keys are not listed
        assert app.screen.where == "Cases"
        # the screen's own keys first: Textual lists the focused table's keys first, and the decisions came
        # below ten lines of cursor keys
        assert labels.index("Keep") < labels.index("Previous row") < labels.index("Quit")
        sections = dict(app.screen.sections)
        assert list(sections) == ["On Cases", "Moving in the list or pane in focus", "Everywhere"]
        own = [label for _key, label, _enabled in sections["On Cases"]]
        assert "Focus Next" not in own and "Copy selected text" not in own  # Textual's, on every screen
        assert sum("Command palette" in label for label in labels) == 1


async def test_a_keymap_file_rebinds_a_decision_everywhere_it_is_named(store, tmp_path, monkeypatch):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keys]\n"cases.kept" = "K"\n"queue.work" = "W"\n', encoding="utf-8")
    monkeypatch.setenv("GATEPOST_KEYMAP", str(keymap))
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        assert "W work the queue" in str(app.screen.query_one(QueueBar).render())
        assert str(app.screen.query_one(LineDetail).choice("kept").label).startswith("[K] keep")
        await pilot.press("k")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)  # k is no longer keep
        await pilot.press("K")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert ("K", "Keep", True) in app.screen.rows


async def test_the_header_icon_is_a_glyph_common_fonts_have(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        svg = app.export_screenshot()
        assert "⭘" not in svg and "≡" in svg


async def test_filters_show_in_the_title_and_one_key_clears_them(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("slash", *"2", "enter")
        await settle(pilot)
        assert "search '2'" in title(app) and "⌫ clears the search" in title(app)
        assert app.screen.paged.keys == ["case-2"]
        await pilot.press("backspace")
        await settle(pilot)
        assert "search" not in title(app).split("/")[0] and app.screen.paged.total == 3
        assert "Cases · open" in title(app)  # the status filter is the person's: the search key leaves it


async def test_opening_an_item_leaves_no_hidden_filter_and_escape_goes_back(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        app.open_item("cases", "case-3")  # what the palette does
        await settle(pilot)
        assert app.screen.shown == "case-3" and app.screen.paged.current_key == "case-3"
        assert app.screen.paged.search_text == "" and "search" not in title(app).split("/")[0]
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "AuditScreen"  # where the person came from, not the Overview


async def test_a_skipped_item_goes_to_the_back_and_the_counter_never_goes_backwards(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        first = app.screen.shown
        seen, counters = [first], [str(app.screen.query_one(QueueBar).render())]
        for _ in range(3):
            await pilot.press("s")
            await settle(pilot)
            seen.append(app.screen.shown)
            counters.append(str(app.screen.query_one(QueueBar).render()))
        assert seen[3] == first and len(set(seen[:3])) == 3  # each once, the first skipped comes back last
        await pilot.press("k")
        await settle(pilot)
        app.screen.query_one(TextArea).insert("kept")
        await pilot.press("ctrl+s")
        await settle(pilot)
        bar = str(app.screen.query_one(QueueBar).render())
        counters.append(bar)
        assert "2 of 3 · 1 done" in bar and app.screen.shown == seen[1]  # the next one not yet skipped twice
        # a skip moves on as a decision does ("4 of 26" stayed through 22 skips); once every item was skipped the
        # first comes back and the count starts again from it
        positions = [int(re.search(r"(\d+) of \d+", c).group(1)) for c in counters]
        assert positions == [1, 2, 3, 1, 2]


@pytest.mark.slow
async def test_a_decision_while_another_process_holds_the_store_waits_without_freezing(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item("case-1")
        await settle(pilot)
        other = sqlite3.connect(str(store), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        ticks: list[int] = []
        app.set_interval(0.05, lambda: ticks.append(1))
        await pilot.press("k")
        await settle(pilot)
        app.screen.query_one(TextArea).insert("kept while busy")
        await pilot.press("ctrl+s")
        for _ in range(2000):  # the app keeps running: its timer ticks and the header says why it waits
            await pilot.pause()
            if WAITING in app.sub_title and len(ticks) >= 3:
                break
        assert WAITING in app.sub_title and len(ticks) >= 3
        assert cases.get_case(app.reader, "case-1")["status"] == "open"
        other.execute("COMMIT")
        other.close()
        await settle(pilot)
        assert cases.get_case(app.reader, "case-1")["outcome"] == "kept"  # landed once the lock freed
        assert WAITING not in app.sub_title


@pytest.mark.slow
async def test_the_manifest_editor_closes_with_one_escape_and_starts_on_an_assertion(db, store_path):
    build(db)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EditDraftDialog)
        assert app.screen.query_one(TextArea).cursor_location[0] == 1
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "ManifestsScreen"
        assert list_drafts(app.reader)[1] == 1  # nothing saved


async def test_regressions_list_the_worst_first(db, store_path):
    add_actor(db, "bruno", "person", ["regression.triage", "manifest.review"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    import_manifest(db, "evals.yaml", actor="bruno", text="aaa-short:\n  min_words: 3\nzzz-long:\n  min_words: 3\n")
    for skill, passes in (("aaa-short", 5), ("zzz-long", 8)):
        for i in range(passes + 1):
            record_run(db, skill, "one two three four" if i < passes else "no", actor="run-52",
                       at=f"2026-05-{i + 1:02d}T08:00:00Z")
            evaluate(db, actor="run-52", skill=skill)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        assert paged.keys == ["zzz-long", "aaa-short"]  # both NEW_FAIL high: the longer broken streak first
        assert [str(c) for c in paged.table.get_row("zzz-long")][4] == "8"
        await pilot.press("w")
        await settle(pilot)
        assert app.screen.shown == "zzz-long"  # the queue follows the same order


async def test_a_deep_link_opens_on_the_item(store):
    app = GatepostApp(store, person="ana", open_at="case:case-2")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen" and app.screen.shown == "case-2"
        assert "case-2 · Candidate 2" in app.screen.query_one(LineDetail).text("head")


def test_a_bad_deep_link_is_bad_input(store):
    result = run_gatepost("--db", str(store), "console", "--open", "nope:1")
    assert result.returncode == 2 and "--open: expected KIND:ID" in result.stderr and "Traceback" not in result.stderr


async def test_a_dialog_fits_a_small_terminal(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(50, 15)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item("case-1")
        await settle(pilot)
        await pilot.press("k")
        await settle(pilot)
        confirm = app.screen.query_one("#note-confirm")
        assert confirm.region.bottom <= 15 and confirm.region.right <= 50
        assert "ctrl+s confirms, Esc cancels" in str(app.screen.query_one("Label:last-of-type").render()) or \
            any("cancels" in str(lbl.render()) for lbl in app.screen.query("Label"))


async def test_audit_rows_say_the_outcome_and_fold_lease_events(store):
    from gatepost.store.flows import decide
    from gatepost.store.kernel import leases, open_store

    db = open_store(store)
    for _ in range(3):
        leases.take(db, "case", "case-1", "ana")
        leases.release(db, "case", "case-1", "ana")
    decide(db, "case-1", "kept", actor="ana", note="all hold " + "x" * 60)
    db.close()
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("7")
        await settle(pilot)
        paged = app.screen.query_one(PagedList)
        rows = [[str(c) for c in paged.table.get_row_at(i)] for i in range(len(paged.keys))]
        assert not any(r[3].startswith("lease.") for r in rows)
        decided = next(r for r in rows if r[3] == "case.decided")
        assert decided[4] == "kept" and decided[7].endswith("x" * 60)  # the whole note, not 40 characters
        assert "6 lease events folded · l shows them" in str(app.screen.query_one("#audit-title").render())
        await pilot.press("l")
        await settle(pilot)
        assert sum(1 for k in range(len(paged.keys)) if str(paged.table.get_row_at(k)[3]).startswith("lease.")) == 6
