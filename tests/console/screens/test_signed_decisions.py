"""The console signs decisions like the CLI (issue 12, item 4): a person with a registered key and no key
to sign with sees the refusal as a toast (never a traceback) and nothing is written; given the key,
the same decision is stored with its signature."""

import shutil
import subprocess

import pytest
from textual.widgets import TextArea

from gatepost.app import GatepostApp
from gatepost.store.kernel import add_actor, open_store, register_key, set_signing_key
from gatepost.store.proposals import GateConfig, gate_proposal, get_proposal
from gatepost.widgets.note_dialog import NoteDialog
from tests.console_helpers import settle
from tests.evaluator_helpers import scorer
from tests.store.proposals.test_gate import SAMPLE_DATA

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


@pytest.fixture
def signed_store(db, store_path, tmp_path, monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.delenv("GATEPOST_SIGNING_KEY", raising=False)
    key = tmp_path / "ana"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ana", "-f", str(key)], check=True)
    add_actor(db, "ana", "person", ["proposal.review"])
    register_key(db, "ana", (tmp_path / "ana.pub").read_text(), by=None)
    gated = gate_proposal(db, GateConfig(enabled=True, command=scorer("structure"), targets=["procedures"]),
                          dict(SAMPLE_DATA), actor="ci-nightly", at="2026-11-20T10:00:00.000000Z")
    yield store_path, gated["proposal_id"], key
    set_signing_key(None)


async def _mark_needs_changes(pilot, note: str) -> None:
    await pilot.press("n")
    await settle(pilot)
    assert isinstance(pilot.app.screen, NoteDialog)
    pilot.app.screen.query_one(TextArea).text = note
    await pilot.press("ctrl+s")
    await settle(pilot)


async def test_a_decision_needing_a_signature_is_refused_as_a_toast_then_signed(signed_store):
    path, pid, key = signed_store
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=(180, 55), notifications=True) as pilot:
        await pilot.press("6")
        await settle(pilot)
        assert app.screen.shown == pid
        # no key to sign with: the store refuses the decision, so it is not offered, and `n` says why
        assert app.screen.check_action("decide", ("needs_changes",)) is None
        assert "signature: ana has a registered key" in app.screen.lines.text("actions")
        await pilot.press("n")
        await settle(pilot)
        assert not isinstance(app.screen, NoteDialog)
        messages = [n.message for n in app._notifications]
        assert any("needs changes: signature: ana has a registered key" in m for m in messages)
        assert get_proposal(app.db, pid)["status"] == "waiting"

        set_signing_key(key)  # as `gatepost --key FILE console` does
        app.screen.show(pid)  # read again: now the store accepts it
        await settle(pilot)
        await app.screen.detail_settled.wait()
        await _mark_needs_changes(pilot, "Add a rollback step")
        assert get_proposal(app.db, pid)["status"] == "needs_changes"
    db = open_store(path)
    seq = db.execute("SELECT MAX(seq) FROM events WHERE kind = 'proposal.marked'").fetchone()[0]
    assert db.execute("SELECT actor FROM signatures WHERE event_seq = ?", [seq]).fetchone() == ("ana",)
    db.close()
