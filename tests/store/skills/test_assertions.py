"""Assertion manifests: strict parsing, and every check's pass, fail and message."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.kernel import InputError
from gatepost.store.skills import (
    CUSTOM_CHECKS,
    headings,
    list_items,
    parse_manifest,
    read_manifest_file,
    run_checks,
    to_yaml,
    word_count,
)
from tests.conftest import FIXTURES

SKILLS = FIXTURES / "skills"


def one(assertions: dict, output: str):
    [result] = run_checks(assertions, output)
    return result


# --- the text model --------------------------------------------------------------------------

def test_word_count_ignores_markdown_symbols():
    assert word_count("# Top movers\n\n- SOL +12% | $4.2B\n---") == 5  # Top movers SOL +12% $4.2B
    assert word_count("") == 0
    assert word_count(None) == 0


def test_headings_are_markdown_lines_or_capital_lines_but_not_code():
    text = "# Title\nplain text\nPOSITIONS:\n## Top movers ##\n```\n# not a heading\nMAP\n```\n- ITEM\n**MAP**"
    assert [t for _n, t in headings(text)] == ["Title", "POSITIONS", "Top movers", "MAP"]


def test_list_items_are_bullets_and_numbers():
    assert list_items("- a\n* b\n+ c\n1. d\n2) e\nnot -x\n-nospace") == ["a", "b", "c", "d", "e"]


# --- every assertion: pass and fail ------------------------------------------------------------

def test_min_words():
    ok = one({"min_words": 3}, "one two three")
    assert ok.passed and ok.message == "3 words (min 3)"
    bad = one({"min_words": 400}, " ".join(["word"] * 312))
    assert not bad.passed and bad.message == "312 words, needs 400"


def test_max_words():
    assert one({"max_words": 5}, "a b c").passed
    bad = one({"max_words": 2}, "a b c")
    assert not bad.passed and bad.message == "3 words, allows at most 2"


def test_required_patterns_are_case_insensitive_substrings():
    assert one({"required_patterns": ["top MOVERS", "24h"]}, "Top movers in the last 24H").passed
    bad = one({"required_patterns": ["Top movers", "24h", "7d"]}, "top movers 24h")
    assert not bad.passed and bad.message == 'missing pattern "7d"'


def test_forbidden_patterns_say_where_they_were_found():
    assert one({"forbidden_patterns": ["as an AI"]}, "clean output").message == "none of 1 forbidden patterns found"
    bad = one({"forbidden_patterns": ["as an ai", "I cannot"]}, "intro\nAs An AI model I won't")
    assert not bad.passed and bad.message == 'forbidden "as an ai" at line 2'


def test_required_sections():
    text = (SKILLS / "narrative-tracker.nomap.md").read_text()
    bad = one({"required_sections": ["TRANSITIONS", "POSITIONS", "MAP"]}, text)
    assert not bad.passed
    assert bad.message.startswith("missing section MAP")
    assert "TRANSITIONS, POSITIONS" in bad.message
    good = one({"required_sections": ["transitions", "MAP"]}, "TRANSITIONS\ntext\n# map\n- x")
    assert good.passed and good.message == "all 2 sections present"


def test_required_section_must_be_a_heading_not_a_mention():
    bad = one({"required_sections": ["MAP"]}, "## Overview\nSee the MAP below.")
    assert not bad.passed and "missing section MAP" in bad.message


def test_must_cite_source_url_or_source_line():
    assert one({"must_cite_source": True}, "see https://example.org/x for more").message.startswith(
        "cites https://example.org/x")
    assert one({"must_cite_source": True}, "text\nSource: the exchange's daily report").passed
    assert one({"must_cite_source": True}, "text\n- **Sources**: CoinGecko").passed
    bad = one({"must_cite_source": True}, "no citation at all, source unknown")
    assert not bad.passed and bad.message == "no URL and no Source: line"
    assert one({"must_cite_source": False}, "nothing").passed


def test_min_distinct_items_counts_distinct_items():
    text = "- SOL\n- ARB\n- sol\n-   ARB  \n- TIA"
    bad = one({"min_distinct_items": 5}, text)
    assert not bad.passed and bad.message == "3 distinct list items (5 items, 2 repeated), needs 5"
    assert one({"min_distinct_items": 3}, text).passed


def test_output_pattern_is_a_regex_over_the_whole_output():
    good = one({"output_pattern": r"^\*Skill Evals — \d{4}-\d{2}-\d{2}\*$"}, "intro\n*Skill Evals — 2026-05-12*")
    assert good.passed and good.message.endswith("at line 2")
    bad = one({"output_pattern": r"\d+ skills"}, "Checked many skills")
    assert not bad.passed and bad.message == r"no match for /\d+ skills/"


def test_custom_position_call():
    good = (SKILLS / "narrative-tracker.good.md").read_text()
    result = one({"must_have_position_call": True}, good)
    assert result.passed and "Position: overweight" in result.message
    bad = one({"must_have_position_call": True}, (SKILLS / "narrative-tracker.nomap.md").read_text())
    assert not bad.passed and bad.message.startswith("no position call")


@pytest.mark.parametrize("name,good,bad", [
    ("must_name_drivers", "Drivers: ETF flows, unlocks", "no drivers here"),
    ("must_cite_paper", "Read arXiv:2405.01234 first", "a paper without a link"),
    ("must_quote_changes", "SOL +12.4% today", "SOL rose a lot"),
    ("must_date_the_report", "Digest 2026-05-12", "Digest of today"),
])
def test_every_registered_custom_check(name, good, bad):
    assert name in CUSTOM_CHECKS and CUSTOM_CHECKS[name].family
    assert one({name: True}, good).passed
    result = one({name: True}, bad)
    assert not result.passed and result.message


def test_seed_manifest_on_good_and_bad_outputs():
    manifest = read_manifest_file(str(SKILLS / "evals.yaml"))
    good = run_checks(manifest["token-movers"], (SKILLS / "token-movers.good.md").read_text())
    assert all(r.passed for r in good), good
    bad = run_checks(manifest["token-movers"], (SKILLS / "token-movers.refusal.md").read_text())
    assert [r.assertion for r in bad if not r.passed] == [
        "min_words", "required_patterns", "forbidden_patterns", "must_cite_source", "min_distinct_items"]


# --- parsing ---------------------------------------------------------------------------------------

def test_parse_seed_manifest():
    manifest = read_manifest_file(str(SKILLS / "evals.yaml"))
    assert list(manifest) == ["token-movers", "narrative-tracker"]
    assert manifest["narrative-tracker"]["must_have_position_call"] is True


@pytest.mark.parametrize("text,message", [
    ("s:\n  min_wordz: 3\n", "m.yaml: s: min_wordz: unknown assertion"),
    ("s:\n  min_words: '3'\n", "m.yaml: s: min_words: expected an integer >= 0"),
    ("s:\n  min_words: true\n", "m.yaml: s: min_words: expected an integer >= 0"),
    ("s:\n  min_words: -1\n", "m.yaml: s: min_words: expected an integer >= 0"),
    ("s:\n  required_patterns: 'Top'\n", "m.yaml: s: required_patterns: expected a non-empty list"),
    ("s:\n  forbidden_patterns: ['ok', 3]\n", "m.yaml: s: forbidden_patterns[1]: expected a non-empty string"),
    ("s:\n  output_pattern: '(unclosed'\n", "m.yaml: s: output_pattern: invalid regular expression"),
    ("s:\n  must_cite_source: 'yes'\n", "m.yaml: s: must_cite_source: expected true or false"),
    ("s:\n  must_have_position_call: 1\n", "m.yaml: s: must_have_position_call: expected true or false"),
    ("s:\n  min_words: 10\n  max_words: 5\n", "m.yaml: s: max_words: 5 is below min_words 10"),
    ("s: []\n", "m.yaml: s: expected a mapping of assertions"),
    ("s: {}\n", "m.yaml: s: expected at least one assertion"),
    ("- s\n", "m.yaml: expected a mapping of skill name to assertions"),
    ("", "m.yaml: empty manifest"),
    ("s: [unclosed\n", "m.yaml: not valid YAML at line"),
    ("bad name:\n  min_words: 1\n", "expected a skill name"),
])
def test_parse_errors_name_file_skill_and_key(text, message):
    with pytest.raises(InputError) as err:
        parse_manifest(text, source="m.yaml")
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_not_utf8_file_is_an_input_error(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_bytes(b"s:\n  min_words: \xff\n")
    with pytest.raises(InputError, match="not valid UTF-8"):
        read_manifest_file(str(path))


def test_to_yaml_round_trips_in_documented_order():
    assertions = {"must_have_position_call": True, "required_sections": ["MAP"], "min_words": 3}
    text = to_yaml("nt", assertions)
    assert text.splitlines()[1].strip() == "min_words: 3"
    assert parse_manifest(text) == {"nt": {"min_words": 3, "required_sections": ["MAP"],
                                           "must_have_position_call": True}}


# --- properties ------------------------------------------------------------------------------------

_strings = st.lists(st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1,
                            max_size=12).filter(str.strip), min_size=1, max_size=4)
_assertions = st.fixed_dictionaries({}, optional={
    "min_words": st.integers(0, 500), "max_words": st.integers(500, 2000),
    "required_patterns": _strings, "forbidden_patterns": _strings,
    "must_cite_source": st.booleans(), "min_distinct_items": st.integers(1, 20),
    "output_pattern": st.sampled_from([r"\d+", r"^# ", r"(?i)source"]),
    "must_have_position_call": st.booleans(),
}).filter(bool)
_names = st.from_regex(re.compile(r"[a-z][a-z0-9-]{0,20}"), fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_names, _assertions, min_size=1, max_size=3))
def test_valid_manifests_round_trip_through_yaml(manifest):
    text = "".join(to_yaml(skill, a) for skill, a in manifest.items())
    assert parse_manifest(text) == manifest


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200))
def test_parser_never_raises_anything_but_input_error(text):
    try:
        parse_manifest(text, source="fuzz.yaml")
    except InputError as exc:
        assert str(exc).startswith("fuzz.yaml")


@settings(max_examples=60, deadline=None)
@given(_assertions, st.text(max_size=300))
def test_every_check_gives_a_verdict_and_a_message(assertions, output):
    results = run_checks(assertions, output)
    assert [r.assertion for r in results] == list(parse_manifest(to_yaml("s", assertions))["s"])
    assert all(isinstance(r.passed, bool) and r.message for r in results)


def test_numbered_list_markers_are_not_words():
    assert word_count("1. SQLite as a format\n2) Boring tech\nversion 3. shipped") == 9
