"""The task-suite evaluator: a candidate skill against a baseline, task by task, pass@k.

A run executes every task of a split for both sides, judges each attempt, and writes the
artifact in upstream evaluate.py's shape (artifacts.py) with gatepost's flat fields beside it;
runs.py stores the run and every attempt in one transaction (this module runs no SQL).
Baselines are cached for 7 days, keyed by the suite, the baseline skill's content hash and the
executor; a cache entry is trusted only if it carries this store's MAC and is not dated ahead.
"""

import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from sqlite_utils import Database

from gatepost.store.kernel import InputError, now_iso, read_text
from gatepost.store.kernel import now as clock_now

from .artifacts import write_artifact
from .attempts import summarise_attempts
from .executors import Attempt
from .judges import JudgeSettings, judge
from .noise import pooled_attempts, sides_of_results, summarise
from .runs import baseline_cache_key, store_run
from .suites import Suite, Task

WEAK_BASELINE = 0.2
CACHE_TTL = timedelta(days=7)
SPLIT_CHOICES = ("tuning", "heldout", "all")
CACHE_FORMAT = "gatepost-baseline-cache/2"


class Executor(Protocol):
    """What the runner needs of an executor: CommandExecutor, MockExecutor, or a stand-in such as the demo's."""

    @property
    def mock(self) -> bool: ...

    @property
    def identity(self) -> str: ...

    def run(self, task_id: str, prompt: str, skill: str, *, timeout: float, attempt: int = 1) -> Attempt: ...


@dataclass(frozen=True)
class RunSettings:
    """How an evaluation runs, the same for every run it makes: from the CLI (suite run, case evaluate) or a
    loop's registry through flows.evaluate_case to `evaluate`. What is evaluated (the candidate, its baseline,
    the split) and who records it are the runs' own arguments."""

    executor: Executor
    judges: JudgeSettings | None = None  # None: the default judges (mock ones for a mock executor)
    pass_k: int = 1  # attempts per task; a task passes when any of them passes
    every_attempt: bool = False  # run all k attempts even after a pass, so pass^k can be measured
    cache_dir: str | Path | None = None  # where baselines are cached (None: not cached)
    artifact_dir: str | Path | None = None  # where each run's artifact is written (None: not written)
    decision_rule: str | None = None  # significant or strict (None: the suite's); evaluate_case's comparisons
    alpha: float | None = None  # the level of the significant rule (None: the suite's)


def content_hash(text: str) -> str:
    """sha256 hex of the UTF-8 text: how a skill's content is named in runs and cache keys."""
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
    return summarise_attempts(task.id, task.split, attempts)


def run_side(suite: Suite, tasks: list[Task], skill: str, executor: Executor, settings: JudgeSettings,
             pass_k: int, every_attempt: bool = False) -> list[dict[str, Any]]:
    """Every task of one side (candidate or baseline), in suite order."""
    return [_run_task(t, skill, executor, settings, pass_k, suite.path.parent, every_attempt) for t in tasks]


def pass_rate(results: list[dict[str, Any]]) -> float:
    """Share of tasks passed, 4 places (upstream's compute_pass_rate)."""
    return round(sum(1 for r in results if r["passed"]) / len(results), 4) if results else 0.0


# --- the baseline cache ----------------------------------------------------------------
def _cache_key(suite: Suite, baseline_hash: str, executor: Executor, settings: JudgeSettings,
               split: str, pass_k: int, every_attempt: bool = False) -> str:
    judge_id = " ".join(settings.rubric_argv) if settings.rubric_argv else ("mock" if settings.mock else "")
    parts = [suite.id, baseline_hash, executor.identity, split, str(pass_k), judge_id]
    if every_attempt:
        parts.append("every-attempt")
    return content_hash("\x00".join(parts))


def _mac(secret: str, body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hmac.new(secret.encode("ascii"), canonical.encode("utf-8"), hashlib.sha256).hexdigest()


def _cache_read(path: Path, key: str, secret: str, now: datetime, warnings: list[str]) -> dict[str, Any] | None:
    """The entry if this store wrote it for this key, is not dated ahead and is under 7 days old; else None.

    Anything else is a miss: unreadable or malformed (with a warning), foreign or altered (no
    valid MAC, with a warning), dated in the future (with a warning), expired (silently).
    """
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key:
            raise ValueError("not this cache")
        created = datetime.fromisoformat(str(data["created_at"]).replace("Z", "+00:00"))
        if created.tzinfo is None or not isinstance(data["results"], list) or not isinstance(data.get("mac"), str):
            raise ValueError("malformed")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError):
        warnings.append(f"baseline cache {path.name} unreadable: baseline recomputed")
        return None
    body = {k: v for k, v in data.items() if k != "mac"}
    if not hmac.compare_digest(data["mac"], _mac(secret, body)):
        warnings.append(f"baseline cache {path.name} not written by this store (no valid MAC): baseline recomputed")
        return None
    if created > now:
        warnings.append(f"baseline cache {path.name} dated in the future ({data['created_at']}): baseline recomputed")
        return None
    if now - created > CACHE_TTL:
        return None
    return data


