"""The task-suite evaluator: a candidate skill against a baseline, task by task, pass@k.

A run executes every task of a split for both sides, judges each attempt,
and writes the seed's artifact (execution_pass_rate, baseline_pass_rate,
delta, verdict, candidate_results, baseline_results, baseline_health,
warnings, truth_anchor); the run and every attempt are stored in one
transaction. Baselines are cached for 7 days, keyed by the suite, the
baseline skill's content hash and the executor.
"""

import hashlib
import json
import math
import os
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import (
    InputError,
    append_event,
    now_iso,
    parse_json,
    read_text,
    refresh_task_order,
    transaction,
    write_text_atomic,
)
from gatepost.store.kernel import (
    now as clock_now,
)

from .attempts import attempts_line, outcome, outcome_counts
from .executors import MOCK, CommandExecutor, MockExecutor
from .judges import JudgeSettings, judge
from .noise import pooled_attempts, sides_of_results, summarise
from .suites import Suite, Task

WEAK_BASELINE = 0.2
CACHE_TTL = timedelta(days=7)
SPLIT_CHOICES = ("tuning", "heldout", "all")
VERDICTS = ("pass", "fail", "skipped", "error")
CACHE_FORMAT = "gatepost-baseline-cache/1"

Executor = CommandExecutor | MockExecutor


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_skill(path: str | Path, *, option: str) -> tuple[str, str]:
    """A skill's text from SKILL.md or a skill folder holding one; returns (absolute path, text)."""
    path = Path(path)
    if path.is_dir():
        path = path / "SKILL.md"
    if not path.is_file():
        raise InputError(f"{option}: {path}: no such skill file (a SKILL.md or a folder holding one)")
    try:
        return str(path.resolve()), read_text(path, what="skill file")
    except InputError as exc:
        raise InputError(f"{option}: {exc}") from None


# --- running one side ------------------------------------------------------------------
def _run_task(task: Task, skill: str, executor: Executor, settings: JudgeSettings, pass_k: int,
              suite_dir: Path, every_attempt: bool = False) -> dict[str, Any]:
    attempts = []
    for number in range(1, pass_k + 1):
        attempt = executor.run(task.id, task.prompt, skill, timeout=task.timeout_seconds, attempt=number)
        if attempt.finished:
            verdict = judge(task, attempt.output, suite_dir=suite_dir, settings=settings)
            row = {"attempt": number, "passed": verdict.passed, "score": verdict.score, "judged": verdict.judged,
                   "reason": verdict.reason, "mock": attempt.mock or verdict.mock}
        else:
            row = {"attempt": number, "passed": False, "score": 0.0, "judged": True, "reason": attempt.reason,
                   "mock": attempt.mock}
        row["duration_ms"] = attempt.duration_ms
        row["output"] = attempt.output
        attempts.append(row)
        if row["passed"] and not every_attempt:
            break  # pass@k: any passing attempt passes the task (every_attempt: all k run, for pass^k)
    return _summarise(task.id, task.split, attempts)


def _summarise(task_id: str, split: str, attempts: list[dict]) -> dict[str, Any]:
    passing = [a for a in attempts if a["passed"]]
    shown = passing[0] if passing else attempts[-1]
    scores = [a["score"] for a in attempts if a["score"] is not None]
    return {
        "task_id": task_id,
        "split": split,
        "passed": bool(passing),
        "score": max(scores) if scores else None,
        "judged": any(a["judged"] for a in attempts),
        "attempts": len(attempts),
        "duration_ms": sum(a["duration_ms"] for a in attempts),
        "output": shown["output"],
        "reason": None if passing else shown["reason"],
        "mock": any(a["mock"] for a in attempts),
        "attempt_details": attempts,
    }


def run_side(suite: Suite, tasks: list[Task], skill: str, executor: Executor, settings: JudgeSettings,
             pass_k: int, every_attempt: bool = False) -> list[dict[str, Any]]:
    """Every task of one side (candidate or baseline), in suite order."""
    return [_run_task(t, skill, executor, settings, pass_k, suite.path.parent, every_attempt) for t in tasks]


