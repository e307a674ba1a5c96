"""Skills, their recorded runs, and evaluating the latest run against the active manifest.

`evaluate` checks each skill's latest run (as aeon does: one verdict per
eval, not per run) and writes the eval, every assertion result and the new
regression state in one transaction. Evaluating again without a new run
changes nothing; after a new manifest version became active, the same run is
evaluated again from the streaks it started from, so it never counts twice.
A run recorded with status `error` fails its eval (assertion `run_status`).

The assertion checks, manifests and aeon's comparisons are reached through the package face when a run is
recorded or evaluated: listing states (`gatepost skills show`) loads neither their YAML nor RE2.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from gatepost.store import kernel, skills
from gatepost.store.kernel import (
    InputError,
    all_rows,
    now_iso,
    one_of,
)
from gatepost.store.kernel import now as clock_now

from . import regressions
from .regressions import Transition, next_state

if TYPE_CHECKING:
    from sqlite_utils import Database

    from gatepost.store.kernel import Act

    from .aeon import AeonResult
    from .assertions import Result
    from .types import SkillDetail, SkillRow

RUN_STATUSES = ("ok", "error")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:#/-]{0,119}$")

__all__ = ["record_run", "evaluate", "record_aeon_results", "aeon_skills", "list_skills", "skill_detail", "history", "show_states",
           "assertion_changes", "assertion_grid"]


def record_run(db: Database, skill: str, output: str, *, actor: str, run_id: str | None = None,
               at: str | None = None, status: str = "ok") -> dict[str, Any]:
    """Store one run's output (a producer or person holding evidence.record)."""
    skills.check_skill_name(skill, where="SKILL")
    if status not in RUN_STATUSES:
        raise InputError(f"--status: expected one of {', '.join(RUN_STATUSES)}, got {status!r}")
    if run_id is not None and not _RUN_ID.match(run_id):
        raise InputError(f"--run-id: expected an id without spaces (letters, digits, . _ : # / -), got {run_id!r}")
    when = kernel.observed_at(at) or now_iso()
    with kernel.guarded(db, f"record a run of {skill}", actor=actor, capability="evidence.record") as act:
        recorded = now_iso()
        skills.ensure_skill(db, skill, at=recorded)
        if run_id is None:
            number = db.execute("SELECT COUNT(*) + 1 FROM skill_runs WHERE skill = ?", [skill]).fetchone()[0]
            run_id = f"{skill}-{number:04d}"
            while db.execute("SELECT 1 FROM skill_runs WHERE id = ?", [run_id]).fetchone():
                number += 1
                run_id = f"{skill}-{number:04d}"
        elif db.execute("SELECT 1 FROM skill_runs WHERE id = ?", [run_id]).fetchone():
            raise InputError(f"--run-id: a run {run_id!r} is already recorded; runs are never replaced")
        _insert_run(act, skill, output, run_id=run_id, at=when, status=status, recorded=recorded)
    return cast(dict[str, Any], get_run(db, run_id))  # the run was just recorded


