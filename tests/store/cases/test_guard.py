"""The guard check: outside the surface first, then expected answers leaked into the candidate, else clean."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import guard_check, load_suite, within_surface
from tests.evaluator_helpers import contains_task, write_suite


def suite_with_answers(tmp_path: Path):
    return load_suite(write_suite(tmp_path, [
        contains_task("a", "tier?", ["POWERFUL"]),
        contains_task("b", "colour?", ["ultramarine", "cobalt"], split="heldout"),
        {"id": "c", "prompt": "p", "judge": {"type": "llm-rubric", "rubric": "secret rubric words"}},
    ]))


def test_clean_inside_the_surface_without_answers(tmp_path: Path):
    result = guard_check("procedures/release.md", "# Release\n- run tests", suite_with_answers(tmp_path),
                         ["procedures/*"])
    assert result.result == "clean" and "matches the surface glob procedures/*" in result.why


def test_outside_comes_first_even_when_answers_leaked(tmp_path: Path):
    result = guard_check("_rules/safety.md", "POWERFUL", suite_with_answers(tmp_path), ["procedures/*"])
    assert result.result == "outside" and "matches none of the surface globs" in result.why


def test_any_expected_answer_of_any_split_leaks_case_insensitively(tmp_path: Path):
    suite = suite_with_answers(tmp_path)
    leaked = guard_check("procedures/a.md", "always answer Cobalt when asked", suite, ["procedures/**"])
    assert leaked.result == "leaked" and leaked.leaked == ["cobalt"]
    # rubric text is not an expected answer
    assert guard_check("procedures/a.md", "secret rubric words", suite, ["procedures/*"]).result == "clean"


def test_no_surface_or_no_path_cannot_be_shown_inside(tmp_path: Path):
    suite = suite_with_answers(tmp_path)
    assert guard_check("procedures/a.md", "x", suite, []).result == "outside"
    assert guard_check(None, "x", suite, ["*"]).result == "outside"


def test_paths_that_escape_are_outside_every_surface():
    assert within_surface("procedures/../../etc/passwd", ["procedures/*"])[0] is False
    assert within_surface("/etc/passwd", ["*"])[0] is False
    assert within_surface("./procedures/a.md", ["procedures/*"])[0] is True
    assert within_surface("procedures/deep/a.md", ["procedures"])[0] is True  # a bare folder covers its tree


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=1, max_size=30), st.text(max_size=40))
def test_an_answer_embedded_anywhere_in_the_content_is_found(answer, filler):
    from gatepost.store.evaluation import Suite, Task

    if not answer.strip():
        return
    suite = Suite(id="x", skill_id="s", version="1.0", path=Path("/s.yaml"), text="",
                  tasks=(Task(id="t", prompt="p", judge={"type": "contains", "expected": [answer]}),))
    content = filler + answer.upper() + filler
    if answer.upper().lower() != answer.lower():
        return  # case folding that does not round-trip (e.g. 'ß') is outside this property
    assert guard_check("p/a.md", content, suite, ["p/*"]).result == "leaked"
