"""SSH signatures on decisions (issue 12, item 4): through the real CLI, with keys made by ssh-keygen.

Once a person has a registered key, each of their decisions is signed over its event's hash; a
decision that cannot be signed with that key is refused and writes nothing; `gatepost verify`
checks every stored signature against the key registered when the decision was made.
"""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from gatepost.store.kernel import os_user, signing
from tests.conftest import run_gatepost
from tests.store.kernel.test_audit_chain import sql

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
NO_AGENT = {"SSH_AUTH_SOCK": "", "GATEPOST_SIGNING_KEY": ""}


def keygen(folder: Path, name: str) -> Path:
    """A fresh ed25519 key pair without a passphrase; returns the private key's path."""
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key


@pytest.fixture
def store(demo_copy: Path) -> Path:
    """A fresh copy of the demo store (tests/conftest.py) for each test to damage."""
    return demo_copy


def gp(store: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_gatepost("--db", str(store), *args, env={**NO_AGENT, **(env or {})})


def one(path: Path, query: str, params: tuple = ()):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(query, params).fetchone()
    finally:
        conn.close()


def free(store: Path, query: str) -> str:
    """The first item the query finds that no colleague holds a lease on."""
    return one(store, f"{query} AND id NOT IN (SELECT subject_id FROM leases) LIMIT 1")[0]


def decisions(store: Path) -> dict[str, tuple[str, ...]]:
    """One decision of each kind the demo store allows now (arguments after the global options)."""
    draft = free(store, "SELECT id FROM manifest_drafts WHERE status = 'pending'")
    case = free(store, "SELECT id FROM cases WHERE status = 'open' AND allowed LIKE '%rejected%'")
    proposal = free(store, "SELECT id FROM proposals WHERE status = 'waiting'")
    skill = one(store, "SELECT skill FROM regression_states WHERE state = 'NEW_FAIL' AND acknowledged_eval_id IS NULL"
                       " AND skill NOT IN (SELECT subject_id FROM leases) LIMIT 1")[0]
    return {
        "draft reject": ("manifest", "reject", draft, "--note", "too strict"),
        "case decide": ("case", "decide", case, "rejected", "--note", "the gain is noise"),
        "proposal mark": ("proposal", "mark", proposal, "declined", "--note", "not now",  # the demo's queue rubric
                          "--answer", "read_diff=yes", "--answer", "reversible=yes", "--answer", "confidence=2"),
        "regression acknowledge": ("skills", "acknowledge", skill, "--note", "mine; fixing the prompt"),
    }


def events(store: Path) -> int:
    return one(store, "SELECT COUNT(*) FROM events")[0]


def register(store: Path, tmp_path: Path, name: str = "ana") -> Path:
    key = keygen(tmp_path, name)
    result = gp(store, "actors", "key", name, f"{key}.pub", "--as", "ana")
    assert result.returncode == 0, result.stderr
    assert "registered" in result.stdout
    return key


@pytest.mark.slow
@pytest.mark.parametrize("act", ["draft reject", "case decide", "proposal mark", "regression acknowledge"])
def test_a_signed_decision_is_accepted_and_an_unsigned_one_refused(store: Path, tmp_path: Path, act: str):
    key = register(store, tmp_path)
    args = (*decisions(store)[act], "--as", "ana")
    before = events(store)

    unsigned = gp(store, *args)
    assert unsigned.returncode == 3, unsigned.stdout + unsigned.stderr
    assert ": refused: signature: ana has a registered key" in unsigned.stderr
    assert "Traceback" not in unsigned.stderr
    assert events(store) == before  # nothing was written

    signed = gp(store, "--key", str(key), *args)
    assert signed.returncode == 0, signed.stderr
    seq, payload = one(store, "SELECT seq, payload FROM events WHERE actor = 'ana' ORDER BY seq DESC LIMIT 1")
    fp = one(store, "SELECT fingerprint FROM actor_keys WHERE actor = 'ana'")[0]
    assert f'"signed_with": "{fp}"' in payload
    assert one(store, "SELECT actor, fingerprint FROM signatures WHERE event_seq = ?", (seq,)) == ("ana", fp)
    check = gp(store, "verify")
    assert check.returncode == 0, check.stdout
    assert "intact" in check.stdout


@pytest.mark.slow
def test_the_key_can_come_from_the_environment_or_ssh_agent(store: Path, tmp_path: Path):
    key = register(store, tmp_path)
    todo = decisions(store)
    by_env = gp(store, *todo["draft reject"], "--as", "ana", env={"GATEPOST_SIGNING_KEY": str(key)})
    assert by_env.returncode == 0, by_env.stderr
    agent = subprocess.run(["ssh-agent", "-s"], capture_output=True, text=True, check=True).stdout
    found = dict(part.split("=", 1) for part in agent.replace(";", "\n").split() if "=" in part)
    sock, pid = found["SSH_AUTH_SOCK"], int(found["SSH_AGENT_PID"])
    try:
        env = {**os.environ, "SSH_AUTH_SOCK": sock}
        empty = gp(store, *todo["proposal mark"], "--as", "ana", env={"SSH_AUTH_SOCK": sock})
        assert empty.returncode == 3
        assert "refused: signature: ssh-agent could not sign as ana: it does not hold the key" in empty.stderr
        subprocess.run(["ssh-add", "-q", str(key)], env=env, check=True, capture_output=True)
        by_agent = gp(store, *todo["proposal mark"], "--as", "ana", env={"SSH_AUTH_SOCK": sock})
        assert by_agent.returncode == 0, by_agent.stderr
    finally:
        os.kill(pid, 15)
    assert one(store, "SELECT COUNT(*) FROM signatures WHERE actor = 'ana'")[0] == 2
    assert gp(store, "verify").returncode == 0


def test_a_decision_signed_with_another_key_is_refused_and_writes_nothing(store: Path, tmp_path: Path):
    register(store, tmp_path)
    other = keygen(tmp_path, "mallory")
    before = events(store)
    result = gp(store, "--key", str(other), *decisions(store)["case decide"], "--as", "ana")
    assert result.returncode == 3
    fp = one(store, "SELECT fingerprint FROM actor_keys WHERE actor = 'ana'")[0]
    line = result.stderr.strip()
    assert line.startswith("gatepost: decide case-") and ": refused: signature: --key " in line
    assert f"not ana's registered key {fp}" in line
    assert events(store) == before
    assert one(store, "SELECT COUNT(*) FROM signatures WHERE actor = 'ana'")[0] == 0


def test_people_without_a_key_decide_as_before(store: Path, tmp_path: Path):
    register(store, tmp_path, "bruno")  # someone else's key changes nothing for ana
    result = gp(store, *decisions(store)["draft reject"], "--as", "ana")
    assert result.returncode == 0, result.stderr
    assert one(store, "SELECT COUNT(*) FROM signatures WHERE actor = 'ana'")[0] == 0


def _signed(store: Path, tmp_path: Path) -> int:
    key = register(store, tmp_path)
    result = gp(store, "--key", str(key), *decisions(store)["regression acknowledge"], "--as", "ana")
    assert result.returncode == 0, result.stderr
    return one(store, "SELECT MAX(event_seq) FROM signatures")[0]


@pytest.mark.slow
def test_a_forged_signature_is_found_by_verify(store: Path, tmp_path: Path):
    seq = _signed(store, tmp_path)
    signature = one(store, "SELECT signature FROM signatures WHERE event_seq = ?", (seq,))[0]
    lines = signature.splitlines()
    middle = len(lines) // 2
    flipped = lines[middle][:10] + ("A" if lines[middle][10] != "A" else "B") + lines[middle][11:]
    forged = "\n".join([*lines[:middle], flipped, *lines[middle + 1:]]) + "\n"
    sql(store, f"UPDATE signatures SET signature = '{forged}' WHERE event_seq = {seq}", unguarded="signatures")
    result = run_gatepost("--db", str(store), "verify")
    assert result.returncode == 1, result.stdout
    found = [ln for ln in result.stdout.splitlines() if ln.startswith(f"event {seq}:")]
    assert len(found) == 1 and "the signature does not verify against SHA256:" in found[0]
    assert "forged or edited" in found[0]


@pytest.mark.slow
def test_a_signature_by_another_key_or_a_deleted_one_is_found_by_verify(store: Path, tmp_path: Path):
    seq = _signed(store, tmp_path)
    other = keygen(tmp_path, "mallory")
    event_hash = one(store, "SELECT hash FROM events WHERE seq = ?", (seq,))[0]
    made = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "gatepost-decision", "-f", str(other)],
                          input=event_hash.encode(), capture_output=True, check=True).stdout.decode()
    sql(store, f"UPDATE signatures SET signature = '{made}' WHERE event_seq = {seq}", unguarded="signatures")
    result = run_gatepost("--db", str(store), "verify")
    assert result.returncode == 1
    assert f"event {seq}: regression.acknowledged by ana: the signature does not verify" in result.stdout

    sql(store, f"DELETE FROM signatures WHERE event_seq = {seq}", unguarded="signatures")
    result = run_gatepost("--db", str(store), "verify")
    assert result.returncode == 1
    assert f"event {seq}: regression.acknowledged by ana carries no signature though ana had a registered key" \
        in result.stdout


