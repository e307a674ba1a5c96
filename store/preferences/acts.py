"""Record a preference between the candidate's and the baseline's output of one task of a run; read them back.

The act (the guarded pipeline, subject the run):

- needs a capability that judges a change (PREFERRERS) and a person: a producer's word is evidence of its
  own kind, never a preference;
- the run's case author never records one (`self-dealing`): nobody judges their own change;
- the task must have an output on both sides of the run: a preference compares two;
- it is recorded on a closed case's run too (a judgment after the decision is kept, it reopens nothing);
- where the run's case's protocol lists the `preference` kind, the act records it as that case's evidence
  (producer: the person; about the candidate revision the run evaluated) in the same transaction.

Across two runs (`against`): the task's candidate output in the run against its candidate output in another
run of the same suite (the newer nightly against last week's). The run is the candidate side and the other
run the baseline side, as `gatepost compare RUN --baseline RUN2` names them; the preference is recorded on the
run (its seen-seq), neither run's case author records one, and it counts as no case's evidence: a protocol's
`preference` weighs a case's candidate against its own baseline, not against another run's output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlite_utils import Database

from gatepost.store import cases
from gatepost.store.evaluation import task_outputs
from gatepost.store.kernel import (
    IDENTITY,
    SELF_DEALING,
    InputError,
    Subject,
    all_rows,
    guarded,
    now_iso,
    observed_at,
    refusal,
    same_actor,
)
from gatepost.store.protocol import protocol_for

KIND = "preference"  # the evidence kind a protocol may list
CHOICES = ("candidate", "baseline", "tie")
# Who may prefer: a person holding a capability that judges a change.
PREFERRERS = ("case.close", "eval_design.review", "loop_change.keep", "proposal.review")
PERSON = "person"  # the rule a producer's preference is refused by
MAX_CHARS = 4000
COLUMNS = ("event_seq", "run_id", "task_id", "choice", "note", "person", "case_id", "counted", "evidence_seq", "at",
           "against_run_id")


def _run_subject(run_id: str) -> Callable[[Database], Subject]:
    def load(db: Database) -> Subject:
        row = db.execute("SELECT id, case_id FROM evaluation_runs WHERE id = ?", [run_id]).fetchone()
        if row is None:
            raise InputError(f"RUN: no evaluation run {run_id} in this store")
        author = None
        if row[1]:
            found = db.execute("SELECT author FROM cases WHERE id = ?", [row[1]]).fetchone()
            author = found[0] if found else None
        return Subject("run", run_id, "run", {"id": row[0], "case_id": row[1]}, author=author,
                       author_role="case's author")

    return load


def _person_only(doing: str, against: str | None = None) -> Callable[[Database, dict[str, Any] | None, Subject | None],
                                                                    None]:
    """A person's judgment only; across runs, not by the author of the other run's case either."""
    def check(db: Database, who: dict[str, Any] | None, subject: Subject | None) -> None:
        if who is not None and who.get("kind") != "person":
            raise refusal(doing, PERSON, f"{who['name']} is a producer; a preference is a person's judgment")
        other = db.execute("SELECT c.author FROM evaluation_runs r JOIN cases c ON c.id = r.case_id WHERE r.id = ?",
                           [against]).fetchone() if against else None
        if who is not None and other and other[0] and same_actor(str(other[0]), who["name"]):
            raise refusal(doing, SELF_DEALING, f"{who['name']} is the author of run {against}'s case; nobody judges "
                                               "their own change")
    return check


def _runs_compared(db: Database, run_id: str, against: str) -> tuple[Any, Any]:
    """The two runs of one suite a cross-run preference compares (bad input otherwise): (run row, other row)."""
    rows = {r[0]: r for r in db.execute("SELECT id, suite_id, skill_id, case_id, candidate_path FROM evaluation_runs"
                                        " WHERE id IN (?, ?)", [run_id, against]).fetchall()}
    if run_id not in rows:
        raise InputError(f"RUN: no evaluation run {run_id} in this store")
    if against not in rows:
        raise InputError(f"--against: no evaluation run {against} in this store")
    if against == run_id:
        raise InputError(f"--against: expected another run of the same suite than {run_id}, got the run itself")
    if rows[run_id][1] != rows[against][1]:
        raise InputError(f"--against: run {against} is of suite {rows[against][2] or rows[against][1]}, not of run "
                         f"{run_id}'s suite {rows[run_id][2] or rows[run_id][1]}; a preference compares one task of "
                         "two runs of the same suite")
    return rows[run_id], rows[against]


def _outputs_across(db: Database, run_id: str, against: str, task_id: str) -> dict[str, dict[str, Any] | None]:
    """The task's candidate output in each run: the run's as the candidate side, the other's as the baseline."""
    return {"candidate": task_outputs(db, run_id, task_id)["candidate"],
            "baseline": task_outputs(db, against, task_id)["candidate"]}


