"""The one guarded pipeline every act that changes state goes through.

An act runs, in one transaction and always in this order:

1. **identity**: who acts is named, printable (no control, zero-width or bidi characters), known to the
   store, and, when bound to an OS user, this process runs as that user;
2. **capability**: they hold the capability the act needs;
3. **the subject**: it exists; the authority rules about it hold (its author never acts on it:
   **self-dealing**); it is **open** (a decision is never edited);
4. **lease**: nobody else works the item now;
5. **seen-seq**: the subject's newest event is the one the person decided on;
6. the act's body writes the record and its event (`Act.event`), then
7. updates the projection, inside the same transaction.

A refusal is a `RefusedError` (exit 3) worded `<doing>: refused: <rule>: <why>`, written nothing, and
is the same for the same situation whatever the subject. A name that is not printable text is bad input
(`InputError`, exit 2).

`actor=None` is an in-process caller of the store (the demo builder, a migration, a test's setup): no
CLI or console path passes None, and such an act still passes every rule but identity and capability.
"""

from __future__ import annotations

import functools
import sqlite3
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .clock import now_iso, parse_iso
from .db import busy_timeout_ms, transaction
from .errors import ConflictError, GatepostError, InputError, RefusedError
from .events import append_event, last_seq, next_seq
from .integrity import check_writable
from .records import StreamedRecords
from .shared import as_found, shared_reads
from .signing import rehearsal
from .users import os_user

if TYPE_CHECKING:
    from sqlite_utils import Database

# The rules a refusal names: short nouns, the same for every subject.
IDENTITY = "identity"
CAPABILITY = "capability"
SELF_DEALING = "self-dealing"
OPEN = "open"
LEASE = "lease"
SEEN_SEQ = "seen-seq"
# Characters a name may never hold: zero-width and bidi controls look like nothing on a screen.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u061c\u200e\u200f"
                       "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
FUTURE_SLACK = timedelta(minutes=5)  # an --at this far past the store clock is refused


def refusal(doing: str, rule: str, why: str, *, conflict: bool = False) -> RefusedError:
    """The one refusal wording: `<doing>: refused: <rule>: <why>`."""
    return (ConflictError if conflict else RefusedError)(f"{doing}: refused: {rule}: {why}")


# --- names ----------------------------------------------------------------------------------------
def check_name(name: Any, *, field: str = "actor name") -> str:
    """A name as stored: stripped, NFC, printable; control, zero-width and bidi characters are bad input."""
    if not isinstance(name, str):
        raise InputError(f"{field}: expected a name, got {name!r}")
    text = unicodedata.normalize("NFC", name.strip())
    for ch in text:
        if ch in INVISIBLE or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise InputError(f"{field}: {text!r} holds the invisible or control character U+{ord(ch):04X}; "
                             "expected printable text")
    return text


@functools.lru_cache(maxsize=4096)
def name_key(name: str | None) -> str:
    """What two names are compared by: NFKC, invisible characters dropped, case-folded (kept for the names
    seen last: every act compares its actor with the item's author and its evidence's producers)."""
    text = unicodedata.normalize("NFKC", name or "")
    text = "".join(ch for ch in text if ch not in INVISIBLE and unicodedata.category(ch) not in ("Cc", "Cf"))
    return text.strip().casefold()


def same_actor(a: str | None, b: str | None) -> bool:
    """Whether two names name the same actor (`run-41` and `RUN-41\u200b` do)."""
    return bool(a) and bool(b) and name_key(a) == name_key(b)


# --- identity and capability -------------------------------------------------------------------
def find_actor(db: Database, name: str) -> dict[str, Any] | None:
    """The stored actor whose name compares equal to `name` (normalised, case-folded), or None.

    The stored name itself is looked up first (one indexed read; adding an actor refuses a name that
    compares equal to a stored one, so it is the only match); any other spelling is compared with each.
    """
    exact = as_found(db, ("actor", name),
                     lambda: db.execute("SELECT name, kind, os_user FROM actors WHERE name = ?", [name]).fetchone())
    if exact is not None:
        return {"name": exact[0], "kind": exact[1], "os_user": exact[2]}
    key = name_key(name)
    for row in db.execute("SELECT name, kind, os_user FROM actors").fetchall():
        if name_key(row[0]) == key:
            return {"name": row[0], "kind": row[1], "os_user": row[2]}
    return None


