"""An approved draft contradicted later: a run recorded after the approval (by
store sequence) fails an assertion that every run the draft was drawn from passed.

A draft's claims are its assertions, drawn from (and holding on) its sampled runs. A later
successful run that fails one of them says the sample no longer supports it. Assertions already
failing a sampled run at approval (shown before approving) are not a contradiction (a word bound only
when a later run falls outside the sample's range), nor is a draft
whose version is no longer the skill's active one.
"""

from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import one_of

from .assertions import CHECKS, word_count
from .bootstrapping import sample_failures
from .manifests import get_draft, list_drafts
from .types import Draft, DraftRow

# A word bound drawn at p25 fails the shortest sampled runs by design: a later run
# contradicts it only when it falls outside what the sample held (shorter than the shortest).
WORD_BOUNDS = ("min_words", "max_words")


def _clock(at: str | None, other: str | None) -> str:
    if not at:
        return "?"
    return at[11:16] if other and other[:10] == at[:10] else at[:16].replace("T", " ")


def draft_contradiction(db: Database, draft: Draft) -> dict[str, Any] | None:
    """None, or the later run that fails an approved draft's assertion, with its `line`
    ("approved at 08:00; run r-9 came back failing min_words at 18:00")."""
    if draft.get("status") != "approved":
        return None
    approval = db.execute("SELECT seq, at FROM events WHERE subject_type = 'draft' AND subject_id = ? AND"
                          " kind = 'draft.approved' ORDER BY seq DESC LIMIT 1", [draft["id"]]).fetchone()
    active = db.execute("SELECT v.draft_id FROM manifests m JOIN manifest_versions v ON v.id = m.active_version_id"
                        " WHERE m.skill = ?", [draft["skill"]]).fetchone()
    if approval is None or active is None or active[0] != draft["id"]:
        return None
    seq, at = approval
    later = db.execute("SELECT id, output, recorded_at, event_seq FROM skill_runs WHERE skill = ? AND status = 'ok'"
                       " AND event_seq > ? ORDER BY event_seq", [draft["skill"], seq]).fetchall()
    if not later:
        return None
    known = {f["assertion"] for f in sample_failures(db, draft)}
    checked = {k: v for k, v in (draft.get("assertions") or {}).items()
               if k in CHECKS and (k not in known or k in WORD_BOUNDS)}
    ids = [r["id"] for r in (draft.get("evidence") or {}).get("runs", [])]
    clause, values = one_of("id", ids)
    counts = [r[0] for r in db.execute(f"SELECT word_count FROM skill_runs WHERE {clause}", values).fetchall()
              if r[0] is not None]
    for run_id, output, recorded_at, run_seq in later:
        for key, value in checked.items():
            passed, message = CHECKS[key](output or "", value)
            if not passed and key in known and counts:  # the sample fell outside it too: only worse counts
                words = word_count(output or "")
                passed = min(counts) <= words if key == "min_words" else words <= max(counts)
            if not passed:
                line = (f"approved at {_clock(at, None)}; run {run_id} came back failing {key} at "
                        f"{_clock(recorded_at, at)}")
                return {"decided": "approved", "decided_at": at, "decided_seq": seq, "kind": "skill_run",
                        "result": "failing", "producer": None, "evidence_id": run_id, "recorded_at": recorded_at,
                        "recorded_seq": run_seq, "claims": {key: ["passing", "failing"]}, "message": message,
                        "line": line}
    return None


def contradicted_draft_ids(db: Database, ids: list[str] | None = None) -> list[str]:
    """The approved drafts (of `ids`, or all) that a later run contradicts, in id order."""
    sql = ("SELECT d.id FROM manifest_drafts d JOIN manifests m ON m.skill = d.skill JOIN manifest_versions v"
           " ON v.id = m.active_version_id AND v.draft_id = d.id WHERE d.status = 'approved'")
    params: list[Any] = []
    if ids is not None:
        if not ids:
            return []
        clause, params = one_of("d.id", ids)
        sql += f" AND {clause}"
    return [r[0] for r in db.execute(sql + " ORDER BY d.id", params).fetchall()
            if (draft := get_draft(db, r[0])) is not None and draft_contradiction(db, draft) is not None]


def contradicted_drafts(db: Database, *, search: str | None = None, limit: int = 100,
                        offset: int = 0) -> tuple[list[DraftRow], int]:
    """One page of the approved drafts a later run contradicts (list_drafts' shape), and how many."""
    return list_drafts(db, status=None, search=search, limit=limit, offset=offset, ids=contradicted_draft_ids(db))
