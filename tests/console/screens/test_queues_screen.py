"""Working queues in the console: w opens the first item with a lease, a decision lands on the next,
progress is shown, others' leases are shown and skipped, and an empty queue says what to do next."""

import pytest
from textual.widgets import Static, TextArea

from gatepost.app import GatepostApp
from gatepost.screens.cases import CasesScreen
from gatepost.store import cases
from gatepost.store.kernel import add_actor, leases, list_events, open_store
from gatepost.store.skills import create_draft, get_state, list_drafts
from gatepost.store.views import queue_state
from gatepost.widgets.key_bar import KeyFooter
from gatepost.widgets.note_dialog import NoteDialog
from gatepost.widgets.queue_bar import QueueBar
from tests.console_helpers import settle
from tests.fixtures.skills.store_builder import build

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean", "run-52", "current"), ("design_review", "passed", "erin", "design-2"),
        ("tuning_comparison", "reproduced", "run-52", "current"), ("heldout_comparison", "held", "run-52", "current")]
REVIEWER = ["loop_change.keep", "eval_design.review", "case.close", "manifest.review", "regression.triage",
            "proposal.review", "evidence.record_for"]
CASE_IDS = ["case-1", "case-2", "case-3"]


def _case(db, case_id: str, evidence=GOOD) -> None:
    cases.import_case(db, {
        "id": case_id, "title": f"Candidate {case_id}", "author": "run-41",
        "candidate": {"path": f"procedures/{case_id}.md", "content": f"Step for {case_id}.", "basis": BASIS},
        "independent": {"different_agent_run": ["run-52", "ana", "erin"]},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": a} for k, r, p, a in evidence],
    }, actor="ana")


@pytest.fixture
def store(db, store_path):
    build(db)  # skills: token-movers NEW_FAIL; paper-pick STABLE_FAIL; hn-digest PASS with one pending draft
    add_actor(db, "ana", "person", REVIEWER)
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews the design; whose evidence counts never decides
    add_actor(db, "chen", "person", REVIEWER)
    for case_id in CASE_IDS:
        _case(db, case_id)
    _case(db, "case-9", evidence=GOOD[:1])  # waits on evidence: not in anyone's queue
    return store_path


def bar(app) -> str:
    return str(app.screen.query_one(QueueBar).render())


async def decide_with_note(pilot, key: str, note: str) -> None:
    await pilot.press(key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, NoteDialog), f"{key} opened no dialog"
    pilot.app.screen.query_one(TextArea).insert(note)
    await pilot.press("ctrl+s")
    await settle(pilot)


async def work_the_cases_queue(pilot) -> None:
    await pilot.press("2")
    await settle(pilot)
    await pilot.press("w")
    await settle(pilot)


@pytest.mark.slow
async def test_work_the_cases_queue_to_its_end(store):
    db = open_store(store)
    order = queue_state(db, "cases", "ana").keys
    assert sorted(order) == CASE_IDS
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        assert "w work the queue · cases needing a decision: 3 for you" in bar(app)
        await pilot.press("w")
        await settle(pilot)
        screen = app.screen
        assert screen.shown == order[0]
        assert leases.holder(db, "case", order[0])["holder"] == "ana"
        assert "Queue · cases needing a decision: 1 of 3 · 0 done" in bar(app)
        assert "you hold it until" in bar(app)
        for i, case_id in enumerate(order):
            assert screen.shown == case_id
            await decide_with_note(pilot, "k", f"kept {case_id}")  # k, the note, ctrl+s: and on to the next
            assert cases.get_case(db, case_id)["outcome"] == "kept"
            assert leases.holder(db, "case", case_id) is None  # released once decided
            if i + 1 < len(order):
                assert screen.shown == order[i + 1]
                assert f"{i + 2} of 3 · {i + 1} done" in bar(app)
        assert "Queue empty: 3 decided, no cases needing a decision left for you" in bar(app)
        assert "f shows them" in bar(app)  # what to do next
        assert not screen.queue.active
    db.close()


async def test_a_queue_decision_reads_the_next_item_once_and_writes_the_lease_hand_over_at_once(store, monkeypatch):
    db = open_store(store)
    order = queue_state(db, "cases", "ana").keys
    db.close()
    reads: list[str] = []
    fetch = CasesScreen.fetch_detail

    def counted(self, db, key):  # noqa: ANN001
        reads.append(key)
        return fetch(self, db, key)

    monkeypatch.setattr(CasesScreen, "fetch_detail", counted)
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await work_the_cases_queue(pilot)
        reads.clear()
        writes: list[str] = []
        app.db.conn.set_trace_callback(lambda sql: writes.append(sql) if sql.startswith("BEGIN") else None)
        await decide_with_note(pilot, "k", "kept")
        app.db.conn.set_trace_callback(None)
        # it read the decided item again (dropped unseen), and the list rebuilt under it highlighted its
        # first row on the way: the next item was read twice
        assert reads == [order[1]] and app.screen.shown == order[1]
        # the decision; the decided item given back and the next one taken (two before); the next one's read receipt
        assert len(writes) == 3