def capabilities_held(db: Database, name: str) -> list[str]:
    return list(as_found(db, ("capabilities", name), lambda: tuple(
        r[0] for r in db.execute("SELECT capability FROM capabilities WHERE actor = ? ORDER BY capability",
                                 [name]).fetchall())))


def identify(db: Database, actor: str | None, *, doing: str, known: bool = True) -> dict[str, Any] | None:
    """Step 1: who acts. The stored actor (its stored name), or None for an unknown name when not `known`."""
    if actor is None or not str(actor).strip():
        raise refusal(doing, IDENTITY, "no actor given (use --as NAME or $GATEPOST_REVIEWER)")
    name = check_name(actor, field="--as")
    found = find_actor(db, name)
    if found is None:
        if known:
            raise refusal(doing, IDENTITY, f"{name} is not a known actor of this store (gatepost actors add)")
        return None
    bound = found.get("os_user")
    if bound and bound != os_user():
        raise refusal(doing, IDENTITY, f"{found['name']} is bound to OS user {bound}; this process runs as "
                                       f"{os_user() or 'an unknown user'}")
    found["capabilities"] = capabilities_held(db, found["name"])
    return found


def require(db: Database, name: str | None, capability: str, *, doing: str) -> dict[str, Any]:
    """Steps 1 and 2 alone: the actor, if known and holding `capability`; else a refusal naming the rule."""
    actor = identify(db, name, doing=doing)
    assert actor is not None
    if capability not in actor["capabilities"]:
        raise refusal(doing, CAPABILITY, f"{actor['name']} does not hold {capability}")
    return actor


def has_admin(db: Database) -> bool:
    """Whether the store has an administrator (someone holding store.admin)."""
    return db.execute("SELECT 1 FROM capabilities WHERE capability = 'store.admin' LIMIT 1").fetchone() is not None


def acts_as_admin(db: Database, who: dict[str, Any] | None) -> bool:
    """Whether an identified actor may act on someone else's behalf: they hold store.admin, or the store has no
    administrator yet (a fresh store, where anyone may grant themselves anything, as for every act on actors)."""
    return not has_admin(db) or (who is not None and "store.admin" in who["capabilities"])


# --- time -------------------------------------------------------------------------------------------
def observed_at(at: str | None, *, field: str = "--at") -> str | None:
    """A caller's time, normalised; refused (exit 2) when more than 5 minutes after the store clock.

    The caller's time is kept for display (`observed_at`); order is the store's sequence.
    """
    if at is None:
        return None
    when = parse_iso(at, field=field)
    limit = datetime.fromisoformat(now_iso().replace("Z", "+00:00")) + FUTURE_SLACK
    if datetime.fromisoformat(when.replace("Z", "+00:00")) > limit:
        raise InputError(f"{field}: {at} is after the store's clock ({now_iso()[:19]}Z); a record cannot be "
                         "observed in the future")
    return when


# --- the subject ------------------------------------------------------------------------------------
@dataclass
class Subject:
    """What an act is about: its events' (type, id), how it is named, whether it is open, whose it is."""

    type: str
    id: str
    noun: str
    row: dict[str, Any] | None
    closed: str | None = None  # why it is not open (None: open)
    author: str | None = None  # the actor whose work it is; they never act on it
    author_role: str = "author"


