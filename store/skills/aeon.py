"""aeon's own `skills/skill-evals/evals.json`: a second manifest dialect, judged as aeon judges it.

The shape is `{"version", "description"?, "skills": {name: spec}}` (the seed's BankrBot dialect is a
top-level map of skill to assertions). A spec's `output_pattern` is a file glob under a root folder
selecting the output (the last match by file name, as aeon's "sort descending by filename"); its
`required_patterns` / `forbidden_patterns` are POSIX extended regexes, case-sensitive, matched line
by line as `grep -E` does (run on RE2: linear time, `|` alternatives); `min_words` counts as `wc -w`
(runs of non-whitespace bytes); `numeric_checks` bound the first number a pattern captures.
Statuses and root causes are aeon's (SKILL.md step 4): NO_OUTPUT > FAIL > STALE > QUALITY_DEGRADED >
WARN > PASS, with `no_file_match`, `empty_file`, `stale_file`, `word_count`, `missing_pattern:<p>`,
`forbidden_pattern:<p>`, `numeric_oob:<label>`, `numeric_missing:<label>`, `quality_score:<avg>`.
An output is dated by the date in its file name (`changelog-2026-05-02.md`, `2026-05-03T06-41-22Z`), as
aeon's runs date theirs, else by its modification time (which a checkout resets); the result says which.
`diff` is aeon's step 5, the diff against its prior eval (NEW_FAIL, FIXED, STILL_FAIL, NEW_PASS,
NEW_NO_COVERAGE, STABLE). This module reads files and runs no SQL.
"""

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import re2

from gatepost.store.kernel import MAX_FILE_BYTES, InputError, open_regular, parse_json, read_text
from gatepost.store.kernel import now as clock_now
from gatepost.store.protocol import age_seconds

STATUSES = ("NO_OUTPUT", "FAIL", "STALE", "QUALITY_DEGRADED", "WARN", "PASS")  # precedence, first wins
FAILING = ("NO_OUTPUT", "FAIL", "QUALITY_DEGRADED")  # SKILL.md step 5: "now FAIL/QUALITY_DEGRADED/NO_OUTPUT"
DIFFS = ("NEW_FAIL", "FIXED", "STILL_FAIL", "NEW_PASS", "NEW_NO_COVERAGE", "STABLE")
DATED_BY_NAME, DATED_BY_MTIME = "file name", "modification time"
# a date in a file name: 2026-05-02, or aeon's dashboard stamp 2026-05-03T06-41-22Z
_NAME_DATE = re2.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2})[-:](\d{2})[-:](\d{2})Z?)?")
DEFAULT_MAX_AGE = timedelta(days=14)  # aeon's fall-back cadence when a skill's cron is unknown
QUALITY_FLOOR = 2.5  # memory/skill-health/<skill>.json avg_score under this: QUALITY_DEGRADED
SPEC_KEYS = {"output_pattern", "min_words", "required_patterns", "forbidden_patterns", "numeric_checks",
             "expected_cadence"}  # aeon's SKILL.md: "additions allowed (skip_if_not_found, expected_cadence)"
NUMERIC_KEYS = {"label", "pattern", "min", "max", "skip_if_not_found"}
BANKRBOT_SHAPE = "a map of skill name to assertions (BankrBot's aeon-skill-evals)"
AEON_SHAPE = 'aeon\'s evals.json: {"version", "skills": {name: {output_pattern, ...}}}'


def is_aeon_manifest(data: Any) -> bool:
    """aeon's dialect, told by its shape: an object with `version` and a `skills` object."""
    return isinstance(data, dict) and "version" in data and isinstance(data.get("skills"), dict)


@dataclass(frozen=True)
class NumericCheck:
    label: str
    pattern: str
    low: float | None
    high: float | None
    skip_if_not_found: bool = False


@dataclass(frozen=True)
class AeonSpec:
    """One skill's entry of aeon's evals.json."""

    skill: str
    output_pattern: str
    min_words: int = 0
    required_patterns: tuple[str, ...] = ()
    forbidden_patterns: tuple[str, ...] = ()
    numeric_checks: tuple[NumericCheck, ...] = ()
    expected_cadence: timedelta | None = None  # how often the skill runs: STALE past twice it (aeon's rule)


