"""Signatures checked in process give the same answer as `ssh-keygen -Y verify`, for every key type
gatepost checks itself (Ed25519, ECDSA P-256/384/521, RSA with SHA-256 and SHA-512), on good
signatures and on every way one can be wrong: another message, another namespace, another key, a
flipped byte, a truncated or unarmored text."""

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from gatepost.store.kernel import (
    add_actor,
    append_event,
    open_store,
    register_key,
    rehearse,
    signing,
    sshsig,
    transaction,
)

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
KEYS = [("ed25519", []), ("ecdsa", ["-b", "256"]), ("ecdsa", ["-b", "384"]), ("ecdsa", ["-b", "521"]),
        ("rsa", ["-b", "2048"])]
MESSAGE = b"3f9c1a0b5e" * 6 + b"ab11"


def keygen(folder: Path, kind: str, bits: list[str], name: str) -> tuple[Path, str]:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", kind, *bits, "-N", "", "-C", name, "-f", str(key)], check=True)
    return key, key.with_name(name + ".pub").read_text().strip()


def sign(key: Path, message: bytes, namespace: str = signing.NAMESPACE, rsa_hash: str | None = None) -> str:
    extra = ["-O", f"hashalg={rsa_hash}"] if rsa_hash else []
    done = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", namespace, "-f", str(key), *extra], input=message,
                          capture_output=True, check=True)
    return done.stdout.decode("ascii")


def keygen_says(message: bytes, signature: str, public_key: str) -> bool:
    return signing._verify_with_keygen(message, signature, public_key) is None


def in_process_says(message: bytes, signature: str, public_key: str) -> bool:
    blob = base64.b64decode(public_key.split()[1])
    assert sshsig.supported(blob)
    return sshsig.check(message, signature, blob, signing.NAMESPACE) is None


def flip(signature: str, line: int, at: int) -> str:
    lines = signature.splitlines()
    text = lines[line]
    lines[line] = text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1:]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "bits"), KEYS, ids=[f"{k}{''.join(b)}" for k, b in KEYS])
def test_in_process_and_ssh_keygen_agree(tmp_path, kind, bits):
    key, public = keygen(tmp_path, kind, bits, "ana")
    _, other = keygen(tmp_path, kind, bits, "bo")
    good = sign(key, MESSAGE)
    cases = {
        "good": (MESSAGE, good, public),
        "another message": (MESSAGE + b"0", good, public),
        "another key": (MESSAGE, good, other),
        "another namespace": (MESSAGE, sign(key, MESSAGE, namespace="file"), public),
        "a flipped byte at the end": (MESSAGE, flip(good, -2, 5), public),
        "a flipped byte in the middle": (MESSAGE, flip(good, 2, 30), public),
        "cut short": (MESSAGE, "\n".join(good.splitlines()[:3]) + "\n-----END SSH SIGNATURE-----\n", public),
        "no armor": (MESSAGE, "".join(good.splitlines()[1:-1]), public),
    }
    if kind == "rsa":
        cases["rsa-sha2-256"] = (MESSAGE, sign(key, MESSAGE, rsa_hash="sha256"), public)
    answers = {name: (in_process_says(*args), keygen_says(*args)) for name, args in cases.items()}
    assert answers["good"] == (True, True)
    assert all(ours == theirs for ours, theirs in answers.values()), answers
    assert sum(ours for ours, _ in answers.values()) == (2 if kind == "rsa" else 1)


def test_verify_message_starts_no_process_for_a_key_it_checks_itself(tmp_path, monkeypatch):
    key, public = keygen(tmp_path, "ed25519", [], "ana")
    good = sign(key, MESSAGE)
    started: list[list[str]] = []
    monkeypatch.setattr(signing, "_run", lambda args, data: started.append(args))
    assert signing.verify_message(MESSAGE, good, public) is None
    assert signing.verify_message(b"another", good, public) == "the signature does not verify"
    assert started == []


def test_a_signed_decision_starts_ssh_keygen_once(tmp_path, monkeypatch):
    key, public = keygen(tmp_path, "ed25519", [], "ana")
    db = open_store(tmp_path / "store.db")
    add_actor(db, "ana", "person", [])
    register_key(db, "ana", public, by=None)
    started: list[str] = []
    real = signing._run

    def counted(args, data):
        started.append(args[2])
        return real(args, data)

    monkeypatch.setattr(signing, "_run", counted)
    signing.set_signing_key(key)
    try:
        with transaction(db):
            append_event(db, "case.decided", actor="ana", subject_type="case", subject_id="c1",
                         payload={"outcome": "rejected"})
    finally:
        signing.set_signing_key(None)
    assert started == ["sign"]  # signed by ssh-keygen, checked here
    assert db.execute("SELECT COUNT(*) FROM signatures").fetchone()[0] == 1


def test_a_rehearsed_decision_checks_for_a_key_but_signs_nothing(tmp_path, monkeypatch):
    key, public = keygen(tmp_path, "ed25519", [], "ana")
    db = open_store(tmp_path / "store.db")
    add_actor(db, "ana", "person", [])
    register_key(db, "ana", public, by=None)
    started: list[str] = []
    monkeypatch.setattr(signing, "_run", lambda args, data: started.append(args[2]))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.delenv("GATEPOST_SIGNING_KEY", raising=False)

    def decide(db) -> None:  # what a console's "may I" runs on every look at an item
        with transaction(db):
            append_event(db, "case.decided", actor="ana", subject_type="case", subject_id="c1",
                         payload={"outcome": "rejected"})

    refused = rehearse(db, decide)  # no key to sign with: the real act would be refused the same way
    assert not refused.allowed and refused.rule == "signature" and "no key to sign with" in refused.why
    signing.set_signing_key(key)
    try:
        assert rehearse(db, decide).allowed
    finally:
        signing.set_signing_key(None)
    assert started == []  # ssh-keygen never ran
    assert db.execute("SELECT COUNT(*) FROM events WHERE kind = 'case.decided'").fetchone()[0] == 0
