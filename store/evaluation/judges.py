"""Judges: did an output pass its task? contains, pytest, llm-rubric, with the upstream defaults."""

import json
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gatepost.store.kernel import InputError, parse_json

from .executors import OUTPUT_CAP, run_bounded
from .suites import FIXTURES, Task

PYTEST_TIMEOUT = 60.0
RUBRIC_TIMEOUT = 120.0
MOCK_RUBRIC_SCORE = 1.0


@dataclass(frozen=True)
class Judgement:
    passed: bool
    score: float | None
    judged: bool = True
    reason: str | None = None
    mock: bool = False


@dataclass(frozen=True)
class JudgeSettings:
    """How a run judges: an llm-rubric judge command (argv) or none, mock, and the pytest timeout."""

    rubric_argv: list[str] | None = None
    mock: bool = False
    pytest_timeout: float = PYTEST_TIMEOUT
    rubric_timeout: float = RUBRIC_TIMEOUT


def judge_contains(expected: list[str], output: str) -> Judgement:
    """The fraction of expected strings found (case-insensitive); passes only when all are."""
    lowered = output.lower()
    found = [s for s in expected if s.lower() in lowered]
    score = round(len(found) / len(expected), 4)
    missing = [s for s in expected if s not in found]
    reason = None if not missing else "missing: " + ", ".join(repr(s) for s in missing[:5])
    return Judgement(passed=score >= 1.0, score=score, reason=reason)


def judge_pytest(suite_dir: Path, test_file: str, output: str, *, timeout: float = PYTEST_TIMEOUT) -> Judgement:
    """Run pytest on a copy of the suite's fixtures in a fresh folder, the output in AI_OUTPUT_FILE."""
    source = (suite_dir / FIXTURES).resolve()
    target = (suite_dir / test_file).resolve()
    if not target.is_relative_to(source) or not target.is_file():
        return Judgement(False, 0.0, reason=f"{test_file}: not a file under the suite's fixtures/")
    with tempfile.TemporaryDirectory(prefix="gatepost-pytest-") as tmp:
        work = Path(tmp)
        shutil.copytree(source, work / FIXTURES)
        (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        output_file = work / "ai_output.txt"
        output_file.write_text(output, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        # plugins of gatepost's own environment have nothing to do with a suite's fixture (and slow it 3x)
        env.update(AI_OUTPUT_FILE=str(output_file), PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(work),
                "-c", str(work / "pytest.ini"), str(work / test_file)]
        result = run_bounded(argv, b"", timeout=timeout, cwd=work, env=env)
    problem = result.failure(timeout)
    if result.returncode == 0 and problem is None:
        return Judgement(True, 1.0)
    if result.returncode in (1,) and not result.timed_out:
        tail = [line for line in result.text.splitlines() if line.strip()][-1:] or ["tests failed"]
        return Judgement(False, 0.0, reason=f"pytest: {tail[0][:200]}")
    if result.returncode == 5:
        return Judgement(False, 0.0, reason=f"pytest: no tests collected in {test_file}")
    return Judgement(False, 0.0, reason=f"pytest: {problem or f'exited with status {result.returncode}'}")


def judge_rubric(rubric: str, threshold: float, output: str, settings: JudgeSettings) -> Judgement:
    """Score through the judge command: {rubric, output} on stdin, {"score": float} on stdout."""
    if not settings.rubric_argv:
        if settings.mock:
            return Judgement(True, MOCK_RUBRIC_SCORE, reason="mock judge: fixed passing score", mock=True)
        return Judgement(False, None, judged=False, reason="not judged: llm-rubric needs --judge-command")
    payload = json.dumps({"rubric": rubric, "output": output}, ensure_ascii=False).encode("utf-8")
    result = run_bounded(settings.rubric_argv, payload, timeout=settings.rubric_timeout, cap=OUTPUT_CAP)
    problem = result.failure(settings.rubric_timeout)
    if problem:
        return Judgement(False, None, judged=False, reason=f"judge command {problem}")
    try:
        answer = parse_json(result.text, source="judge command")
    except InputError as exc:  # strict: a duplicate "score" is refused, not last-one-wins
        return Judgement(False, None, judged=False, reason=f"judge command printed invalid JSON ({exc})")
    score = answer.get("score") if isinstance(answer, dict) else None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score) \
            or not 0 <= score <= 1:
        return Judgement(False, None, judged=False,
                         reason=f"judge command: expected {{\"score\": a number from 0 to 1}}, got {result.text[:80]!r}")
    score = float(score)
    passed = score >= threshold
    return Judgement(passed, round(score, 4),
                     reason=None if passed else f"rubric score {score:g} below pass_threshold {threshold:g}")


def judge(task: Task, output: str, *, suite_dir: Path, settings: JudgeSettings) -> Judgement:
    """Judge one output of one task by the task's judge block."""
    kind = task.judge_type
    if kind == "contains":
        return judge_contains(task.judge["expected"], output)
    if kind == "pytest":
        return judge_pytest(suite_dir, task.judge["test_file"], output, timeout=settings.pytest_timeout)
    return judge_rubric(task.judge["rubric"], task.judge["pass_threshold"], output, settings)