def _revision_of_run(db: Database, case_id: str, run_id: str) -> str:
    """The candidate revision a run evaluated: the one its comparison evidence is about; else the current one."""
    row = db.execute("SELECT e.about FROM evidence e, json_each(e.details, '$.runs') r WHERE e.case_id = ? "
                     "AND e.artifact = 'candidate' AND json_valid(e.details) AND r.value = ? ORDER BY e.id DESC "
                     "LIMIT 1", [case_id, run_id]).fetchone()
    return str(row[0]) if row else "current"


def pairwise(db: Database, run_id: str, task_id: str, *, against: str | None = None) -> dict[str, Any]:
    """What the pairwise view shows: the run, the task's two outputs, and the preferences recorded on it (across
    runs: the task's candidate output in the run and in run `against` of the same suite)."""
    if against is not None:
        run_row, other = _runs_compared(db, run_id, against)
        outputs = _outputs_across(db, run_id, against, task_id)
        if outputs["candidate"] is None and outputs["baseline"] is None:
            raise InputError(f"TASK: neither run {run_id} nor run {against} has a candidate output for {task_id}")
        return {"run_id": run_id, "suite_id": run_row[1], "skill_id": run_row[2], "case_id": run_row[3],
                "candidate_path": run_row[4], "baseline_path": other[4], "task_id": task_id, "outputs": outputs,
                "against": against, "against_case_id": other[3], "counts": False,
                "preferences": preferences_of(db, run_id, task_id, against=against)}
    run = db.execute("SELECT id, suite_id, skill_id, case_id, candidate_path, baseline_path FROM evaluation_runs "
                     "WHERE id = ?", [run_id]).fetchone()
    if run is None:
        raise InputError(f"RUN: no evaluation run {run_id} in this store")
    outputs = task_outputs(db, run_id, task_id)
    if outputs["candidate"] is None and outputs["baseline"] is None:
        raise InputError(f"TASK: run {run_id} has no task {task_id}")
    case_id = run[3]
    counts = False
    if case_id:
        case = db.execute("SELECT protocol FROM cases WHERE id = ?", [case_id]).fetchone()
        counts = case is not None and KIND in protocol_for(case[0]).evidence_kinds
    return {"run_id": run[0], "suite_id": run[1], "skill_id": run[2], "case_id": case_id,
            "candidate_path": run[4], "baseline_path": run[5], "task_id": task_id, "outputs": outputs,
            "against": None, "against_case_id": None, "counts": counts,
            "preferences": preferences_of(db, run_id, task_id)}