@dataclass
class Act:
    """An act that passed the pipeline: who, about what, at which seq; its body writes through it."""

    db: Database
    doing: str
    actor: str | None  # the stored name of who acts (None: an in-process caller)
    subject: Subject | None
    seen_seq: int = 0
    events: list[int] = field(default_factory=list)

    def event(self, kind: str, *, subject_type: str | None = None, subject_id: str | None = None,
              revision: str | None = None, note: str | None = None, payload: dict[str, Any] | None = None,
              at: str | None = None, actor: str | None = None, seal: bool = False,
              sealed: StreamedRecords | None = None) -> int:
        """Append the act's event (about its subject unless told otherwise); returns its seq.

        `seal`: the act wrote the records this event creates first, naming `next_seq()`; the event
        seals their digest (a decision by a person with a key is signed: see signing.py); `sealed`: that
        digest as the act hashed the records while inserting them (records.StreamedRecords).
        """
        if subject_type is None:
            assert self.subject is not None
            subject_type, subject_id = self.subject.type, self.subject.id
        seq = append_event(self.db, kind, actor=actor or self.actor, subject_type=subject_type,
                           subject_id=str(subject_id), revision=revision, note=note, payload=payload, at=at,
                           seal=seal, doing=self.doing, sealed=sealed)
        self.events.append(seq)
        return seq

    def next_seq(self) -> int:
        """The seq the act's next event gets: records it creates name it before that event seals them."""
        return next_seq(self.db)


def check_lease(db: Database, subject: Subject, actor: str | None, *, doing: str, at: str | None = None) -> None:
    """Step 4: refuse while someone else holds a lease on the subject unexpired `at` (default: now)."""
    row = db.execute("SELECT holder, expires_at FROM leases WHERE subject_type = ? AND subject_id = ? "
                     "AND expires_at > ?", [subject.type, subject.id, at or now_iso()]).fetchone()
    if row and not same_actor(row[0], actor):
        raise refusal(doing, LEASE, f"{row[0]} is working on it (lease until {row[1][:19]}Z)", conflict=True)


def check_seen(db: Database, subject: Subject, seen: int | None, *, doing: str, also: str = "") -> int:
    """Step 5: refuse a decision made on an older look at the subject; returns the seq now."""
    now = last_seq(db, subject.type, subject.id)
    if seen is not None and int(seen) != now:
        raise refusal(doing, SEEN_SEQ,
                      f"{subject.noun} changed since you looked (you saw event {seen}, it is now at {now}"
                      f"{'; ' + also if also else ''}); look again and decide on what is there now",
                      conflict=True)
    return now


def check_capability(who: dict[str, Any], capability: str | tuple[str, ...], *, doing: str) -> None:
    """Step 2: refuse unless the actor holds the capability (a tuple: any one of them)."""
    if isinstance(capability, str):
        if capability not in who["capabilities"]:
            raise refusal(doing, CAPABILITY, f"{who['name']} does not hold {capability}")
    elif not set(capability) & set(who["capabilities"]):
        raise refusal(doing, CAPABILITY, f"{who['name']} holds none of {', '.join(capability)}")


@contextmanager
def guarded(db: Database, doing: str, *, actor: str | None, capability: str | tuple[str, ...] | None = None,
            subject: Callable[[Database], Subject] | None = None, seen_seq: int | None = None,
            lease: bool = True, must_be_open: bool = True, known: bool = True, self_dealing: bool = True,
            authority: Callable[[Database, dict[str, Any] | None, Subject | None], None] | None = None,
            lease_at: str | None = None) -> Iterator[Act]:
    """Run an act through the pipeline; the `with` body writes the record, its event and the projection.

    `capability` is one capability, or a tuple of which the actor must hold one. `subject` loads the
    subject (raising InputError when it does not exist); `authority` adds the act's own authority rules
    (run after the subject is loaded, before it is checked open). `known=False` lets an unknown name act
    where no capability is needed (it is still checked printable); `self_dealing=False` is for the acts
    an author takes on its own subject (revising its candidate, recording where it landed, its lease).
    `lease_at` is the moment the lease rule is checked at (the leases' own `now`; default the store clock).
    """
    with transaction(db):
        who: dict[str, Any] | None = None
        if actor is not None or capability is not None:
            who = identify(db, actor, doing=doing, known=known or capability is not None)
            if capability is not None:
                assert who is not None
                check_capability(who, capability, doing=doing)
        name = who["name"] if who else (check_name(actor, field="--as") if actor else None)
        subj = subject(db) if subject else None
        if self_dealing and subj is not None and subj.author and same_actor(subj.author, name):
            raise refusal(doing, SELF_DEALING, f"{name} is the {subj.noun}'s {subj.author_role}; "
                                               f"nobody acts on their own change")
        if authority is not None:
            authority(db, who, subj)
        seq_now = 0
        if subj is not None:
            if must_be_open and subj.closed:
                # A person who saw it open and decided is told it changed under them, and how.
                check_seen(db, subj, seen_seq, doing=doing, also=subj.closed)
                raise refusal(doing, OPEN, subj.closed)
            if lease:
                check_lease(db, subj, name, doing=doing, at=lease_at)
            seq_now = check_seen(db, subj, seen_seq, doing=doing)
        yield Act(db, doing, name, subj, seq_now)