def _insert_run(act: Act, skill: str, output: str, *, run_id: str, at: str, status: str, recorded: str) -> None:
    """The run, naming its event's seq; the event (at `recorded`, when the run was recorded) then seals it
    (kernel records.py). Inside the act."""
    words = skills.word_count(output)
    act.db.execute("INSERT INTO skill_runs (id, skill, at, status, output, word_count, producer, recorded_at,"
                   " event_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [run_id, skill, at, status, output, words, act.actor, recorded, act.next_seq()])
    act.event("skill.run_recorded", subject_type="skill", subject_id=skill, seal=True, at=recorded,
              payload={"run_id": run_id, "status": status, "at": at, "word_count": words})


def get_run(db: Database, run_id: str) -> dict[str, Any] | None:
    rows = all_rows(db.execute("SELECT * FROM skill_runs WHERE id = ?", [run_id]))
    return rows[0] if rows else None


def latest_run(db: Database, skill: str) -> dict[str, Any] | None:
    rows = all_rows(db.execute("SELECT * FROM skill_runs WHERE skill = ? ORDER BY event_seq DESC, rowid DESC LIMIT 1",
                            [skill]))
    return rows[0] if rows else None


def _last_eval(db: Database, skill: str) -> dict[str, Any] | None:
    rows = all_rows(db.execute("SELECT * FROM skill_evals WHERE skill = ? ORDER BY id DESC LIMIT 1", [skill]))
    return rows[0] if rows else None


def eval_results(db: Database, eval_id: int) -> list[dict[str, Any]]:
    return [{"assertion": r["assertion"], "passed": bool(r["passed"]), "message": r["message"]}
            for r in all_rows(db.execute("SELECT assertion, passed, message FROM assertion_results"
                                      " WHERE eval_id = ? ORDER BY id", [eval_id]))]


def _skills_to_eval(db: Database, skill: str | None) -> list[str]:
    if skill is not None:
        if not db.execute("SELECT 1 FROM skills WHERE name = ?", [skill]).fetchone():
            raise InputError(f"--skill: no skill {skill!r} in this store")
        return [skill]
    # Every installed skill: one without a manifest is listed as not covered, never silently skipped.
    return [r[0] for r in db.execute("SELECT name FROM skills ORDER BY name").fetchall()]


def _evaluate_one(act: Act, skill: str) -> dict[str, Any]:
    db = act.db
    manifest = skills.active_version(db, skill, with_yaml=False)
    state = regressions.get_state(db, skill)
    base = {"skill": skill, "evaluated": False}
    if manifest is None:
        last = _last_eval(db, skill)
        why = (f"{skill} is judged by aeon's evals.json (gatepost skills eval --manifest FILE --root DIR)"
               if last and last["manifest_version_id"] is None else
               f"{skill} has no active manifest (gatepost bootstrap --skill {skill})")
        return {**base, "status": "no_manifest", "state": state["state"] if state else None, "why": why}
    run = latest_run(db, skill)
    if run is None:
        return {**base, "status": "no_runs", "state": state["state"] if state else None,
                "why": f"{skill} has no recorded run (gatepost skills record {skill} --output FILE)"}
    last = _last_eval(db, skill)
    if last and last["run_id"] == run["id"] and last["manifest_version_id"] == manifest["id"]:
        return {**base, "status": "unchanged", "run_id": run["id"], "manifest_version": manifest["version"],
                "assertions": eval_results(db, last["id"]), "passed": bool(last["passed"]),
                "state": state["state"] if state else last["state"],
                "severity": state["severity"] if state else last["severity"],
                "why": f"run {run['id']} was already evaluated against manifest v{manifest['version']}"}
    if last and last["run_id"] == run["id"]:
        fails, passes = last["base_fail_streak"] or 0, last["base_pass_streak"] or 0
    elif state:
        fails, passes = state["fail_streak"] or 0, state["pass_streak"] or 0
    else:
        fails = passes = 0
    results = skills.run_checks(manifest["assertions"], run["output"])
    if run["status"] == "error":
        results.insert(0, skills.Result("run_status", False, "the run ended in error"))
    written = _write_eval(act, skill, run, manifest["id"], results, fails, passes,
                          payload={"manifest_version": manifest["version"]})
    return {**base, **written, "manifest_version": manifest["version"]}


def _write_eval(act: Act, skill: str, run: dict[str, Any] | None, manifest_version_id: int | None,
                results: list[Result], fails: int, passes: int, *, payload: dict[str, Any],
                at: str | None = None) -> dict[str, Any]:
    """Record one eval of a skill (its event, the eval, every assertion result) and move its regression state
    from the streaks it starts from; inside the act's transaction."""
    db = act.db
    run_id = run["id"] if run else None
    passed = all(r.passed for r in results)
    step: Transition = next_state(fails, passes, passed)
    at = at or now_iso()
    failing = [r.assertion for r in results if not r.passed]
    seq = act.next_seq()  # the eval and its results name their event; the event carries them whole
    eval_id = db.execute(
        "INSERT INTO skill_evals (skill, run_id, manifest_version_id, passed, state, severity, fail_streak,"
        " pass_streak, broken_streak, base_fail_streak, base_pass_streak, at, event_seq)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [skill, run_id, manifest_version_id, int(passed), step.state, step.severity, step.fail_streak,
         step.pass_streak, step.broken_streak, fails, passes, at, seq]).lastrowid
    db.conn.executemany(
        "INSERT INTO assertion_results (eval_id, skill, run_id, assertion, passed, message) VALUES (?, ?, ?, ?, ?, ?)",
        [(eval_id, skill, run_id, r.assertion, int(r.passed), r.message) for r in results])
    act.event("skill.evaluated", subject_type="skill", subject_id=skill, at=at,
              payload={"run_id": run_id, **payload, "passed": passed, "state": step.state,
                       "severity": step.severity, "failing": failing, "eval_id": eval_id,
                       "manifest_version_id": manifest_version_id, "fail_streak": step.fail_streak,
                       "pass_streak": step.pass_streak, "broken_streak": step.broken_streak,
                       "base_fail_streak": fails, "base_pass_streak": passes,
                       "last_run": run["at"] if run else None,
                       "results": [[r.assertion, r.passed, r.message] for r in results]})
    regressions.write_state(db, skill, step, last_run=run["at"] if run else None, last_run_id=run_id,
                            last_eval_id=eval_id, failing=failing)
    return {"evaluated": True, "status": "evaluated", "run_id": run_id, "passed": passed,
            "assertions": [{"assertion": r.assertion, "passed": r.passed, "message": r.message} for r in results],
            "state": step.state, "severity": step.severity, "fail_streak": step.fail_streak,
            "pass_streak": step.pass_streak, "broken_streak": step.broken_streak}


