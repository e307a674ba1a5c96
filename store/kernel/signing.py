"""SSH signatures on people's decisions.

A person may register an SSH public key (`gatepost actors key NAME FILE`). From then on each of
their decisions (a case decided, a proposal marked, a draft approved, rejected or edited, a regression
acknowledged or flagged) carries a signature over the decision event's hash, made with that key by
`ssh-keygen -Y sign` (namespace `gatepost-decision`) and checked with `ssh-keygen -Y verify` before
it is stored. A decision by a person with a key that cannot be signed, or whose signature does not
verify against their key, is refused (`<doing>: refused: signature: <why>`) and writes nothing.

Where the private key comes from, first found wins: the key file this process was given
(`gatepost --key FILE`, `set_signing_key`), `$GATEPOST_SIGNING_KEY`, else ssh-agent
(`$SSH_AUTH_SOCK`) holding the registered key. ssh-keygen never prompts: it runs without a
terminal, so a key file with a passphrase must be loaded into ssh-agent instead.

The event's hash covers the event's payload, which names the key's fingerprint (`signed_with`), and
the hash of every event before it: a signature vouches for the decision and the history it was made on.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import sshsig
from .errors import InputError, RefusedError
from .rows import all_rows, one_row

if TYPE_CHECKING:
    import subprocess

    from sqlite_utils import Database

NAMESPACE = "gatepost-decision"
# A key is replaced by its owner with a statement signed by the key it replaces: the new key's fingerprint,
# signed in its own namespace (a decision's signature never passes for a rotation, nor one for the other).
ROTATION_NAMESPACE = "gatepost-key-rotation"
SIGNATURE = "signature"  # the rule a refusal names
SIGNED_WITH = "signed_with"  # the payload key naming the fingerprint of the key a decision is signed with
KEY_ENV = "GATEPOST_SIGNING_KEY"
PRINCIPAL = "gatepost-signer"  # the one principal of the allowed_signers file built per check
# The events that are a person's decision: each is signed when its actor has a registered key.
SIGNED_KINDS = frozenset({
    "case.decided", "proposal.marked", "draft.approved", "draft.rejected", "draft.superseded",
    "regression.acknowledged", "regression.mismatch",
})
KEY_TYPES = ("ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa",
             "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com")
KEYGEN_TIMEOUT = 30.0

_key_file: str | None = None
_actor_key_files: dict[str, str] = {}
_rehearsing: ContextVar[bool] = ContextVar("gatepost_rehearsing", default=False)  # see rehearsal()


def set_signing_key(path: str | os.PathLike[str] | None, *, actor: str | None = None) -> None:
    """The private key file (or a public key held by ssh-agent) this process signs decisions with.

    With `actor`, only that actor's decisions (the demo signs a colleague's with a demo-only key).
    """
    global _key_file
    if actor is not None:
        if path:
            _actor_key_files[actor] = os.fspath(path)
        else:
            _actor_key_files.pop(actor, None)
        return
    _key_file = os.fspath(path) if path else None


def key_source(actor: str | None = None) -> tuple[str | None, str]:
    """The key file to sign with (None: ssh-agent) and how it was found, for messages."""
    if actor is not None and actor in _actor_key_files:
        return _actor_key_files[actor], f"the key file for {actor}"
    if _key_file:
        return _key_file, f"--key {_key_file}"
    env = os.environ.get(KEY_ENV, "").strip()
    if env:
        return env, f"${KEY_ENV} ({env})"
    if os.environ.get("SSH_AUTH_SOCK"):
        return None, "ssh-agent"
    return None, ""


def how_signed(actor: str | None = None) -> str:
    """Where this process's signing key (for `actor`) comes from, for messages."""
    return key_source(actor)[1] or "no key"


# --- public keys -------------------------------------------------------------------------------
def fingerprint(blob: bytes) -> str:
    """The key's fingerprint as `ssh-keygen -l` prints it: SHA256:base64, no padding."""
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii").rstrip("=")


