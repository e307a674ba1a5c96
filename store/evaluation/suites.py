"""Task suites (YAML v1.0): loaded and validated by the evaluator seed's load-time rules.

Every problem is collected, each naming the file, the task and the field, so
`gatepost suite validate` can show a suite's author all of them at once.
"""

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, TypeGuard, cast

from gatepost.store.kernel import InputError, parse_yaml, read_text

from .stats import (
    ALPHA,
    DECISION_RULES,
    DEFAULT_RULE,
    MAX_REGRESSION,
    MUST_DETECT,
    can_detect,
    detect_words,
    pp,
)

SUITE_VERSION = "1.0"
JUDGE_TYPES = ("contains", "pytest", "llm-rubric")
SPLITS = ("tuning", "heldout")
DEFAULT_SPLIT = "tuning"
DEFAULT_TIMEOUT_SECONDS = 300.0  # upstream task_runner.TaskRunner(timeout=300)
DEFAULT_PASS_THRESHOLD = 0.7
FIXTURES = "fixtures"


@dataclass(frozen=True)
class Task:
    id: str
    prompt: str
    judge: dict[str, Any]
    split: str = DEFAULT_SPLIT
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    description: str = ""

    @property
    def judge_type(self) -> str:
        judge_type: str = self.judge["type"]
        return judge_type


@dataclass(frozen=True)
class Suite:
    """A valid suite. `id` is the sha256 of the file's bytes, so a changed suite is a new suite."""

    id: str
    skill_id: str
    version: str
    path: Path
    text: str
    tasks: tuple[Task, ...] = field(default_factory=tuple)
    decision_rule: str = DEFAULT_RULE  # significant (decided at alpha) | strict (a tie passes): docs/statistics.md
    alpha: float = ALPHA
    max_regression: float = MAX_REGRESSION  # the held-out drop the suite must detect before "held" counts
    must_detect: float = MUST_DETECT  # the tuning change the suite should decide; validate warns otherwise
    guard_allow: tuple[str, ...] = ()  # expected answers a candidate may legitimately contain (the guard skips them)

    def tasks_in(self, split: str) -> list[Task]:
        """The tasks of one split, or every task for `all`."""
        return [t for t in self.tasks if split == "all" or t.split == split]

    def power(self) -> dict[str, Any]:
        """What the suite can decide at its alpha, before it runs: per split the smallest change its tasks
        decide, in words, and the warnings `suite validate` and `loop add` print (docs/statistics.md)."""
        tuning, heldout = len(self.tasks_in("tuning")), len(self.tasks_in("heldout"))
        warnings = []
        if tuning and not can_detect(tuning, self.must_detect, self.alpha):
            warnings.append(f"{detect_words(tuning, self.alpha, what='tuning tasks')}, coarser than the suite's floor "
                            f"(must_detect: {pp(self.must_detect, sign=False)} pp): under the "
                            f"{self.decision_rule} rule " + ("a smaller change is kept on noise"
                                                             if self.decision_rule == "strict" else
                                                             "a smaller change leaves tuning.improved UNKNOWN"))
        if heldout and not can_detect(heldout, self.max_regression, self.alpha):
            warnings.append(f"{detect_words(heldout, self.alpha, what='held-out tasks')}, so a regression of "
                            f"{pp(self.max_regression, sign=False)} pp (max_regression) goes unseen: "
                            + ("a drop counts as regressed, a tie or better as held" if self.decision_rule == "strict"
                               else "heldout.not_regressed stays UNKNOWN unless a regression is decided"))
        return {"decision_rule": self.decision_rule, "alpha": self.alpha, "max_regression": self.max_regression,
                "must_detect": self.must_detect,
                "tuning": {"tasks": tuning, "words": detect_words(tuning, self.alpha, what="tuning tasks")},
                "heldout": {"tasks": heldout, "words": detect_words(heldout, self.alpha, what="held-out tasks")},
                "warnings": warnings}

    def expected_by_task(self) -> list[tuple[str, str]]:
        """(task id, expected string) for every `contains` task: the guard names the task of a leak."""
        return [(t.id, s) for t in self.tasks if t.judge_type == "contains" for s in t.judge["expected"]]