def pass_rate(results: list[dict]) -> float:
    return round(sum(1 for r in results if r["passed"]) / len(results), 4) if results else 0.0


# --- the baseline cache ----------------------------------------------------------------
def _cache_key(suite: Suite, baseline_hash: str, executor: Executor, settings: JudgeSettings,
               split: str, pass_k: int, every_attempt: bool = False) -> str:
    judge_id = " ".join(settings.rubric_argv) if settings.rubric_argv else ("mock" if settings.mock else "")
    parts = [suite.id, baseline_hash, executor.identity, split, str(pass_k), judge_id]
    if every_attempt:
        parts.append("every-attempt")
    return content_hash("\x00".join(parts))


def _cache_read(path: Path, key: str, now: datetime, warnings: list[str]) -> dict | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        created = datetime.fromisoformat(data["created_at"].replace("Z", "+00:00"))
        if data.get("format") != CACHE_FORMAT or data.get("key") != key or not isinstance(data["results"], list):
            raise ValueError("not this cache")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        warnings.append(f"baseline cache {path.name} unreadable: baseline recomputed")
        return None
    if now - created > CACHE_TTL:
        return None
    return data


def _cache_write(path: Path, key: str, entry: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dict(entry, format=CACHE_FORMAT, key=key), ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)


# --- a run ------------------------------------------------------------------------------
def evaluate(
    db: Database,
    suite: Suite,
    *,
    candidate_text: str,
    executor: Executor,
    candidate_path: str | None = None,
    baseline_text: str = "",
    baseline_path: str | None = None,
    judges: JudgeSettings | None = None,
    pass_k: int = 1,
    split: str = "all",
    cache_dir: str | Path | None = None,
    output: str | Path | None = None,
    artifact_dir: str | Path | None = None,
    actor: str | None = None,
    case_id: str | None = None,
    purpose: str = "standalone",
    at: str | None = None,
    every_attempt: bool = False,
    alpha: float | None = None,
) -> dict[str, Any]:
    """Run the suite for a candidate and its baseline, store the run, return the artifact (with run_id).

    The artifact is written to `output`, else to `artifact_dir/<run_id>.json`, else not written
    (truth_anchor null); it is stored with the run either way. Its `statistics` say how much the
    numbers mean (intervals, the paired delta, pass^k, flaky tasks: docs/statistics.md);
    `every_attempt` runs all k attempts even after a pass, so pass^k can be measured.
    """
    if split not in SPLIT_CHOICES:
        raise InputError(f"--split: expected one of {', '.join(SPLIT_CHOICES)}, got {split!r}")
    if not isinstance(pass_k, int) or pass_k < 1:
        raise InputError(f"--pass-k: expected a whole number of attempts of at least 1, got {pass_k!r}")
    tasks = suite.tasks_in(split)
    if not tasks:
        raise InputError(f"{suite.path.name}: no {split} tasks in this suite (use --split all or another split)")
    if output is not None:
        _check_writable(Path(output))  # before the runs, not after them
    settings = judges or JudgeSettings(mock=executor.mock)
    started = at or now_iso()
    now = datetime.fromisoformat(started.replace("Z", "+00:00")) if at else clock_now()
    warnings: list[str] = []
    candidate_hash, baseline_hash = content_hash(candidate_text), content_hash(baseline_text)

    candidate = run_side(suite, tasks, candidate_text, executor, settings, pass_k, every_attempt)
    cache_info: dict[str, Any] = {"used": False}
    baseline = None
    if cache_dir is not None:
        key = _cache_key(suite, baseline_hash, executor, settings, split, pass_k, every_attempt)
        cache_path = Path(cache_dir) / f"baseline-{key[:32]}.json"
        entry = _cache_read(cache_path, key, now, warnings)
        if entry:
            baseline = entry["results"]
            cache_info = {"used": True, "hit": True, "path": str(cache_path.resolve()), "created_at": entry["created_at"]}
        else:
            baseline = run_side(suite, tasks, baseline_text, executor, settings, pass_k, every_attempt)
            try:
                _cache_write(cache_path, key, {"created_at": started, "suite_id": suite.id,
                                               "baseline_sha256": baseline_hash, "executor": executor.identity,
                                               "results": baseline})
                cache_info = {"used": True, "hit": False, "path": str(cache_path.resolve()), "created_at": started}
            except OSError as exc:
                warnings.append(f"baseline cache not written ({exc.strerror or exc})")
    if baseline is None:
        baseline = run_side(suite, tasks, baseline_text, executor, settings, pass_k, every_attempt)

    execution_rate, baseline_rate = pass_rate(candidate), pass_rate(baseline)
    delta = round(execution_rate - baseline_rate, 4)
    health = {"status": "healthy", "baseline_pass_rate": baseline_rate, "threshold": WEAK_BASELINE}
    if baseline_rate < WEAK_BASELINE:
        note = (f"weak baseline: the baseline passes {baseline_rate:.0%} of the tasks (under "
                f"{WEAK_BASELINE:.0%}); review the suite before trusting the delta")
        health.update(status="warning", message=note)
        warnings.append(note)
    for side, results in (("candidate", candidate), ("baseline", baseline)):
        unjudged = [r["task_id"] for r in results if not r["judged"]]
        if unjudged:
            warnings.append(f"{side}: {len(unjudged)} task(s) not judged and counted as not passed: "
                            + ", ".join(unjudged[:5]) + " (llm-rubric needs --judge-command)")
    is_mock = executor.mock or any(r["mock"] for r in candidate + baseline)
    if is_mock:
        warnings.append("mock: results come from gatepost's built-in mock, not from a real AI")
    finished = at or now_iso()
    run_id = "ev-" + content_hash("\x00".join([suite.id, candidate_hash, baseline_hash, executor.identity, split,
                                               str(pass_k), purpose, case_id or "", started]))[:12]
    artifact: dict[str, Any] = {
        "run_id": run_id,
        "skill_id": suite.skill_id,
        "suite": str(suite.path),
        "suite_id": suite.id,
        "split": split,
        "pass_k": pass_k,
        "executor": executor.identity,
        "mock": is_mock,
        "candidate": {"path": candidate_path, "sha256": candidate_hash},
        "baseline": {"path": baseline_path, "sha256": baseline_hash},
        "execution_pass_rate": execution_rate,
        "baseline_pass_rate": baseline_rate,
        "delta": delta,
        "verdict": "pass" if delta >= 0 else "fail",
        "candidate_results": candidate,
        "baseline_results": baseline,
        "baseline_health": health,
        "baseline_cache": cache_info,
        "warnings": warnings,
        "statistics": summarise(
            sides_of_results(candidate, baseline), pass_k=pass_k,
            pooled=pooled_attempts(db, {"suite_id": suite.id, "executor": executor.identity,
                                        "candidate_hash": candidate_hash, "baseline_hash": baseline_hash}),
            cached_baseline=bool(cache_info.get("hit")), alpha=suite.alpha if alpha is None else alpha),
        "case_id": case_id,
        "purpose": purpose,
        "started_at": started,
        "finished_at": finished,
        "truth_anchor": None,
    }
    if output is None and artifact_dir is not None:
        output = Path(artifact_dir) / f"{run_id}.json"
    if output is not None:
        artifact["truth_anchor"] = write_artifact(artifact, Path(output))
    _store(db, suite, artifact, actor=actor)
    return artifact