def parse_public_key(text: str, *, where: str = "public key") -> dict[str, str]:
    """An OpenSSH public key line (`TYPE BASE64 [COMMENT]`): its type, key, comment and fingerprint.

    Anything else (a private key, several keys, a damaged key) is bad input naming the file.
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if any("PRIVATE KEY" in ln for ln in lines):
        raise InputError(f"{where}: is a private key; give the public key (the .pub file), never the private one")
    if len(lines) != 1:
        raise InputError(f"{where}: expected one OpenSSH public key line (TYPE BASE64 [COMMENT]), "
                         f"found {len(lines)} lines")
    parts = lines[0].split(None, 2)
    if len(parts) < 2 or parts[0] not in KEY_TYPES:
        raise InputError(f"{where}: expected an OpenSSH public key ({', '.join(KEY_TYPES[:2])}, ...), "
                         f"got {lines[0][:40]!r}")
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):
        raise InputError(f"{where}: the key's base64 does not decode") from None
    name = parts[0].encode("ascii")
    if len(blob) < 4 + len(name) or blob[:4] != len(name).to_bytes(4, "big") or blob[4:4 + len(name)] != name:
        raise InputError(f"{where}: the key's data does not hold a {parts[0]} key")
    return {"key_type": parts[0], "public_key": f"{parts[0]} {parts[1]}",
            "comment": parts[2].strip() if len(parts) > 2 else "", "fingerprint": fingerprint(blob)}


def key_at(db: Database, actor: str | None, before_seq: int) -> dict[str, Any] | None:
    """The key `actor` had registered before event `before_seq` (the newest one), or None."""
    if not actor:
        return None
    cursor = db.execute("SELECT id, actor, key_type, public_key, fingerprint, event_seq FROM actor_keys"
                        " WHERE actor = ? AND event_seq < ? ORDER BY event_seq DESC LIMIT 1", [actor, before_seq])
    return one_row(cursor)


def keys_of(db: Database, actor: str) -> list[dict[str, Any]]:
    """Every key an actor registered, oldest first (the newest is the one their decisions are signed with)."""
    cursor = db.execute("SELECT id, actor, key_type, fingerprint, comment, added_by, at, event_seq FROM actor_keys"
                        " WHERE actor = ? ORDER BY event_seq", [actor])
    return all_rows(cursor)


# --- ssh-keygen ----------------------------------------------------------------------------------
def _keygen() -> str | None:
    import shutil  # only signing and checking look for ssh-keygen (shutil loads bz2 and lzma)

    return shutil.which("ssh-keygen")


def available() -> bool:
    """Whether this machine can sign and verify (ssh-keygen is installed)."""
    return _keygen() is not None


class _NoAnswer(Exception):
    """ssh-keygen did not finish within KEYGEN_TIMEOUT."""


def _run(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    """ssh-keygen's answer; _NoAnswer when it takes longer than KEYGEN_TIMEOUT, OSError when it cannot start."""
    # subprocess imported here, by the one function that starts a process: a command that reads the store (most of
    # them) neither signs nor asks ssh-keygen, and starts without it (and the signal and selectors modules it loads)
    import subprocess

    try:  # start_new_session: no controlling terminal, so ssh-keygen never stops to ask for a passphrase
        return subprocess.run(args, input=data, capture_output=True, timeout=KEYGEN_TIMEOUT, start_new_session=True,
                              check=False)
    except subprocess.TimeoutExpired:
        raise _NoAnswer from None


def _why(result: subprocess.CompletedProcess[bytes]) -> str:
    text = (result.stderr or b"") + b"\n" + (result.stdout or b"")
    lines = [ln.strip() for ln in text.decode("utf-8", "replace").splitlines()
             if ln.strip() and not ln.startswith(("Signing data on standard input", "-----"))]
    return (lines[0] if lines else f"ssh-keygen exited {result.returncode}")[:200]


def signer_fingerprint(signature: str) -> str | None:
    """The fingerprint of the public key an armored SSH signature (SSHSIG) names, or None if unreadable."""
    body = "".join(ln.strip() for ln in signature.splitlines() if ln.strip() and not ln.startswith("-----"))
    try:
        blob = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return None
    if blob[:6] != b"SSHSIG" or len(blob) < 14:
        return None
    size = int.from_bytes(blob[10:14], "big")
    key = blob[14:14 + size]
    return fingerprint(key) if len(key) == size and size else None