def record_preference(db: Database, run_id: str, task_id: str, choice: str, *, actor: str | None,
                      note: str | None = None, at: str | None = None, based_on_seq: int | None = None,
                      against: str | None = None) -> dict[str, Any]:
    """Record `actor`'s preference (candidate, baseline or tie) on task `task_id` of run `run_id`, through the
    guarded pipeline; returns the preference as stored (`counted`: it is the case's evidence too). `against`: the
    other run of the same suite whose candidate output is the baseline side (the preference then counts for
    nothing)."""
    if choice not in CHOICES:
        raise InputError(f"choice: expected one of {', '.join(CHOICES)} (--candidate, --baseline or --tie), "
                         f"got {choice!r}")
    text = (note or "").strip() or None
    if text is not None and len(text) > MAX_CHARS:
        raise InputError(f"--note: expected at most {MAX_CHARS} characters, got {len(text)}")
    when = observed_at(at) or now_iso()
    doing = f"record a preference on {run_id} {task_id}" + (f" against {against}" if against else "")
    if actor is None:
        raise refusal(doing, IDENTITY, "a preference is a person's judgment: name them (--as NAME)")
    with guarded(db, doing, actor=actor, capability=PREFERRERS,
                 subject=_run_subject(run_id), seen_seq=based_on_seq, lease=False, must_be_open=False,
                 authority=_person_only(doing, against)) as act:
        if against is not None:
            _runs_compared(db, run_id, against)
            lacking = [f"run {r}" for r, out in zip((run_id, against),
                                                   _outputs_across(db, run_id, against, task_id).values(),
                                                   strict=True) if out is None]
            if lacking:
                raise InputError(f"TASK: {' and '.join(lacking)} {'has' if len(lacking) == 1 else 'have'} no "
                                 f"candidate output for {task_id}; a preference compares two outputs")
        else:
            outputs = task_outputs(db, run_id, task_id)
            missing = [side for side, out in outputs.items() if out is None]
            if len(missing) == 2:
                raise InputError(f"TASK: run {run_id} has no task {task_id}")
            if missing:
                raise InputError(f"TASK: run {run_id} has no {missing[0]} output for {task_id}; a preference "
                                 "compares the candidate's output with the baseline's")
        assert act.subject is not None and act.subject.row is not None
        case_id = act.subject.row["case_id"]
        person = str(act.actor)
        evidence_seq = None
        if case_id and against is None:
            case = cases.get_case(db, case_id)
            if KIND in protocol_for(case["protocol"]).evidence_kinds:
                evidence_id = cases.add_evidence(db, case_id, kind=KIND, result=choice, producer=person,
                                                 about=_revision_of_run(db, case_id, run_id), at=when,
                                                 details={"runs": [run_id], "task": task_id, "note": text})
                evidence_seq = int(db.execute("SELECT event_seq FROM evidence WHERE id = ?",
                                              [evidence_id]).fetchone()[0])
        counted = evidence_seq is not None
        seq = act.event("preference.recorded", note=text, at=when,
                        payload={"task": task_id, "choice": choice, "case_id": case_id, "counted": counted,
                                 "evidence_seq": evidence_seq, **({"against": against} if against else {})})
        db.execute("INSERT INTO preferences (event_seq, run_id, task_id, choice, note, person, case_id, counted,"
                   " evidence_seq, at, against_run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [seq, run_id, task_id, choice, text, person, case_id, int(counted), evidence_seq, when, against])
    return {"event_seq": seq, "run_id": run_id, "task_id": task_id, "choice": choice, "note": text,
            "person": person, "case_id": case_id, "counted": counted, "evidence_seq": evidence_seq, "at": when,
            "against_run_id": against}


def preferences_of(db: Database, run_id: str, task_id: str | None = None, *,
                   against: str | None = None) -> list[dict[str, Any]]:
    """The preferences recorded on a run (on one task of it), oldest first: between its own two sides, or (with
    `against`) between its output and run `against`'s."""
    where, args = ("run_id = ?", [run_id])
    if task_id is not None:
        where, args = where + " AND task_id = ?", [*args, task_id]
    where += " AND against_run_id = ?" if against is not None else " AND against_run_id IS NULL"
    args += [against] if against is not None else []
    rows = all_rows(db.execute(f"SELECT {', '.join(COLUMNS)} FROM preferences WHERE {where} ORDER BY event_seq",
                               args))
    for row in rows:
        row["counted"] = bool(row["counted"])
    return rows


# --- words: what a view of a preference says -------------------------------------------------------------
def side_name(view: dict[str, Any], side: str) -> str:
    """`candidate`, or across runs `run R1` (the candidate side) / `run R2` (the baseline side)."""
    if not view.get("against"):
        return side
    return f"run {view['run_id'] if side == 'candidate' else view['against']}"


def preferred(p: dict[str, Any]) -> str:
    """What a preference chose, as a person reads it: `candidate`, `tie`, or across runs `run R1's output`."""
    against = p.get("against_run_id")
    if not against or p["choice"] == "tie":
        return str(p["choice"])
    return f"run {p['run_id'] if p['choice'] == 'candidate' else against}'s output"


def counting_words(view: dict[str, Any]) -> str:
    """Whether a preference on this view counts, and why not."""
    if view["counts"]:
        return f"counts as {KIND} evidence on case {view['case_id']}"
    if view.get("against"):
        return "is recorded and counts for nothing: across two runs it is no case's evidence"
    return "is recorded and counts for nothing: " + (f"case {view['case_id']}'s protocol lists no {KIND} evidence"
                                                     if view["case_id"] else "the run belongs to no case")
