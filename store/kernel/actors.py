"""Actors (people and producers) and the capabilities that give them authority.

Who may change authority: an actor holding `store.admin` (the store's first one is named by
`gatepost init --admin NAME`); while a store has no administrator yet, anyone may (a fresh store).
Every add, grant, revoke and binding goes through the guarded pipeline and is an audited event.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .clock import now_iso
from .errors import InputError, RefusedError
from .pipeline import (
    CAPABILITY,
    IDENTITY,
    Act,
    Subject,
    acts_as_admin,
    capabilities_held,
    check_name,
    find_actor,
    guarded,
    has_admin,
    refusal,
    same_actor,
)
from .signing import ROTATION_NAMESPACE, key_at, keys_of, parse_public_key, rotation_why_not

if TYPE_CHECKING:
    from sqlite_utils import Database

KINDS = ("person", "producer")
ADMIN = "store.admin"
ROTATION = "rotation"  # the rule a refused key replacement names

# Every capability gatepost knows, and what it lets an actor do.
CAPABILITIES: dict[str, str] = {
    "loop_change.keep": "keep a loop's change once every keep claim holds",
    "loop_change.apply_outside_surface": "accept a change outside the loop's surface (never a loop's)",
    "eval_design.review": "review an evaluation design (design_review evidence)",
    "case.close": "close a case as rejected, proposed or inconclusive",
    "proposal.review": "mark a proposal accepted, declined or needs changes",
    "manifest.review": "import manifests and approve or reject manifest drafts",
    "regression.triage": "acknowledge regressions and flag manifest mismatches",
    "item.comment": "comment on any item (a case, proposal, draft, skill or run) and mention people; decides "
                    "nothing (whoever holds a judging capability may comment too)",
    "evidence.record": "record evidence, skill runs and evaluation runs as oneself",
    "evidence.record_for": "record evidence for a producer (e.g. paste a CI result); the record names both",
    ADMIN: "add actors, grant and revoke capabilities, bind actors to OS users, register and change loops, "
           "record applied content (never a loop's)",
}
# The capabilities that decide: a person's, never a producer's (whose evidence a decision weighs).
DECIDING = frozenset({"loop_change.keep", "case.close", "proposal.review", "manifest.review", "regression.triage",
                      "loop_change.apply_outside_surface"})
# What a loop (a producer) may never hold.
NEVER_FOR_PRODUCERS = DECIDING | {ADMIN}
# Every capability a person may hold: what `gatepost demo` gives the person who runs it.
PERSON_CAPABILITIES = tuple(sorted(CAPABILITIES))


def _check_name(name: str) -> str:
    name = check_name(name or "")
    if not name or any(ch.isspace() for ch in name) or len(name) > 100:
        raise InputError(f"actor name: expected a non-empty name without spaces, got {name!r}")
    return name


def _check_caps(name: str, kind: str, capabilities: tuple[str, ...] | list[str]) -> None:
    for cap in capabilities:
        if cap not in CAPABILITIES:
            raise InputError(f"--capability: unknown capability {cap!r}; known: {', '.join(CAPABILITIES)}")
        if kind == "producer" and cap in NEVER_FOR_PRODUCERS:
            why = "a deciding capability" if cap in DECIDING else "the store's administration"
            raise RefusedError(f"grant {cap} to {name}: refused: capability: {cap} is never granted to a loop "
                               f"(producer {name}): {why} is a person's")


def _admin_rule(doing: str, by: str | None) -> Callable[[Database, dict[str, Any] | None, Subject | None], None]:
    """The authority rule of every act on actors: store.admin, unless the store has no admin yet."""

    def check(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        if by is None or not has_admin(db):
            return
        if who is None:
            raise refusal(doing, CAPABILITY, f"{by} is not a known actor of this store, and only a holder of "
                                             f"{ADMIN} changes authority")
        if ADMIN not in who["capabilities"]:
            raise refusal(doing, CAPABILITY, f"{who['name']} does not hold {ADMIN}")

    return check


def _actor_subject(name: str, *, create_kind: str | None = None) -> Callable[[Database], Subject]:
    def load(db: Database) -> Subject:
        found = find_actor(db, name)
        if found is None and create_kind is None:
            raise InputError(f"actor {name}: no such actor in this store (gatepost actors list)")
        return Subject("actor", found["name"] if found else name, "actor", found)

    return load


def _insert(db: Database, act: Act, name: str, kind: str) -> None:
    when = now_iso()  # the row's time is its event's: verify rebuilds the row from the event
    db.table("actors").insert({"name": name, "kind": kind, "created_at": when})
    act.event("actor.added", subject_type="actor", subject_id=name, payload={"kind": kind}, at=when)


def _grant(db: Database, act: Act, name: str, kind: str, cap: str, note: str | None) -> bool:
    _check_caps(name, kind, [cap])
    if cap in capabilities_held(db, name):
        return False
    when = now_iso()
    db.table("capabilities").insert({"actor": name, "capability": cap, "granted_by": act.actor,
                               "granted_at": when})
    act.event("capability.granted", subject_type="actor", subject_id=name, note=note, at=when,
              payload={"capability": cap})
    return True


def add_actor(db: Database, name: str, kind: str = "person", capabilities: tuple[str, ...] | list[str] = (),
              *, by: str | None = None, note: str | None = None) -> dict[str, Any]:
    """Create an actor (or grant more capabilities to an existing one of the same kind): store.admin's act."""
    name = _check_name(name)
    if kind not in KINDS:
        raise InputError(f"--kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    _check_caps(name, kind, capabilities)
    doing = f"add actor {name}"
    with guarded(db, doing, actor=by, known=False, subject=_actor_subject(name, create_kind=kind),
                 authority=_admin_rule(doing, by), lease=False) as act:
        existing = act.subject.row if act.subject else None
        if existing and existing["kind"] != kind:
            raise InputError(f"actor {existing['name']}: already exists as a {existing['kind']}, not a {kind}")
        stored = existing["name"] if existing else name
        if not existing:
            _insert(db, act, stored, kind)
        for cap in capabilities:
            _grant(db, act, stored, kind, cap, note)
    return get_actor(db, stored)  # type: ignore[return-value]


def grant(db: Database, name: str, capability: str, *, by: str | None, note: str | None = None) -> dict[str, Any]:
    """Grant one capability to a known actor (store.admin; an audited event with the note)."""
    doing = f"grant {capability} to {name}"
    with guarded(db, doing, actor=by, known=False, subject=_actor_subject(_check_name(name)),
                 authority=_admin_rule(doing, by), lease=False) as act:
        row = act.subject.row if act.subject and act.subject.row else {}
        _grant(db, act, row["name"], row["kind"], capability, note)
    return get_actor(db, row["name"])  # type: ignore[return-value]


def revoke(db: Database, name: str, capability: str, *, by: str | None, note: str | None = None) -> dict[str, Any]:
    """Take a capability back (store.admin; an audited event). The store keeps at least one admin."""
    if capability not in CAPABILITIES:
        raise InputError(f"--capability: unknown capability {capability!r}; known: {', '.join(CAPABILITIES)}")
    doing = f"revoke {capability} from {name}"
    with guarded(db, doing, actor=by, known=False, subject=_actor_subject(_check_name(name)),
                 authority=_admin_rule(doing, by), lease=False) as act:
        row = act.subject.row if act.subject and act.subject.row else {}
        if capability not in capabilities_held(db, row["name"]):
            raise InputError(f"actor {row['name']}: does not hold {capability}; nothing to revoke")
        if capability == ADMIN and db.execute("SELECT COUNT(*) FROM capabilities WHERE capability = ?",
                                              [ADMIN]).fetchone()[0] == 1:
            raise refusal(doing, "admin", f"{row['name']} is the store's last administrator")
        db.execute("DELETE FROM capabilities WHERE actor = ? AND capability = ?", [row["name"], capability])
        act.event("capability.revoked", subject_type="actor", subject_id=row["name"], note=note,
                  payload={"capability": capability})
    return get_actor(db, row["name"])  # type: ignore[return-value]


def bind(db: Database, name: str, os_user: str | None, *, by: str | None, note: str | None = None) -> dict[str, Any]:
    """Bind an actor to an OS user: then acting as NAME needs that OS user (store.admin). None unbinds."""
    user = check_name(os_user, field="--os-user") if os_user else None
    doing = f"bind {name}"
    with guarded(db, doing, actor=by, known=False, subject=_actor_subject(_check_name(name)),
                 authority=_admin_rule(doing, by), lease=False) as act:
        row = act.subject.row if act.subject and act.subject.row else {}
        db.execute("UPDATE actors SET os_user = ? WHERE name = ?", [user, row["name"]])
        act.event("actor.bound", subject_type="actor", subject_id=row["name"], note=note,
                  payload={"os_user": user})
    return get_actor(db, row["name"])  # type: ignore[return-value]


def register_key(db: Database, name: str, key_text: str, *, by: str | None, where: str = "public key",
                 note: str | None = None, rotation: str | None = None) -> dict[str, Any]:
    """Register NAME's SSH public key: from then on each of their decisions is signed with it (signing.py).

    Who may register a first key: a holder of store.admin, or the person themselves when bound to an OS user
    (the binding proves who runs the command); an unbound name can be typed by anyone, so it cannot vouch
    for its own key. Replacing a key takes the key it replaces: `rotation`, the current key's signature
    of the new key's fingerprint (`ssh-keygen -Y sign -n gatepost-key-rotation`), or a *different*
    administrator's act (rule `rotation`): a process running as NAME without NAME's private key cannot
    swap in a key of its own. Every replacement is an `actor.key_added` event with `replaces` naming the
    key it replaced and `rotation` how (`signed` or `administrator`), listed by `gatepost verify`.
    """
    key = parse_public_key(key_text, where=where)
    doing = f"register a key for {name}"
    replaced: list[dict[str, Any]] = []  # the key being replaced, read inside the act
    how: list[str] = []

    def may(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        row = subject.row if subject and subject.row else {}
        current = key_at(db, row.get("name"), 1 << 62)
        if current is not None:
            replaced.append(current)
        if by is not None and has_admin(db) and not (who is not None and ADMIN in who["capabilities"]):
            if who is None or who["name"] != row.get("name"):
                raise refusal(doing, CAPABILITY, f"{who['name'] if who else by} does not hold {ADMIN}; only an "
                                                 f"administrator, or {row.get('name')} themselves, registers their key")
            if not row.get("os_user"):
                raise refusal(doing, IDENTITY, f"{row['name']} is not bound to an OS user, so anyone could type "
                                               f"the name; a holder of {ADMIN} registers the key (or binds "
                                               f"{row['name']} first)")
        if current is None:
            return
        if current["fingerprint"] == key["fingerprint"]:
            raise InputError(f"{where}: is {row['name']}'s registered key already ({key['fingerprint']})")
        if rotation is not None:
            why = rotation_why_not(rotation, key["fingerprint"], current["public_key"])
            if why is not None:
                raise refusal(doing, ROTATION, f"the rotation statement is not {row['name']}'s current key "
                                               f"{current['fingerprint']} signing {key['fingerprint']} "
                                               f"(namespace {ROTATION_NAMESPACE}): {why}")
            how.append("signed")
        elif by is None:
            how.append("in-process")  # the demo builder, a migration: no CLI or console path passes None
        elif acts_as_admin(db, who) and not same_actor(by, row.get("name")):
            how.append("administrator")
        else:
            raise refusal(doing, ROTATION, f"{row['name']} already has the key {current['fingerprint']}; replacing "
                                           "it takes a statement signed with that key (--rotation FILE: ssh-keygen "
                                           f"-Y sign -n {ROTATION_NAMESPACE} over the new key's fingerprint) or "
                                           f"another holder of {ADMIN}")

    with guarded(db, doing, actor=by, known=has_admin(db),
                 subject=_actor_subject(_check_name(name)), authority=may, lease=False) as act:
        row = act.subject.row if act.subject and act.subject.row else {}
        seq, when = act.next_seq(), now_iso()
        db.execute("INSERT INTO actor_keys (actor, key_type, public_key, comment, fingerprint, added_by, at, event_seq)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [row["name"], key["key_type"], key["public_key"],
                                                        key["comment"], key["fingerprint"], act.actor, when, seq])
        payload: dict[str, Any] = {"key_type": key["key_type"], "public_key": key["public_key"],
                                   "comment": key["comment"], "fingerprint": key["fingerprint"],
                                   "replaces": bool(replaced)}
        if replaced:
            payload.update({"replaced_fingerprint": replaced[0]["fingerprint"], "rotation": how[0]})
            if how[0] == "signed" and rotation is not None:
                payload["rotation_statement"] = rotation
        act.event("actor.key_added", subject_type="actor", subject_id=row["name"], note=note, at=when,
                  payload=payload)
    return {**(get_actor(db, row["name"]) or {}), "key": key, "replaced": replaced[0] if replaced else None,
            "rotation": how[0] if how else None}


def key_replacements(db: Database) -> list[dict[str, Any]]:
    """Every replacement of a registered key, oldest first: whose, from which fingerprint to which, by whom, how."""
    out = []
    for seq, at, actor, subject, payload in db.execute(
            "SELECT seq, at, actor, subject_id, payload FROM events WHERE kind = 'actor.key_added'"
            " AND json_extract(payload, '$.replaces') = 1 ORDER BY seq").fetchall():
        said = json.loads(payload) if payload else {}
        out.append({"seq": seq, "at": at, "actor": subject, "by": actor, "fingerprint": said.get("fingerprint"),
                    "replaced": said.get("replaced_fingerprint"), "rotation": said.get("rotation") or "unstated"})
    return out


def make_admin(db: Database, name: str, *, by: str | None = None) -> dict[str, Any]:
    """`gatepost init --admin NAME`: the store's first administrator (a person holding store.admin).

    Refused once the store has an administrator other than NAME (grants are then store.admin's act).
    """
    name = _check_name(name)
    found = find_actor(db, name)
    if has_admin(db) and not (found and ADMIN in capabilities_held(db, found["name"])):
        raise refusal(f"init --admin {name}", CAPABILITY, "the store already has an administrator "
                                                         "(gatepost actors grant NAME store.admin, as one)")
    return add_actor(db, name, "person", [ADMIN], by=by if has_admin(db) else None,
                     note="the store's first administrator")


def ensure_producer(db: Database, name: str) -> str:
    """Producers named by imported files are registered on first sight, with no capabilities.

    Returns the stored name (a name that compares equal to a stored one is that actor).
    """
    name = _check_name(name)
    found = find_actor(db, name)
    if found:
        return str(found["name"])
    with guarded(db, f"register producer {name}", actor=None) as act:
        _insert(db, act, name, "producer")
    return name


def get_actor(db: Database, name: str) -> dict[str, Any] | None:
    """An actor (found by its normalised name) with its capabilities and OS binding."""
    found = find_actor(db, name)
    if not found:
        return None
    rows = list(db["actors"].rows_where("name = ?", [found["name"]]))
    actor = dict(rows[0])
    actor["capabilities"] = capabilities_held(db, found["name"])
    keys = keys_of(db, found["name"])
    actor["key"] = keys[-1]["fingerprint"] if keys else None
    return actor


def capabilities_of(db: Database, name: str) -> list[str]:
    found = find_actor(db, name)
    return capabilities_held(db, found["name"]) if found else []


def list_actors(db: Database) -> list[dict[str, Any]]:
    caps: dict[str, list[str]] = {}
    for row in db["capabilities"].rows_where(order_by="actor, capability"):
        caps.setdefault(row["actor"], []).append(row["capability"])
    return [dict(row, capabilities=caps.get(row["name"], [])) for row in db["actors"].rows_where(order_by="name")]
