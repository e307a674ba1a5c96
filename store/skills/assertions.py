"""Assertion manifests: parsing them strictly, and checking a skill's output against them.

A manifest maps a skill name to its assertions (aeon's format):

    token-movers:
      min_words: 200
      required_patterns: ["Top movers", "24h"]
      forbidden_patterns: ["I cannot", "as an AI"]
      must_cite_source: true
      min_distinct_items: 5

Every check returns pass/fail and a message that says what it found, so a
person reading a failure knows what to look for without opening the output.

Definitions (documented in docs/skill-evals.md):
- a word is a whitespace-separated token holding at least one letter or digit
  (markdown `#`, `-`, `|` alone are not words, nor list markers like `1.`);
- a heading is a markdown ATX line (`# MAP`, `## Top movers ##`) or a line
  written in capitals (`POSITIONS`, `MAP:`); its text is compared to a section
  name case-insensitively, after stripping `*`/`_` emphasis and a trailing `:`;
- a list item is a line starting with `-`, `*`, `+` or `1.` / `1)`; items are
  distinct after case-folding and collapsing whitespace;
- a source is an `http(s)://` URL or a line starting with `Source:`/`Sources:`.
"""

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import re2
import yaml

from gatepost.store.kernel import InputError, parse_yaml, read_text

# --- the text model -----------------------------------------------------------------------
# A skill's output is anyone's text: every pattern here runs in linear time on any line. Where a
# pattern would backtrack (a heading's trailing `#`s and spaces, a list item's trailing spaces,
# `Source **:`), the line is read by a scan instead (_atx_title, _item_text, _is_source_line).

_WORD = re.compile(r"\S+")
_ALNUM = re.compile(r"[^\W_]")
_URL = re.compile(r"https?://[^\s<>()\"']+", re.IGNORECASE)
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,4}[.)])\s+")


def _atx_title(line: str) -> str | None:
    """The text of a markdown ATX heading (`## Top movers ##`), or None if the line is not one.

    Up to 3 spaces, 1 to 6 `#`, whitespace, then the title without its closing `#`s and spaces.
    """
    rest = line.lstrip()
    if len(line) - len(rest) > 3:
        return None
    hashes = len(rest) - len(rest.lstrip("#"))
    if not 1 <= hashes <= 6 or not rest[hashes:hashes + 1].isspace():
        return None
    return rest[hashes:].strip().rstrip("#").rstrip()


def _after_marker(line: str) -> str | None:
    """What follows a list marker (`-`, `*`, `+`, `1.`, `1)`) and its whitespace, or None without one."""
    rest = line.lstrip()
    if rest[:1] in ("-", "*", "+") and rest:
        after = rest[1:]
    else:
        digits = next((i for i, ch in enumerate(rest[:5]) if not ch.isdecimal()), min(len(rest), 5))
        if not 1 <= digits <= 4 or rest[digits:digits + 1] not in (".", ")") or len(rest) == digits:
            return None
        after = rest[digits + 1:]
    return after if after[:1].isspace() else None


def _item_text(line: str) -> str | None:
    """The text of a list item line, stripped; None if the line is no list item or the item is empty."""
    after = _after_marker(line)
    text = after.strip() if after is not None else ""
    return text or None


def _is_source_line(line: str) -> bool:
    """A line starting `Source:` or `Sources:` (in any case), perhaps as a list item or in ** or __."""
    rest = line.lstrip()
    if rest[:1] in ("-", "*", "+") and rest[1:2].isspace():
        rest = rest[1:].lstrip()
    if rest[:2] in ("**", "__"):
        rest = rest[2:]
    if rest[:6].casefold() != "source":
        return False
    rest = rest[6:]
    if rest[:1] in ("s", "S"):
        rest = rest[1:]
    rest = rest.lstrip()
    if rest[:2] in ("**", "__"):
        rest = rest[2:].lstrip()
    return rest.startswith(":")


def word_count(text: str | None) -> int:
    """Words of an output: tokens between whitespace that hold a letter or a digit (list markers aside)."""
    return sum(1 for line in (text or "").splitlines()
               for token in _WORD.findall(_MARKER.sub("", line, count=1)) if _ALNUM.search(token))


def _normal(text: str) -> str:
    text = text.strip().strip("*_").strip()
    text = text.rstrip(":").strip().strip("*_").strip()
    return " ".join(text.split())


