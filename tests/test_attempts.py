"""Repeated attempts (pass@k) collapse into one line counting each distinct outcome."""

from store.attempts import attempts_line, outcome, outcome_counts


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
