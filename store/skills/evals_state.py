"""evals-state.json: aeon's local state file of regression states, read and written by gatepost.

Shape (version 1; every key is required, optional values are null):

    {
      "version": 1,
      "skills": {
        "token-movers": {
          "state": "NEW_FAIL",               # PASS | NEW_PASS | NEW_FAIL | STABLE_FAIL | CHRONIC
          "severity": "medium",              # NEW_FAIL only: low | medium | high; else null
          "fail_streak": 1,
          "pass_streak": 0,
          "broken_pass_streak": 3,           # NEW_FAIL only: the pass streak it broke; else null
          "last_run": "2026-05-12T08:00:00Z",  # ISO 8601 time of the run last evaluated, or null
          "last_run_id": "token-movers-0042",  # or null
          "failing": ["forbidden_patterns"]    # assertions failing on that run
        }
      }
    }

Importing merges the file's skills into the store's regression states (the
streaks then continue from them); exporting writes every skill that has a
state. Import then export gives the same JSON; a file gatepost wrote comes
back byte for byte (2-space indent, skills sorted, keys in the order above).
"""

import json
import os
from typing import Any, Literal, overload

from sqlite_utils import Database

from gatepost.store.kernel import (
    InputError,
    check_output,
    guarded,
    now_iso,
    parse_iso,
    parse_json,
    read_text,
    refusal,
)

from . import regressions
from .assertions import check_skill_name
from .manifests import ensure_skill

VERSION = 1
KEYS = ("state", "severity", "fail_streak", "pass_streak", "broken_pass_streak", "last_run", "last_run_id",
        "failing")


@overload
def _int(value: Any, where: str, *, nullable: Literal[False] = False) -> int: ...
@overload
def _int(value: Any, where: str, *, nullable: bool) -> int | None: ...
def _int(value: Any, where: str, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"{where}: expected an integer >= 0{' or null' if nullable else ''}, got {value!r}")
    return value


def _entry(skill: str, entry: Any, source: str) -> dict[str, Any]:
    where = f"{source}: skills.{skill}"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object with {', '.join(KEYS)}")
    unknown = [k for k in entry if k not in KEYS]
    if unknown:
        raise InputError(f"{where}.{unknown[0]}: unknown key; expected only {', '.join(KEYS)}")
    missing = [k for k in KEYS if k not in entry]
    if missing:
        raise InputError(f"{where}.{missing[0]}: missing (every key is required; use null for none)")
    fail_streak = _int(entry["fail_streak"], f"{where}.fail_streak")
    pass_streak = _int(entry["pass_streak"], f"{where}.pass_streak")
    broken = _int(entry["broken_pass_streak"], f"{where}.broken_pass_streak", nullable=True)
    state, severity = entry["state"], entry["severity"]
    regressions.check_state(state, severity, fail_streak, pass_streak, where=where)
    if state == "NEW_FAIL" and broken is not None and regressions.severity_for(broken) != severity:
        raise InputError(f"{where}.severity: a broken pass streak of {broken} makes "
                         f"{regressions.severity_for(broken)}, not {severity}")
    if state != "NEW_FAIL" and broken is not None:
        raise InputError(f"{where}.broken_pass_streak: only NEW_FAIL has one, {state} has {broken}")
    for key in ("last_run", "last_run_id"):
        if entry[key] is not None and (not isinstance(entry[key], str) or not entry[key]):
            raise InputError(f"{where}.{key}: expected a string or null, got {entry[key]!r}")
    if entry["last_run"] is not None:
        parse_iso(entry["last_run"], field=f"{where}.last_run")
    failing = entry["failing"]
    if not isinstance(failing, list) or not all(isinstance(f, str) and f for f in failing):
        raise InputError(f"{where}.failing: expected a list of assertion names, got {failing!r}")
    if (state in regressions.FAILING_STATES) != bool(failing):
        raise InputError(f"{where}.failing: {state} with failing {failing!r} is not a state the rules produce")
    return {k: entry[k] for k in KEYS}


