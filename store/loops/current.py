"""What is current, per path: the content that was kept or accepted and recorded applied.

`applications` records where each change landed (`case applied`, `proposal applied`, or content
that landed outside gatepost, `current set` by store.admin); `current_content` is their projection,
the newest per path. A case or proposal made on another base is stale: it cannot be kept or
accepted until rebased, and says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import (
    ADMIN,
    CAPABILITY,
    Act,
    InputError,
    RefusedError,
    Subject,
    all_rows,
    guarded,
    now_iso,
    observed_at,
    one_row,
    refusal,
    repo_path,
    same_actor,
)
from gatepost.store.protocol import canonical_json

HASH_PREFIX = "sha256:"
CURRENT_SCHEMA = "gatepost.current/1"
# Who may record that a change landed: its own author (a loop's run lands what it wrote, and needs no capability
# for it), or whoever keeps cases, reviews proposals, or runs the store.
APPLY_CAPABILITIES = ("loop_change.keep", "proposal.review", "store.admin")


def content_text(content: Any) -> str:
    """A candidate's content as the text that lands in the file: a string as is, else canonical JSON."""
    if content is None:
        return ""
    return content if isinstance(content, str) else canonical_json(content)


def text_hash(text: str) -> str:
    """`sha256:` and the hex sha256 of the text's UTF-8 bytes (what `sha256sum FILE` prints)."""
    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


EMPTY_HASH = text_hash("")


def check_path(path: str, option: str = "PATH") -> str:
    """A repository path (kernel.repo_path: relative, normalised, no '..', no drive, printable), else bad input."""
    return repo_path(path, option)


def current_of(db: Database, path: str) -> dict[str, Any] | None:
    """The current content of a path and where it came from, or None if nothing was recorded applied."""
    return one_row(db.execute(
        "SELECT c.path, c.content_hash, c.event_seq, a.id AS application_id, a.subject_type, a.subject_id, a.ref,"
        " a.actor, a.at, a.content FROM current_content c JOIN applications a ON a.id = c.application_id"
        " WHERE c.path = ?", [check_path(path)]))


def current_document(db: Database, path: str) -> dict[str, Any]:
    """The `gatepost current PATH --json` document: the current content or `null`, and its history."""
    path = check_path(path)
    now = current_of(db, path)
    history = all_rows(db.execute("SELECT id, subject_type, subject_id, content_hash, ref, actor, at, event_seq"
                                  " FROM applications WHERE path = ? ORDER BY id DESC LIMIT 20", [path]))
    return {"schema": CURRENT_SCHEMA, "path": path, "content_hash": now["content_hash"] if now else EMPTY_HASH,
            "recorded": now is not None, "content": now["content"] if now else None,
            "source": {k: now[k] for k in ("subject_type", "subject_id", "ref", "actor", "at", "event_seq")}
            if now else None, "history": history}


def current_hash(db: Database, path: str) -> str:
    """The hash of a path's current content; a path with nothing recorded is empty."""
    now = current_of(db, path)
    return now["content_hash"] if now else EMPTY_HASH


def base_status(db: Database, path: str | None, base: str | None, made_seq: int | None) -> str | None:
    """None if a change to `path` made on `base` rests on the current content; else why it is stale.

    `base` is a `sha256:` hash of the content the change was made on (what `case new` records); a base
    given only as a label (an imported case's `b-7`) is stale once content of the path was recorded
    applied after the candidate was made (`made_seq`).
    """
    if not path:
        return None
    now = current_of(db, path)
    source = (f" ({now['subject_type']} {now['subject_id']}" + (f", applied at {now['ref']}" if now['ref'] else "")
              + ")") if now else ""
    if base and base.startswith(HASH_PREFIX):
        current = now["content_hash"] if now else EMPTY_HASH
        if base == current:
            return None
        return (f"stale: made on {base[:19]}…, but the current content of {path} is {current[:19]}…{source};"
                " rebase it on the current content")
    if now and made_seq is not None and now["event_seq"] > made_seq:
        return (f"stale: content of {path} was recorded applied after this candidate was made{source};"
                " rebase it on the current content")
    return None


@dataclass(frozen=True)
class Landing:
    """A change as its domain reads it when it is recorded applied; `record_applied` decides whether it may land.

    `state` is its state now and `lands_in` the one state that lands (a case `kept`, a proposal `accepted`);
    `content` None means the caller must give the content that resulted (`content_why` says why).
    """

    subject: Subject
    state: str
    lands_in: str
    path: str | None
    path_field: str
    content: str | None
    stale: Callable[[], str | None]
    content_why: str = ""
    instead: str = ""  # where a change that does not land here lands instead


