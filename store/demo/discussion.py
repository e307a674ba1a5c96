"""Demo part: people talk on items short of deciding them.

A thread on the first case a reviewer can decide (a question to the demo's person, an answer), a remark
on a waiting proposal, a question on a pending draft, a note on a failing skill and one on an evaluation
run: each a `comment.added` event. The demo's person is mentioned twice, so their Overview lists it.
"""

import random

from sqlite_utils import Database

from gatepost.store.discussion import add_comment

ORDER = 50


def _first(db: Database, sql: str) -> str | None:
    row = db.execute(sql).fetchone()
    return str(row[0]) if row else None


def populate(db: Database, rng: random.Random, person: str) -> str:
    colleague = "bruno" if person != "bruno" else "ana"
    reviewer = "chen" if person != "chen" else "ana"
    said = 0
    case = _first(db, "SELECT id FROM cases WHERE status = 'open' AND needs_decision = 1 ORDER BY id")
    if case:
        add_comment(db, "case", case, f"@{person} the held-out set looks thin for this one; keep or wait for "
                                       "the next nightly?", actor=colleague)
        add_comment(db, "case", case, "the guard check ran on the current revision, so the evidence is fresh",
                    actor=reviewer)
        said += 2
    proposal = _first(db, "SELECT id FROM proposals WHERE status = 'waiting' ORDER BY created_at, id")
    if proposal:
        add_comment(db, "proposal", proposal, f"@{person} this overlaps with the tone rules; read them together",
                    actor=reviewer)
        said += 1
    draft = _first(db, "SELECT id FROM manifest_drafts WHERE status = 'pending' ORDER BY created_at, id")
    if draft:
        add_comment(db, "draft", draft, "min_words looks high for a weekend digest", actor=colleague)
        said += 1
    add_comment(db, "skill", "fx-digest", "the provider's outage page says it is back tomorrow", actor=reviewer)
    run = _first(db, "SELECT id FROM evaluation_runs ORDER BY started_at, id")
    if run:
        add_comment(db, "run", run, "the baseline of this run predates the rubric change", actor=colleague)
        said += 1
    return f"{said + 1} comments"