# `progress(skill, done, total)`: called as each skill's act begins (a store of many skills takes seconds)
EvalProgress = Callable[[str, int, int], None]


def evaluate(db: Database, *, actor: str, skill: str | None = None,
             progress: EvalProgress | None = None) -> list[dict[str, Any]]:
    """Evaluate every installed skill (or one skill); one guarded act per skill. A skill without an active
    manifest is reported `no_manifest` (coverage), not evaluated.

    An evaluation computes from stored runs and manifests (the same inputs give the same state), so it needs
    a named, printable actor but no capability, and a person's lease on the skill does not hold it back.
    """
    out = []
    names = _skills_to_eval(db, skill)
    for index, name in enumerate(names):
        if progress is not None:
            progress(name, index, len(names))
        with kernel.guarded(db, f"evaluate {name}", actor=actor, known=False, subject=kernel.item_subject("skill", name),
                     must_be_open=False, lease=False) as act:
            out.append(_evaluate_one(act, name))
    return out


def _aeon_run_id(skill: str, result: AeonResult) -> str:
    """A run of aeon's output is the file and its bytes: judging the same output again records nothing new."""
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    digest = hashlib.sha256(f"{result.output}\0".encode() + (result.content or b"")).hexdigest()
    return f"{skill}:{digest[:16]}"


def _previous_aeon_status(db: Database, last: dict[str, Any] | None) -> str | None:
    """The status aeon gave at the skill's last eval (a stored eval of the other dialect: PASS or FAIL)."""
    if last is None:
        return None
    row = db.execute("SELECT payload FROM events WHERE seq = ?", [last["event_seq"]]).fetchone()
    payload = json.loads(row[0]) if row and row[0] else {}
    status = payload.get("aeon_status") if isinstance(payload, dict) else None
    return status if isinstance(status, str) else ("PASS" if last["passed"] else "FAIL")


def aeon_skills(db: Database) -> list[str]:
    """Skills that have an eval of aeon's dialect stored (for aeon's NEW_NO_COVERAGE)."""
    return [r[0] for r in db.execute(
        "SELECT DISTINCT subject_id FROM events WHERE kind = 'skill.evaluated' AND subject_type = 'skill'"
        " AND json_extract(payload, '$.dialect') = 'aeon' ORDER BY subject_id").fetchall()]