@contextmanager
def rehearsal() -> Iterator[None]:
    """Within the block, a decision that must be signed is checked for a key to sign with but not signed: a
    dry run of an act (guarded.rehearse) asks whether it may be done, and must not start ssh-keygen (nor ask
    ssh-agent) on every look at an item."""
    token = _rehearsing.set(True)
    try:
        yield
    finally:
        _rehearsing.reset(token)


def rehearsing() -> bool:
    """Whether the act running now is a rehearsal (within `rehearsal()`): nothing it writes stays."""
    return _rehearsing.get()


def _signer(key: dict[str, Any]) -> tuple[str, str | None, str]:
    """(ssh-keygen, the key file or None for ssh-agent, how it was found); ValueError(why) when none can sign."""
    keygen = _keygen()
    if keygen is None:
        raise ValueError("ssh-keygen is not installed, so nothing can be signed")
    key_file, how = key_source(key["actor"])
    if key_file is None and not how:
        raise ValueError(f"{key['actor']} has a registered key ({key['fingerprint']}) and no key to sign with was "
                         f"given: use gatepost --key FILE, set ${KEY_ENV}, or load it into ssh-agent")
    if key_file is not None and not Path(key_file).is_file():
        raise ValueError(f"{how}: no such key file")
    return keygen, key_file, how


def sign_message(message: bytes, key: dict[str, Any]) -> str:
    """An armored SSH signature of `message` made with `key` (the registered key row); raises ValueError(why)."""
    # tempfile imported here and in _verify_with_keygen, the two functions that hand ssh-keygen files: a command
    # that reads the store starts without it (and the random module it loads)
    import tempfile

    keygen, key_file, how = _signer(key)
    agent = key_file is None
    with tempfile.TemporaryDirectory(prefix="gatepost-sign-") as tmp:
        if key_file is None:  # ssh-agent: ssh-keygen signs with the agent's copy of this public key
            pub = Path(tmp) / "key.pub"
            pub.write_text(key["public_key"] + "\n", encoding="ascii")
            key_file = str(pub)
        try:
            result = _run([keygen, "-Y", "sign", "-n", NAMESPACE, "-f", key_file], message)
        except _NoAnswer:
            raise ValueError(f"{how}: ssh-keygen did not sign within {KEYGEN_TIMEOUT:.0f} s") from None
        except OSError as exc:
            raise ValueError(f"ssh-keygen could not run ({exc.strerror})") from None
    if agent and result.returncode != 0:
        raise ValueError(f"ssh-agent could not sign as {key['actor']}: it does not hold the key {key['fingerprint']} "
                         f"(ssh-add it, or use gatepost --key FILE)")
    if result.returncode != 0 or b"BEGIN SSH SIGNATURE" not in result.stdout:
        raise ValueError(f"{how} could not sign as {key['actor']} ({key['fingerprint']}): {_why(result)}")
    return result.stdout.decode("ascii", "replace")


def verify_message(message: bytes, signature: str, public_key: str, *, namespace: str = NAMESPACE) -> str | None:
    """None when `signature` is `public_key`'s signature of `message` (in `namespace`), else why not.

    Checked in this process (sshsig.py) for Ed25519, ECDSA and RSA keys, with the same answers as `ssh-keygen
    -Y verify`; any other key type is handed to ssh-keygen.
    """
    try:
        blob = base64.b64decode(public_key.split()[1], validate=True)
        return sshsig.check(message, signature, blob, namespace)
    except (IndexError, binascii.Error, ValueError, LookupError):
        pass  # a key type checked only by ssh-keygen (or a key it will refuse in its own words)
    return _verify_with_keygen(message, signature, public_key, namespace=namespace)