def _check_writable(path: Path) -> None:
    path = path.expanduser().resolve()
    if path.is_dir():
        raise InputError(f"--output: {path}: is a folder, expected a file path for the artifact")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--output: {path.parent}: cannot be created ({exc.strerror or exc})") from None
    if not os.access(path.parent, os.W_OK):
        raise InputError(f"--output: {path.parent}: not writable")


def write_artifact(artifact: dict, path: Path) -> str:
    """Write the artifact JSON; its truth_anchor is its own absolute path."""
    path = path.expanduser().resolve()
    artifact["truth_anchor"] = str(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(artifact, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise InputError(f"--output: {path}: cannot be written ({exc.strerror or exc})") from None
    return str(path)


def record_suite(db: Database, suite: Suite, *, at: str | None = None) -> None:
    """The suite's text, stored once per content hash (evaluation runs point at it)."""
    db.execute(
        "INSERT OR IGNORE INTO task_suites (id, skill_id, version, path, yaml, task_count, loaded_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [suite.id, suite.skill_id, suite.version, str(suite.path), suite.text, len(suite.tasks), at or now_iso()],
    )


TASK_COLUMNS = ("run_id", "side", "task_id", "attempt", "passed", "judged", "score", "duration_ms", "output",
                "reason", "mock", "split")
_INSERT_TASK = (f"INSERT INTO task_results ({', '.join(TASK_COLUMNS)})"
                f" VALUES ({', '.join('?' * len(TASK_COLUMNS))})")
# The per-task results live in task_results only; the stored artifact JSON says so and get_run puts them back.
RESULTS_IN_TABLE = "task_results"


def _task_rows(run_id: str, side: str, results: list[dict]) -> list[tuple]:
    """task_results rows as tuples in TASK_COLUMNS order, for one executemany."""
    return [(run_id, side, result["task_id"], a["attempt"], int(bool(a["passed"])), int(bool(a["judged"])),
             a["score"], a["duration_ms"], a["output"], a["reason"], int(bool(a["mock"])), result.get("split"))
            for result in results for a in result["attempt_details"]]


def _stored_artifact(artifact: dict) -> str:
    slim = {k: v for k, v in artifact.items() if k not in ("candidate_results", "baseline_results")}
    slim["results_stored_in"] = RESULTS_IN_TABLE
    return json.dumps(slim, ensure_ascii=False)


def _results_from_table(db: Database, run_id: str) -> dict[str, list[dict]]:
    """The artifact's candidate_results and baseline_results, rebuilt from task_results."""
    sides: dict[str, dict[str, list[dict]]] = {"candidate": {}, "baseline": {}}
    splits: dict[tuple[str, str], str | None] = {}
    cursor = db.execute("SELECT side, task_id, attempt, passed, judged, score, duration_ms, output, reason, mock,"
                        " split FROM task_results WHERE run_id = ? ORDER BY id", [run_id])
    for side, task_id, attempt, passed, judged, score, duration, output, reason, mock, split in cursor:
        sides.setdefault(side, {}).setdefault(task_id, []).append(
            {"attempt": attempt, "passed": bool(passed), "score": score, "judged": bool(judged), "reason": reason,
             "mock": bool(mock), "duration_ms": duration, "output": output})
        splits[(side, task_id)] = split
    return {f"{side}_results": [_summarise(task_id, splits[(side, task_id)], attempts)
                                for task_id, attempts in tasks.items()]
            for side, tasks in sides.items() if side in ("candidate", "baseline")}


def _store(db: Database, suite: Suite | None, artifact: dict, *, actor: str | None,
           rows: list[tuple] | None = None) -> None:
    """Store the run, its event and its task results in one transaction (`rows`: prebuilt task rows)."""
    run_id = artifact["run_id"]
    with transaction(db):
        if suite is not None:
            record_suite(db, suite, at=artifact["started_at"])
        if db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [run_id]).fetchone():
            raise InputError(f"evaluation run {run_id}: already recorded")
        seq = append_event(
            db, "suite.run", actor=actor, subject_type="run", subject_id=run_id,
            payload={"suite": artifact.get("suite_id"), "skill_id": artifact.get("skill_id"),
                     "verdict": artifact["verdict"], "delta": artifact["delta"], "case_id": artifact.get("case_id"),
                     "purpose": artifact.get("purpose"), "mock": artifact.get("mock")},
            note=f"{artifact.get('skill_id') or 'suite'}: {artifact['execution_pass_rate']:.4g} vs "
                 f"{artifact['baseline_pass_rate']:.4g} ({artifact['verdict']})",
            at=artifact.get("finished_at"),
        )
        candidate, baseline = artifact.get("candidate") or {}, artifact.get("baseline") or {}
        text = lambda v: v if isinstance(v, str) else None  # noqa: E731 - an imported file's odd values: none
        db.execute(
            "INSERT INTO evaluation_runs (id, suite_id, skill_id, candidate_path, candidate_hash, baseline_path,"
            " baseline_hash, executor, mock, pass_k, split, execution_pass_rate, baseline_pass_rate, delta, verdict,"
            " warnings, baseline_health, artifact, case_id, purpose, started_at, finished_at, event_seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, suite.id if suite is not None else None, text(artifact.get("skill_id")),
             text(candidate.get("path")), text(candidate.get("sha256")), text(baseline.get("path")),
             text(baseline.get("sha256")), text(artifact.get("executor")), int(bool(artifact.get("mock"))),
             artifact.get("pass_k") if type(artifact.get("pass_k")) is int else None, text(artifact.get("split")),
             artifact["execution_pass_rate"], artifact["baseline_pass_rate"], artifact["delta"], artifact["verdict"],
             json.dumps(artifact.get("warnings") or [], ensure_ascii=False),
             json.dumps(artifact.get("baseline_health") or {}, ensure_ascii=False), _stored_artifact(artifact),
             text(artifact.get("case_id")), text(artifact.get("purpose")), text(artifact.get("started_at")),
             text(artifact.get("finished_at")), seq])
        if rows is None:
            rows = _task_rows(run_id, "candidate", artifact["candidate_results"]) + \
                _task_rows(run_id, "baseline", artifact["baseline_results"])
        db.conn.executemany(_INSERT_TASK, rows)
        refresh_task_order(db, run_id, rows)  # the run's review order and counts (issue 19)