@pytest.mark.slow
def test_a_replaced_key_leaves_older_signatures_valid(store: Path, tmp_path: Path):
    _signed(store, tmp_path)
    newer = keygen(tmp_path, "ana-2026")
    # ana replaces her own key with a statement signed by the key it replaces
    fp = subprocess.run(["ssh-keygen", "-l", "-f", f"{newer}.pub"], capture_output=True, text=True).stdout.split()[1]
    statement = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "gatepost-key-rotation", "-f",
                                str(tmp_path / "ana")], input=fp, capture_output=True, text=True, check=True).stdout
    (tmp_path / "rotation.sig").write_text(statement)
    replaced = gp(store, "actors", "key", "ana", f"{newer}.pub", "--rotation", str(tmp_path / "rotation.sig"),
                  "--as", "ana")
    assert replaced.returncode == 0, replaced.stderr
    result = gp(store, "--key", str(newer), *decisions(store)["proposal mark"], "--as", "ana")
    assert result.returncode == 0, result.stderr
    check = gp(store, "verify")
    assert check.returncode == 0, check.stdout
    assert "ana's key" in check.stdout and "rotation signed with the replaced key" in check.stdout


@pytest.mark.slow
def test_who_may_register_a_key(store: Path, tmp_path: Path):
    key = keygen(tmp_path, "bruno")
    # an unbound person cannot vouch for their own key: anyone can type their name
    own = gp(store, "actors", "key", "bruno", f"{key}.pub", "--as", "bruno")
    assert own.returncode == 3
    assert "register a key for bruno: refused: identity: bruno is not bound to an OS user" in own.stderr
    other = gp(store, "actors", "key", "ana", f"{key}.pub", "--as", "bruno")
    assert other.returncode == 3 and "refused: capability: bruno does not hold store.admin" in other.stderr
    # bound to this OS user, the person registers their first key themselves; replacing it needs an admin
    assert gp(store, "actors", "bind", "bruno", "--os-user", os_user(), "--as", "ana").returncode == 0
    first = gp(store, "actors", "key", "bruno", f"{key}.pub", "--as", "bruno")
    assert first.returncode == 0, first.stderr
    again = gp(store, "actors", "key", "bruno", f"{keygen(tmp_path, 'bruno2')}.pub", "--as", "bruno")
    assert again.returncode == 3 and "refused: rotation: bruno already has the key" in again.stderr
    kind, actor = one(store, "SELECT kind, actor FROM events ORDER BY seq DESC LIMIT 1")
    assert (kind, actor) == ("actor.key_added", "bruno")