def _verify_with_keygen(message: bytes, signature: str, public_key: str, *, namespace: str = NAMESPACE) -> str | None:
    import tempfile  # as in sign_message

    keygen = _keygen()
    if keygen is None:
        return "ssh-keygen is not installed, so the signature cannot be checked"
    with tempfile.TemporaryDirectory(prefix="gatepost-verify-") as tmp:
        allowed = Path(tmp) / "allowed_signers"
        allowed.write_text(f"{PRINCIPAL} {public_key}\n", encoding="ascii")
        sig = Path(tmp) / "decision.sig"
        sig.write_text(signature, encoding="ascii", errors="replace")
        try:
            result = _run([keygen, "-Y", "verify", "-f", str(allowed), "-I", PRINCIPAL, "-n", namespace,
                           "-s", str(sig)], message)
        except _NoAnswer:
            return "ssh-keygen did not answer"
        except OSError as exc:
            return f"ssh-keygen could not run ({exc.strerror})"
    return None if result.returncode == 0 else _why(result)


def sign_rotation(key_file: str | os.PathLike[str], new_fingerprint: str) -> str:
    """The rotation statement `ssh-keygen -Y sign -n gatepost-key-rotation -f KEY_FILE` makes over the new key's
    fingerprint (what a person runs by hand; the demo, in-process); raises ValueError(why)."""
    keygen = _keygen()
    if keygen is None:
        raise ValueError("ssh-keygen is not installed, so nothing can be signed")
    result = _run([keygen, "-Y", "sign", "-n", ROTATION_NAMESPACE, "-f", os.fspath(key_file)],
                  new_fingerprint.encode("ascii"))
    if result.returncode != 0 or b"BEGIN SSH SIGNATURE" not in result.stdout:
        raise ValueError(f"{os.fspath(key_file)} could not sign the rotation: {_why(result)}")
    return result.stdout.decode("ascii", "replace")


def rotation_why_not(statement: str, new_fingerprint: str, current_public_key: str) -> str | None:
    """None when `statement` is the current key's signature of the new key's fingerprint (namespace
    gatepost-key-rotation; the fingerprint as `ssh-keygen -l` prints it, a final newline allowed), else why not."""
    message = new_fingerprint.encode("ascii")
    why = verify_message(message, statement, current_public_key, namespace=ROTATION_NAMESPACE)
    if why is not None and verify_message(message + b"\n", statement, current_public_key,
                                          namespace=ROTATION_NAMESPACE) is None:
        return None
    return why


def message_for(event_hash: str) -> bytes:
    """What a decision's signature signs: its event's hash (hex), which chains every event before it."""
    return event_hash.encode("ascii")


# --- decisions ------------------------------------------------------------------------------------
def decision_key(db: Database, kind: str, actor: str | None, seq: int) -> dict[str, Any] | None:
    """The key event `seq` (of `kind`, by `actor`) must be signed with, or None when it needs no signature."""
    if kind not in SIGNED_KINDS or not actor:
        return None
    return key_at(db, actor, seq)


def sign_event(db: Database, seq: int, key: dict[str, Any], *, doing: str) -> None:
    """Sign the event just appended with the actor's key, check it, store it; else refuse (nothing is written)."""
    if _rehearsing.get():  # a dry run: a key to sign with is there, and nothing is signed
        try:
            _signer(key)
        except ValueError as exc:
            raise RefusedError(f"{doing}: refused: {SIGNATURE}: {exc}") from None
        return
    event_hash = db.execute("SELECT hash FROM events WHERE seq = ?", [seq]).fetchone()[0]
    message = message_for(event_hash)
    try:
        signature = sign_message(message, key)
    except ValueError as exc:
        raise RefusedError(f"{doing}: refused: {SIGNATURE}: {exc}") from None
    made_with = signer_fingerprint(signature)
    if made_with is not None and made_with != key["fingerprint"]:
        raise RefusedError(f"{doing}: refused: {SIGNATURE}: {how_signed(key['actor'])} holds the key {made_with}, not "
                           f"{key['actor']}'s registered key {key['fingerprint']}")
    why = verify_message(message, signature, key["public_key"])
    if why is not None:
        raise RefusedError(f"{doing}: refused: {SIGNATURE}: the signature does not verify against "
                           f"{key['actor']}'s registered key {key['fingerprint']}: {why}")
    db.execute("INSERT INTO signatures (event_seq, actor, key_id, fingerprint, namespace, signature)"
               " VALUES (?, ?, ?, ?, ?, ?)", [seq, key["actor"], key["id"], key["fingerprint"], NAMESPACE, signature])