def record_aeon_results(db: Database, results: list[AeonResult], *, actor: str, manifest: str,
                        progress: EvalProgress | None = None) -> list[dict[str, Any]]:
    """Store what aeon's dialect judged as runs and evals, as `skills record` + `skills eval` store them.

    Per skill, one act (evidence.record): the output judged becomes a run (dated as aeon dates it; the same
    file with the same bytes is the same run), and aeon's checks become its eval's assertion results,
    failing where aeon's status is NO_OUTPUT, FAIL or QUALITY_DEGRADED. Judging the same output with the
    same results again changes nothing (`unchanged`); the regression state and severity move as for any
    eval. Each result says aeon's diff against the skill's previous eval (`diff`).
    """
    out = []
    for index, result in enumerate(results):
        skill = result.skill
        if progress is not None:
            progress(skill, index, len(results))
        with kernel.guarded(db, f"record aeon's eval of {skill}", actor=actor, capability="evidence.record") as act:
            recorded = now_iso()
            skills.ensure_skill(db, skill, at=recorded)
            run: dict[str, Any] | None = None
            if result.output is not None:
                new_id = _aeon_run_id(skill, result)
                run = get_run(db, new_id)
                if run is None:
                    at = (result.output_at or clock_now()).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                    _insert_run(act, skill, (result.content or b"").decode("utf-8", "replace"), run_id=new_id,
                                at=at, status="ok", recorded=recorded)
                    run = get_run(db, new_id)
            checks = [skills.Result(c.assertion, c.passed, c.message) for c in result.checks]
            last = _last_eval(db, skill)
            state = regressions.get_state(db, skill)
            was = _previous_aeon_status(db, last)
            base = {"skill": skill, "diff": skills.aeon_diff(was, result.status), "previous_status": was,
                    "manifest": manifest}
            run_id = run["id"] if run else None
            same = [{"assertion": r.assertion, "passed": r.passed, "message": r.message} for r in checks]
            if last and last["run_id"] == run_id and last["manifest_version_id"] is None \
                    and eval_results(db, last["id"]) == same:
                out.append({**base, "evaluated": False, "status": "unchanged", "run_id": run_id,
                            "passed": bool(last["passed"]), "assertions": same,
                            "state": state["state"] if state else last["state"],
                            "severity": state["severity"] if state else last["severity"]})
                continue
            if last and last["run_id"] == run_id:
                fails, passes = last["base_fail_streak"] or 0, last["base_pass_streak"] or 0
            elif state:
                fails, passes = state["fail_streak"] or 0, state["pass_streak"] or 0
            else:
                fails = passes = 0
            written = _write_eval(act, skill, run, None, checks, fails, passes, at=recorded,
                                  payload={"dialect": "aeon", "manifest": manifest, "aeon_status": result.status,
                                           "root_causes": list(result.root_causes)})
            out.append({**base, **written})
    return out


# --- queries for the console and the CLI ----------------------------------------------------

# most urgent first, then the longest streak broken, the most assertions failing, a run that errored, the name:
# the console's Regressions list, its queue, `skills show` and the regressions report all read this one order
WORST_FIRST = ("COALESCE(r.urgency, 99), COALESCE(r.broken_streak, 0) DESC,"
               " COALESCE(json_array_length(r.failing), 0) DESC,"
               " (SELECT status = 'error' FROM skill_runs WHERE id = r.last_run_id) DESC, s.name")

_LIST_SQL = """
SELECT s.name AS skill, r.state, r.severity, r.fail_streak, r.pass_streak, r.broken_streak, r.last_run,
       r.last_run_id, r.last_eval_id, r.acknowledged_eval_id, r.failing, r.returned_because,
       COALESCE(r.urgency, {not_evaluated}) AS urgency,
       (SELECT COUNT(*) FROM skill_runs WHERE skill = s.name) AS runs,
       (SELECT version FROM manifests m JOIN manifest_versions v ON v.id = m.active_version_id
         WHERE m.skill = s.name) AS manifest_version
FROM skills s LEFT JOIN regression_states r ON r.skill = s.name
"""


def _list_where(state: str | None, search: str | None) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if state:
        if state not in regressions.STATES:
            raise InputError(f"--state: expected one of {', '.join(regressions.STATES)}, got {state!r}")
        clauses.append("r.state = ?")
        params.append(state)
    if search:
        clauses.append("(s.name LIKE ? OR r.failing LIKE ?)")
        params.extend([f"%{search}%"] * 2)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    row["failing"] = json.loads(row["failing"]) if row.get("failing") else []
    row["returned_because"] = json.loads(row["returned_because"]) if row.get("returned_because") else []
    row["acknowledged"] = bool(row.get("last_eval_id")) and row.get("acknowledged_eval_id") == row.get(
        "last_eval_id")
    return row


