"""Repeated attempts (pass@k) collapse into one line counting each distinct outcome."""

from gatepost.store.evaluation import RunSettings, attempts_line, outcome, outcome_counts
from tests.console_helpers import settle


def attempt(passed=False, reason=None, judged=True):
    return {"passed": passed, "reason": reason, "judged": judged}


def test_each_reason_reads_as_one_outcome_word():
    assert outcome(attempt(True)) == "pass"
    assert outcome(attempt(reason="timed out after 2 s (process group killed)")) == "timeout"
    assert outcome(attempt(reason="crashed (SIGKILL)")) == "crash"
    assert outcome(attempt(reason="exited with status 3: quota exceeded")) == "exit 3"
    assert outcome(attempt(reason="output exceeded 1,048,576 bytes: truncated and the process stopped")) \
        == "output too long"
    assert outcome(attempt(reason="missing: 'alpha'")) == "fail"
    assert outcome(attempt(reason="not judged: llm-rubric needs --judge-command", judged=False)) == "not judged"


def test_counts_lead_with_pass_then_the_most_frequent():
    attempts = [attempt(reason="timed out after 1 s"), attempt(reason="missing: 'x'"),
                attempt(reason="timed out after 1 s"), attempt(True)]
    assert outcome_counts(attempts) == {"pass": 1, "timeout": 2, "fail": 1}
    assert list(outcome_counts(attempts)) == ["pass", "timeout", "fail"]
    assert attempts_line(attempts) == "4 attempts: 1 pass, 2 timeout, 1 fail"
    assert attempts_line([attempt(reason="missing: 'x'")]) == "1 attempt: 1 fail"


async def test_results_collapse_attempts_into_one_row_and_enter_expands_them(db, store_path, tmp_path, monkeypatch):
    import sys

    from gatepost.app import GatepostApp
    from gatepost.store.evaluation import CommandExecutor, evaluate, load_suite
    from gatepost.widgets.paged_list import PagedList
    from tests.conftest import FIXTURES
    from tests.evaluator_helpers import contains_task, write_suite

    monkeypatch.setenv("SEQUENCE_DIR", str(tmp_path))
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("flaky", "the word?", ["alpha"]),
                                                    contains_task("steady", "the other word?", ["alpha"])]))
    command = f"{sys.executable} {FIXTURES / 'reviewer' / 'sequence.py'} exit3,wrong,right"
    run_id = evaluate(db, suite, candidate_text="alpha", baseline_text="nothing",
                      settings=RunSettings(executor=CommandExecutor(command), pass_k=3))["run_id"]
    app = GatepostApp(store_path, person="dara")
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        screen.open_item(run_id)
        await settle(pilot)
        tasks = screen.query_one("#run-tasks", PagedList)
        assert len(tasks.keys) == 2  # one row per task, not per attempt
        assert str(tasks.table.get_row("flaky")[5]).startswith("3 attempts: 1 pass, 1 exit 3, 1 fail")
        assert not screen.query("#task-attempts")  # mounted the first time a task's attempts are asked for
        screen.action_focus_tasks()
        tasks.move_to_key("flaky")
        await pilot.press("enter")
        await settle(pilot)
        panel = screen.query_one("#task-attempts")
        assert panel.display
        shown = str(panel.render())
        assert "candidate · 3 attempts: 1 pass, 1 exit 3, 1 fail" in shown
        assert "#1 exit 3" in shown and "exited with status 3" in shown
        assert "#3 pass" in shown and "score 1" in shown
        assert "baseline · 3 attempts: 2 fail, 1 exit 3" in shown
        await pilot.press("enter")
        await settle(pilot)
        assert not panel.display
