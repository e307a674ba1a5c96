"""Every pattern gatepost runs on data runs in linear time: each is fed a 1 MB line made to make it backtrack.

The patterns are found, not listed by hand: every module of the store and the console is
imported and every compiled pattern at module level is collected (a pattern written inline in
a call would escape this, so the source is checked for those too). A pattern without hostile
lines of its own in HOSTILE fails the test: a new pattern must say what its worst line is.
Lines a regular expression would backtrack on (a heading's closing `#`s and spaces, a list item's
trailing spaces, `Source **:`) are read by scans in skills.assertions; those are fed the same lines.
"""

import importlib
import pkgutil
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gatepost
import gatepost.store
from gatepost.safe import Later
from gatepost.store.skills import assertions, check_output_pattern, headings, list_items, word_count
from gatepost.store.skills.aeon import _ere

ROOT = Path(__file__).resolve().parents[3]
MB = 1024 * 1024
LIMIT_S = 10.0  # a linear pass over 1 MB takes under a second even on a busy machine; a quadratic one, hours


def _fill(prefix: str, unit: str, suffix: str = "") -> str:
    return prefix + unit * ((MB - len(prefix) - len(suffix)) // len(unit)) + suffix


SPACES = _fill("", " ", "y")
# module.NAME -> lines that would make that pattern backtrack if it could
HOSTILE: dict[str, list[str]] = {
    "gatepost.safe._ESCAPES": [_fill("\x1b[", "0"), _fill("\x1b]", "a"), _fill("\x1bP", "a"), _fill("", "\x1b["),
                               _fill("\x9b", "0"), _fill("", "\x9b0")],
    "gatepost.safe._UNSAFE": [_fill("", "\x1b")],
    "gatepost.safe._UNSAFE_ONE_LINE": [_fill("", "\x1b")],
    "gatepost.output._JSON_UNSAFE": [_fill("", "\x9b")],
    "gatepost.store.skills.assertions._WORD": [_fill("", "a "), _fill("", "a")],
    "gatepost.store.skills.assertions._ALNUM": [_fill("", "_")],
    "gatepost.store.skills.assertions._URL": [_fill("", "http://"), _fill("http://", "a", " ")],
    "gatepost.store.skills.assertions._MARKER": [_fill("", " "), _fill("- ", " "), _fill("", "1")],
    "gatepost.store.skills.assertions._CALL": [_fill("", "longx"), _fill("", "a")],
    "gatepost.store.skills.assertions._CALL_LINE": [_fill("position", " "), _fill("- ", " ", "**call")],
    "gatepost.store.skills.assertions._DRIVERS_LINE": [_fill("drivers", " "), _fill("- **drivers", " ")],
    "gatepost.store.skills.assertions._PAPER": [_fill("", "arxiv: "), _fill("10.1234/", "a"), _fill("", "10.")],
    "gatepost.store.skills.assertions._SIGNED_CHANGE": [_fill("+", "1"), _fill("", "+1."), _fill("+1.", "1")],
    "gatepost.store.skills.assertions._ISO_DATE": [_fill("", "1"), _fill("", "2026-")],
    "gatepost.store.skills.assertions.SKILL_NAME": [_fill("a", "a", "!")],
    "gatepost.store.skills.runs._RUN_ID": [_fill("a", "a", "!")],
    "gatepost.store.evaluation.attempts._OUTCOMES": [_fill("exited with status ", "1"), _fill("", " ")],
    "gatepost.store.evaluation.executors._WORD": [_fill("", "a-"), _fill("", "ab ")],
    "gatepost.store.evaluation.artifacts._WS": [SPACES],
    "gatepost.store.evaluation.artifacts._ARRAY_END": [_fill("}", " "), _fill("", "} ")],
    "gatepost.store.evaluation.fast_results._COLON_ESCAPE": [_fill("", "\\u003")],
    "gatepost.store.loops.registry._NAME": [_fill("a", "a", "!")],
    "gatepost.store.discussion.comments.MENTION": [_fill("", "@a"), _fill("@", "a-", "!"), _fill("", "a@"),
                                                   _fill("", "@")],
    "gatepost.store.failures._ID": [_fill("", "!a")],
    "gatepost.store.failures._ITEM": [_fill("-", " "), _fill("", "- "), _fill("", " - id "), _fill("", "\n -")],
    "gatepost.store.cases.parse._ID": [_fill("a", "a", "!")],
    "gatepost.store.cases.acts._HEX": [_fill("", "a", "!")],
    "gatepost.store.views.reports._BACKTICKS": [_fill("", "`")],
    "gatepost.store.protocol.interpreter._AGE": [_fill("1", "0", "x")],
    "gatepost.store.protocol.interpreter._INSTANT": [_fill("", "2026-")],
    "gatepost.store.protocol.interpreter._REF": [_fill("a", "a"), _fill("a", "a/", "1")],
    "gatepost.store.demo.scorer._H1": [_fill("#", " "), _fill("", "# \n")],
    "gatepost.store.evaluation.foreign._INSPECT_JSON": [_fill('{"version"', " "), _fill('{"version": ', "1")],
    "gatepost.store.evaluation.foreign._DOCTYPE": [_fill("<!", " "), _fill("", "<!")],
    "gatepost.store.kernel.paths._DRIVE": [_fill("", "a")],
    "gatepost.store.kernel.integrity._TRIGGER_NAME": [_fill("create trigger ", "a"), _fill('create trigger "', "a"),
                                                      _fill("create trigger if not exists [", "a")],
    "gatepost.store.kernel.integrity._SPACES": [SPACES],
    "gatepost.store.kernel.integrity._PUNCTUATION": [_fill("", " "), _fill("", " (")],
    "gatepost.commands.verify._HEAD_HASH": [_fill("", "a", "!")],
    "gatepost.store.skills.bootstrapping._STYLE_WORD": [_fill("a", "a-", "!"), _fill("A", "a'", "!")],
    "gatepost.widgets.line_detail._WORD": [_fill("", "a "), _fill("", "a"), _fill("", " \t")],
}


def _modules() -> list[str]:
    names = []
    for package in (gatepost, gatepost.store):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__") or (package is gatepost and info.name.startswith("gatepost.store")):
                continue
            names.append(info.name)
    return names


def _patterns() -> dict[str, re.Pattern[str]]:
    """Every compiled pattern at module level (or one compiled on first use), once, under the name of the module
    defining it."""
    found: dict[int, list[tuple[str, re.Pattern[str]]]] = {}
    for name in _modules():
        for attr, value in vars(importlib.import_module(name)).items():
            if isinstance(value, Later):  # compiled on first use (the output layer's)
                value = value.compiled()
            if isinstance(value, re.Pattern):
                found.setdefault(id(value), []).append((f"{name}.{attr}", value))
            elif isinstance(value, list):  # a table of (pattern, ...) rows (evaluation.attempts)
                for i, row in enumerate(value):
                    if isinstance(row, tuple) and row and isinstance(row[0], re.Pattern):
                        found.setdefault(id(row[0]), []).append((f"{name}.{attr}[{i}]", row[0]))
    # a package re-exporting a pattern names it too: the defining module is the longest name
    return dict(max(names, key=lambda item: len(item[0].split("[")[0])) for names in found.values())


PATTERNS = _patterns()
# patterns gatepost only ever matches whole (fullmatch, or match with ^...$): an unanchored search is no use of theirs
WHOLE_ONLY = {"gatepost.store.skills.assertions.SKILL_NAME", "gatepost.store.skills.runs._RUN_ID",
              "gatepost.store.loops.registry._NAME", "gatepost.store.cases.parse._ID", "gatepost.store.cases.acts._HEX",
              "gatepost.store.protocol.interpreter._AGE", "gatepost.store.protocol.interpreter._INSTANT",
              "gatepost.store.protocol.interpreter._REF", "gatepost.commands.verify._HEAD_HASH"}


def _hostile(key: str) -> list[str]:
    owner = key.split("[")[0]
    assert owner in HOSTILE, f"{key}: add the lines that would make this pattern backtrack to HOSTILE"
    return [SPACES, *HOSTILE[owner]]


def test_every_pattern_has_hostile_lines_and_none_is_written_inline():
    assert len(PATTERNS) >= 30  # the walk found the modules (a broken walk would pass vacuously)
    for key in PATTERNS:
        _hostile(key)
    inline = re.compile(r"\bre\.(?:search|match|fullmatch|findall|finditer|sub|subn|split)\(")
    offenders = [f"{path.relative_to(ROOT)}:{number}" for folder in ("store", "console")
                 for path in sorted((ROOT / folder).rglob("*.py"))
                 for number, line in enumerate(path.read_text().splitlines(), start=1) if inline.search(line)]
    assert not offenders, f"compile these at module level (so this test feeds them hostile lines): {offenders}"


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(PATTERNS))
def test_each_pattern_is_linear_on_a_1mb_hostile_line(key):
    pattern = PATTERNS[key]
    for text in _hostile(key):
        line = text.encode() if isinstance(pattern.pattern, bytes) else text  # a pattern over a file's bytes
        started = time.perf_counter()
        pattern.match(line)
        pattern.fullmatch(line)
        if key not in WHOLE_ONLY:
            pattern.search(line)
            for _ in pattern.finditer(line):
                pass
        took = time.perf_counter() - started
        assert took < LIMIT_S, (key, text[:20], took)