def list_skills(db: Database, *, state: str | None = None, search: str | None = None, limit: int = 100,
                offset: int = 0) -> tuple[list[SkillRow], int]:
    """One page of skills, most urgent first (skills never evaluated last), and the total matching."""
    where, params = _list_where(state, search)
    total = db.execute(f"SELECT COUNT(*) FROM skills s LEFT JOIN regression_states r ON r.skill = s.name{where}",
                       params).fetchone()[0]
    page = [name for (name,) in db.execute(
        f"SELECT s.name FROM skills s LEFT JOIN regression_states r ON r.skill = s.name{where}"
        f" ORDER BY COALESCE(r.urgency, {regressions.NOT_EVALUATED}), s.name LIMIT ? OFFSET ?",
        [*params, limit, offset]).fetchall()]
    if not page:
        return [], total
    # The page's details (run counts, manifest versions) are computed for its rows only.
    clause, values = one_of("s.name", page)
    sql = _LIST_SQL.format(not_evaluated=regressions.NOT_EVALUATED) + f" WHERE {clause}"
    found = {r["skill"]: _decode(r) for r in all_rows(db.execute(sql, values))}
    return [cast("SkillRow", found[name]) for name in page], total  # _LIST_SQL and _decode make SkillRow's keys


def history(db: Database, skill: str, *, limit: int = 30) -> list[dict[str, Any]]:
    """The newest `limit` evals of a skill, oldest first: the strip of pass/fail marks."""
    rows = all_rows(db.execute(
        "SELECT e.id, e.run_id, e.passed, e.state, e.severity, e.at, r.at AS run_at, v.version AS manifest_version"
        " FROM skill_evals e LEFT JOIN skill_runs r ON r.id = e.run_id"
        " LEFT JOIN manifest_versions v ON v.id = e.manifest_version_id"
        " WHERE e.skill = ? ORDER BY e.id DESC LIMIT ?", [skill, limit]))
    for row in rows:
        row["passed"] = bool(row["passed"])
    return rows[::-1]


def _recent_evals(db: Database, skill: str, limit: int) -> list[dict[str, Any]]:
    """The newest `limit` evals of a skill, oldest first, with the run each judged."""
    rows = all_rows(db.execute(
        "SELECT e.id, e.run_id, e.passed, e.at, r.at AS run_at FROM skill_evals e"
        " LEFT JOIN skill_runs r ON r.id = e.run_id WHERE e.skill = ? ORDER BY e.id DESC LIMIT ?", [skill, limit]))
    return rows[::-1]


def _results_by_eval(db: Database, eval_ids: list[int]) -> dict[int, dict[str, dict[str, Any]]]:
    found: dict[int, dict[str, dict[str, Any]]] = {i: {} for i in eval_ids}
    if not eval_ids:
        return found
    clause, values = one_of("eval_id", eval_ids)
    cursor = db.execute(f"SELECT eval_id, assertion, passed, message FROM assertion_results WHERE {clause}"
                        " ORDER BY id", values)
    for eval_id, assertion, passed, message in cursor.fetchall():
        found[eval_id][assertion] = {"passed": bool(passed), "message": message}
    return found


# Newly failing first (what broke), then newly passing, then assertions that came or went with a manifest.
_CHANGE_ORDER = {"now failing": 0, "now passing": 1, "new": 2, "removed": 3}


def assertion_changes(db: Database, skill: str) -> dict[str, Any]:
    """The assertions whose result differs between the skill's last two evals: what to look at first.

    Returns {"before": eval|None, "after": eval|None, "changes": [{assertion, change, before, after,
    message, before_message}]}, where change is "now failing", "now passing", "new" or "removed".
    With fewer than two evals there is nothing to compare and `changes` is empty.
    """
    evals = _recent_evals(db, skill, 2)
    if len(evals) < 2:
        return {"before": None, "after": evals[-1] if evals else None, "changes": []}
    before, after = evals
    results = _results_by_eval(db, [before["id"], after["id"]])
    old, new = results[before["id"]], results[after["id"]]
    changes: list[dict[str, Any]] = []
    for name in list(new) + [n for n in old if n not in new]:
        was, now = old.get(name), new.get(name)
        if was is not None and now is not None and was["passed"] == now["passed"]:
            continue
        if was is None:
            change = "new"
        elif now is None:
            change = "removed"
        else:
            change = "now passing" if now["passed"] else "now failing"
        changes.append({"assertion": name, "change": change,
                        "before": was["passed"] if was else None, "after": now["passed"] if now else None,
                        "message": now["message"] if now else None,
                        "before_message": was["message"] if was else None})
    changes.sort(key=lambda c: _CHANGE_ORDER[c["change"]])
    return {"before": before, "after": after, "changes": changes}