def test_a_key_file_that_is_not_a_public_key_is_bad_input(store: Path, tmp_path: Path):
    key = keygen(tmp_path, "ana")
    private = gp(store, "actors", "key", "ana", str(key), "--as", "ana")
    assert private.returncode == 2
    assert "is a private key; give the public key (the .pub file)" in private.stderr
    junk = tmp_path / "junk.pub"
    junk.write_text("ssh-ed25519 bm90IGEga2V5\n")
    bad = gp(store, "actors", "key", "ana", str(junk), "--as", "ana")
    assert bad.returncode == 2 and "junk.pub: the key's data does not hold a ssh-ed25519 key" in bad.stderr
    assert one(store, "SELECT COUNT(*) FROM actor_keys WHERE actor = 'ana'")[0] == 0


@pytest.mark.slow
def test_a_swapped_key_is_found_even_when_the_signatures_are_remade_with_it(store: Path, tmp_path: Path):
    """An attacker with the file puts their own key in place of ana's and re-signs her decision with it."""
    seq = _signed(store, tmp_path)
    mallory = keygen(tmp_path, "mallory")
    public = " ".join(Path(f"{mallory}.pub").read_text().split()[:2])
    fp = subprocess.run(["ssh-keygen", "-l", "-f", f"{mallory}.pub"], capture_output=True, text=True,
                        check=True).stdout.split()[1]
    event_hash = one(store, "SELECT hash FROM events WHERE seq = ?", (seq,))[0]
    made = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "gatepost-decision", "-f", str(mallory)],
                          input=event_hash.encode(), capture_output=True, check=True).stdout.decode()
    key_id, key_seq = one(store, "SELECT id, event_seq FROM actor_keys WHERE actor = 'ana'")
    sql(store, f"UPDATE actor_keys SET public_key = '{public}', fingerprint = '{fp}' WHERE actor = 'ana'",
        unguarded="actor_keys")
    sql(store, f"UPDATE signatures SET signature = '{made}', fingerprint = '{fp}' WHERE event_seq = {seq}",
        unguarded="signatures")
    result = run_gatepost("--db", str(store), "verify")
    assert result.returncode == 1
    assert f"key {key_id} of ana: {fp} differs from its event {key_seq}" in result.stdout
    assert "the key was edited" in result.stdout


def test_an_ssh_keygen_that_does_not_answer_is_said_in_words(tmp_path, monkeypatch):
    """A check handed to ssh-keygen (a key type not checked in process) that outlasts its time limit is answered
    "did not answer", never an exception."""
    fake = tmp_path / "bin" / "ssh-keygen"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexec sleep 5\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(signing, "KEYGEN_TIMEOUT", 0.3)
    assert signing.verify_message(b"decision", "not a signature", "ssh-dss AAAA") == "ssh-keygen did not answer"
