"""Manifest versions per skill and the drafts a person reviews before one becomes active.

Versions are records (append-only); `manifests` says which version of each
skill is active. A person's manifest file becomes active on import; a draft
(from bootstrap, a mismatch flag or an edit) becomes active only when a
person approves it. An edit never changes a draft: it saves a new draft,
authored by the editor, whose parent is the draft edited (now superseded).
"""

import functools
import json
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, cast

from sqlite_utils import Database

from gatepost.store import rubrics
from gatepost.store.kernel import (
    Act,
    InputError,
    Subject,
    all_rows,
    as_found,
    guarded,
    now_iso,
    one_of,
    one_row,
)

from .assertions import (
    check_skill_name,
    parse_manifest,
    read_manifest_file,
    to_yaml,
    validate_assertions,
)
from .types import Draft, DraftRow

DRAFT_STATUSES = ("pending", "approved", "rejected", "superseded")
ORIGINS = ("bootstrap", "mismatch", "edit")


def ensure_skill(db: Database, name: str, *, at: str) -> str:
    """Skills are registered on first sight (a run, a manifest, a draft, a state file), inside that act, `at` the
    time of its event naming the skill: the first event naming a skill is what `gatepost verify` rebuilds its
    row from."""
    check_skill_name(name)
    if not db.execute("SELECT 1 FROM skills WHERE name = ?", [name]).fetchone():
        db.execute("INSERT INTO skills (name, family, created_at) VALUES (?, NULL, ?)", [name, at])
    return name


def _version_row(row: dict[str, Any] | None, *, with_yaml: bool = True) -> dict[str, Any] | None:
    if row is None:
        return None
    out = dict(row)
    if with_yaml:
        out["yaml"] = _yaml_of(out["skill"], out["assertions"])
    out["assertions"] = json.loads(out["assertions"])
    return out


@functools.lru_cache(maxsize=512)
def _yaml_of(skill: str, assertions: str) -> str:
    """A skill's stored assertions (their JSON) as YAML: the same text for the same assertions, made once
    (PyYAML's dumper costs half a millisecond, and every look at a draft or a version shows it)."""
    return to_yaml(skill, json.loads(assertions))


def active_version(db: Database, skill: str, *, with_yaml: bool = True) -> dict[str, Any] | None:
    """The active manifest version of a skill, with its assertions parsed (and as YAML), or None."""
    rows = db.execute(
        "SELECT v.* FROM manifests m JOIN manifest_versions v ON v.id = m.active_version_id WHERE m.skill = ?",
        [skill])
    return _version_row(one_row(rows), with_yaml=with_yaml)


def get_version(db: Database, version_id: int) -> dict[str, Any] | None:
    return _version_row(one_row(db.execute("SELECT * FROM manifest_versions WHERE id = ?", [version_id])))


def list_versions(db: Database, skill: str) -> list[dict[str, Any]]:
    """Every version of a skill's manifest, oldest first, marking the active one."""
    active = db.execute("SELECT active_version_id FROM manifests WHERE skill = ?", [skill]).fetchone()
    out: list[dict[str, Any]] = []
    for row in db["manifest_versions"].rows_where("skill = ?", [skill], order_by="version"):
        version = cast(dict[str, Any], _version_row(row))  # a stored row, not None
        version["active"] = bool(active and active[0] == row["id"])
        out.append(version)
    return out


def _add_version(db: Database, skill: str, assertions: dict[str, Any], *, author: str, source: str,
                 draft_id: str | None, event_seq: int) -> dict[str, Any]:
    number = db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM manifest_versions WHERE skill = ?",
                        [skill]).fetchone()[0]
    at = now_iso()
    # plain SQL: sqlite-utils' table helpers read the schema before every write (most of an approval's cost)
    version_id = db.execute(
        "INSERT INTO manifest_versions (skill, version, assertions, source, draft_id, author, created_at, event_seq)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [skill, number, json.dumps(assertions, ensure_ascii=False), source,
                                             draft_id, author, at, event_seq]).lastrowid
    db.execute("INSERT INTO manifests (skill, active_version_id, updated_at) VALUES (?, ?, ?) ON CONFLICT (skill)"
               " DO UPDATE SET active_version_id = excluded.active_version_id, updated_at = excluded.updated_at",
               [skill, version_id, at])
    return cast(dict[str, Any], get_version(db, cast(int, version_id)))  # the version just inserted