def _cache_write(path: Path, key: str, secret: str, entry: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = dict(entry, format=CACHE_FORMAT, key=key)
    body["mac"] = _mac(secret, body)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)


# --- a run ------------------------------------------------------------------------------
def evaluate(
    db: Database,
    suite: Suite,
    *,
    candidate_text: str,
    settings: RunSettings,
    candidate_path: str | None = None,
    baseline_text: str = "",
    baseline_path: str | None = None,
    split: str = "all",
    output: str | Path | None = None,
    actor: str | None = None,
    case_id: str | None = None,
    purpose: str = "standalone",
    at: str | None = None,
    fields: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the suite for a candidate and its baseline, store the run, return the artifact (with run_id).

    `fields` are added to the artifact as they are (the pipeline mode's ranking run id, lane, candidate id
    and score: pipeline.pipeline_fields).

    The artifact is written to `output`, else to `artifact_dir/<run_id>.json`, else not written
    (truth_anchor null); it is stored with the run either way. Its `statistics` say how much the
    numbers mean (intervals, the paired delta, pass^k, flaky tasks: docs/statistics.md);
    `settings.every_attempt` runs all k attempts even after a pass, so pass^k can be measured.
    """
    executor, judges, pass_k, every_attempt = settings.executor, settings.judges, settings.pass_k, settings.every_attempt
    cache_dir, artifact_dir, alpha = settings.cache_dir, settings.artifact_dir, settings.alpha
    if split not in SPLIT_CHOICES:
        raise InputError(f"--split: expected one of {', '.join(SPLIT_CHOICES)}, got {split!r}")
    if not isinstance(pass_k, int) or pass_k < 1:
        raise InputError(f"--pass-k: expected a whole number of attempts of at least 1, got {pass_k!r}")
    tasks = suite.tasks_in(split)
    if not tasks:
        raise InputError(f"{suite.path.name}: no {split} tasks in this suite (use --split all or another split)")
    if output is not None:
        _check_writable(Path(output))  # before the runs, not after them
    judging = judges or JudgeSettings(mock=executor.mock)
    started = at or now_iso()
    now = datetime.fromisoformat(started.replace("Z", "+00:00")) if at else clock_now()
    warnings: list[str] = []
    candidate_hash, baseline_hash = content_hash(candidate_text), content_hash(baseline_text)

    candidate = run_side(suite, tasks, candidate_text, executor, judging, pass_k, every_attempt)
    cache_info: dict[str, Any] = {"used": False}
    baseline = None
    if cache_dir is not None:
        key = _cache_key(suite, baseline_hash, executor, judging, split, pass_k, every_attempt)
        cache_path = Path(cache_dir) / f"baseline-{key[:32]}.json"
        secret = baseline_cache_key(db)
        entry = _cache_read(cache_path, key, secret, now, warnings)
        if entry:
            baseline = entry["results"]
            cache_info = {"used": True, "hit": True, "path": str(cache_path.resolve()), "created_at": entry["created_at"]}
        else:
            baseline = run_side(suite, tasks, baseline_text, executor, judging, pass_k, every_attempt)
            try:
                _cache_write(cache_path, key, secret, {"created_at": started, "suite_id": suite.id,
                                               "baseline_sha256": baseline_hash, "executor": executor.identity,
                                               "results": baseline})
                cache_info = {"used": True, "hit": False, "path": str(cache_path.resolve()), "created_at": started}
            except OSError as exc:
                warnings.append(f"baseline cache not written ({exc.strerror or exc})")
    if baseline is None:
        baseline = run_side(suite, tasks, baseline_text, executor, judging, pass_k, every_attempt)

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
        **(fields or {}),
    }
    if output is None and artifact_dir is not None:
        output = Path(artifact_dir) / f"{run_id}.json"
    if output is not None:
        artifact["truth_anchor"] = write_artifact(artifact, Path(output))
    store_run(db, suite, artifact, actor=actor)
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




__all__ = ["CACHE_FORMAT", "CACHE_TTL", "SPLIT_CHOICES", "WEAK_BASELINE", "Executor", "RunSettings", "content_hash", "evaluate",
           "pass_rate", "read_skill", "run_side"]