@dataclass(frozen=True)
class Check:
    """One check aeon makes of an output, as an assertion result gatepost can store (`passed` is False only
    for what makes the status failing: a WARN, STALE or note passes, with its message)."""

    assertion: str
    passed: bool
    message: str


@dataclass
class AeonResult:
    """What aeon would report for one skill: status, root causes, words, the output file judged and when it
    was written (`dated_by`: from its file name, or its modification time), and each check made."""

    skill: str
    status: str
    root_causes: list[str] = field(default_factory=list)
    words: int | None = None
    output: str | None = None
    numbers: dict[str, float] = field(default_factory=dict)
    output_at: datetime | None = None
    dated_by: str | None = None
    checks: list[Check] = field(default_factory=list)
    content: bytes | None = None  # the output judged, to store as the skill's run

    @property
    def root_cause(self) -> str | None:
        return self.root_causes[0] if self.root_causes else None

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    def as_dict(self) -> dict[str, Any]:
        return {"skill": self.skill, "status": self.status, "root_cause": self.root_cause,
                "root_causes": list(self.root_causes), "words": self.words, "output": self.output,
                "numbers": dict(self.numbers),
                "output_at": self.output_at.strftime("%Y-%m-%dT%H:%M:%SZ") if self.output_at else None,
                "dated_by": self.dated_by}


def output_date(path: Path) -> tuple[datetime, str]:
    """When an output was written: the date in its file name, as aeon's runs date outputs (a checkout resets
    modification times), else its modification time; and which of the two it is."""
    for match in _NAME_DATE.finditer(path.name):
        year, month, day, hour, minute, second = (int(g) if g else 0 for g in match.groups())
        try:
            return datetime(year, month, day, hour, minute, second, tzinfo=UTC), DATED_BY_NAME
        except ValueError:
            continue  # 2026-13-45 is no date: look further, else the modification time
    return datetime.fromtimestamp(path.stat().st_mtime, UTC), DATED_BY_MTIME


def diff(was: str | None, now: str | None) -> str:
    """aeon's diff of one skill against its prior eval (SKILL.md step 5), from the two statuses (None: the
    skill was not in that eval). A failing status is NO_OUTPUT, FAIL or QUALITY_DEGRADED; any other is
    passing, so FAIL -> WARN is FIXED and PASS -> STALE is STABLE (aeon names neither case)."""
    if now is None:
        return "NEW_NO_COVERAGE"
    if was is None:
        return "NEW_PASS"  # "wasn't in prior (newly added to evals.json)"; a first run: every result NEW_*
    if was in FAILING:
        return "STILL_FAIL" if now in FAILING else "FIXED"
    return "NEW_FAIL" if now in FAILING else "STABLE"