async def test_others_leases_are_shown_and_skipped_and_their_items_refused(store):
    db = open_store(store)
    order = queue_state(db, "cases", "ana").keys
    leases.take(db, "case", order[0], "chen")
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.open_item(order[0])
        await settle(pilot)
        assert "chen is working on it until" in bar(app)
        # a decision on what chen holds is not offered: the store's lease rule says why
        assert app.screen.check_action("decide", ("kept",)) is None
        await pilot.press("k")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        assert cases.get_case(db, order[0])["status"] == "open"
        assert any("lease: chen is working on it" in n.message for n in app._notifications)
        await pilot.press("w")
        await settle(pilot)
        assert app.screen.shown == order[1]  # chen's item is skipped
        assert "1 of 2 · 0 done · 1 held by others" in bar(app)
        await pilot.press("s")  # skip: the next one, the skipped one stays queued and is freed
        await settle(pilot)
        assert app.screen.shown == order[2]
        assert leases.holder(db, "case", order[1]) is None
        assert leases.holder(db, "case", order[2])["holder"] == "ana"
        await pilot.press("x")
        await settle(pilot)
        assert leases.holder(db, "case", order[2]) is None
    db.close()


async def test_leaving_the_screen_releases_the_lease(store):
    db = open_store(store)
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await work_the_cases_queue(pilot)
        held = app.screen.shown
        assert leases.holder(db, "case", held)["holder"] == "ana"
        first = leases.holder(db, "case", held)["expires_at"]
        app.screen.queue.renew(app.db)  # what the 5-minute timer runs on the writer while the item stays open
        assert leases.holder(db, "case", held)["expires_at"] > first
        assert list_events(db, subject_type="case", subject_id=held)[0]["kind"] == "lease.renewed"
        await pilot.press("k")  # the note dialog over the screen keeps the lease
        await settle(pilot)
        assert leases.holder(db, "case", held)["holder"] == "ana"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert leases.holder(db, "case", held) is None
    db.close()


async def test_a_browsing_person_has_no_queue_to_work(store):
    app = GatepostApp(store, person="dara")
    async with app.run_test(size=(160, 50)) as pilot:
        await work_the_cases_queue(pilot)  # `w` is disabled for dara: pressed, it only says why
        assert app.screen.check_action("work_queue", ()) is None
        assert not app.screen.queue.active
        assert any("dara holds none of" in n.message and "browsing only" in n.message for n in app._notifications)


def footer_entry(app, label: str):
    entries = [e for e in app.screen.query_one(KeyFooter).entries() if e.plain.endswith(label)]
    assert len(entries) == 1, [e.plain for e in app.screen.query_one(KeyFooter).entries()]
    return entries[0]


def dimmed(entry) -> bool:
    return any("dim" in str(span.style) for span in entry.spans) or "dim" in str(entry.style)


@pytest.mark.parametrize("person", ["dara", "zz-unknown"])  # no capability; a name the store does not know
async def test_a_browsing_person_sees_w_disabled_with_the_reason(store, person):
    app = GatepostApp(store, person=person)
    async with app.run_test(size=(160, 50)) as pilot:
        for key in ("2", "4", "5", "6"):  # Cases, Regressions, Manifests, Proposals: every deciding screen
            await pilot.press(key)
            await settle(pilot)
            entry = footer_entry(app, "Work queue")
            assert entry.plain.startswith("w ") and dimmed(entry)  # there, but not usable: it was shown enabled
            assert f"{person} holds none of" in bar(app) and "browsing only" in bar(app)  # the why, beside it


