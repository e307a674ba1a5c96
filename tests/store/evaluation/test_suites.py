"""Suite YAML v1.0 is validated by the seed's load-time rules, and every problem is reported at once."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import SuiteInvalid, load_suite, parse_suite, validate_suite
from gatepost.store.kernel import InputError
from tests.evaluator_helpers import BASIC, BROKEN, contains_task, write_suite


def test_valid_suite_loads_with_splits_timeouts_and_defaults():
    suite = load_suite(BASIC)
    assert suite.skill_id == "quality-tiers"
    assert [t.id for t in suite.tasks_in("heldout")] == ["heldout-tier"]
    assert len(suite.tasks_in("tuning")) == 4 and len(suite.tasks_in("all")) == 5
    first = suite.tasks[0]
    assert first.timeout_seconds == 5 and first.split == "tuning"
    rubric = next(t for t in suite.tasks if t.judge_type == "llm-rubric")
    assert rubric.judge["pass_threshold"] == 0.7
    assert ("tier-keyword", "POWERFUL") in suite.expected_by_task()


def test_every_problem_is_reported_with_task_and_field():
    errors = validate_suite(BROKEN)
    text = "\n".join(errors)
    expectations = [
        "skill_id: expected a non-empty string",
        'version: expected the string "1.0"',
        "task dup: id: duplicate task id",
        "task no-prompt: prompt: expected a non-empty string",
        "task no-judge: judge: missing",
        "task bad-type: judge.type: expected one of contains, pytest, llm-rubric",
        "task empty-expected: judge.expected: expected a non-empty list",
        "task escape: judge.test_file: may not leave fixtures/",
        "task outside: judge.test_file: must start with fixtures/",
        "task absolute: judge.test_file: expected a relative path",
        "task no-rubric: judge.rubric: expected a non-empty string",
        "task bad-split: split: expected tuning or heldout",
        "tasks[11]: id: missing (expected a non-empty string)",
    ]
    for expected in expectations:
        assert expected in text, expected
    assert len(errors) == len(expectations)
    assert all(e.startswith("suite.yaml: ") for e in errors)


def test_load_raises_one_line_error_carrying_all_problems():
    with pytest.raises(SuiteInvalid) as caught:
        load_suite(BROKEN)
    assert len(caught.value.errors) == 13
    assert "\n" not in str(caught.value) and "12 more problems" in str(caught.value)


def test_version_must_be_the_string_not_a_number(tmp_path: Path):
    path = tmp_path / "s.yaml"
    path.write_text('skill_id: x\nversion: "1.0"\ntasks: [{id: a, prompt: p, judge: {type: contains, expected: [y]}}]\n')
    assert validate_suite(path) == []
    path.write_text('skill_id: x\nversion: 1.0\ntasks: [{id: a, prompt: p, judge: {type: contains, expected: [y]}}]\n')
    assert any("quote it" in e for e in validate_suite(path))
    path.write_text('skill_id: x\nversion: "2.0"\ntasks: [{id: a, prompt: p, judge: {type: contains, expected: [y]}}]\n')
    assert any("version" in e for e in validate_suite(path))


def test_pytest_file_must_exist_and_stay_in_fixtures_even_through_a_symlink(tmp_path: Path):
    outside = tmp_path / "secret.py"
    outside.write_text("def test_x(): pass\n")
    folder = tmp_path / "suite"
    (folder / "fixtures").mkdir(parents=True)
    (folder / "fixtures" / "link.py").symlink_to(outside)
    path = write_suite(folder, [
        {"id": "link", "prompt": "p", "judge": {"type": "pytest", "test_file": "fixtures/link.py"}},
        {"id": "missing", "prompt": "p", "judge": {"type": "pytest", "test_file": "fixtures/nope.py"}},
        {"id": "bare", "prompt": "p", "judge": {"type": "pytest", "test_file": "fixtures/"}},
    ])
    errors = validate_suite(path)
    assert any("task link" in e and "outside the suite's fixtures/" in e for e in errors)
    assert any("task missing" in e and "does not exist" in e for e in errors)
    assert any("task bare" in e and "judge.test_file" in e for e in errors)


def test_rubric_threshold_and_timeout_are_checked(tmp_path: Path):
    path = write_suite(tmp_path, [
        {"id": "r", "prompt": "p", "judge": {"type": "llm-rubric", "rubric": "x", "pass_threshold": 1.5}},
        contains_task("t", "p", ["y"], timeout_seconds=0),
        contains_task("u", "p", ["y"], timeout_seconds="fast"),
        {"id": "v", "prompt": "p", "judge": {"type": "contains", "expected": ["ok", 3]}},
    ])
    errors = validate_suite(path)
    assert any("task r: judge.pass_threshold" in e for e in errors)
    assert any("task t: timeout_seconds" in e for e in errors)
    assert any("task u: timeout_seconds" in e for e in errors)
    assert any("task v: judge.expected" in e for e in errors)


@pytest.mark.parametrize("text, message", [
    ("tasks: [\n", "not valid YAML at line"),
    ("- a\n- b\n", "expected a mapping with skill_id"),
    ('skill_id: x\nversion: "1.0"\ntasks: []\n', "tasks: expected a non-empty list"),
    ('skill_id: x\nversion: "1.0"\ntasks: [3]\n', "tasks[0]: expected a mapping"),
    ('skill_id: x\nversion: "1.0"\ntasks: [{id: a, prompt: p, judge: nope}]\n', "task a: judge: expected a mapping"),
])
def test_malformed_files_are_one_line_errors(tmp_path: Path, text: str, message: str):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    errors = validate_suite(path)
    assert any(message in e for e in errors), errors


def test_missing_and_binary_files_are_input_errors(tmp_path: Path):
    with pytest.raises(InputError, match="no such suite file"):
        load_suite(tmp_path / "absent.yaml")
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        load_suite(binary)


def test_suite_id_is_the_content_hash(tmp_path: Path):
    a = write_suite(tmp_path / "a", [contains_task("t", "p", ["y"])])
    b = write_suite(tmp_path / "b", [contains_task("t", "p", ["y"])])
    c = write_suite(tmp_path / "c", [contains_task("t", "p", ["z"])])
    assert load_suite(a).id == load_suite(b).id != load_suite(c).id


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=12))
def test_any_yaml_value_gives_errors_never_a_crash(value):
    import yaml

    suite, errors = parse_suite(yaml.safe_dump({"skill_id": "x", "version": "1.0", "tasks": [value]}),
                                path=Path("/nonexistent/s.yaml"))
    assert (suite is None) == bool(errors)
    assert all(isinstance(e, str) and "\n" not in e for e in errors)
