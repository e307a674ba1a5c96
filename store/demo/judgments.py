"""Demo part: judgments that carry forward and work assigned to people.

- `weather-brief` and `fx-digest` fail, and chen acknowledges both at once (one note, two acts); nightly
  runs keep failing.
  weather-brief fails the same assertion every night, so it stays acknowledged and quiet;
  fx-digest starts failing a new assertion and comes back to the queue, naming it.
- Items are assigned to people: cases to ana and bruno, proposals to chen, a draft to bruno, a
  regression to chen; the demo's person has one case assigned and opened it before it changed,
  so their list marks it "changed since you looked".
"""

import random

from sqlite_utils import Database

from gatepost.store import cases
from gatepost.store.batch import decide_each
from gatepost.store.flows import assign, mark_seen
from gatepost.store.skills import evaluate, import_manifest, record_run

ORDER = 45

MANIFEST = """\
weather-brief:
  min_words: 8
  required_patterns: [Forecast]
  forbidden_patterns: [as an ai]
fx-digest:
  min_words: 8
  required_patterns: [Rates]
  forbidden_patterns: [i cannot]
"""
GOOD = {"weather-brief": "Forecast for Lisbon: sunny, 24 degrees, light wind from the north, no rain expected",
        "fx-digest": "Rates today: EUR/USD 1.09, GBP/USD 1.27, USD/JPY 151.2, all within the weekly range"}
SAME_FAIL = {"weather-brief": "Outlook for Lisbon: sunny, 24 degrees, light wind from the north, no rain",
             "fx-digest": "Today: EUR/USD 1.09, GBP/USD 1.27, USD/JPY 151.2, all within the weekly range"}
NEW_FAIL = {"weather-brief": SAME_FAIL["weather-brief"],
            "fx-digest": "Today: I cannot reach the rates provider, EUR/USD unknown, GBP/USD unknown tonight"}


def _nightly(db: Database, texts: dict[str, str], day: int) -> None:
    for skill, text in texts.items():
        record_run(db, skill, text, actor="ci-nightly", at=f"2026-11-{day:02d}T03:00:00Z")
        evaluate(db, actor="ci-nightly", skill=skill)


def populate(db: Database, rng: random.Random, person: str) -> str:
    import_manifest(db, "demo-judgments.yaml", actor="bruno", text=MANIFEST)
    for day in (10, 11, 12):
        _nightly(db, GOOD, day)
    _nightly(db, SAME_FAIL, 13)
    # one cause, one note: acknowledged together (each skill its own act and event, as `gatepost decide skill
    # acknowledge --ids weather-brief,fx-digest` or Space-marking both on Regressions does)
    acked = decide_each(db, "skill", "acknowledge", ["weather-brief", "fx-digest"], actor="chen",
                        note="the provider renamed its heading; fix queued")
    if not all(r.done for r in acked):
        raise RuntimeError("; ".join(r.message for r in acked if not r.done))
    _nightly(db, SAME_FAIL, 14)  # the same assertion fails: both stay acknowledged
    _nightly(db, NEW_FAIL, 15)  # fx-digest now refuses too: back in the queue, naming forbidden_patterns

    open_cases = [r[0] for r in db.execute(
        "SELECT id FROM cases WHERE status = 'open' AND author NOT IN (?, 'ana', 'bruno') ORDER BY id LIMIT 6",
        [person]).fetchall()]
    waiting = [r[0] for r in db.execute(
        "SELECT id FROM proposals WHERE status = 'waiting' ORDER BY created_at, id LIMIT 3").fetchall()]
    drafts = [r[0] for r in db.execute(
        "SELECT id FROM manifest_drafts WHERE status = 'pending' ORDER BY created_at, id LIMIT 2").fetchall()]
    done = 0
    for case_id, who in zip(open_cases, ["ana", "bruno", "ana", "bruno", person, person], strict=False):
        assign(db, "case", case_id, who, actor="bruno", note="yours this week")
        done += 1
    for pid in waiting:
        assign(db, "proposal", pid, "chen", actor="ana", note="chen owns the procedures")
        done += 1
    for draft_id in drafts[:1]:
        assign(db, "draft", draft_id, "bruno", actor="bruno", note="manifest owner")
        done += 1
    assign(db, "skill", "fx-digest", "chen", actor="bruno", note="came back with a new failing assertion")
    done += 1
    # the demo's person opened their first assigned case; then the independent checker added evidence
    mine = [c for c, who in zip(open_cases, ["ana", "bruno", "ana", "bruno", person, person], strict=False)
            if who == person]
    if mine:
        mark_seen(db, person, "case", mine[0])
        cases.add_evidence(db, mine[0], kind="guard_check", result="clean", producer="run-53")
    return f"2 acknowledged regressions (one quiet, one back), {done} items assigned"