# --- reading runs (the console's queries) ---------------------------------------------------
RUN_COLUMNS = ("id, suite_id, skill_id, candidate_path, candidate_hash, baseline_path, baseline_hash, executor, mock,"
               " pass_k, split, execution_pass_rate, baseline_pass_rate, delta, verdict, warnings, baseline_health,"
               " case_id, purpose, started_at, finished_at")


def _run_dict(cursor: sqlite3.Cursor, row: tuple) -> dict:
    record = dict(zip([c[0] for c in cursor.description], row, strict=True))
    for key in ("warnings", "baseline_health"):
        if key in record:
            record[key] = json.loads(record[key]) if record[key] else ([] if key == "warnings" else {})
    return record


def list_runs(db: Database, *, search: str | None = None, verdict: str | None = None, case_id: str | None = None,
              limit: int = 100, offset: int = 0) -> tuple[list[dict], int]:
    """Evaluation runs newest first, one page, and how many match."""
    clauses, params = [], []
    if search:
        clauses.append("(id LIKE ? OR skill_id LIKE ? OR candidate_path LIKE ? OR baseline_path LIKE ?"
                       " OR case_id LIKE ? OR executor LIKE ?)")
        params.extend([f"%{search}%"] * 6)
    if verdict:
        clauses.append("verdict = ?")
        params.append(verdict)
    if case_id:
        clauses.append("case_id = ?")
        params.append(case_id)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    cursor = db.execute(f"SELECT {RUN_COLUMNS} FROM evaluation_runs{where} ORDER BY started_at DESC, id DESC"
                        " LIMIT ? OFFSET ?", [*params, limit, offset])
    rows = [_run_dict(cursor, r) for r in cursor.fetchall()]
    total = db.execute(f"SELECT COUNT(*) FROM evaluation_runs{where}", params).fetchone()[0]
    return rows, total


