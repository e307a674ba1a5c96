"""Comments: a thread on any item (a case, a proposal, a draft, a skill, an evaluation run).

A comment asks a question or leaves a remark short of a decision. It is an act like any other (the guarded
pipeline, one `comment.added` event carrying all it wrote), but it decides nothing, so:

- it needs `item.comment` or any capability that judges items (a reviewer discusses what they may decide);
  a person who only browses holds none of them and may not write into the chain, nor into others' Overview;
- it is allowed on a closed item (a decision is discussed after it is taken, never edited), on an item
  someone else holds a lease on (asking the person working it is the point), and by the item's author;
- it is an event about the item, so it moves the item's seen-seq: a decision taken on an older look is
  refused until the person has seen the new comment.

`@name` in the text mentions a person of the store: it assigns nothing, and shows in their Overview
(`comment_mentions` is that projection). An `@word` naming nobody stays plain text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import (
    InputError,
    Subject,
    all_rows,
    find_actor,
    guarded,
    now_iso,
    observed_at,
)
from gatepost.store.kernel import item_subject as kernel_item_subject

COMMENT_CAPABILITY = "item.comment"
# Who may comment: item.comment, or any capability that judges an item (they discuss what they may decide).
COMMENTERS = (COMMENT_CAPABILITY, "case.close", "eval_design.review", "loop_change.apply_outside_surface",
              "loop_change.keep", "manifest.review", "proposal.review", "regression.triage")
# The items a thread may hang on: their table and key.
ITEMS: dict[str, tuple[str, str]] = {
    "case": ("cases", "id"),
    "proposal": ("proposals", "id"),
    "draft": ("manifest_drafts", "id"),
    "skill": ("skills", "name"),
    "run": ("evaluation_runs", "id"),
}
MAX_CHARS = 4000
# `@ana` or `@run-41`, not the `@` inside `ana@example.com` (a trailing `.` or `-` is the sentence's: _names)
MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9][\w.-]*)")
COLUMNS = ("event_seq", "subject_type", "subject_id", "author", "note", "mentions", "at")


def parse_item(text: str, *, field: str = "ITEM") -> tuple[str, str]:
    """`case:case-0042` → ("case", "case-0042"); bad input names what was expected."""
    kind, sep, key = (text or "").partition(":")
    if not sep or not key.strip() or kind not in ITEMS:
        raise InputError(f"{field}: expected KIND:ID with KIND one of {', '.join(ITEMS)}, got {text!r}")
    return kind, key.strip()


def item_subject(subject_type: str, subject_id: str) -> Callable[[Database], Subject]:
    """The item a comment hangs on: it exists (the kernel's one key lookup, over the items a thread may name)."""
    return kernel_item_subject(subject_type, subject_id, ITEMS)


def _names(text: str) -> list[str]:
    """The `@names` of a text, each without the punctuation that ends a sentence after it."""
    return [name.rstrip(".-") for name in MENTION.findall(text)]


def mentioned(db: Database, text: str) -> list[str]:
    """The people `text` mentions (`@name`), as the store names them, in order of first mention."""
    out: list[str] = []
    for name in _names(text):
        found = find_actor(db, name)
        if found is not None and found["kind"] == "person" and found["name"] not in out:
            out.append(found["name"])
    return out


def unknown_mentions(db: Database, text: str) -> list[str]:
    """The `@words` of `text` that name no person of the store (left as text: the CLI says so)."""
    return [name for name in dict.fromkeys(_names(text))
            if (found := find_actor(db, name)) is None or found["kind"] != "person"]


def _check_text(text: str | None) -> str:
    body = (text or "").strip()
    if not body:
        raise InputError("--note: expected the comment's text, got nothing")
    if len(body) > MAX_CHARS:
        raise InputError(f"--note: expected at most {MAX_CHARS} characters, got {len(body)}")
    return body


def add_comment(db: Database, subject_type: str, subject_id: str, text: str, *, actor: str | None,
                at: str | None = None) -> dict[str, Any]:
    """Add a comment to an item's thread, through the guarded pipeline; returns the comment as stored."""
    body = _check_text(text)
    loader = item_subject(subject_type, subject_id)
    when = observed_at(at) or now_iso()
    doing = f"comment on {subject_type} {subject_id}"
    with guarded(db, doing, actor=actor, capability=COMMENTERS if actor is not None else None, subject=loader,
                 lease=False, must_be_open=False, self_dealing=False) as act:
        people = mentioned(db, body)
        seq = act.event("comment.added", note=body, at=when, payload={"mentions": people})
        db.execute("INSERT INTO comments (event_seq, subject_type, subject_id, author, note, mentions, at)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [seq, subject_type, subject_id, act.actor, body, json.dumps(people, ensure_ascii=False), when])
        for name in people:
            db.execute("INSERT INTO comment_mentions (person, event_seq, subject_type, subject_id) VALUES (?, ?, ?, ?)",
                       [name, seq, subject_type, subject_id])
    return {"event_seq": seq, "subject_type": subject_type, "subject_id": subject_id, "author": act.actor,
            "note": body, "mentions": people, "at": when}


def _decoded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Comment rows with their mentions read from JSON."""
    for row in rows:
        row["mentions"] = json.loads(row["mentions"] or "[]")
    return rows


def thread(db: Database, subject_type: str, subject_id: str) -> list[dict[str, Any]]:
    """An item's comments, oldest first (the store's order: its sequence)."""
    return _decoded(all_rows(db.execute(
        f"SELECT {', '.join(COLUMNS)} FROM comments WHERE subject_type = ? AND subject_id = ? ORDER BY event_seq",
        [subject_type, subject_id])))


def mentions_of(db: Database, person: str | None, *, limit: int = 20) -> list[dict[str, Any]]:
    """The comments that mention `person`, newest first."""
    if not person:
        return []
    found = find_actor(db, person)
    if found is None:
        return []
    cols = ", ".join(f"c.{c}" for c in COLUMNS)
    return _decoded(all_rows(db.execute(
        f"SELECT {cols} FROM comment_mentions m JOIN comments c ON c.event_seq = m.event_seq WHERE m.person = ?"
        " ORDER BY m.event_seq DESC LIMIT ?", [found["name"], limit])))


def mention_count(db: Database, person: str | None) -> int:
    """How many comments mention `person`."""
    if not person:
        return 0
    found = find_actor(db, person)
    if found is None:
        return 0
    return int(db.execute("SELECT COUNT(*) FROM comment_mentions WHERE person = ?", [found["name"]]).fetchone()[0])
