"""Foreign programs are bounded for real: a daemon forked into a new session cannot outlive the deadline.

The script below double-forks a daemon (os.setsid between the forks) that
keeps the run's stdout open and sleeps a minute: the leader exits at once,
so only a deadline on reading the pipe, killing strays outside the process
group and reaping adopted orphans stop it.
"""

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gatepost.store.evaluation import CommandExecutor, run_bounded
from gatepost.store.proposals import GateConfig, run_gate, validate_proposal
from tests.conftest import run_gatepost
from tests.evaluator_helpers import contains_task, write_suite

DAEMON = textwrap.dedent("""
    import os, sys, time
    pid_file = sys.argv[1]
    clear_env = len(sys.argv) > 2 and sys.argv[2] == "clear-env"
    sys.stdin.read()
    print('{"passed": true, "reason": "looks fine"}', flush=True)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pid_file + ".tmp", "w") as fh:
                fh.write(str(os.getpid()))
            os.rename(pid_file + ".tmp", pid_file)
            if clear_env:  # no trace of the run left in its environment
                os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(60)"], {})
            time.sleep(60)  # stdout and stderr still open
        os._exit(0)
    os.wait()
    sys.exit(0)
""")


@pytest.fixture
def daemon_script(tmp_path: Path) -> Path:
    script = tmp_path / "daemonise.py"
    script.write_text(DAEMON, encoding="utf-8")
    return script


def gone(pid: int) -> bool:
    """True once the process no longer exists (a zombie still counts as present)."""
    return not Path(f"/proc/{pid}").exists()


def daemon_pid(pid_file: Path) -> int:
    for _ in range(100):
        if pid_file.exists():
            return int(pid_file.read_text())
        time.sleep(0.05)
    raise AssertionError("the daemon never wrote its pid")


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.mark.parametrize("mode", ["keep-env", "clear-env"])
def test_a_daemon_holding_stdout_is_timed_out_killed_and_reaped(tmp_path: Path, daemon_script: Path, mode: str):
    pid_file = tmp_path / "daemon.pid"
    started = time.monotonic()
    result = run_bounded([sys.executable, str(daemon_script), str(pid_file), mode], b"{}", timeout=2)
    elapsed = time.monotonic() - started
    assert elapsed < 5
    assert result.timed_out
    assert result.failure(2).startswith("timed out")
    assert gone(daemon_pid(pid_file))


def test_an_executor_that_daemonises_counts_as_failed_timed_out(tmp_path: Path, daemon_script: Path):
    pid_file = tmp_path / "daemon.pid"
    started = time.monotonic()
    attempt = CommandExecutor(f"{sys.executable} {daemon_script} {pid_file}").run("t", "p", "s", timeout=2)
    assert time.monotonic() - started < 5
    assert not attempt.finished and attempt.reason.startswith("timed out")
    assert gone(daemon_pid(pid_file))


def test_the_gate_fails_closed_on_a_daemonising_scorer(tmp_path: Path, daemon_script: Path):
    pid_file = tmp_path / "daemon.pid"
    config = GateConfig(enabled=True, command=f"{sys.executable} {daemon_script} {pid_file}", timeout_secs=2,
                        targets=["procedures"])
    proposal = validate_proposal({"path": "procedures/x.md", "kind": "procedure", "operation": "update",
                                  "edit_mode": "full_page", "title": "X", "confidence": 0.5, "rationale": "r",
                                  "before_body": "a\n", "after_body": "b\n"})
    started = time.monotonic()
    outcome = run_gate(config, proposal)
    assert time.monotonic() - started < 5
    assert outcome.status == "failed" and outcome.reason.startswith("timeout")
    assert gone(daemon_pid(pid_file))


def test_suite_run_through_the_cli_times_the_task_out_and_leaves_no_daemon(tmp_path: Path, daemon_script: Path):
    pid_file = tmp_path / "daemon.pid"
    suite = write_suite(tmp_path / "suite", [contains_task("t-1", "say passed", ["passed"], timeout_seconds=2)])
    skill = tmp_path / "skill.md"
    skill.write_text("# skill\n", encoding="utf-8")
    started = time.monotonic()
    done = run_gatepost("--db", str(tmp_path / "s.db"), "suite", "run", "--suite", str(suite), "--skill", str(skill),
                        "--executor", f"{sys.executable} {daemon_script} {pid_file}", "--json", timeout=30)
    assert time.monotonic() - started < 15, "the daemon held the run open"
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    artifact = json.loads(done.stdout)
    text = json.dumps(artifact)
    assert "timed out" in text
    pid = daemon_pid(pid_file)
    for _ in range(50):  # the gatepost process has exited; its reaped daemon must not linger
        if gone(pid):
            break
        time.sleep(0.05)
    assert gone(pid)


def test_a_program_that_exits_cleanly_still_finishes_fast_with_its_output():
    started = time.monotonic()
    result = run_bounded([sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"], b"hello", timeout=5)
    assert time.monotonic() - started < 3
    assert result.failure(5) is None and result.text.strip() == "HELLO"


def test_our_own_children_outside_the_run_are_left_alone(tmp_path: Path):
    import subprocess
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        run_bounded([sys.executable, "-c", "print(1)"], b"", timeout=5)
        assert bystander.poll() is None
        assert os.path.exists(f"/proc/{bystander.pid}")
    finally:
        bystander.kill()
        bystander.wait()


QUIET_DAEMON = textwrap.dedent("""
    import os, sys, time
    pid_file = sys.argv[1]
    print("done", flush=True)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pid_file + ".tmp", "w") as fh:  # written while it still holds stdout
                fh.write(str(os.getpid()))
            os.rename(pid_file + ".tmp", pid_file)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            time.sleep(60)
        os._exit(0)
    os.wait()
""")


def test_a_daemon_that_lets_go_of_the_pipes_does_not_slow_the_run_and_is_still_killed(tmp_path: Path):
    script = tmp_path / "quiet.py"
    script.write_text(QUIET_DAEMON, encoding="utf-8")
    pid_file = tmp_path / "daemon.pid"
    started = time.monotonic()
    result = run_bounded([sys.executable, str(script), str(pid_file)], b"", timeout=10)
    assert time.monotonic() - started < 5
    assert result.failure(10) is None and result.text == "done\n"
    assert gone(daemon_pid(pid_file))
