"""Regression states of skills: the rules of DESIGN.md, and the triage a person records on them.

After each evaluation a skill's state follows from its previous streaks and
whether the run passed:
- pass after a fail -> NEW_PASS; pass after a pass (or a first run) -> PASS;
- fail with a fail streak of 1 -> NEW_FAIL, severity from the pass streak it
  broke: 0-1 low, 2-29 medium, >= 30 high (upstream's worked example calls
  broken streaks of 8 and 17 medium; docs/formats.md says why these bands);
- fail streak 2 or 3 -> STABLE_FAIL (the manifest may mismatch the skill);
- fail streak > 3 -> CHRONIC: a recommendation for operator review, never a
  new filing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

# its own package face, for bootstrap: a manifest draft (and the YAML and RE2 it needs) loads only on a mismatch
from gatepost.store import kernel, rubrics, skills
from gatepost.store.kernel import (
    InputError,
    RefusedError,
    now,
    now_iso,
    one_row,
    parse_iso,
    transaction,
)

if TYPE_CHECKING:
    from sqlite_utils import Database

    from gatepost.store.kernel import Act, Subject

STATES = ("NEW_FAIL", "CHRONIC", "STABLE_FAIL", "NEW_PASS", "PASS")
FAILING_STATES = ("NEW_FAIL", "STABLE_FAIL", "CHRONIC")
SEVERITIES = ("high", "medium", "low")
HIGH_FROM = 30  # a broken pass streak this long is high; 2 up to this is medium
# Sort key of the Regressions list: lower is more urgent.
URGENCY = {("NEW_FAIL", "high"): 0, ("NEW_FAIL", "medium"): 1, ("NEW_FAIL", "low"): 2,
           ("CHRONIC", None): 3, ("STABLE_FAIL", None): 4, ("NEW_PASS", None): 5, ("PASS", None): 6}
NOT_EVALUATED = 7
MEANING = {
    "NEW_FAIL": "passing last run, failing now",
    "CHRONIC": "failing more than 3 runs in a row: recommend operator review (no new filing)",
    "STABLE_FAIL": "still failing: the manifest may mismatch the skill, flag it for review",
    "NEW_PASS": "failing last run, passing now: a win to record",
    "PASS": "passing",
}


class Transition(NamedTuple):
    """A skill's regression state after one more outcome. (A named tuple, not a dataclass: this module loads for
    a report, and a dataclass's generated methods, with the dataclasses module, cost a command's start.)"""

    state: str
    severity: str | None
    fail_streak: int
    pass_streak: int
    broken_streak: int | None  # the pass streak a NEW_FAIL broke

    @property
    def urgency(self) -> int:
        return urgency(self.state, self.severity)


def severity_for(broken_pass_streak: int) -> str:
    """How bad a NEW_FAIL is, from the pass streak it broke: low 0-1 (it had barely started passing),
    medium 2-29 (a regression of a working skill; BankrBot's example: 8 and 17 are medium), high from
    HIGH_FROM (a month of daily passes broken: something long relied on)."""
    if broken_pass_streak >= HIGH_FROM:
        return "high"
    if broken_pass_streak >= 2:
        return "medium"
    return "low"


def urgency(state: str | None, severity: str | None = None) -> int:
    if state is None:
        return NOT_EVALUATED
    return URGENCY.get((state, severity if state == "NEW_FAIL" else None), NOT_EVALUATED)


def next_state(fail_streak: int, pass_streak: int, passed: bool) -> Transition:
    """The state after one more evaluation, from the streaks before it."""
    if passed:
        return Transition("NEW_PASS" if fail_streak > 0 else "PASS", None, 0, pass_streak + 1, None)
    fails = fail_streak + 1
    if fails == 1:
        return Transition("NEW_FAIL", severity_for(pass_streak), 1, 0, pass_streak)
    if fails <= 3:
        return Transition("STABLE_FAIL", None, fails, 0, None)
    return Transition("CHRONIC", None, fails, 0, None)


def replay(outcomes: list[bool]) -> Transition | None:
    """The state after a whole history of pass/fail outcomes, oldest first."""
    state = None
    fails = passes = 0
    for passed in outcomes:
        state = next_state(fails, passes, passed)
        fails, passes = state.fail_streak, state.pass_streak
    return state


def check_state(state: str, severity: str | None, fail_streak: int, pass_streak: int, *, where: str) -> None:
    """Refuse a (state, severity, streaks) combination the rules could never produce."""
    if state not in STATES:
        raise InputError(f"{where}: state: expected one of {', '.join(STATES)}, got {state!r}")
    if state == "NEW_FAIL":
        if severity not in SEVERITIES:
            raise InputError(f"{where}: severity: NEW_FAIL needs one of {', '.join(SEVERITIES)}, got {severity!r}")
    elif severity is not None:
        raise InputError(f"{where}: severity: only NEW_FAIL has a severity, {state} has {severity!r}")
    expected = {"NEW_FAIL": (1, 1), "STABLE_FAIL": (2, 3), "CHRONIC": (4, None)}
    if state in expected:
        low, high = expected[state]
        if fail_streak < low or (high is not None and fail_streak > high) or pass_streak != 0:
            raise InputError(f"{where}: {state} needs fail_streak {low}{'–' + str(high) if high and high != low else ''}"
                             f"{'' if high else '+'} and pass_streak 0, got {fail_streak} and {pass_streak}")
    elif fail_streak != 0 or pass_streak < 1:
        raise InputError(f"{where}: {state} needs fail_streak 0 and pass_streak >= 1, got {fail_streak} and {pass_streak}")


def get_state(db: Database, skill: str) -> dict[str, Any] | None:
    row = one_row(db.execute("SELECT * FROM regression_states WHERE skill = ?", [skill]))
    if row is None:
        return None
    row["failing"] = json.loads(row["failing"] or "[]")
    return row


def write_state(db: Database, skill: str, transition: Transition, *, last_run: str | None,
                last_run_id: str | None, last_eval_id: int | None, failing: list[str]) -> None:
    """Upsert the projection row of one skill; call inside the transaction of its event.

    An acknowledgement carries forward: while the skill keeps failing and every failing assertion is
    one the acknowledgement covered, the new evaluation stays acknowledged. A newly failing assertion
    ends it: the skill is back in the queue and `returned_because` names those assertions.
    """
    previous = get_state(db, skill)
    row, acknowledged, covered = state_row(previous, skill, transition, last_run=last_run, last_run_id=last_run_id,
                             last_eval_id=last_eval_id, failing=failing)
    if acknowledged and previous is not None:  # said in the audit trail: no person acknowledged this eval
        kernel.append_event(db, "regression.carried", actor=None, subject_type="skill", subject_id=skill,
                     note="acknowledgement carried forward: the same assertions fail",
                     payload={"eval_id": last_eval_id, "from_eval_id": previous["acknowledged_eval_id"],
                              "failing": failing, "covered": covered})
    row["updated_at"] = now_iso()
    cols = ", ".join(row)
    updates = ", ".join(f"{c} = excluded.{c}" for c in row if c != "skill")
    db.execute(f"INSERT INTO regression_states ({cols}) VALUES ({', '.join('?' * len(row))})"
               f" ON CONFLICT(skill) DO UPDATE SET {updates}", list(row.values()))


def state_row(previous: dict[str, Any] | None, skill: str, transition: Transition, *, last_run: str | None,
              last_run_id: str | None, last_eval_id: int | None,
              failing: list[str]) -> tuple[dict[str, Any], bool, list[str]]:
    """The regression_states row after one evaluation (as stored, but updated_at), from the row before it
    (as `get_state` reads it): what write_state stores and what verify rebuilds from the events. Also
    whether an acknowledgement carried forward, and the assertions it covers."""
    acknowledged, covered, returned = carry_forward(previous, transition.state, failing)
    row = {
        "skill": skill,
        "state": transition.state,
        "severity": transition.severity,
        "fail_streak": transition.fail_streak,
        "pass_streak": transition.pass_streak,
        "broken_streak": transition.broken_streak,
        "last_run": last_run,
        "last_run_id": last_run_id,
        "last_eval_id": last_eval_id,
        "acknowledged_eval_id": last_eval_id if acknowledged else None,
        "acknowledged_failing": json.dumps(covered, ensure_ascii=False) if acknowledged else None,
        "returned_because": json.dumps(returned, ensure_ascii=False) if returned else None,
        "failing": json.dumps(failing, ensure_ascii=False),
        "urgency": transition.urgency,
    }
    return row, acknowledged, covered


def carry_forward(previous: dict[str, Any] | None, state: str, failing: list[str]) -> tuple[bool, list[str], list[str]]:
    """(still acknowledged, the assertions the acknowledgement covers, the newly failing ones that end it).

    Only an acknowledgement of the newest evaluation carries (a pass in between ends it: a new failure
    after a pass is a new regression).
    """
    if not previous or state not in FAILING_STATES or not previous.get("last_eval_id"):
        return False, [], []
    if previous.get("acknowledged_eval_id") != previous["last_eval_id"]:
        return False, [], []
    covered = json.loads(previous.get("acknowledged_failing") or "null")
    if covered is None:  # acknowledged before gatepost kept what an acknowledgement covered
        covered = previous.get("failing") or []
    new = [a for a in failing if a not in covered]
    return (not new), list(covered), new


def regression_subject(skill: str, *, failing_only: bool = False) -> Callable[[Database], Subject]:
    """The guarded pipeline's view of a skill's regression state; for an acknowledgement it is open
    only while failing."""

    def load(db: Database) -> Subject:
        # read once for all the rehearsals of the skill's decisions (kernel.as_found); the act gets its own copy
        found = kernel.as_found(db, ("regression state", skill), lambda: get_state(db, skill))
        state = dict(found) if found is not None else None
        if state is None:
            raise InputError(f"skill {skill}: no regression state yet (gatepost skills eval)")
        closed = None
        if failing_only and state["state"] not in FAILING_STATES:
            closed = f"{skill} is {state['state']}; only failing states are acknowledged"
        return kernel.Subject("skill", skill, "skill", state, closed=closed)

    return load


def _triage(db: Database, doing: str, skill: str, actor: str | None, note: str, expected_seq: int | None,
            *, failing_only: bool) -> AbstractContextManager[Act]:
    """A person's triage of a skill's state: a note, then the guarded pipeline under regression.triage."""
    if not (note or "").strip():
        raise InputError(f"{doing}: --note: a note is required ({NOTE_HINT[failing_only]})")
    return kernel.guarded(db, doing, actor=actor, capability="regression.triage",
                   subject=regression_subject(skill, failing_only=failing_only), seen_seq=expected_seq)


REHEARSED_DRAFT = "a rehearsal draws no draft"
NOTE_HINT = {True: "what you saw, what happens next", False: "why the manifest looks wrong"}


ACK_DAYS = 7  # how long an acknowledgement quiets CI when it names no date


def acknowledge(db: Database, skill: str, *, actor: str, note: str, expected_seq: int | None = None,
                until: str | None = None, answers: Mapping[str, Any] | None = None,
                answers_later: bool = False) -> int:
    """A person has seen this failure and owns it: an event with their note (regression.triage).

    CI's `--fail-on` leaves the failure out until `until` (an ISO date or time), by default ACK_DAYS from
    now: the console and the CLI acknowledge through here, with the same expiry and the same effect on CI.
    """
    until = parse_iso(until, field="--until") if until else \
        (now() + timedelta(days=ACK_DAYS)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    doing = f"acknowledge {skill}"
    with _triage(db, doing, skill, actor, note, expected_seq, failing_only=True) as act:
        state = act.subject.row if act.subject and act.subject.row else {}
        given = rubrics.answer(db, "skill", answers, doing=doing, answers_later=answers_later)
        seq = act.event("regression.acknowledged", note=note.strip(),
                        payload={"state": state["state"], "severity": state["severity"],
                                 "eval_id": state["last_eval_id"], "failing": state["failing"],
                                 **({"until": until} if until else {}), **(given.payload() if given else {})})
        rubrics.record_answers(db, given, subject_type="skill", subject_id=skill, decision="acknowledge",
                               event_seq=seq, person=act.actor)
        db.execute("UPDATE regression_states SET acknowledged_eval_id = ?, acknowledged_failing = ?,"
                   " returned_because = NULL WHERE skill = ?",
                   [state["last_eval_id"], json.dumps(state["failing"], ensure_ascii=False), skill])
    return seq


def flag_mismatch(db: Database, skill: str, *, actor: str, note: str, expected_seq: int | None = None,
                  answers: Mapping[str, Any] | None = None,
                  answers_later: bool = False) -> tuple[int, dict[str, Any] | None, str | None]:
    """The manifest, not the skill, looks wrong: an event, and a bootstrap draft when runs allow one.

    Returns (event seq, the draft or None, why no draft). The flag is recorded
    even when there are too few successful runs to draft from.
    """
    doing = f"flag manifest mismatch on {skill}"
    with _triage(db, doing, skill, actor, note, expected_seq, failing_only=False) as act:
        state = act.subject.row if act.subject and act.subject.row else {}
        given = rubrics.answer(db, "skill", answers, doing=doing, answers_later=answers_later)
        seq = act.event("regression.mismatch", note=note.strip(),
                        payload={"state": state["state"], "failing": state["failing"],
                                 "eval_id": state["last_eval_id"], **(given.payload() if given else {})})
        rubrics.record_answers(db, given, subject_type="skill", subject_id=skill, decision="mismatch",
                               event_seq=seq, person=act.actor)
        db.execute("UPDATE regression_states SET acknowledged_eval_id = ? WHERE skill = ?",
                   [state["last_eval_id"], skill])
        if kernel.rehearsing():
            # the draft follows from the flag and never refuses it (what drawing one meets is returned below as
            # why there is none): a rehearsal, asking whether the flag may be recorded, has its answer here
            return seq, None, REHEARSED_DRAFT
        try:
            with transaction(db):
                draft = skills.bootstrap(db, skill, actor=act.actor or actor, origin="mismatch", note=note.strip())
        except (InputError, RefusedError) as exc:
            return seq, None, str(exc)
    return seq, draft, None