HEADING_ATTACKS = [
    "# x" + " " * MB + "y",  # the line that stalled skills eval and bootstrap
    "# x" + " " * MB, "#" + " " * MB + "#" * 6 + " " * MB + "x", "## " + "#" * MB + " " * MB + "y",
    "- " + " " * MB, "- x" + " " * MB + "\x00", "1. " + "\t" * MB, "Source" + " " * MB, "**source" + " " * MB + "**",
    "- " + "*" * MB,
]


def test_the_heading_line_that_stalled_skills_eval_is_read_at_once():
    line = "# x" + " " * 2_000 + "y"  # a regular expression took 5 s on this line (cubic: 4,000 spaces took 117 s)
    started = time.perf_counter()
    for _ in range(10):
        assert headings(line) == [(1, "x y")]
        assert list_items("- x" + " " * 2_000) == ["x"] and not assertions.check_must_cite_source(line, True)[0]
    assert time.perf_counter() - started < 1.0


@pytest.mark.slow
@pytest.mark.parametrize("line", HEADING_ATTACKS, ids=range(len(HEADING_ATTACKS)))
def test_the_text_model_reads_a_1mb_hostile_line_in_linear_time(line):
    started = time.perf_counter()
    headings(line)
    list_items(line)
    word_count(line)
    assertions.check_must_cite_source(line, True)
    for check in assertions.CUSTOM_CHECKS.values():
        check.fn(line)
    assert time.perf_counter() - started < LIMIT_S