def import_manifest(db: Database, path: str, *, actor: str, text: str | None = None) -> list[dict[str, Any]]:
    """Record a person's manifest as the active version of each skill in it (manifest.review).

    A skill whose assertions equal its active version's gets no new version;
    it is reported with `unchanged: True`.
    """
    manifest = parse_manifest(text, source=str(path)) if text is not None else read_manifest_file(path)
    results = []
    with guarded(db, f"import manifest {path}", actor=actor, capability="manifest.review") as act:
        when = now_iso()
        for skill, assertions in manifest.items():
            ensure_skill(db, skill, at=when)
            active = active_version(db, skill, with_yaml=False)
            if active and active["assertions"] == assertions:
                results.append({**active, "unchanged": True})
                continue
            version = _add_version(db, skill, assertions, author=act.actor or actor, source="import",
                                   draft_id=None, event_seq=act.next_seq())
            act.event("manifest.imported", subject_type="skill", subject_id=skill, seal=True, at=when,
                      payload={"file": str(path), "assertions": assertions, "version_id": version["id"]})
            results.append({**version, "unchanged": False})
    return results


# --- drafts ----------------------------------------------------------------------------------


def _draft_row(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A draft as people read it: `yaml` is its assertions as approval would make them active (the parsed
    values: `min_words: 0200` shows as 128, a key given twice is gone), `raw_yaml` the text as written."""
    if row is None:
        return None
    out = dict(row)
    out["raw_yaml"] = out["yaml"]
    out["yaml"] = _yaml_of(out["skill"], out["assertions"])
    out["assertions"] = json.loads(out["assertions"])
    out["evidence"] = json.loads(out["evidence"]) if out.get("evidence") else None
    return out


def get_draft(db: Database, draft_id: str) -> Draft | None:
    row = one_row(db.execute("SELECT * FROM manifest_drafts WHERE id = ?", [draft_id]))
    return cast(Draft | None, _draft_row(row))  # the table's columns and raw_yaml


def draft_subject(draft_id: str) -> Callable[[Database], Subject]:
    """The guarded pipeline's view of a draft: it is open while pending."""

    def load(db: Database) -> Subject:
        # read once for all the rehearsals of the draft's decisions (kernel.as_found); the row is the act's copy
        draft = as_found(db, ("draft", draft_id), lambda: get_draft(db, draft_id))
        if draft is None:
            raise InputError(f"draft {draft_id}: no such draft in this store (gatepost manifest drafts)")
        closed = None if draft["status"] == "pending" else f"draft {draft_id} is {draft['status']}, not pending"
        return Subject("draft", draft_id, "draft", dict(draft), closed=closed)

    return load


def _review(db: Database, doing: str, draft_id: str, actor: str | None,
            expected_seq: int | None) -> AbstractContextManager[Act]:
    """A reviewer's act on a pending draft: the guarded pipeline under manifest.review."""
    return guarded(db, doing, actor=actor, capability="manifest.review", subject=draft_subject(draft_id),
                   seen_seq=expected_seq)


def create_draft(db: Database, skill: str, assertions: dict[str, Any], *, author: str, origin: str,
                 evidence: dict[str, Any] | None = None, parent_id: str | None = None, note: str | None = None,
                 yaml_text: str | None = None) -> dict[str, Any]:
    """Store a pending draft (never active until a person approves it)."""
    if origin not in ORIGINS:
        raise InputError(f"draft origin: expected one of {', '.join(ORIGINS)}, got {origin!r}")
    assertions = validate_assertions(skill, assertions, source="draft")
    with guarded(db, f"draft a manifest for {skill}", actor=author, known=False) as act:
        when = now_iso()
        ensure_skill(db, skill, at=when)
        number = db.execute("SELECT COUNT(*) + 1 FROM manifest_drafts").fetchone()[0]
        draft_id = f"draft-{number:04d}"
        while db.execute("SELECT 1 FROM manifest_drafts WHERE id = ?", [draft_id]).fetchone():
            number += 1
            draft_id = f"draft-{number:04d}"
        active = active_version(db, skill, with_yaml=False)
        row = {"skill": skill, "assertions": assertions,
               "yaml": yaml_text if yaml_text is not None else to_yaml(skill, assertions),
               "evidence": evidence, "author": act.actor or author, "origin": origin, "parent_id": parent_id,
               "based_on_version_id": active["id"] if active else None}
        seq = act.event("draft.created", subject_type="draft", subject_id=draft_id, note=note, at=when,
                        payload={**row, "based_on_version": active["version"] if active else None})
        stored = {**row, "id": draft_id, "assertions": json.dumps(assertions, ensure_ascii=False),
                  "evidence": json.dumps(evidence, ensure_ascii=False) if evidence is not None else None,
                  "status": "pending", "created_at": when, "decided_at": None, "event_seq": seq}
        db.execute(f"INSERT INTO manifest_drafts ({', '.join(stored)}) VALUES ({', '.join('?' * len(stored))})",
                   list(stored.values()))
    return cast(dict[str, Any], get_draft(db, draft_id))  # the draft just inserted


def _set_status(db: Database, draft_id: str, status: str, seq: int) -> None:
    """The draft's status and when it was decided: its deciding event's (verify rebuilds both from it)."""
    at = db.execute("SELECT at FROM events WHERE seq = ?", [seq]).fetchone()[0]
    db.execute("UPDATE manifest_drafts SET status = ?, decided_at = ? WHERE id = ?", [status, at, draft_id])


def approve_draft(db: Database, draft_id: str, *, actor: str, note: str | None = None,
                  expected_seq: int | None = None, answers: Mapping[str, Any] | None = None,
                  answers_later: bool = False) -> dict[str, Any]:
    """A person's approval makes the draft the skill's active version; its sibling drafts are superseded.
    When the drafts' queue carries a rubric, `answers` answer it (store/rubrics)."""
    doing = f"approve {draft_id}"
    with _review(db, doing, draft_id, actor, expected_seq) as act:
        draft = act.subject.row if act.subject and act.subject.row else {}
        given = rubrics.answer(db, "draft", answers, doing=doing, answers_later=answers_later)
        version = _add_version(db, draft["skill"], draft["assertions"], author=act.actor or actor, source="draft",
                               draft_id=draft_id, event_seq=act.next_seq())
        seq = act.event("draft.approved", note=(note or "").strip() or None, seal=True,
                        payload={"skill": draft["skill"], "version_id": version["id"],
                                 **(given.payload() if given else {})})
        rubrics.record_answers(db, given, subject_type="draft", subject_id=draft_id, decision="approve",
                               event_seq=seq, person=act.actor)
        _set_status(db, draft_id, "approved", seq)
        for (other,) in db.execute("SELECT id FROM manifest_drafts WHERE skill = ? AND status = 'pending'",
                                   [draft["skill"]]).fetchall():
            seq = act.event("draft.superseded", subject_type="draft", subject_id=other,
                            payload={"by": draft_id, "version": version["version"]})
            _set_status(db, other, "superseded", seq)
    return version


def reject_draft(db: Database, draft_id: str, *, actor: str, note: str, expected_seq: int | None = None,
                 answers: Mapping[str, Any] | None = None, answers_later: bool = False) -> dict[str, Any]:
    """A rejection needs a note: the next draft's author must know what was wrong. When the drafts' queue
    carries a rubric, `answers` answer it (store/rubrics)."""
    doing = f"reject {draft_id}"
    if not (note or "").strip():
        raise InputError(f"{doing}: --note: a note is required when rejecting a draft")
    with _review(db, doing, draft_id, actor, expected_seq) as act:
        draft = act.subject.row if act.subject and act.subject.row else {}
        given = rubrics.answer(db, "draft", answers, doing=doing, answers_later=answers_later)
        seq = act.event("draft.rejected", note=note.strip(),
                        payload={"skill": draft["skill"], **(given.payload() if given else {})})
        rubrics.record_answers(db, given, subject_type="draft", subject_id=draft_id, decision="reject",
                               event_seq=seq, person=act.actor)
        _set_status(db, draft_id, "rejected", seq)
    return cast(dict[str, Any], get_draft(db, draft_id))  # the draft just rejected (drafts are never deleted)


def parse_draft_yaml(text: str, skill: str, *, source: str = "draft") -> dict[str, Any]:
    """The assertions of an edited draft's YAML, which must hold exactly its own skill."""
    manifest = parse_manifest(text, source=source)
    if list(manifest) != [skill]:
        raise InputError(f"{source}: expected exactly one skill, {skill}, got {', '.join(manifest) or 'none'}")
    return manifest[skill]


def edit_draft(db: Database, draft_id: str, yaml_text: str, *, actor: str, note: str | None = None,
               expected_seq: int | None = None) -> dict[str, Any]:
    """Save an edit as a NEW pending draft by the editor; the edited draft becomes superseded."""
    doing = f"edit {draft_id}"
    with _review(db, doing, draft_id, actor, expected_seq) as act:
        draft = act.subject.row if act.subject and act.subject.row else {}
        assertions = parse_draft_yaml(yaml_text, draft["skill"], source=f"edit of {draft_id}")
        if assertions == draft["assertions"]:
            raise InputError(f"{doing}: the edit changes no assertion; nothing to save")
        new = create_draft(db, draft["skill"], assertions, author=act.actor or actor, origin="edit", evidence=draft["evidence"],
                           parent_id=draft_id, note=note, yaml_text=yaml_text)
        seq = act.event("draft.superseded", payload={"by": new["id"]})
        _set_status(db, draft_id, "superseded", seq)
    return cast(dict[str, Any], get_draft(db, new["id"]))  # the draft just created


def check_edit(db: Database, draft_id: str, *, actor: str, expected_seq: int | None = None) -> None:
    """What an edit meets before its YAML is read (the review pipeline an edit runs), writing nothing itself:
    a rehearsal of `edit_draft` asks it, having no edited YAML to offer."""
    with _review(db, f"edit {draft_id}", draft_id, actor, expected_seq):
        pass


def _draft_where(status: str | None, search: str | None, skill: str | None,
                 ids: list[str] | None = None) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if ids is not None:
        clause, values = one_of("id", ids)
        clauses.append(clause)
        params.extend(values)
    if status:
        if status not in DRAFT_STATUSES:
            raise InputError(f"--status: expected one of {', '.join(DRAFT_STATUSES)}, got {status!r}")
        clauses.append("status = ?")
        params.append(status)
    if skill:
        clauses.append("skill = ?")
        params.append(skill)
    if search:
        clauses.append("(id LIKE ? OR skill LIKE ? OR author LIKE ?)")
        params.extend([f"%{search}%"] * 3)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def list_drafts(db: Database, *, status: str | None = "pending", search: str | None = None,
                skill: str | None = None, limit: int = 100, offset: int = 0,
                ids: list[str] | None = None) -> tuple[list[DraftRow], int]:
    """One page of drafts, newest first, and the total matching (only `ids` when given)."""
    where, params = _draft_where(status, search, skill, ids)
    total = db.execute(f"SELECT COUNT(*) FROM manifest_drafts{where}", params).fetchone()[0]
    cursor = db.execute(
        "SELECT id, skill, origin, author, status, parent_id, based_on_version_id, created_at, decided_at,"
        f" assertions FROM manifest_drafts{where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset])
    rows = all_rows(cursor)
    for row in rows:  # the parsed assertions: what approval makes active, never the text as written
        row["assertions"] = json.loads(row["assertions"])
    return cast(list[DraftRow], rows), total  # the columns selected are DraftRow's keys


def draft_history(db: Database, draft_id: str) -> list[dict[str, Any]]:
    """The events about a draft, oldest first (created, approved/rejected/superseded, with notes)."""
    cursor = db.execute("SELECT seq, at, actor, kind, note FROM events WHERE subject_type = 'draft'"
                        " AND subject_id = ? ORDER BY seq", [draft_id])
    return all_rows(cursor)