def parse_state(text: str, *, source: str = "evals-state.json") -> dict[str, dict[str, Any]]:
    """The skills of a state file, validated; anything malformed is an InputError naming the key."""
    data = parse_json(text, source=source)
    if not isinstance(data, dict):
        raise InputError(f"{source}: expected an object with version and skills")
    unknown = [k for k in data if k not in ("version", "skills")]
    if unknown:
        raise InputError(f"{source}: {unknown[0]}: unknown key; expected version and skills")
    if type(data.get("version")) is not int or data.get("version") != VERSION:  # true == 1 in Python
        raise InputError(f"{source}: version: expected {VERSION}, got {data.get('version')!r}")
    skills = data.get("skills")
    if not isinstance(skills, dict):
        raise InputError(f"{source}: skills: expected an object of skill name to state")
    out = {}
    for skill, entry in skills.items():
        check_skill_name(skill, where=f"{source}: skills.{skill!r}")
        out[skill] = _entry(skill, entry, source)
    return out


def read_state_file(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    return parse_state(read_text(path, what="evals-state.json"), source=str(path))


def import_state(db: Database, path: str | os.PathLike[str], *, actor: str, text: str | None = None) -> list[str]:
    """Seed regression states from a state file (evidence.record); returns the skills imported.

    State comes from runs: a file seeds only skills with no run in the store. A holder of store.admin
    may seed a skill that has runs but no state computed from them (an audited event); a state that
    recorded runs computed is never changed by a file.
    """
    skills = parse_state(text, source=str(path)) if text is not None else read_state_file(path)
    doing = f"import {path}"

    def from_runs(db: Database, who: dict[str, Any] | None, subject: object) -> None:
        admin = who is not None and "store.admin" in who["capabilities"]
        for skill in sorted(skills):
            computed = db.execute("SELECT 1 FROM skill_evals WHERE skill = ? LIMIT 1", [skill]).fetchone()
            has_runs = db.execute("SELECT 1 FROM skill_runs WHERE skill = ? LIMIT 1", [skill]).fetchone()
            if computed:
                raise refusal(doing, "runs", f"{skill}'s state was computed from its recorded runs; state comes "
                                             "from runs, a file never changes it")
            if has_runs and not admin:
                raise refusal(doing, "runs", f"{skill} has recorded runs; a state file seeds only skills without "
                                             "runs (or needs store.admin)")

    with guarded(db, doing, actor=actor, capability="evidence.record", authority=from_runs) as act:
        when = now_iso()
        act.event("state.imported", subject_type="state", subject_id=os.path.basename(path), at=when,
                  payload={"file": str(path), "skills": sorted(skills), "states": skills})
        for skill, entry in skills.items():
            ensure_skill(db, skill, at=when)
            step = regressions.Transition(entry["state"], entry["severity"], entry["fail_streak"],
                                          entry["pass_streak"], entry["broken_pass_streak"])
            regressions.write_state(db, skill, step, last_run=entry["last_run"], last_run_id=entry["last_run_id"],
                                    last_eval_id=None, failing=entry["failing"])
    return sorted(skills)


def export_state(db: Database) -> dict[str, Any]:
    """Every skill's regression state in the shape of evals-state.json."""
    skills = {}
    for row in db.execute("SELECT skill, state, severity, fail_streak, pass_streak, broken_streak, last_run,"
                          " last_run_id, failing FROM regression_states ORDER BY skill").fetchall():
        skill, state, severity, fails, passes, broken, last_run, last_run_id, failing = row
        skills[skill] = {"state": state, "severity": severity, "fail_streak": fails, "pass_streak": passes,
                         "broken_pass_streak": broken, "last_run": last_run, "last_run_id": last_run_id,
                         "failing": json.loads(failing or "[]")}
    return {"version": VERSION, "skills": skills}


def dumps(state: dict[str, Any]) -> str:
    return json.dumps(state, indent=2, ensure_ascii=False) + "\n"


def write_state_file(db: Database, path: str | os.PathLike[str]) -> int:
    """Write evals-state.json atomically (a temporary file renamed over it); returns the skill count."""
    check_output(path, what="evals-state.json")  # os.replace would put the file in place of a FIFO or device
    state = export_state(db)
    tmp = f"{path}.tmp-{os.getpid()}-{now_iso()[-10:-1]}"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(dumps(state))
    os.replace(tmp, path)
    return len(state["skills"])