def get_run(db: Database, run_id: str, *, with_results: bool = True) -> dict | None:
    """One run with its artifact (as written), or None.

    The per-task results live in task_results; `with_results=False` leaves them
    out of the artifact, for callers that only show the run's summary.
    """
    cursor = db.execute(f"SELECT {RUN_COLUMNS}, artifact FROM evaluation_runs WHERE id = ?", [run_id])
    row = cursor.fetchone()
    if not row:
        return None
    record = _run_dict(cursor, row)
    artifact = json.loads(record["artifact"]) if record["artifact"] else None
    if artifact is not None and artifact.pop("results_stored_in", None) == RESULTS_IN_TABLE and with_results:
        artifact.update(_results_from_table(db, run_id))
    record["artifact"] = artifact
    return record


def _side_summary(attempts: list[dict]) -> dict:
    passing = [a for a in attempts if a["passed"]]
    shown = passing[0] if passing else attempts[-1]
    scores = [a["score"] for a in attempts if a["score"] is not None]
    return {"passed": bool(passing), "score": max(scores) if scores else None,
            "outcomes": outcome_counts(attempts), "attempts_line": attempts_line(attempts),
            "judged": any(a["judged"] for a in attempts), "attempts": len(attempts),
            "duration_ms": sum(a["duration_ms"] or 0 for a in attempts), "reason": None if passing else shown["reason"],
            "mock": any(a["mock"] for a in attempts), "shown_attempt": shown["attempt"]}


