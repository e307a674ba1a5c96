"""Executors run as argv (never a shell), with timeouts that kill the process group and bounded output."""

import json
import os
import sys
import time

import pytest

from gatepost.store.evaluation import (
    OUTPUT_CAP,
    CommandExecutor,
    MockExecutor,
    make_executor,
    run_bounded,
)
from gatepost.store.kernel import InputError
from tests.evaluator_helpers import EVAL, executor


def test_the_request_is_json_on_stdin_and_the_output_comes_back():
    result = CommandExecutor(executor("echo-json")).run("t-1", "What tier?", "# skill\nbe precise", timeout=5)
    assert result.finished
    assert json.loads(result.output) == {"task_id": "t-1", "prompt": "What tier?", "skill": "# skill\nbe precise"}


def test_the_command_is_split_on_whitespace_and_not_given_to_a_shell(tmp_path):
    marker = tmp_path / "pwned"
    command = f"{sys.executable} {EVAL / 'argv.py'} $HOME ; touch {marker} | cat"
    run = CommandExecutor(command).run("t", "p", "s", timeout=5)
    assert run.finished
    assert json.loads(run.output) == ["$HOME", ";", "touch", str(marker), "|", "cat"]
    assert not marker.exists()


def test_a_hanging_executor_times_out_and_its_children_die(tmp_path):
    started = time.monotonic()
    run = CommandExecutor(executor("forkhang")).run("t", "p", "s", timeout=1)
    assert time.monotonic() - started < 10
    assert run.reason.startswith("timed out after 1 s")


def test_crash_signal_and_exit_status_are_failed_attempts_with_reasons():
    crash = CommandExecutor(executor("crash")).run("t-9", "p", "s", timeout=5)
    assert "exited with status 1" in crash.reason and "executor blew up on t-9" in crash.reason
    killed = CommandExecutor(executor("killed")).run("t", "p", "s", timeout=5)
    assert killed.reason == "crashed (SIGKILL)"
    status = CommandExecutor(executor("exit3")).run("t", "p", "s", timeout=5)
    assert "exited with status 3" in status.reason and "quota exceeded" in status.reason
    assert status.output.strip() == "partial answer"


def test_huge_output_is_capped_and_recorded_as_truncated():
    run = CommandExecutor(executor("huge")).run("t", "p", "s", timeout=20)
    assert len(run.output.encode()) <= OUTPUT_CAP
    assert "truncated" in run.reason


def test_undecodable_output_is_kept_as_replacement_characters():
    run = CommandExecutor(executor("garbage")).run("t", "p", "s", timeout=5)
    assert run.finished and "answer" in run.output and "\ufffd" in run.output


def test_unknown_or_empty_commands_are_refused_up_front():
    with pytest.raises(InputError, match="not-a-real-program-xyz: command not found"):
        make_executor("not-a-real-program-xyz --flag", mock=False)
    with pytest.raises(InputError, match="expected a command"):
        make_executor("   ", mock=False)
    with pytest.raises(InputError, match="not both"):
        make_executor("echo", mock=True)
    with pytest.raises(InputError, match="--mock"):
        make_executor(None, mock=False)


def test_the_mock_is_deterministic_marked_and_follows_the_skill():
    mock = make_executor(None, mock=True)
    assert isinstance(mock, MockExecutor) and mock.mock
    skill = "# Tiers\n- accuracy above 0.9 is the POWERFUL tier\n- unrelated line about cooking\n"
    first = mock.run("t", "What tier has accuracy 0.95?", skill, timeout=1)
    again = mock.run("t", "What tier has accuracy 0.95?", skill, timeout=1)
    assert first == again and first.mock
    assert "POWERFUL" in first.output and "cooking" not in first.output
    empty = mock.run("t", "What tier has accuracy 0.95?", "", timeout=1)
    assert "POWERFUL" not in empty.output


def test_the_mock_forgets_some_instructions_on_some_attempts():
    mock = MockExecutor()
    skill = "\n".join(f"- rule {i}: the tier word is tier{i}" for i in range(40))
    outputs = {mock.run("t", "which tier word?", skill, timeout=1, attempt=k).output for k in (1, 2, 3)}
    assert len(outputs) == 3  # each attempt forgets a different handful
    kept = [sum(f"tier{i}" in o.split() for i in range(40)) for o in outputs]
    assert all(20 < n < 40 for n in kept)


def test_run_bounded_reports_a_program_that_cannot_start(tmp_path):
    script = tmp_path / "noexec.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    result = run_bounded([str(script)], b"", timeout=2)
    assert result.error and "could not start" in result.error
    assert result.failure(2) == result.error


def test_stdin_larger_than_a_pipe_does_not_deadlock_a_program_that_never_reads():
    result = run_bounded([sys.executable, "-c", "print('ok')"], b"x" * (4 * 1024 * 1024), timeout=5)
    assert result.returncode == 0 and result.text.strip() == "ok"


def test_environment_is_inherited_so_wrappers_can_set_things_up(monkeypatch, tmp_path):
    monkeypatch.setenv("FLAKY_DIR", str(tmp_path))
    first = CommandExecutor(executor("flaky")).run("t", "p", "the answer", timeout=5)
    second = CommandExecutor(executor("flaky")).run("t", "p", "the answer", timeout=5)
    assert first.output.strip() == "I do not know" and second.output.strip() == "the answer"
    assert os.path.exists(tmp_path / "t")