def test_users_patterns_run_on_re2_in_linear_time():
    line = "a" * MB + "!"
    started = time.perf_counter()
    assert check_output_pattern(line, "(a+)+$")[0] is False
    assert check_output_pattern(line, "(a|aa)*b")[0] is False
    assert _ere("(x+x+)+y", "s").search("x" * MB) is None
    assert time.perf_counter() - started < LIMIT_S


# --- the scans read what the patterns they replace read ------------------------------------------------------
_OLD_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_OLD_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,4}[.)])\s+(.*\S)\s*$")
_OLD_SOURCE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?sources?\s*(?:\*\*|__)?\s*:", re.IGNORECASE)
TOKENS = st.sampled_from([" ", "  ", "\t", "#", "##", "#######", "-", "*", "**", "+", "_", "__", "1", "12345", "٣",
                          ".", ")", ":", "x", "Source", "SOURCES", "sources", "s", "ſource", "\u00a0", "\x1c"])


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(line=st.lists(TOKENS, max_size=10).map("".join))
def test_the_scans_agree_with_the_patterns_on_short_lines(line):
    old = _OLD_ATX.match(line)
    assert assertions._atx_title(line) == (old.group(2) if old else None)
    old = _OLD_ITEM.match(line)
    assert assertions._item_text(line) == (old.group(1) if old else None)
    assert assertions._is_source_line(line) == bool(_OLD_SOURCE.match(line))