def _attempts(db: Database, run_id: str, task_id: str | None = None, *, with_output: bool = False) -> list[dict]:
    cols = "id, side, task_id, attempt, passed, judged, score, duration_ms, reason, mock, split"
    if with_output:
        cols += ", output"
    sql = f"SELECT {cols} FROM task_results WHERE run_id = ?"
    params: list[Any] = [run_id]
    if task_id is not None:  # side named so the (run_id, side, task_id) index finds the task, not a run scan
        sql += " AND side IN ('candidate', 'baseline') AND task_id = ?"
        params.append(task_id)
    cursor = db.execute(sql + " ORDER BY id", params)
    names = [c[0] for c in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def previous_run(db: Database, run_id: str) -> dict | None:
    """The run of the same suite and skill just before this one (by start time): what a run is compared with."""
    row = db.execute("SELECT suite_id, skill_id, COALESCE(started_at, '') FROM evaluation_runs WHERE id = ?",
                     [run_id]).fetchone()
    if not row:
        return None
    suite_id, skill_id, started = row
    cursor = db.execute(
        f"SELECT {RUN_COLUMNS} FROM evaluation_runs WHERE suite_id IS ? AND skill_id IS ? AND id != ?"
        " AND (COALESCE(started_at, '') < ? OR (COALESCE(started_at, '') = ? AND id < ?))"
        " ORDER BY started_at DESC, id DESC LIMIT 1", [suite_id, skill_id, run_id, started, started, run_id])
    found = cursor.fetchone()
    return _run_dict(cursor, found) if found else None


def _candidate_passes(db: Database, run_id: str) -> dict[str, bool]:
    """Per task, whether the candidate passed in a run (pass@k: any attempt)."""
    return {task: bool(passed) for task, passed in db.execute(
        "SELECT task_id, MAX(passed) FROM task_results WHERE run_id = ? AND side = 'candidate' GROUP BY task_id",
        [run_id]).fetchall()}


def run_tasks(db: Database, run_id: str) -> list[dict]:
    """Per task: the candidate's and the baseline's result, and whether the candidate's pass/fail changed
    against the previous run of the same suite and skill (`changed_vs_previous`, `previous_passed`).

    Tasks that changed since the previous run lead, then those whose candidate and baseline differ.
    """
    previous = previous_run(db, run_id)
    before = _candidate_passes(db, previous["id"]) if previous else {}
    order: list[str] = []
    sides: dict[str, dict[str, list[dict]]] = {}
    splits: dict[str, str] = {}
    for a in _attempts(db, run_id):
        if a["task_id"] not in sides:
            order.append(a["task_id"])
            sides[a["task_id"]] = {"candidate": [], "baseline": []}
        sides[a["task_id"]].setdefault(a["side"], []).append(a)
        splits[a["task_id"]] = a["split"]
    rows = []
    for index, task_id in enumerate(order):
        cand, base = sides[task_id].get("candidate"), sides[task_id].get("baseline")
        c = _side_summary(cand) if cand else None
        b = _side_summary(base) if base else None
        differs = (c or {}).get("passed") != (b or {}).get("passed")
        was = before.get(task_id)
        changed = was is not None and c is not None and was != c["passed"]
        rows.append({"task_id": task_id, "split": splits[task_id], "candidate": c, "baseline": b,
                     "differs": differs, "changed_vs_previous": changed, "previous_passed": was,
                     "previous_run": previous["id"] if previous else None, "_order": index})
    rows.sort(key=lambda r: (not r["changed_vs_previous"], not r["differs"] and not r["changed_vs_previous"],
                             r["_order"]))
    for r in rows:
        del r["_order"]
    return rows


def task_attempts(db: Database, run_id: str, task_id: str) -> dict[str, list[dict]]:
    """Each attempt of a task per side, in order, with its outcome word, reason, score and duration."""
    out: dict[str, list[dict]] = {"candidate": [], "baseline": []}
    for a in _attempts(db, run_id, task_id):
        out.setdefault(a["side"], []).append({**a, "passed": bool(a["passed"]), "outcome": outcome(a)})
    return out


def task_outputs(db: Database, run_id: str, task_id: str) -> dict[str, dict | None]:
    """A task's two outputs (the passing attempt's, else the last one's) with their attempt and reason."""
    attempts = _attempts(db, run_id, task_id, with_output=True)
    out: dict[str, dict | None] = {"candidate": None, "baseline": None}
    for side in out:
        mine = [a for a in attempts if a["side"] == side]
        if mine:
            summary = _side_summary(mine)
            shown = next(a for a in mine if a["attempt"] == summary["shown_attempt"])
            out[side] = {"output": shown["output"] or "", "attempt": shown["attempt"], "passed": summary["passed"],
                         "score": summary["score"], "reason": summary["reason"], "attempts": len(mine)}
    return out


# --- importing a foreign artifact --------------------------------------------------------------
def _need(data: dict, key: str, kinds: tuple, name: str, what: str):
    value = data.get(key)
    if value is None and type(None) not in kinds:
        raise InputError(f"{name}: {key}: missing (expected {what})")
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise InputError(f"{name}: {key}: expected {what}")
    return value


def _finite(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def _imported_rows(items: Any, key: str, name: str, run_id: str, side: str) -> tuple[list[tuple], bool]:
    """Validate an artifact's per-task results and build their task_results rows (one attempt each).

    Returns the rows (tuples in TASK_COLUMNS order) and whether any result says
    mock. One tight pass checks and builds every row; only a file with a bad
    result pays for the second pass that names the first bad field.
    """
    if not isinstance(items, list):
        raise InputError(f"{name}: {key}: expected a list of per-task results")
    rows: list[tuple] = []
    append, isfinite = rows.append, math.isfinite
    mock_any = False
    for item in items:
        if type(item) is not dict:
            break
        get = item.get
        task_id, passed, score, duration = get("task_id"), get("passed"), get("score"), get("duration_ms", 0)
        output, reason, split, mock = get("output", ""), get("reason"), get("split"), get("mock")
        ts, td = type(score), type(duration)
        if (type(task_id) is not str or not task_id or type(passed) is not bool
                or not (score is None or ts is int or (ts is float and isfinite(score)))
                or not (td is int or (td is float and isfinite(duration)))
                or not (output is None or type(output) is str)):
            break
        if mock:
            mock_any = True
        append((run_id, side, task_id, 1, 1 if passed else 0, 0 if get("judged", True) is False else 1, score,
                int(duration), output or "", reason if type(reason) is str else None, 1 if mock else 0,
                split if type(split) is str else None))
    else:
        return rows, mock_any
    _explain_bad_result(items, key, name)
    raise AssertionError("unreachable: _explain_bad_result raises")  # pragma: no cover


def _explain_bad_result(items: list, key: str, name: str) -> None:
    """Raise the InputError naming the first bad per-task result and its field."""
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError(f"{name}: {key}[{i}]: expected an object with task_id and passed")
        task_id, score, duration, output = (item.get("task_id"), item.get("score"), item.get("duration_ms", 0),
                                            item.get("output", ""))
        if type(task_id) is not str or not task_id:
            missing = "missing (expected a non-empty string)" if task_id is None else "expected a non-empty string"
            raise InputError(f"{name}: {key}[{i}].task_id: {missing}")
        if type(item.get("passed")) is not bool:
            missing = "missing (expected true or false)" if item.get("passed") is None else "expected true or false"
            raise InputError(f"{name}: {key}[{i}].passed: {missing}")
        if score is not None and not _finite(score):
            raise InputError(f"{name}: {key}[{i}].score: expected a number or null")
        if not _finite(duration):
            raise InputError(f"{name}: {key}[{i}].duration_ms: expected a number of milliseconds")
        if output is not None and type(output) is not str:
            raise InputError(f"{name}: {key}[{i}].output: expected a string")


def import_artifact(db: Database, path: str | Path, *, actor: str | None = None) -> tuple[str, bool]:
    """Store an evaluator artifact JSON (ours or the upstream evaluator's); returns (run id, newly stored)."""
    path = Path(path)
    name = path.name
    text = read_text(path, what="artifact file")
    raw = text.encode("utf-8")
    data = parse_json(text, source=name)
    if not isinstance(data, dict):
        raise InputError(f"{name}: expected a JSON object (an evaluator artifact)")
    for key in ("execution_pass_rate", "baseline_pass_rate"):
        value = _need(data, key, (int, float), name, "a pass rate from 0 to 1")
        if not 0 <= value <= 1:
            raise InputError(f"{name}: {key}: expected a pass rate from 0 to 1, got {value!r}")
    delta = _need(data, "delta", (int, float), name, "a number (candidate - baseline)")
    if not math.isfinite(delta):
        raise InputError(f"{name}: delta: expected a finite number (candidate - baseline), got {delta!r}")
    verdict = data.get("verdict")
    if verdict not in VERDICTS:
        raise InputError(f"{name}: verdict: expected one of {', '.join(VERDICTS)}, got {verdict!r}")
    warnings = data.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise InputError(f"{name}: warnings: expected a list of strings")
    health = data.get("baseline_health", {})
    if not isinstance(health, dict):
        raise InputError(f"{name}: baseline_health: expected an object")
    run_id = "imp-" + hashlib.sha256(raw).hexdigest()[:12]
    candidate, candidate_mock = _imported_rows(data.get("candidate_results", []), "candidate_results", name,
                                               run_id, "candidate")
    baseline, baseline_mock = _imported_rows(data.get("baseline_results", []), "baseline_results", name,
                                             run_id, "baseline")
    if db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [run_id]).fetchone():
        return run_id, False
    at = now_iso()
    str_or_none = lambda v: v if isinstance(v, str) else None  # noqa: E731
    artifact = dict(data)
    artifact.update({
        "run_id": run_id,
        "skill_id": str_or_none(data.get("skill_id")) or str_or_none(data.get("candidate_id")),
        "executor": str_or_none(data.get("executor")) or "imported",
        "mock": bool(data.get("mock")) or candidate_mock or baseline_mock,
        "candidate": data.get("candidate") if isinstance(data.get("candidate"), dict) else {"path": None, "sha256": None},
        "baseline": data.get("baseline") if isinstance(data.get("baseline"), dict) else {"path": None, "sha256": None},
        "delta": round(float(delta), 4),
        "warnings": warnings,
        "baseline_health": health,
        "purpose": "imported",
        "pass_k": data.get("pass_k") if isinstance(data.get("pass_k"), int) else None,
        "split": str_or_none(data.get("split")),
        "case_id": None,
        "started_at": str_or_none(data.get("started_at")) or at,
        "finished_at": at,
        "imported_from": str(path.resolve()),
    })
    for key in ("candidate_results", "baseline_results"):
        artifact.pop(key, None)  # validated into rows above; stored once, in task_results
    _store(db, None, artifact, actor=actor, rows=candidate + baseline)
    return run_id, True


# --- a case's evidence: the guard check, two tuning comparisons, one held-out comparison --------
__all__ = ["MOCK", "evaluate", "list_runs", "get_run", "run_tasks", "task_outputs",
           "import_artifact", "read_skill", "content_hash", "pass_rate", "WEAK_BASELINE", "CACHE_TTL"]