def record_applied(db: Database, subject_type: str, subject_id: str, landing: Callable[[Database], Landing], *,
                   ref: str | None, actor: str | None, at: str | None = None, content: str | None = None) -> dict[str, Any]:
    """Record where a kept case or an accepted proposal landed (`case applied`, `proposal applied`): it becomes
    the current content of its path.

    One guarded act with the checks both share, in this order: who acts is known; the subject exists; who
    acts is its author (recording where its own change landed) or holds one of APPLY_CAPABILITIES; it is in
    the state that lands
    (rule `approved`), names a path, was not recorded applied before (rule `applied`) and rests on the
    current content (rule `stale`).
    """
    doing = f"{subject_type} applied {subject_id}"
    ref = (ref or "").strip() or None
    when = observed_at(at) or now_iso()
    found: list[Landing] = []

    def load(db: Database) -> Subject:
        found.append(landing(db))
        return found[0].subject

    def may_land(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        land = found[0]
        if who is not None and not (subject is not None and subject.author and same_actor(subject.author, who["name"])) \
                and not set(APPLY_CAPABILITIES) & set(who["capabilities"]):
            raise refusal(doing, CAPABILITY, f"{who['name']} is not the {land.subject.noun}'s author and holds none of "
                                             f"{', '.join(APPLY_CAPABILITIES)}")
        if land.state != land.lands_in:
            article = "an" if land.lands_in[:1] in "aeiou" else "a"
            raise refusal(doing, "approved", f"the {land.subject.noun} is {land.state}; only {article} "
                                             f"{land.lands_in} {land.subject.noun} lands{land.instead}")
        if not land.path:
            raise InputError(f"{doing}: {land.path_field}: missing (the {land.subject.noun} names no path to land on)")
        check_path(land.path, f"{doing}: {land.path_field}")  # a change lands inside the repository or nowhere
        if applications_of(db, subject_type, subject_id):
            raise refusal(doing, "applied", "already recorded applied")
        stale = land.stale()
        if stale:
            raise RefusedError(f"{doing}: refused: {stale}")

    with guarded(db, doing, actor=actor, subject=load, must_be_open=False, lease=False, self_dealing=False, authority=may_land) as act:
        land = found[0]
        text = land.content if content is None else content
        if text is None:
            raise InputError(f"{doing}: --content-file: required {land.content_why}")
        return _land(act, subject_type, subject_id, check_path(land.path or "", f"{doing}: {land.path_field}"), text,
                     ref=ref, when=when)


def set_current(db: Database, path: str, text: str, *, ref: str | None, actor: str | None,
                at: str | None = None) -> dict[str, Any]:
    """Record content that landed outside gatepost as the current content of `path` (`current PATH --set`):
    a guarded act under store.admin, about the path."""
    path = check_path(path, "PATH")
    with guarded(db, f"path applied {path}", actor=actor, capability=ADMIN) as act:
        return _land(act, "path", path, path, text, ref=(ref or "").strip() or None, when=observed_at(at) or now_iso())


def _land(act: Act, subject_type: str, subject_id: str, path: str, text: str, *, ref: str | None,
          when: str) -> dict[str, Any]:
    """The record of a landing, its event and the projection (`current_content`), inside the act."""
    db = act.db
    digest = text_hash(text)
    seq = act.event(f"{subject_type}.applied", subject_type=subject_type, subject_id=subject_id,
                    revision=digest, at=when, payload={"path": path, "ref": ref, "content_hash": digest})
    cursor = db.execute(
        "INSERT INTO applications (subject_type, subject_id, path, content_hash, content, ref, actor, at, event_seq)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [subject_type, subject_id, path, digest, text, ref, act.actor, when, seq])
    db.execute("INSERT INTO current_content (path, content_hash, application_id, event_seq) VALUES (?, ?, ?, ?)"
               " ON CONFLICT(path) DO UPDATE SET content_hash = excluded.content_hash,"
               " application_id = excluded.application_id, event_seq = excluded.event_seq",
               [path, digest, cursor.lastrowid, seq])
    return current_document(db, path)


def applications_of(db: Database, subject_type: str, subject_id: str) -> list[dict[str, Any]]:
    """Where a case's or proposal's content was recorded applied, oldest first."""
    cursor = db.execute("SELECT path, content_hash, ref, actor, at, event_seq FROM applications"
                        " WHERE subject_type = ? AND subject_id = ? ORDER BY id", [subject_type, subject_id])
    return all_rows(cursor)


def loop_case(db: Database, case_id: str) -> dict[str, Any] | None:
    """The loop a case was made by (case new --loop), with its path and base; None for an imported case."""
    cursor = db.execute("SELECT case_id, loop, path, base_hash, loop_version, event_seq FROM loop_cases"
                        " WHERE case_id = ?", [case_id])
    return one_row(cursor)


def link_case(db: Database, case_id: str, loop: str, path: str, base_hash: str, loop_version: int,
              event_seq: int) -> None:
    """Record which loop made a case, inside the case's import transaction."""
    db.execute("INSERT INTO loop_cases (case_id, loop, path, base_hash, loop_version, event_seq)"
               " VALUES (?, ?, ?, ?, ?, ?)", [case_id, loop, path, base_hash, loop_version, event_seq])