def _ere(pattern: str, where: str) -> Any:
    """A grep -E pattern on RE2: case-sensitive, `.` never crosses a line, ^ and $ at line ends."""
    options = re2.Options()
    options.log_errors = False
    options.never_nl = True  # grep matches within one line
    try:
        return re2.compile("(?m)" + pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise InputError(f"{where}: invalid regular expression {pattern[:80]!r}: {reason} "
                         "(patterns run on RE2: no backreferences or lookaround)") from None


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InputError(f"{where}: expected a list of regular expressions (non-empty strings)")
    for pattern in value:
        _ere(pattern, where)
    return tuple(value)


def _bound(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _numeric(raw: Any, where: str) -> NumericCheck:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected an object with label, pattern, min and max")
    unknown = sorted(set(raw) - NUMERIC_KEYS)
    if unknown:
        raise InputError(f"{where}.{unknown[0]}: unknown key; expected some of {', '.join(sorted(NUMERIC_KEYS))}")
    label, pattern = raw.get("label"), raw.get("pattern")
    if not isinstance(label, str) or not label:
        raise InputError(f"{where}.label: expected a non-empty string")
    if not isinstance(pattern, str) or not pattern:
        raise InputError(f"{where}.pattern: expected a regular expression")
    _ere(pattern, f"{where}.pattern")
    skip = raw.get("skip_if_not_found", False)
    if not isinstance(skip, bool):
        raise InputError(f"{where}.skip_if_not_found: expected true or false")
    return NumericCheck(label, pattern, _bound(raw.get("min"), f"{where}.min"), _bound(raw.get("max"), f"{where}.max"),
                        skip)


def parse_aeon_manifest(data: dict[str, Any], *, source: str) -> list[AeonSpec]:
    """aeon's evals.json (already parsed) as specs; InputError naming the field otherwise."""
    specs = []
    for skill, raw in data["skills"].items():
        where = f"{source}: skills.{skill}"
        if not isinstance(raw, dict):
            raise InputError(f"{where}: expected an object with output_pattern and assertions")
        unknown = sorted(set(raw) - SPEC_KEYS)
        if unknown:
            raise InputError(f"{where}.{unknown[0]}: unknown key; expected some of {', '.join(sorted(SPEC_KEYS))}")
        glob = raw.get("output_pattern")
        if not isinstance(glob, str) or not glob.strip():
            raise InputError(f"{where}.output_pattern: expected a file glob under the root (e.g. articles/x-*.md)")
        if glob.startswith("/") or ".." in Path(glob).parts:
            raise InputError(f"{where}.output_pattern: expected a glob inside the root folder, got {glob!r}")
        words = raw.get("min_words", 0)
        if type(words) is not int or words < 0:
            raise InputError(f"{where}.min_words: expected a whole number of words, got {words!r}")
        checks = raw.get("numeric_checks", [])
        if not isinstance(checks, list):
            raise InputError(f"{where}.numeric_checks: expected a list")
        cadence = raw.get("expected_cadence")
        seconds = age_seconds(cadence.strip()) if isinstance(cadence, str) else None
        if cadence is not None and not seconds:
            raise InputError(f"{where}.expected_cadence: expected how often the skill runs, such as 6h, 1d or 7d "
                             f"(a whole number and one unit of s, m, h, d), got {cadence!r}")
        specs.append(AeonSpec(
            skill, glob, words,
            _strings(raw.get("required_patterns", []), f"{where}.required_patterns"),
            _strings(raw.get("forbidden_patterns", []), f"{where}.forbidden_patterns"),
            tuple(_numeric(c, f"{where}.numeric_checks[{i}]") for i, c in enumerate(checks)),
            timedelta(seconds=seconds) if seconds else None))
    return specs


def read_aeon_manifest(path: str | Path) -> list[AeonSpec]:
    """Read an evals.json; a file of neither dialect is refused naming both shapes."""
    name = Path(path).name
    data = parse_json(read_text(path, what="manifest"), source=name)
    if not is_aeon_manifest(data):
        raise InputError(f"{name}: expected {AEON_SHAPE}; (for {BANKRBOT_SHAPE}, use gatepost manifest import)")
    return parse_aeon_manifest(data, source=name)


def wc_words(data: bytes) -> int:
    """Words as `wc -w` counts them in a UTF-8 locale (aeon's): runs of bytes between ASCII whitespace."""
    return len(data.split())


def latest_output(root: Path, glob: str) -> Path | None:
    """The output aeon judges: of the files matching the glob, the last by file name."""
    found = [p for p in root.glob(glob) if p.is_file()]
    return max(found, key=lambda p: (p.name, str(p))) if found else None


def _number(match: Any) -> float | None:
    text = match.group(1) if match.re.groups >= 1 and match.group(1) is not None else match.group(0)
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def judge_skill(spec: AeonSpec, root: Path, *, now: datetime | None = None,
                max_age: timedelta = DEFAULT_MAX_AGE) -> AeonResult:
    """One skill's status and root causes, as aeon's skill-evals step 4 gives them.

    STALE past twice the skill's `expected_cadence` when its entry has one (aeon's rule, the cadence
    given in the manifest instead of read from aeon.yml's cron), else past `max_age`.
    """
    output = latest_output(root, spec.output_pattern)
    if output is None:
        return AeonResult(spec.skill, "NO_OUTPUT", ["no_file_match"],
                          checks=[Check("output_file", False, f"no_file_match: no file matches {spec.output_pattern}")])
    rel = str(output.relative_to(root))
    written, dated_by = output_date(output)
    with open_regular(output, what="skill output") as handle:  # a FIFO matching the glob is refused, not waited on
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{output}: more than the {MAX_FILE_BYTES:,}-byte limit for a skill output")
    found = Check("output_file", True, rel)
    if not data:
        return AeonResult(spec.skill, "FAIL", ["empty_file"], 0, rel, output_at=written, dated_by=dated_by,
                          checks=[found, Check("not_empty", False, "empty_file: the output is 0 bytes")], content=data)
    text = data.decode("utf-8", "replace")
    result = AeonResult(spec.skill, "PASS", [], wc_words(data), rel, output_at=written, dated_by=dated_by,
                        checks=[found], content=data)
    checks = result.checks
    statuses = set()
    now = now or clock_now()
    window = 2 * spec.expected_cadence if spec.expected_cadence else max_age
    if now - written > window:
        statuses.add("STALE")
        result.root_causes.append("stale_file")
    if spec.min_words:
        enough = result.words is not None and result.words >= spec.min_words
        checks.append(Check("min_words", enough, f"{result.words} words, at least {spec.min_words}"))
        if not enough:
            statuses.add("FAIL")
            result.root_causes.append("word_count")
    for pattern in spec.required_patterns:
        missing = _ere(pattern, spec.skill).search(text) is None
        checks.append(Check(f"required_pattern:{pattern}", not missing, "missing" if missing else "found"))
        if missing:
            statuses.add("FAIL")
            result.root_causes.append(f"missing_pattern:{pattern}")
    for pattern in spec.forbidden_patterns:
        hit = _ere(pattern, spec.skill).search(text)
        checks.append(Check(f"forbidden_pattern:{pattern}", hit is None,
                            f"found: {hit.group(0)[:80]!r}" if hit is not None else "absent"))
        if hit is not None:
            statuses.add("FAIL")
            result.root_causes.append(f"forbidden_pattern:{pattern}")
    for check in spec.numeric_checks:
        match = _ere(check.pattern, spec.skill).search(text)
        value = _number(match) if match is not None else None
        name = f"numeric:{check.label}"
        if value is None:
            if not check.skip_if_not_found:
                statuses.add("WARN")
                result.root_causes.append(f"numeric_missing:{check.label}")
                checks.append(Check(name, True, f"WARN numeric_missing: no match of {check.pattern}"))
            continue
        result.numbers[check.label] = value
        inside = not ((check.low is not None and value < check.low) or (check.high is not None and value > check.high))
        checks.append(Check(name, inside, f"{value:g} in [{check.low}, {check.high}]" if inside
                            else f"numeric_oob: {value:g} outside [{check.low}, {check.high}]"))
        if not inside:
            statuses.add("FAIL")
            result.root_causes.append(f"numeric_oob:{check.label}")
    health = root / "memory" / "skill-health" / f"{spec.skill}.json"
    if health.is_file():
        try:
            score = json.loads(health.read_text(encoding="utf-8")).get("avg_score")
        except (OSError, ValueError, AttributeError):
            score = None
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            checks.append(Check("quality_score", score >= QUALITY_FLOOR, f"avg_score {score}, at least {QUALITY_FLOOR}"))
            if score < QUALITY_FLOOR:
                statuses.add("QUALITY_DEGRADED")
                result.root_causes.append(f"quality_score:{score}")
    result.status = next((s for s in STATUSES if s in statuses), "PASS")
    return result


def judge_manifest(specs: list[AeonSpec], root: str | Path, *, skill: str | None = None,
                   now: datetime | None = None, max_age: timedelta = DEFAULT_MAX_AGE) -> list[AeonResult]:
    """Every skill of the manifest (or one) judged against the outputs under `root`."""
    folder = Path(root)
    if not folder.is_dir():
        raise InputError(f"--root: {folder}: no such folder (the folder the output_patterns are relative to)")
    chosen = [s for s in specs if skill is None or s.skill == skill]
    if skill is not None and not chosen:
        raise InputError(f"--skill: {skill}: not in the manifest (it has {', '.join(s.skill for s in specs)})")
    return [judge_skill(s, folder, now=now, max_age=max_age) for s in chosen]


__all__ = ["AEON_SHAPE", "BANKRBOT_SHAPE", "DATED_BY_MTIME", "DATED_BY_NAME", "DEFAULT_MAX_AGE", "DIFFS", "FAILING",
           "STATUSES", "AeonResult", "AeonSpec", "Check", "NumericCheck", "diff", "is_aeon_manifest",
           "judge_manifest", "judge_skill", "latest_output", "output_date", "parse_aeon_manifest",
           "read_aeon_manifest", "wc_words"]