def key_findings(db: Database) -> list[tuple[int, str]]:
    """(seq, one line) for every registered key that differs from the `actor.key_added` event that registered it
    (a swapped key would make forged signatures verify), and every such event whose key row is gone."""
    findings: list[tuple[int, str]] = []
    cursor = db.execute("SELECT k.id, k.actor, k.public_key, k.fingerprint, k.event_seq, e.kind, e.subject_id,"
                        " e.payload FROM actor_keys k LEFT JOIN events e ON e.seq = k.event_seq ORDER BY k.id")
    for key_id, actor, public_key, fp, seq, kind, subject, payload in cursor.fetchall():
        try:
            said = json.loads(payload) if payload else {}
        except ValueError:
            said = {}
        said = said if isinstance(said, dict) else {}
        try:
            computed = parse_public_key(public_key or "")["fingerprint"]
        except InputError:
            computed = None
        if kind != "actor.key_added" or subject != actor or said.get("public_key") != public_key \
                or said.get("fingerprint") != fp or computed != fp:
            findings.append((seq, f"key {key_id} of {actor}: {fp} differs from its event {seq} "
                                  f"({said.get('fingerprint')} for {subject}); the key was edited"))
    for seq, subject in db.execute("SELECT e.seq, e.subject_id FROM events e WHERE e.kind = 'actor.key_added'"
                                   " AND NOT EXISTS (SELECT 1 FROM actor_keys k WHERE k.event_seq = e.seq)"
                                   " ORDER BY e.seq").fetchall():
        findings.append((seq, f"event {seq}: registered a key for {subject} that is not in the store; "
                              "the key was deleted"))
    return findings


def signature_findings(db: Database) -> list[tuple[int, str]]:
    """(seq, one line) for every stored signature that does not verify against the key registered when its
    decision was made, and every decision that should carry a signature and does not."""
    findings = key_findings(db)
    signed: set[int] = set()
    cursor = db.execute("SELECT s.event_seq, s.actor, s.fingerprint, s.signature, e.hash, e.actor, e.kind"
                        " FROM signatures s LEFT JOIN events e ON e.seq = s.event_seq ORDER BY s.event_seq")
    for seq, actor, fp, signature, event_hash, event_actor, kind in cursor.fetchall():
        signed.add(seq)
        if event_hash is None:
            findings.append((seq, f"event {seq}: a signature names it, and it is not in the store"))
            continue
        key = key_at(db, event_actor, seq)
        if key is None or event_actor != actor:
            findings.append((seq, f"event {seq}: signed as {actor}, but {event_actor} had no registered key then; "
                                  "the signature was inserted or edited by hand"))
            continue
        if key["fingerprint"] != fp:
            findings.append((seq, f"event {seq}: signed with {fp}, {actor}'s key then was {key['fingerprint']}; "
                                  "the signature was edited"))
            continue
        why = verify_message(message_for(event_hash), signature or "", key["public_key"])
        if why is not None:
            findings.append((seq, f"event {seq}: {kind} by {actor}: the signature does not verify against "
                                  f"{key['fingerprint']} ({why}); it was forged or edited"))
    kinds = ", ".join(f"'{k}'" for k in sorted(SIGNED_KINDS))
    for seq, actor, kind in db.execute(
            f"SELECT e.seq, e.actor, e.kind FROM events e WHERE e.kind IN ({kinds}) AND e.actor IS NOT NULL"
            " AND EXISTS (SELECT 1 FROM actor_keys k WHERE k.actor = e.actor AND k.event_seq < e.seq)"
            " ORDER BY e.seq").fetchall():
        if seq not in signed:
            findings.append((seq, f"event {seq}: {kind} by {actor} carries no signature though {actor} had a "
                                  "registered key; the signature was deleted or the event forged"))
    return sorted(findings)