# --- may I: an act rehearsed ------------------------------------------------------------------------
REHEARSAL_WAIT_MS = 250  # how long a rehearsal waits for another writer's lock before it leaves the act unchecked
UNCHECKED = "unchecked"


@dataclass(frozen=True)
class Verdict:
    """What the store answers to "may this act be done now": allowed, or the rule that refuses it and why.

    `rule` is the refusal's rule (`capability`, `open`, `lease`, …), `why` the text after it; `message` the whole
    refusal as the act itself says it. An allowed act that could not be checked (another writer held the store
    longer than a rehearsal waits) is allowed with `rule` UNCHECKED: the act itself still runs every check.
    """

    allowed: bool
    rule: str = ""
    why: str = ""
    message: str = ""

    def __bool__(self) -> bool:
        return self.allowed


def verdict_of(exc: GatepostError) -> Verdict:
    """The verdict a refusal (or any error of the act) says: `<doing>: refused: <rule>: <why>` split up."""
    message = str(exc)
    _doing, sep, rest = message.partition(": refused: ")
    if not sep:
        return Verdict(False, "", message, message)
    rule, sep, why = rest.partition(": ")
    return Verdict(False, rule, why, message) if sep and " " not in rule else Verdict(False, "", rest, message)


def rehearse(db: Database, act: Callable[[Database], object]) -> Verdict:
    """May `act` be done now? rehearse_all of that one act."""
    return rehearse_all(db, {"act": act})["act"]


def rehearse_all(db: Database, acts: Mapping[str, Callable[[Database], object]]) -> dict[str, Verdict]:
    """May each of `acts` be done now? Each is run for real, every rule of its guarded pipeline and its body,
    and rolled back: the answer is the one the act gives, so a rule added to an act is asked here too, and
    nothing is written.

    They run in one transaction (inside a caller's, a savepoint), each in a savepoint rolled back to before the
    next, so each starts from the same store; the reads they make before they write are shared (shared.py:
    the actor, the item, a case's evaluation are read once for all of them). A read-only store answers as its
    writes do; another writer holding the store longer than REHEARSAL_WAIT_MS leaves every act allowed but
    UNCHECKED (the act still checks everything when it is done).
    """
    try:
        check_writable(db)
    except GatepostError as exc:
        return {name: verdict_of(exc) for name in acts}
    nested = db.conn.in_transaction
    if nested:
        db.execute("SAVEPOINT gatepost_rehearsals")
    else:
        db.execute(f"PRAGMA busy_timeout = {REHEARSAL_WAIT_MS}")
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                unchecked = Verdict(True, UNCHECKED, "another writer holds the store; the act checks when done")
                return dict.fromkeys(acts, unchecked)
            raise
        finally:
            db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
    verdicts: dict[str, Verdict] = {}
    try:
        with rehearsal(), shared_reads(db) as shared:
            for name, act in acts.items():
                db.execute("SAVEPOINT gatepost_rehearsal")
                shared.begin()
                try:
                    act(db)
                    verdicts[name] = Verdict(True)
                except GatepostError as exc:
                    verdicts[name] = verdict_of(exc)
                finally:
                    shared.end()
                    db.execute("ROLLBACK TO gatepost_rehearsal")
                    db.execute("RELEASE gatepost_rehearsal")
    finally:
        if nested:
            db.execute("ROLLBACK TO gatepost_rehearsals")
            db.execute("RELEASE gatepost_rehearsals")
        else:
            db.execute("ROLLBACK")
    return verdicts