class SuiteInvalid(InputError):
    """A suite with one or more problems; `errors` holds every one of them."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        super().__init__(errors[0] + more)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _nonempty_str(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())


def _expect(value: Any, what: str) -> str:
    """What a field should be: an absent field is "missing", a wrong one is not the expected kind."""
    return f"missing (expected {what})" if value is None else f"expected {what}"


def _check_test_file(value: Any, suite_dir: Path, where: str, errors: list[str]) -> None:
    if not _nonempty_str(value):
        errors.append(f"{where}: judge.test_file: expected a path under fixtures/, such as fixtures/test_output.py")
        return
    posix = PurePosixPath(value.replace("\\", "/"))
    if value.startswith("/") or Path(value).is_absolute() or (len(value) > 1 and value[1] == ":"):
        errors.append(f"{where}: judge.test_file: expected a relative path under fixtures/, got the absolute path {value!r}")
        return
    if not value.startswith(FIXTURES + "/") or len(posix.parts) < 2:
        errors.append(f"{where}: judge.test_file: must start with fixtures/, got {value!r}")
        return
    if ".." in posix.parts:
        errors.append(f"{where}: judge.test_file: may not leave fixtures/ ('..' in {value!r})")
        return
    fixtures = (suite_dir / FIXTURES).resolve()
    target = (suite_dir / value).resolve()
    if not target.is_relative_to(fixtures):
        errors.append(f"{where}: judge.test_file: {value!r} resolves outside the suite's fixtures/ folder")
        return
    if not target.is_file():
        errors.append(f"{where}: judge.test_file: {value!r} does not exist next to the suite")


def _check_judge(judge: Any, suite_dir: Path, where: str, errors: list[str]) -> dict[str, Any] | None:
    if not isinstance(judge, dict):
        errors.append(f"{where}: judge: expected a mapping with a type ({', '.join(JUDGE_TYPES)})")
        return None
    kind = judge.get("type")
    if kind not in JUDGE_TYPES:
        errors.append(f"{where}: judge.type: expected one of {', '.join(JUDGE_TYPES)}, got {kind!r}")
        return None
    before = len(errors)
    clean: dict[str, Any] = {"type": kind}
    if kind == "contains":
        expected = judge.get("expected")
        if not isinstance(expected, list) or not expected or not all(_nonempty_str(s) for s in expected):
            errors.append(f"{where}: judge.expected: expected a non-empty list of non-empty strings")
        else:
            clean["expected"] = list(expected)
    elif kind == "pytest":
        _check_test_file(judge.get("test_file"), suite_dir, where, errors)
        clean["test_file"] = judge.get("test_file")
    else:
        if not _nonempty_str(judge.get("rubric")):
            errors.append(f"{where}: judge.rubric: expected a non-empty string")
        clean["rubric"] = judge.get("rubric")
        threshold = judge.get("pass_threshold", DEFAULT_PASS_THRESHOLD)
        if not _is_number(threshold) or not 0 <= threshold <= 1:
            errors.append(f"{where}: judge.pass_threshold: expected a number from 0 to 1, got {threshold!r}")
        clean["pass_threshold"] = threshold
    return clean if len(errors) == before else None


def _check_task(raw: Any, index: int, seen: dict[str, int], suite_dir: Path, name: str,
                errors: list[str]) -> Task | None:
    if not isinstance(raw, dict):
        errors.append(f"{name}: tasks[{index}]: expected a mapping with id, prompt and judge")
        return None
    task_id = raw.get("id")
    label = f"task {task_id}" if _nonempty_str(task_id) else f"tasks[{index}]"
    where = f"{name}: {label}"
    before = len(errors)
    if not _nonempty_str(task_id):
        errors.append(f"{where}: id: {_expect(task_id, 'a non-empty string')}")
    elif task_id in seen:
        errors.append(f"{where}: id: duplicate task id (also tasks[{seen[task_id]}])")
    else:
        seen[task_id] = index
    prompt = raw.get("prompt")
    if not _nonempty_str(prompt):
        errors.append(f"{where}: prompt: {_expect(prompt, 'a non-empty string')}")
    if "judge" not in raw:
        errors.append(f"{where}: judge: missing (every task needs a judge block)")
        judge = None
    else:
        judge = _check_judge(raw["judge"], suite_dir, where, errors)
    split = raw.get("split", DEFAULT_SPLIT)
    if split not in SPLITS:
        errors.append(f"{where}: split: expected tuning or heldout, got {split!r}")
    timeout = raw.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)
    if not _is_number(timeout) or timeout <= 0:
        errors.append(f"{where}: timeout_seconds: expected a positive number of seconds, got {timeout!r}")
    description = raw.get("description", "")
    if description is not None and not isinstance(description, str):
        errors.append(f"{where}: description: expected a string")
    if len(errors) > before:
        return None
    # no problem was found, so id and prompt are non-empty strings and the judge block was checked
    assert judge is not None
    return Task(id=cast(str, task_id), prompt=cast(str, prompt), judge=judge, split=split, timeout_seconds=float(timeout),
                description=description or "")


def _check_guard_allow(value: Any, tasks: list[Task], name: str, errors: list[str]) -> tuple[str, ...]:
    """`guard_allow:` the expected answers a candidate may contain (its own output format, say "### Added"):
    a list of strings, each an expected answer of a `contains` task of the suite."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(_nonempty_str(v) for v in value):
        errors.append(f"{name}: guard_allow: expected a list of expected answers (non-empty strings) a "
                      "candidate may contain")
        return ()
    expected = {s.lower() for t in tasks if t.judge_type == "contains" for s in t.judge["expected"]}
    for v in value:
        if v.lower() not in expected and tasks:
            errors.append(f"{name}: guard_allow: {v!r} is not an expected answer of any contains task")
    return tuple(value)


