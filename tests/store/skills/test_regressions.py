"""Regression states: every transition and severity boundary, the urgency order, and triage."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.kernel import InputError, RefusedError, add_actor, list_events
from gatepost.store.skills import (
    URGENCY,
    acknowledge,
    evaluate,
    flag_mismatch,
    get_draft,
    import_manifest,
    list_skills,
    next_state,
    record_run,
    replay,
    severity_for,
    urgency,
)

P, F = True, False


@pytest.mark.parametrize("streak,severity", [(0, "low"), (1, "low"), (2, "medium"), (4, "medium"),
                                             (5, "medium"), (8, "medium"), (17, "medium"), (29, "medium"),
                                             (30, "high"), (100, "high")])
def test_severity_boundaries(streak, severity):
    assert severity_for(streak) == severity
    step = next_state(0, streak, False)
    assert (step.state, step.severity, step.broken_streak) == ("NEW_FAIL", severity, streak)


@pytest.mark.parametrize("history,state,severity,fails,passes", [
    ([P], "PASS", None, 0, 1),  # first run passes
    ([F], "NEW_FAIL", "low", 1, 0),  # first run fails: the pass streak broken is 0
    ([P, P], "PASS", None, 0, 2),
    ([F, P], "NEW_PASS", None, 0, 1),
    ([F, P, P], "PASS", None, 0, 2),
    ([P, F], "NEW_FAIL", "low", 1, 0),
    ([P, P, F], "NEW_FAIL", "medium", 1, 0),
    ([P, P, P, P, F], "NEW_FAIL", "medium", 1, 0),
    ([P] * 30 + [F], "NEW_FAIL", "high", 1, 0),
    ([P] * 17 + [F], "NEW_FAIL", "medium", 1, 0),
    ([F, F], "STABLE_FAIL", None, 2, 0),
    ([P, F, F, F], "STABLE_FAIL", None, 3, 0),
    ([F, F, F, F], "CHRONIC", None, 4, 0),
    ([F] * 9, "CHRONIC", None, 9, 0),
    ([F] * 6 + [P], "NEW_PASS", None, 0, 1),
    ([P] * 8 + [F, P, F], "NEW_FAIL", "low", 1, 0),
])
def test_every_transition(history, state, severity, fails, passes):
    step = replay(history)
    assert (step.state, step.severity, step.fail_streak, step.pass_streak) == (state, severity, fails, passes)


def test_urgency_order():
    order = sorted(URGENCY, key=URGENCY.get)
    assert order == [("NEW_FAIL", "high"), ("NEW_FAIL", "medium"), ("NEW_FAIL", "low"), ("CHRONIC", None),
                     ("STABLE_FAIL", None), ("NEW_PASS", None), ("PASS", None)]
    assert urgency("CHRONIC", "high") == 3
    assert urgency(None) == 7


def _reference(history):
    """The rules written a second way: from the whole history, not from the previous streaks."""
    last = history[-1]
    run = 0
    for outcome in reversed(history):
        if outcome != last:
            break
        run += 1
    before = history[:len(history) - run]
    if last:
        return ("NEW_PASS" if run == 1 and before else "PASS"), None
    broken = 0
    for outcome in reversed(before):
        if not outcome:
            break
        broken += 1
    if run == 1:
        return "NEW_FAIL", ("low" if broken <= 1 else "medium" if broken <= 29 else "high")
    return ("STABLE_FAIL" if run <= 3 else "CHRONIC"), None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_state_machine_matches_the_rules_read_from_the_whole_history(history):
    step = replay(history)
    assert (step.state, step.severity) == _reference(history)
    assert step.fail_streak == 0 or step.pass_streak == 0


# --- triage, through the store ----------------------------------------------------------------------

def _failing_skill(db, skill="token-movers", runs=3, passing=1):
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage", "evidence.record"])
    add_actor(db, "dara", "person", [])
    import_manifest(db, "m.yaml", actor="bruno", text=f"{skill}:\n  min_words: 5\n  required_patterns: [Top]\n")
    for i in range(runs):
        good = i < passing
        text = "Top movers today: SOL ARB TIA PEPE LINK OP" if good else "Top movers down"
        record_run(db, skill, text, actor="bruno", at=f"2026-05-0{i + 1}T08:00:00Z")
        evaluate(db, actor="bruno", skill=skill)


def test_list_is_ordered_by_urgency(db):
    add_actor(db, "bruno", "person", ["manifest.review", "evidence.record"])
    text = "".join(f"{s}:\n  min_words: 3\n" for s in ("a-pass", "b-newfail", "c-chronic", "d-stable", "e-high"))
    import_manifest(db, "m.yaml", actor="bruno", text=text)
    plans = {"a-pass": [P, P], "b-newfail": [P, F], "c-chronic": [F] * 4, "d-stable": [F, F],
             "e-high": [P] * 30 + [F]}
    for skill, plan in plans.items():
        for i, ok in enumerate(plan):
            record_run(db, skill, "one two three four" if ok else "short", actor="bruno",
                       at=f"2026-05-{i + 1:02d}T08:00:00Z")
            evaluate(db, actor="bruno", skill=skill)
    record_run(db, "f-unevaluated", "text", actor="bruno")
    rows, total = list_skills(db)
    assert total == 6
    assert [(r["skill"], r["state"]) for r in rows] == [
        ("e-high", "NEW_FAIL"), ("b-newfail", "NEW_FAIL"), ("c-chronic", "CHRONIC"), ("d-stable", "STABLE_FAIL"),
        ("a-pass", "PASS"), ("f-unevaluated", None)]
    assert [r["severity"] for r in rows[:2]] == ["high", "low"]
    rows, total = list_skills(db, state="NEW_FAIL", limit=1, offset=1)
    assert total == 2 and [r["skill"] for r in rows] == ["b-newfail"]
    rows, total = list_skills(db, search="chron")
    assert [r["skill"] for r in rows] == ["c-chronic"]


def test_acknowledge_records_an_event_with_the_note(db):
    _failing_skill(db)
    seq = acknowledge(db, "token-movers", actor="bruno", note="seen; repair queued")
    [event] = list_events(db, kind="regression.acknowledged")
    assert (event["seq"], event["actor"], event["note"]) == (seq, "bruno", "seen; repair queued")
    [row], _ = list_skills(db)
    assert row["acknowledged"] is True


def test_acknowledge_needs_a_note_and_the_capability(db):
    _failing_skill(db)
    with pytest.raises(InputError, match="note is required"):
        acknowledge(db, "token-movers", actor="bruno", note="  ")
    with pytest.raises(RefusedError, match="dara does not hold regression.triage"):
        acknowledge(db, "token-movers", actor="dara", note="x")
    assert list_events(db, kind="regression.acknowledged") == []


def test_acknowledging_a_passing_skill_is_refused(db):
    _failing_skill(db, runs=1, passing=1)
    with pytest.raises(RefusedError, match="is PASS"):
        acknowledge(db, "token-movers", actor="bruno", note="x")


def test_mismatch_records_an_event_and_starts_a_bootstrap_draft(db):
    _failing_skill(db, runs=6, passing=6)
    record_run(db, "token-movers", "Top", actor="bruno", at="2026-05-09T08:00:00Z")
    evaluate(db, actor="bruno")
    seq, draft, why = flag_mismatch(db, "token-movers", actor="bruno", note="threshold too strict")
    assert why is None and draft["status"] == "pending" and draft["origin"] == "mismatch"
    assert get_draft(db, draft["id"])["author"] == "bruno"
    [event] = list_events(db, kind="regression.mismatch")
    assert event["seq"] == seq and event["note"] == "threshold too strict"


def test_mismatch_without_enough_runs_is_recorded_and_says_why_no_draft(db):
    _failing_skill(db, runs=3, passing=1)
    seq, draft, why = flag_mismatch(db, "token-movers", actor="bruno", note="the manifest is wrong")
    assert draft is None and "bootstrap needs the last 5" in why
    assert len(list_events(db, kind="regression.mismatch")) == 1
    assert list_events(db, kind="draft.created") == []
