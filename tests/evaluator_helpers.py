"""Shared bits of the evaluator tests: the fixture scripts as commands, and small suites written on the fly."""

import sys
from pathlib import Path

import yaml

EVAL = Path(__file__).resolve().parent / "fixtures" / "evaluator"
BASIC = EVAL / "suites" / "basic" / "suite.yaml"
BROKEN = EVAL / "suites" / "broken" / "suite.yaml"
GOOD_SKILL = EVAL / "skill_good.md"
WEAK_SKILL = EVAL / "skill_weak.md"


def executor(mode: str) -> str:
    return f"{sys.executable} {EVAL / 'executor.py'} {mode}"


def judge(mode: str) -> str:
    return f"{sys.executable} {EVAL / 'judge.py'} {mode}"


def scorer(mode: str) -> str:
    return f"{sys.executable} {EVAL / 'scorer.py'} {mode}"


def write_suite(folder: Path, tasks: list[dict], *, skill_id: str = "demo-skill", name: str = "suite.yaml",
                fixtures: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for rel, text in (fixtures or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    path = folder / name
    path.write_text(yaml.safe_dump({"skill_id": skill_id, "version": "1.0", "tasks": tasks}, sort_keys=False),
                    encoding="utf-8")
    return path


def contains_task(task_id: str, prompt: str, expected: list[str], **extra) -> dict:
    return {"id": task_id, "prompt": prompt, "judge": {"type": "contains", "expected": expected}, **extra}
