"""What the console enables is what the store accepts: on every deciding screen, for the demo's people and
items, a decision is enabled if and only if doing it for real (on a copy of the store, as the person, on the
item as the screen read it) is accepted; a disabled one says the store's own refusal."""

import os
import random
import re
import sqlite3
from pathlib import Path

import pytest

from gatepost.app import GatepostApp
from gatepost.screenshots import settle
from gatepost.store import flows
from gatepost.store.flows import decide_on
from gatepost.store.kernel import GatepostError, last_seq, open_store
from gatepost.widgets.note_dialog import NoteDialog

# screen key, mode, the items' table and key column
SCREENS = [("2", "cases", "cases", "id"), ("6", "proposals", "proposals", "id"),
           ("5", "manifests", "manifest_drafts", "id"), ("4", "regressions", "regression_states", "skill")]
# the column an item's state is in: the sample holds an item of every state the demo has
STATE = {"cases": "status", "proposals": "status", "manifest_drafts": "status", "regression_states": "state"}
PEOPLE = ["ana", "bruno", "chen", "dara"]
# every item with GATEPOST_MAY_ALL=1 (slow: hundreds of items a screen and person); else one item of each state
# and a seeded sample of the rest
SAMPLE = None if os.environ.get("GATEPOST_MAY_ALL") else 5


def _copy(src: Path, dst: Path) -> Path:
    """A consistent copy of a store another connection has open (its WAL included)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


def _accepted(path: Path, subject: str, name: str, key: str, person: str, seq: int | None) -> tuple[bool, str]:
    db = open_store(path)
    try:
        note = "a reviewer's note"
        if name == "edit":  # the editor's YAML: the draft's own, one word more required
            yaml = db.execute("SELECT yaml FROM manifest_drafts WHERE id = ?", [key]).fetchone()[0]
            note = re.sub(r"min_words: (\d+)", lambda m: f"min_words: {int(m[1]) + 1}", yaml, count=1)
        asked = flows.rubric_of(db, subject, name, key)  # the dialog asks it after the key is pressed
        answers = {q.key: str(q.scale or "yes") for q in asked.questions} if asked else None
        decide_on(db, subject, name, key, actor=person, note=note, seen_seq=seq, answers=answers)
        return True, ""
    except GatepostError as exc:
        return False, str(exc)
    finally:
        db.close()


@pytest.mark.slow
@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize(("key", "mode", "table", "column"), SCREENS, ids=[s[1] for s in SCREENS])
async def test_enabled_if_and_only_if_the_store_accepts(demo_copy, tmp_path, person, key, mode, table, column):
    db = open_store(demo_copy)
    rows = [(r[0], r[1]) for r in db.execute(f"SELECT {column}, {STATE[table]} FROM {table} ORDER BY 1")]  # noqa: S608
    db.close()
    items = [key for key, _state in rows]
    if SAMPLE is None:
        chosen = items
    else:
        each_state = list({state: key for key, state in reversed(rows)}.values())
        rest = [key for key in items if key not in each_state]
        chosen = each_state + random.Random(f"{mode}{person}").sample(rest, min(SAMPLE, len(rest)))
    app = GatepostApp(demo_copy, person=person)
    checked = 0
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press(key)
        await settle(pilot)
        screen = app.screen
        for item in chosen:
            screen.open_item(item)
            await settle(pilot)
            await screen.detail_settled.wait()
            assert screen.shown == item
            for decision in screen.DECISIONS:
                enabled = bool(screen.check_action("decide", (decision.name,)))
                copy = _copy(demo_copy, tmp_path / f"try-{checked}.db")
                accepted, why = _accepted(copy, screen.WORK.subject, decision.name, item, person, screen.seen_seq)
                copy.unlink()
                checked += 1
                assert enabled == accepted, f"{person} {decision.name} {item}: enabled {enabled}, store: {why or 'ok'}"
                if not accepted and not screen.browsing_only():
                    # the disabled action's why is the store's refusal
                    _ok, shown = screen.legal(decision.name)
                    assert shown and shown.split(": ")[-1] in why
    assert checked


async def test_accept_on_a_proposal_whose_path_waits_to_be_applied_is_disabled_with_the_store_s_why(demo_copy):
    """The first waiting proposal the console showed `[a] accept` on, and the store refused after the note was
    typed: the same path's accepted change is not recorded applied yet."""
    db = open_store(demo_copy)
    pending = next(pid for (pid,) in db.execute("SELECT id FROM proposals WHERE status = 'waiting' ORDER BY id")
                   if flows.may(db, "proposal", pid, actor="ana",
                                seen_seq=last_seq(db, "proposal", pid))["accepted"].rule == "pending")
    db.close()
    app = GatepostApp(demo_copy, person="ana")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("6")
        await settle(pilot)
        screen = app.screen
        screen.open_item(pending)
        await settle(pilot)
        await screen.detail_settled.wait()
        assert screen.shown == pending
        assert screen.check_action("decide", ("accepted",)) is None  # shown, disabled
        assert screen.check_action("decide", ("declined",)) is True
        allowed, why = screen.legal("accepted")
        assert not allowed and why.startswith("pending: ") and "not recorded applied" in why
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)  # no note typed for nothing
        assert any("not recorded applied" in str(n.message) for n in app._notifications)
