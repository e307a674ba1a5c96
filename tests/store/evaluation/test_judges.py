"""Judges: contains scores the fraction found, pytest runs the suite's fixture, llm-rubric needs a judge."""

from pathlib import Path

from gatepost.store.evaluation import (
    JudgeSettings,
    judge,
    judge_contains,
    judge_pytest,
    judge_rubric,
    load_suite,
    split_command,
)
from tests.evaluator_helpers import BASIC, write_suite
from tests.evaluator_helpers import judge as judge_cmd


def test_contains_is_case_insensitive_and_scores_the_fraction_found():
    full = judge_contains(["POWERFUL", "accuracy"], "the powerful tier, by Accuracy")
    assert full.passed and full.score == 1.0 and full.reason is None
    half = judge_contains(["POWERFUL", "coverage"], "powerful")
    assert not half.passed and half.score == 0.5 and "'coverage'" in half.reason
    third = judge_contains(["a1", "b2", "c3"], "a1")
    assert third.score == 0.3333


def test_pytest_judge_passes_and_fails_on_the_output():
    suite = load_suite(BASIC)
    task = next(t for t in suite.tasks if t.judge_type == "pytest")
    settings = JudgeSettings()
    good = judge(task, 'text\n{"tier": "POWERFUL"}\n', suite_dir=BASIC.parent, settings=settings)
    assert good.passed and good.score == 1.0
    bad = judge(task, "no json here", suite_dir=BASIC.parent, settings=settings)
    assert not bad.passed and bad.score == 0.0 and "1 failed" in bad.reason


def test_pytest_judge_runs_in_a_scratch_folder_and_leaves_the_suite_untouched(tmp_path: Path):
    folder = tmp_path / "suite"
    write_suite(folder, [{"id": "w", "prompt": "p", "judge": {"type": "pytest", "test_file": "fixtures/test_w.py"}}],
                fixtures={"fixtures/test_w.py": (
                    "import os, pathlib\n"
                    "def test_w():\n"
                    "    here = pathlib.Path(__file__).parent\n"
                    "    (here / 'scribble.txt').write_text('x')\n"
                    "    assert pathlib.Path(os.environ['AI_OUTPUT_FILE']).read_text() == 'exact output'\n"
                    "    assert (here / 'helper.txt').read_text() == 'shared'\n"),
                    "fixtures/helper.txt": "shared"})
    verdict = judge_pytest(folder, "fixtures/test_w.py", "exact output", timeout=30)
    assert verdict.passed
    assert not (folder / "fixtures" / "scribble.txt").exists()
    assert not (folder / "fixtures" / "__pycache__").exists()


def test_pytest_judge_times_out_and_reports_no_tests(tmp_path: Path):
    folder = tmp_path / "suite"
    write_suite(folder, [], fixtures={"fixtures/test_slow.py": "import time\ndef test_slow():\n    time.sleep(60)\n",
                                      "fixtures/test_none.py": "x = 1\n"})
    slow = judge_pytest(folder, "fixtures/test_slow.py", "out", timeout=1.5)
    assert not slow.passed and "timed out" in slow.reason
    none = judge_pytest(folder, "fixtures/test_none.py", "out", timeout=30)
    assert not none.passed and "no tests collected" in none.reason


def test_rubric_without_a_judge_command_is_not_judged_and_never_passes():
    verdict = judge_rubric("Must weigh trade-offs", 0.7, "anything", JudgeSettings())
    assert not verdict.passed and not verdict.judged and verdict.score is None
    assert "--judge-command" in verdict.reason


def test_rubric_with_mock_gets_a_fixed_passing_score_marked_mock():
    verdict = judge_rubric("Must weigh trade-offs", 0.7, "anything", JudgeSettings(mock=True))
    assert verdict.passed and verdict.mock and verdict.score >= 0.7


def test_rubric_through_the_judge_command_uses_the_threshold():
    settings = JudgeSettings(rubric_argv=split_command(judge_cmd("keyword"), option="x"))
    good = judge_rubric("weigh", 0.7, "a Trade-off analysis", settings)
    assert good.passed and good.score == 0.9
    strict = judge_rubric("weigh", 0.95, "a trade-off analysis", settings)
    assert not strict.passed and strict.judged and "below pass_threshold 0.95" in strict.reason
    poor = judge_rubric("weigh", 0.7, "nothing relevant", settings)
    assert not poor.passed and poor.score == 0.2


def test_a_broken_judge_command_is_not_judged_with_its_reason():
    for mode, words in (("garbage", "invalid JSON"), ("outofrange", "a number from 0 to 1")):
        settings = JudgeSettings(rubric_argv=split_command(judge_cmd(mode), option="x"))
        verdict = judge_rubric("r", 0.7, "output", settings)
        assert not verdict.passed and not verdict.judged and words in verdict.reason, verdict
    hang = JudgeSettings(rubric_argv=split_command(judge_cmd("hang"), option="x"), rubric_timeout=1)
    verdict = judge_rubric("r", 0.7, "output", hang)
    assert not verdict.passed and not verdict.judged and "timed out" in verdict.reason