def parse_suite(text: str, *, path: Path) -> tuple[Suite | None, list[str]]:
    """The suite and an empty list, or None and every problem found."""
    name = path.name
    errors: list[str] = []
    try:
        data = parse_yaml(text, source=name)
    except InputError as exc:
        return None, [str(exc)]
    if not isinstance(data, dict):
        return None, [f"{name}: expected a mapping with skill_id, version and tasks"]
    skill_id = data.get("skill_id")
    if not _nonempty_str(skill_id):
        errors.append(f"{name}: skill_id: {_expect(skill_id, 'a non-empty string')}")
    version = data.get("version")
    if version != SUITE_VERSION or not isinstance(version, str):
        hint = " (quote it: version: \"1.0\")" if version == 1.0 else ""
        errors.append(f"{name}: version: expected the string \"1.0\", got {version!r}{hint}")
    rule, alpha = data.get("decision_rule", DEFAULT_RULE), data.get("alpha", ALPHA)
    if rule not in DECISION_RULES:
        errors.append(f"{name}: decision_rule: expected one of {', '.join(DECISION_RULES)}, got {rule!r}")
    if not _is_number(alpha) or not 0 < alpha < 1:
        errors.append(f"{name}: alpha: expected a number between 0 and 1 (e.g. 0.05), got {alpha!r}")
    max_regression = data.get("max_regression", MAX_REGRESSION)
    if not _is_number(max_regression) or not 0 < max_regression <= 1:
        errors.append(f"{name}: max_regression: expected the held-out drop to detect, a fraction between 0 and 1 "
                      f"(0.1 is 10 pp), got {max_regression!r}")
    must_detect = data.get("must_detect", MUST_DETECT)
    if not _is_number(must_detect) or not 0 < must_detect <= 1:
        errors.append(f"{name}: must_detect: expected the tuning change to decide, a fraction between 0 and 1 "
                      f"(0.5 is 50 pp), got {must_detect!r}")
    raw_tasks = data.get("tasks")
    tasks: list[Task] = []
    if not isinstance(raw_tasks, list) or not raw_tasks:
        errors.append(f"{name}: tasks: expected a non-empty list of tasks")
    else:
        seen: dict[str, int] = {}
        for index, raw in enumerate(raw_tasks):
            task = _check_task(raw, index, seen, path.parent, name, errors)
            if task:
                tasks.append(task)
    allow = _check_guard_allow(data.get("guard_allow"), tasks, name, errors)
    if errors:
        return None, errors
    suite_id = hashlib.sha256(text.encode("utf-8")).hexdigest()
    # no problem was found, so skill_id is a non-empty string and version the string "1.0"
    return Suite(id=suite_id, skill_id=cast(str, skill_id), version=cast(str, version), path=path.resolve(), text=text,
                 tasks=tuple(tasks), decision_rule=rule, alpha=float(alpha), max_regression=float(max_regression),
                 must_detect=float(must_detect), guard_allow=allow), []


def read_suite_text(path: str | Path) -> tuple[Path, str]:
    path = Path(path)
    return path, read_text(path, what="suite file")


def validate_suite(path: str | Path) -> list[str]:
    """Every problem of the suite file at `path` (empty when it is valid)."""
    path, text = read_suite_text(path)
    return parse_suite(text, path=path)[1]


def load_suite(path: str | Path) -> Suite:
    """The valid suite at `path`; SuiteInvalid (an InputError) carrying every problem otherwise."""
    path, text = read_suite_text(path)
    suite, errors = parse_suite(text, path=path)
    if errors:
        raise SuiteInvalid(errors)
    assert suite is not None  # parse_suite returns a suite whenever it finds no problem
    return suite