def headings(text: str | None) -> list[tuple[int, str]]:
    """(line number, heading text) of every heading line: markdown `#…` or a line in capitals."""
    found = []
    in_fence = False
    for number, line in enumerate((text or "").splitlines(), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _atx_title(line)
        if atx is not None:
            title = _normal(atx)
            if title:
                found.append((number, title))
            continue
        bare = _normal(line)
        letters = [ch for ch in bare if ch.isalpha()]
        if letters and len(bare) <= 80 and all(ch.isupper() for ch in letters) and _item_text(line) is None:
            found.append((number, bare))
    return found


def list_items(text: str | None) -> list[str]:
    return [item for line in (text or "").splitlines() if (item := _item_text(line)) is not None]


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """One assertion's verdict on one output."""

    assertion: str
    passed: bool
    message: str


def _quote(values: list[str], limit: int = 4) -> str:
    shown = ", ".join(f'"{v}"' for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def check_min_words(output: str, value: int) -> tuple[bool, str]:
    n = word_count(output)
    return n >= value, f"{n} words, needs {value}" if n < value else f"{n} words (min {value})"


def check_max_words(output: str, value: int) -> tuple[bool, str]:
    n = word_count(output)
    return n <= value, f"{n} words, allows at most {value}" if n > value else f"{n} words (max {value})"


def check_required_patterns(output: str, value: list[str]) -> tuple[bool, str]:
    low = output.casefold()
    missing = [p for p in value if p.casefold() not in low]
    if missing:
        return False, f"missing pattern {_quote(missing)}" if len(missing) == 1 else \
            f"missing patterns {_quote(missing)}"
    return True, f"all {len(value)} required patterns found"


def check_forbidden_patterns(output: str, value: list[str]) -> tuple[bool, str]:
    low = output.casefold()
    hits = []
    for pattern in value:
        at = low.find(pattern.casefold())
        if at >= 0:
            hits.append(f'"{pattern}" at line {_line_of(output, at)}')
    if hits:
        return False, "forbidden " + "; ".join(hits[:4]) + (f" and {len(hits) - 4} more" if len(hits) > 4 else "")
    return True, f"none of {len(value)} forbidden patterns found"


def check_required_sections(output: str, value: list[str]) -> tuple[bool, str]:
    present = {title.casefold() for _line, title in headings(output)}
    missing = [name for name in value if _normal(name).casefold() not in present]
    if missing:
        word = "section" if len(missing) == 1 else "sections"
        found = [title for _line, title in headings(output)]
        seen = f" (headings found: {', '.join(found[:6])}{' …' if len(found) > 6 else ''})" if found \
            else " (no heading found)"
        return False, f"missing {word} {', '.join(missing)}{seen}"
    return True, f"all {len(value)} sections present"


def check_must_cite_source(output: str, value: bool) -> tuple[bool, str]:
    if not value:
        return True, "not required"
    url = _URL.search(output)
    if url:
        return True, f"cites {url.group(0)[:80]} at line {_line_of(output, url.start())}"
    for number, line in enumerate(output.splitlines(), start=1):
        if _is_source_line(line):
            return True, f"Source: line at line {number}"
    return False, "no URL and no Source: line"


def check_min_distinct_items(output: str, value: int) -> tuple[bool, str]:
    items = list_items(output)
    distinct = {" ".join(item.casefold().split()) for item in items}
    repeated = len(items) - len(distinct)
    extra = f" ({len(items)} items, {repeated} repeated)" if repeated else ""
    if len(distinct) < value:
        return False, f"{len(distinct)} distinct list items{extra}, needs {value}"
    return True, f"{len(distinct)} distinct list items{extra} (min {value})"


def _re2_options() -> "re2.Options":
    options = re2.Options()
    options.log_errors = False  # the reason is reported once, as one line, never logged to stderr
    return options


@functools.lru_cache(maxsize=256)
def _user_regex(pattern: str) -> Any:
    """A user's pattern compiled by RE2 (multi-line): linear time, so no output can make it hang.

    Raises InputError with RE2's reason for what RE2 cannot run (backreferences,
    lookaround, a program too large).
    """
    try:
        return re2.compile("(?m)" + pattern, _re2_options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise InputError(f"invalid regular expression {pattern[:80]!r}: {reason} "
                         "(patterns run on RE2: no backreferences or lookaround)") from None
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise InputError(f"invalid regular expression {pattern[:80]!r}: {exc}") from None


def check_output_pattern(output: str, value: str) -> tuple[bool, str]:
    try:
        match = _user_regex(value).search(output)
    except InputError as exc:  # stored before patterns ran on RE2
        return False, str(exc)
    if match:
        return True, f"/{value}/ matches at line {_line_of(output, match.start())}"
    return False, f"no match for /{value}/"


# --- custom binary checks, per skill family ----------------------------------------------------


@dataclass(frozen=True)
class CustomCheck:
    name: str
    family: str
    doc: str
    fn: Callable[[str], tuple[bool, str]]


CUSTOM_CHECKS: dict[str, CustomCheck] = {}


def custom_check(name: str, *, family: str) -> Callable[..., Any]:
    """Register a named binary check (`name: true` in a manifest) for a skill family."""

    def register(fn: Callable[[str], tuple[bool, str]]) -> Callable[[str], tuple[bool, str]]:
        CUSTOM_CHECKS[name] = CustomCheck(name, family, (fn.__doc__ or "").strip(), fn)
        return fn

    return register


_CALL = re.compile(r"\b(long|short|overweight|underweight|neutral|buy|sell|hold|accumulate|trim|avoid)\b",
                   re.IGNORECASE)
_CALL_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:position|call|stance)(?:\*\*)?\s*:", re.IGNORECASE)
_DRIVERS_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*)?drivers?(?:\*\*)?\s*:", re.IGNORECASE)
_PAPER = re.compile(r"arxiv\.org/(?:abs|pdf)/\d{4}\.\d{4,5}|arxiv:\s*\d{4}\.\d{4,5}|\b10\.\d{4,9}/\S+", re.IGNORECASE)
_SIGNED_CHANGE = re.compile(r"[+\-−]\s?\d+(?:\.\d+)?\s?%")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@custom_check("must_have_position_call", family="narrative")
def _position_call(output: str) -> tuple[bool, str]:
    """A line that takes a position: `Position: …`, or a long/short/overweight/… call."""
    for number, line in enumerate(output.splitlines(), start=1):
        if _CALL_LINE.match(line) or (_CALL.search(line) and not headings(line)):
            return True, f"position call at line {number}: {' '.join(line.split())[:60]}"
    return False, "no position call (a Position: line or a long/short/overweight/underweight/neutral call)"


@custom_check("must_name_drivers", family="narrative")
def _drivers(output: str) -> tuple[bool, str]:
    """A `Drivers:` line or a DRIVERS section naming what moves the narrative."""
    for number, line in enumerate(output.splitlines(), start=1):
        if _DRIVERS_LINE.match(line):
            return True, f"drivers named at line {number}"
    if any(title.casefold() in ("drivers", "driver") for _n, title in headings(output)):
        return True, "DRIVERS section present"
    return False, "no Drivers: line and no DRIVERS section"


@custom_check("must_cite_paper", family="research")
def _paper(output: str) -> tuple[bool, str]:
    """An arXiv link or id (arXiv:2405.01234), or a DOI."""
    match = _PAPER.search(output)
    if match:
        return True, f"cites {match.group(0)} at line {_line_of(output, match.start())}"
    return False, "no arXiv link or id and no DOI"


@custom_check("must_quote_changes", family="markets")
def _changes(output: str) -> tuple[bool, str]:
    """At least one signed percentage change such as +12.4% or -3%."""
    found = _SIGNED_CHANGE.findall(output)
    if found:
        return True, f"{len(found)} signed % changes (first {found[0]})"
    return False, "no signed percentage change (+x% / -x%)"


@custom_check("must_date_the_report", family="digest")
def _dated(output: str) -> tuple[bool, str]:
    """An ISO date (2026-05-12) somewhere in the output."""
    match = _ISO_DATE.search(output)
    if match:
        return True, f"dated {match.group(0)}"
    return False, "no ISO date (YYYY-MM-DD)"


# --- the manifest -------------------------------------------------------------------------------

CHECKS: dict[str, Callable[[str, Any], tuple[bool, str]]] = {
    "min_words": check_min_words,
    "max_words": check_max_words,
    "required_patterns": check_required_patterns,
    "forbidden_patterns": check_forbidden_patterns,
    "required_sections": check_required_sections,
    "must_cite_source": check_must_cite_source,
    "min_distinct_items": check_min_distinct_items,
    "output_pattern": check_output_pattern,
}
# The order keys are written in (YAML of drafts, results): built-ins, then custom checks by name.
KEY_ORDER = list(CHECKS)
_INTS = {"min_words": 0, "max_words": 0, "min_distinct_items": 1}
_LISTS = ("required_patterns", "forbidden_patterns", "required_sections")
SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$")


def check_skill_name(name: object, *, where: str = "skill") -> str:
    """Skill names are single tokens (letters, digits, . _ - : /), at most 100 characters."""
    if not isinstance(name, str) or not SKILL_NAME.match(name):
        raise InputError(f"{where}: expected a skill name (letters, digits, . _ - : /, no spaces), got {name!r}")
    return name


def validate_assertions(skill: str, assertions: object, *, source: str = "manifest") -> dict[str, Any]:
    """The assertions of one skill, checked key by key; errors name the source, skill and key."""
    where = f"{source}: {skill}"
    if not isinstance(assertions, dict):
        raise InputError(f"{where}: expected a mapping of assertions, got {type(assertions).__name__}")
    if not assertions:
        raise InputError(f"{where}: expected at least one assertion")
    clean: dict[str, Any] = {}
    for key, value in assertions.items():
        at = f"{where}: {key}"
        if not isinstance(key, str):
            raise InputError(f"{where}: {key!r}: expected an assertion name")
        if key in _INTS:
            if isinstance(value, bool) or not isinstance(value, int) or value < _INTS[key]:
                raise InputError(f"{at}: expected an integer >= {_INTS[key]}, got {value!r}")
        elif key in _LISTS:
            if not isinstance(value, list) or not value:
                raise InputError(f"{at}: expected a non-empty list of strings, got {value!r}")
            for i, item in enumerate(value):
                if not isinstance(item, str) or not item.strip():
                    raise InputError(f"{at}[{i}]: expected a non-empty string, got {item!r}")
            if key == "required_sections":
                for i, item in enumerate(value):
                    if not _normal(item):
                        raise InputError(f"{at}[{i}]: expected a section name, got {item!r}")
        elif key == "output_pattern":
            if not isinstance(value, str) or not value:
                raise InputError(f"{at}: expected a regular expression (a string), got {value!r}")
            try:
                _user_regex(value)
            except InputError as exc:
                raise InputError(f"{at}: {exc}") from None
        elif key == "must_cite_source" or key in CUSTOM_CHECKS:
            if not isinstance(value, bool):
                raise InputError(f"{at}: expected true or false, got {value!r}")
        else:
            known = ", ".join([*KEY_ORDER, *sorted(CUSTOM_CHECKS)])
            raise InputError(f"{at}: unknown assertion; known: {known}")
        clean[key] = list(value) if isinstance(value, list) else value
    if "min_words" in clean and "max_words" in clean and clean["max_words"] < clean["min_words"]:
        raise InputError(f"{where}: max_words: {clean['max_words']} is below min_words {clean['min_words']}")
    return ordered(clean)


def ordered(assertions: dict[str, Any]) -> dict[str, Any]:
    """Assertions in the documented order, so YAML, JSON and results read the same everywhere."""
    keys = [k for k in KEY_ORDER if k in assertions] + sorted(k for k in assertions if k not in CHECKS)
    return {k: assertions[k] for k in keys}


def parse_manifest(text: str, *, source: str = "manifest") -> dict[str, dict[str, Any]]:
    """A manifest's text (YAML or JSON) as {skill: assertions}; anything malformed is an InputError."""
    data = parse_yaml(text, source=source)
    if data is None:
        raise InputError(f"{source}: empty manifest; expected a mapping of skill name to assertions")
    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a mapping of skill name to assertions, got {type(data).__name__} "
                         '(or aeon\'s evals.json {"version", "skills"}, for gatepost skills eval --manifest)')
    if "version" in data and isinstance(data.get("skills"), dict):
        raise InputError(f'{source}: is aeon\'s evals.json ({{"version", "skills"}}): judge it with gatepost skills '
                         "eval --manifest FILE --root DIR; manifest import takes a mapping of skill name to "
                         "assertions (BankrBot's aeon-skill-evals)")
    if not data:
        raise InputError(f"{source}: empty manifest; expected at least one skill with its assertions")
    manifest = {}
    for skill, assertions in data.items():
        name = check_skill_name(skill if isinstance(skill, str) else repr(skill), where=f"{source}: {skill!r}")
        manifest[name] = validate_assertions(name, assertions, source=source)
    return manifest


def read_manifest_file(path: str) -> dict[str, dict[str, Any]]:
    return parse_manifest(read_text(path, what="manifest"), source=str(path))


def to_yaml(skill: str, assertions: dict[str, Any]) -> str:
    """One skill's assertions as the manifest YAML a person reads and edits."""
    return yaml.safe_dump({skill: ordered(assertions)}, sort_keys=False, allow_unicode=True,
                          default_flow_style=False, width=100)


def run_checks(assertions: dict[str, Any], output: str | None) -> list[Result]:
    """Every assertion's verdict on one output, in manifest order."""
    text = output or ""
    results = []
    for key, value in ordered(assertions).items():
        if key in CHECKS:
            passed, message = CHECKS[key](text, value)
        elif not value:
            passed, message = True, "not required"
        elif key not in CUSTOM_CHECKS:
            passed, message = False, f"custom check {key} is not known to this gatepost"
        else:
            passed, message = CUSTOM_CHECKS[key].fn(text)
        results.append(Result(key, bool(passed), message))
    return results