async def test_a_person_who_may_decide_sees_w_enabled(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        assert not dimmed(footer_entry(app, "Work queue"))


@pytest.mark.parametrize("person", ["zz-unknown", "dara"])  # a name the store does not know; one with no capability
async def test_the_queue_bar_of_a_browsing_person_counts_nothing_for_them(store, person):
    app = GatepostApp(store, person=person)
    async with app.run_test(size=(160, 50)) as pilot:
        for key in ("2", "4"):
            await pilot.press(key)
            await settle(pilot)
            text = bar(app)
            assert "for you" not in text and "work the queue" not in text  # it said "13 for you"
            assert f"{person} holds none of" in text and "browsing only" in text


async def test_work_the_regressions_queue_to_its_end(store):
    db = open_store(store)
    assert queue_state(db, "regressions", "bruno").keys == ["token-movers"]  # NEW_FAIL; STABLE_FAIL is not queued
    app = GatepostApp(store, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert app.screen.shown == "token-movers"
        assert leases.holder(db, "skill", "token-movers")["holder"] == "bruno"
        assert "1 of 1" in bar(app)
        await decide_with_note(pilot, "a", "seen: the prompt lost its source line")
        assert get_state(db, "token-movers")["acknowledged_eval_id"] is not None
        assert leases.holder(db, "skill", "token-movers") is None
        assert "Queue empty: 1 decided, no NEW_FAIL and CHRONIC regressions left for you" in bar(app)
    db.close()


async def test_work_the_drafts_queue_to_its_end(store):
    db = open_store(store)
    create_draft(db, "paper-pick", {"min_words": 3}, author="ana", origin="edit")
    pending = queue_state(db, "drafts", "bruno").keys
    assert len(pending) == 2
    app = GatepostApp(store, person="bruno")
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.press("5")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert app.screen.shown == pending[0]
        assert "1 of 2" in bar(app)
        await decide_with_note(pilot, "r", "too loose")
        assert app.screen.shown == pending[1]
        assert "2 of 2 · 1 done" in bar(app)
        await decide_with_note(pilot, "a", "fits the runs")
        assert "Queue empty: 2 decided" in bar(app)
    status = {d["id"]: d["status"] for d in list_drafts(db, status=None)[0]}
    assert [status[d] for d in pending] == ["rejected", "approved"]
    assert queue_state(db, "drafts", "bruno").keys == []
    db.close()


async def test_the_bar_is_on_each_queue_screen(store):
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        expected = {"2": "w work the queue · cases needing a decision: 3 for you",
                    "4": "w work the queue · NEW_FAIL and CHRONIC regressions: 1 for you",
                    "5": "w work the queue · manifest drafts waiting for review: 1 for you",
                    "6": "Queue empty: no proposals waiting for a person left for you."}
        for key, line in expected.items():
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen.query_one(QueueBar), Static)
            assert line in bar(app)


@pytest.mark.slow
def test_the_demo_has_colleagues_working_the_queues(tmp_path):
    from gatepost.store.demo import build_demo

    path = tmp_path / "demo.db"
    build_demo(path, person="ana")
    db = open_store(path, create=False)
    held = {name: queue_state(db, name, "ana").held for name in ("cases", "drafts", "regressions", "proposals")}
    assert {name: len(h) for name, h in held.items()} == {"cases": 2, "drafts": 1, "regressions": 2, "proposals": 1}
    assert {lease["holder"] for lease in held["cases"].values()} == {"bruno"}
    assert queue_state(db, "cases", "ana").keys  # the person at the demo still has work
    db.close()


async def test_work_the_proposals_queue_to_its_end(store):
    from gatepost.store.proposals import add_proposal, get_proposal

    db = open_store(store)
    for n in (1, 2):
        add_proposal(db, {"path": f"procedures/p{n}.md", "operation": "update", "edit_mode": "full_page",
                          "title": f"Proposal {n}", "before_body": "old", "after_body": f"new {n}"}, actor="ana")
    waiting = queue_state(db, "proposals", "ana").keys
    assert len(waiting) == 2
    app = GatepostApp(store, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("6")
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert app.screen.shown == waiting[0]
        assert leases.holder(db, "proposal", waiting[0])["holder"] == "ana"
        await decide_with_note(pilot, "a", "reads well")
        assert app.screen.shown == waiting[1] and "2 of 2 · 1 done" in bar(app)
        await decide_with_note(pilot, "n", "split it in two")
        assert "Queue empty: 2 decided, no proposals waiting for a person left for you" in bar(app)
    assert [get_proposal(db, p)["status"] for p in waiting] == ["accepted", "needs_changes"]
    db.close()


async def test_quitting_gives_the_held_lease_back(demo_copy):
    from gatepost.app import GatepostApp
    from gatepost.store.kernel import leases, open_store

    path = demo_copy
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(140, 42)) as pilot:
        await work_the_cases_queue(pilot)
        held = app.screen.queue.key
        assert held and leases.holder(app.db, "case", held)["holder"] == "ana"
    db = open_store(path)
    assert leases.holder(db, "case", held) is None
    assert db.execute("SELECT kind FROM events WHERE subject_id = ? ORDER BY seq DESC LIMIT 1",
                      [held]).fetchone()[0] == "lease.released"
