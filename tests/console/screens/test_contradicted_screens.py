"""Issue 15 item 7 and issue 18 item 6 in the console, headless: a decision contradicted later is marked
on its row, in its detail and on the Overview; the design reviewers' queue and action."""

import re

import pytest
from textual.widgets import OptionList, TextArea

from gatepost.app import GatepostApp
from gatepost.store import cases, flows, proposals, skills
from gatepost.store.kernel import add_actor, freeze, open_store
from gatepost.store.proposals import GateConfig, gate_proposal
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.paged_list import PagedList
from gatepost.widgets.queue_bar import QueueBar
from tests.console_helpers import settle
from tests.evaluator_helpers import scorer
from tests.store.cases.test_contradicted import GOOD, new_case
from tests.store.proposals.test_gate import SAMPLE_DATA


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "vera", "person", ["eval_design.review"])  # reviews designs, decides nothing else
    add_actor(db, "run-52", "producer", ["evidence.record"])
    with freeze("2026-12-01T08:00:00Z"):
        new_case(db, "c-1")
        new_case(db, "c-2", path="procedures/deploy.md")  # another path: both may be kept on one base
        flows.decide(db, "c-1", "kept", actor="ana", note="every keep claim holds")
        flows.decide(db, "c-2", "kept", actor="ana", note="every keep claim holds")
        new_case(db, "c-3", evidence=[e for e in GOOD if e[0] != "design_review"])  # waits only on the design
        new_case(db, "c-4", evidence=[("guard_check", "clean")])  # waits on more than the design
        new_case(db, "c-5", evidence=[e for e in GOOD if e[0] != "design_review"])
        # vera's review counts on c-5 (listed as independent, as a loop lists its reviewers), not on c-3
        cases.revise_candidate(db, "c-5", independent={"different_agent_run": ["run-52", "ana", "vera"]},
                               actor=None)
    with freeze("2026-12-01T18:00:00Z"):
        cases.add_evidence(db, "c-1", kind="heldout_comparison", result="regressed", actor="run-52")
        cases.add_evidence(db, "c-2", kind="heldout_comparison", result="held", actor="run-52")
    return store_path


def _rows(app) -> dict[str, list[str]]:
    paged = app.screen.query_one(PagedList)
    return {paged.keys[i]: [str(c) for c in paged.table.get_row_at(i)] for i in range(len(paged.keys))}


def _line(app, option_id: str) -> str:
    return str(app.screen.query_one("#overview-lines", OptionList).get_option(option_id).prompt)


async def test_a_contradicted_decision_is_marked_on_its_row_in_its_detail_and_on_the_overview(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        line = _line(app, "cases|status|contradicted")
        assert re.match(r"\s*⚠\s+1\s+decisions on cases contradicted by later evidence", line), line
        assert re.match(r"\s*◇\s+2\s+cases waiting on a design review", _line(app, "cases|status|design_review"))
        options = app.screen.query_one("#overview-lines", OptionList)
        options.highlighted = options.get_option_index("cases|status|contradicted")
        options.focus()
        await pilot.press("enter")
        await settle(pilot)
        await settle(pilot)
        assert app.current_mode == "cases" and app.screen.query_one(PagedList).keys == ["c-1"]
        assert _rows(app)["c-1"][0].startswith("⚠")
        assert app.screen.shown == "c-1"
        head = app.screen.query_one(LineDetail).text("head")
        assert "⚠ contradicted later: kept at 2026-12-01 08:00; held-out came back regressed at 18:00" in head
        app.screen.apply_filter(status="closed")
        await settle(pilot)
        rows = _rows(app)
        assert rows["c-1"][0].startswith("⚠") and not rows["c-2"][0].startswith("⚠")


async def test_a_design_reviewer_works_the_cases_waiting_only_on_a_design_review(store):
    app = GatepostApp(store, person="vera")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("w")  # vera holds only eval_design.review: her queue is the design reviews
        await settle(pilot)
        screen = app.screen
        assert screen.queue.active and screen.shown == "c-5"
        assert sorted(screen.query_one(PagedList).keys) == ["c-3", "c-5"]  # the list: every case waiting
        assert "cases waiting on a design review: 1 of 1" in str(screen.query_one(QueueBar).render())
        head = screen.query_one(LineDetail).text("head")
        assert "◇ waits only on a design review of design-2" in head
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, NoteDialog)
        app.screen.query_one(TextArea).insert("splits and metrics fit the question")
        await pilot.press("ctrl+s")
        await settle(pilot)
        await settle(pilot)
        # the queue is empty: c-4 waits on more than the design, vera's review would not count on c-3
        assert not app.screen.queue.active
        assert "Queue empty" in str(app.screen.query_one(QueueBar).render())
    db = open_store(store)
    view = cases.case_view(db, "c-5")
    review = [e for e in view["evidence"] if e["kind"] == "design_review"]
    assert [(e["producer"], e["result"], e["about"]) for e in review] == [("vera", "passed", "design-2")]
    assert review[0]["details"] == {"note": "splits and metrics fit the question"}
    assert view["claims"]["experiment.valid"] == "TRUE"
    assert cases.waiting_on_design_review(db, cases.DEFAULT_PROTOCOL) == ["c-3"]
    db.close()