def assertion_grid(db: Database, skill: str, *, runs: int = 12) -> dict[str, Any]:
    """Assertion × eval grid over the last `runs` evals (oldest → newest): True, False or None (not checked).

    Rows are ordered by the newest result, failing first, then by name, so the
    assertions that fail now sit at the top of the heat-map.
    """
    evals = _recent_evals(db, skill, runs)
    results = _results_by_eval(db, [e["id"] for e in evals])
    names: list[str] = []
    for e in evals:
        names.extend(n for n in results[e["id"]] if n not in names)
    rows = [{"assertion": n, "marks": [results[e["id"]][n]["passed"] if n in results[e["id"]] else None
                                       for e in evals]} for n in names]
    rows.sort(key=lambda r: (r["marks"][-1] is not False, r["assertion"]))
    return {"evals": evals, "rows": rows}


def skill_detail(db: Database, skill: str) -> SkillDetail | None:
    """Everything the Regressions detail shows about one skill."""
    if not db.execute("SELECT 1 FROM skills WHERE name = ?", [skill]).fetchone():
        return None
    cursor = db.execute(_LIST_SQL.format(not_evaluated=regressions.NOT_EVALUATED) + " WHERE s.name = ?", [skill])
    row = _decode(all_rows(cursor)[0])
    last = _last_eval(db, skill)
    row["assertions"] = eval_results(db, last["id"]) if last else []
    row["evaluated_run"] = get_run(db, last["run_id"]) if last else None
    row["latest_run"] = latest_run(db, skill)
    row["manifest"] = skills.active_version(db, skill)
    row["history"] = history(db, skill)
    row["changes"] = assertion_changes(db, skill)
    row["grid"] = assertion_grid(db, skill)
    row["triage"] = all_rows(db.execute(
        "SELECT seq, at, actor, kind, note FROM events WHERE subject_type = 'skill' AND subject_id = ?"
        " AND kind IN ('regression.acknowledged', 'regression.mismatch') ORDER BY seq DESC LIMIT 10", [skill]))
    row["pending_drafts"] = [r[0] for r in db.execute(
        "SELECT id FROM manifest_drafts WHERE skill = ? AND status = 'pending' ORDER BY created_at", [skill])]
    return cast("SkillDetail", row)  # a SkillRow and the keys above


def failing_messages(db: Database) -> dict[str, list[dict[str, Any]]]:
    """Per skill, the assertions failing on its last eval with their messages (one query for every skill)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for skill, assertion, message in db.execute(
            "SELECT r.skill, a.assertion, a.message FROM regression_states r"
            " JOIN assertion_results a ON a.eval_id = r.last_eval_id AND a.passed = 0"
            " ORDER BY r.skill, a.id").fetchall():
        out.setdefault(skill, []).append({"assertion": assertion, "message": message})
    return out


def show_states(db: Database, *, skill: str | None = None, state: str | None = None) -> list[dict[str, Any]]:
    """Per skill: the fields of `gatepost skills show --json`, most urgent first."""
    if skill is not None and not db.execute("SELECT 1 FROM skills WHERE name = ?", [skill]).fetchone():
        raise InputError(f"--skill: no skill {skill!r} in this store")
    where, params = _list_where(state, None)
    if skill is not None:
        where += (" AND " if where else " WHERE ") + "s.name = ?"
        params.append(skill)
    sql = _LIST_SQL.format(not_evaluated=regressions.NOT_EVALUATED) + where + f" ORDER BY {WORST_FIRST}"
    return [{"skill": r["skill"], "state": r["state"],
             "severity": r["severity"] if r["state"] == "NEW_FAIL" else None,
             "fail_streak": r["fail_streak"] or 0, "pass_streak": r["pass_streak"] or 0,
             "last_run": r["last_run"], "failing": r["failing"]}
            for r in map(_decode, all_rows(db.execute(sql, params)))]
