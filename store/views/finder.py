"""Find any case, skill, manifest draft or proposal by id or title (the command palette's index)."""

from typing import Any

from sqlite_utils import Database

# (kind, console mode, SQL selecting key, title, detail; with ? for the LIKE pattern)
SOURCES = [
    ("case", "cases",
     "SELECT id, title, status || COALESCE(' · ' || outcome, '') FROM cases "
     "WHERE id LIKE :p OR title LIKE :p ORDER BY updated_at DESC LIMIT :n"),
    ("skill", "regressions",
     "SELECT s.name, s.name, COALESCE(r.state, 'not evaluated') FROM skills s "
     "LEFT JOIN regression_states r ON r.skill = s.name WHERE s.name LIKE :p ORDER BY s.name LIMIT :n"),
    ("draft", "manifests",
     "SELECT id, 'draft for ' || skill, status FROM manifest_drafts "
     "WHERE id LIKE :p OR skill LIKE :p ORDER BY created_at DESC LIMIT :n"),
    ("proposal", "proposals",
     "SELECT id, COALESCE(title, path, id), status || COALESCE(' · ' || path, '') FROM proposals "
     "WHERE id LIKE :p OR title LIKE :p OR path LIKE :p ORDER BY created_at DESC LIMIT :n"),
    ("run", "results",
     "SELECT id, 'evaluation of ' || COALESCE(skill_id, '?'), COALESCE(verdict, '') FROM evaluation_runs "
     "WHERE id LIKE :p OR skill_id LIKE :p ORDER BY started_at DESC LIMIT :n"),
]


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def find(db: Database, text: str, *, limit: int = 8) -> list[dict[str, Any]]:
    """Items whose id or title contains `text` (case-insensitive), at most `limit` of each kind."""
    pattern = f"%{_escape_like(text.strip())}%"
    found = []
    for kind, mode, sql in SOURCES:
        sql = sql.replace("LIKE :p", "LIKE :p ESCAPE '\\'")
        for key, title, detail in db.execute(sql, {"p": pattern, "n": limit}).fetchall():
            found.append({"kind": kind, "mode": mode, "key": key, "title": title or key, "detail": detail or ""})
    return found