async def test_the_demo_flags_its_case_kept_then_regressed_and_says_why_a_case_is_stale(demo_copy):
    path = demo_copy
    db = open_store(path)
    flagged = cases.contradicted_case_ids(db)
    db.close()
    assert len(flagged) == 1  # the demo's case kept at one time whose held-out came back regressed later
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert re.match(r"\s*⚠\s+1\s+decisions on cases contradicted", _line(app, "cases|status|contradicted"))
        await pilot.press("2")
        await settle(pilot)
        app.screen.apply_filter(status="closed")
        await settle(pilot)
        rows = _rows(app)
        assert [k for k, cells in rows.items() if cells[0].startswith("⚠")] == flagged
        app.screen.open_item("case-loop-02")
        await settle(pilot)
        head = app.screen.query_one(LineDetail).text("head")
        assert "⚑ stale: made on sha256:" in head and "rebase it on the current content" in head


async def test_proposals_and_manifests_mark_their_contradicted_rows(db, store_path):
    add_actor(db, "ana", "person", ["proposal.review", "manifest.review", "evidence.record_for"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    passing = GateConfig(enabled=True, command=scorer("structure"), timeout_secs=5, targets=["procedures"])
    failing = GateConfig(enabled=True, command=scorer("reject"), timeout_secs=5, targets=["procedures"])
    with freeze("2026-12-01T08:00:00Z"):
        pid = gate_proposal(db, passing, dict(SAMPLE_DATA), actor="ci-nightly")["proposal_id"]
        other = gate_proposal(db, passing, dict(SAMPLE_DATA, path="procedures/other.md"),
                              actor="ci-nightly")["proposal_id"]
        for p in (pid, other):
            proposals.mark_proposal(db, p, "accepted", actor="ana", note="gate passed")
        for i in range(5):
            skills.record_run(db, "digest", "## Summary\n" + " ".join(["word"] * (100 + i)), actor="run-52")
        draft = skills.bootstrap(db, "digest", actor="ana")
        skills.approve_draft(db, draft["id"], actor="ana")
    with freeze("2026-12-01T18:00:00Z"):
        gate_proposal(db, failing, dict(SAMPLE_DATA), actor="ci-nightly")
        skills.record_run(db, "digest", "## Summary\nshort", actor="run-52")
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert re.match(r"\s*⚠\s+1\s+accepted proposals contradicted", _line(app, "proposals|status|contradicted"))
        assert re.match(r"\s*⚠\s+1\s+approved drafts contradicted", _line(app, "manifests|status|contradicted"))
        await pilot.press("6")
        await settle(pilot)
        app.screen.apply_filter(status="accepted")
        await settle(pilot)
        rows = _rows(app)
        assert rows[pid][0].startswith("⚠") and not rows[other][0].startswith("⚠")
        app.screen.open_item(pid)
        await settle(pilot)
        head = app.screen.query_one(LineDetail).text("head")
        assert "⚠ contradicted later: accepted at 2026-12-01 08:00; the gate came back failed at 18:00" in head
        await pilot.press("5")
        await settle(pilot)
        app.screen.apply_filter(status="contradicted")
        await settle(pilot)
        assert app.screen.query_one(PagedList).keys == [draft["id"]]
        assert _rows(app)[draft["id"]][0].startswith("⚠")
        head = app.screen.query_one(LineDetail).text("head")
        assert "⚠ contradicted later: approved at 2026-12-01 08:00; run " in head and "failing min_words" in head
