"""The AI under test: an executor command (argv, never a shell) or the built-in mock.

`run_bounded` is the one way gatepost runs a foreign program (executors,
judges, scorers): its own process group killed on timeout, stdin written
from a thread, stdout read up to a cap so a runaway program cannot exhaust
memory.
"""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gatepost.store.kernel import InputError

OUTPUT_CAP = 1024 * 1024  # bytes of stdout kept per run
STDERR_CAP = 16 * 1024
MOCK = "mock"


@dataclass(frozen=True)
class Bounded:
    """What a foreign program did: its output (capped), exit code, and why it did not finish if it did not."""

    stdout: bytes
    stderr: bytes
    returncode: int | None
    duration_ms: int
    timed_out: bool = False
    truncated: bool = False
    error: str | None = None  # could not start it

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    def failure(self, timeout: float, cap: int = OUTPUT_CAP) -> str | None:
        """Why this run does not count as finished, in one line; None when it exited 0 within its limits."""
        if self.error:
            return self.error
        if self.timed_out:
            return f"timed out after {timeout:g} s (process group killed)"
        if self.truncated:
            return f"output exceeded {cap:,} bytes: truncated and the process stopped"
        if self.returncode != 0:
            if self.returncode is not None and self.returncode < 0:
                try:
                    name = signal.Signals(-self.returncode).name
                except ValueError:
                    name = f"signal {-self.returncode}"
                return f"crashed ({name})" + self._stderr_tail()
            return f"exited with status {self.returncode}" + self._stderr_tail()
        return None

    def _stderr_tail(self) -> str:
        tail = " ".join(self.stderr.decode("utf-8", errors="replace").split())[-200:]
        return f": {tail}" if tail else ""


def split_command(command: str, *, option: str) -> list[str]:
    """A command as argv: split on whitespace, never through a shell (the seeds' contract)."""
    argv = (command or "").split()
    if not argv:
        raise InputError(f"{option}: expected a command, got an empty string")
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        found = Path(program).is_file() and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    if not found:
        raise InputError(f"{option}: {program}: command not found or not executable")
    return argv


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_bounded(argv: list[str], stdin: bytes, *, timeout: float, cap: int = OUTPUT_CAP,
                cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None) -> Bounded:
    """Run argv with `stdin`, at most `timeout` seconds and `cap` bytes of stdout."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=env, start_new_session=True)
    except OSError as exc:
        return Bounded(b"", b"", None, 0, error=f"could not start {argv[0]}: {exc.strerror or exc}")
    out = bytearray()
    err = bytearray()
    over = threading.Event()

    def feed() -> None:
        try:
            proc.stdin.write(stdin)
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    def read_out() -> None:
        try:
            while True:
                chunk = proc.stdout.read1(65536)
                if not chunk:
                    return
                room = cap - len(out)
                out.extend(chunk[:room])
                if len(chunk) > room:
                    over.set()
                    _kill_group(proc)
                    return
        except (OSError, ValueError):  # the pipe was closed under us after the run ended
            return

    def read_err() -> None:
        try:
            while True:
                chunk = proc.stderr.read1(65536)
                if not chunk:
                    return
                if len(err) < STDERR_CAP:
                    err.extend(chunk[: STDERR_CAP - len(err)])
        except (OSError, ValueError):
            return

    threads = [threading.Thread(target=f, daemon=True) for f in (feed, read_out, read_err)]
    for t in threads:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = not over.is_set()
        _kill_group(proc)
        proc.wait()
    except BaseException:  # interrupted (Ctrl-C): never leave the program running behind us
        _kill_group(proc)
        proc.wait()
        raise
    # the leader is gone; kill what it left behind so the pipes close
    _kill_group(proc)
    for t in threads:
        t.join(timeout=2)
    for stream in (proc.stdout, proc.stderr):
        try:
            stream.close()
        except OSError:
            pass
    duration = int((time.monotonic() - started) * 1000)
    return Bounded(bytes(out), bytes(err), proc.returncode, duration, timed_out=timed_out,
                   truncated=over.is_set())


@dataclass(frozen=True)
class Attempt:
    """One execution of one task: the output, and why it failed when it did not finish."""

    output: str
    reason: str | None
    duration_ms: int
    mock: bool = False

    @property
    def finished(self) -> bool:
        return self.reason is None


class CommandExecutor:
    """The executor contract: {"task_id","prompt","skill"} as JSON on stdin, the output on stdout."""

    mock = False

    def __init__(self, command: str) -> None:
        self.command = " ".join(command.split())
        self.argv = split_command(command, option="--executor")

    @property
    def identity(self) -> str:
        return self.command

    def run(self, task_id: str, prompt: str, skill: str, *, timeout: float, attempt: int = 1) -> Attempt:
        payload = json.dumps({"task_id": task_id, "prompt": prompt, "skill": skill}, ensure_ascii=False)
        result = run_bounded(self.argv, payload.encode("utf-8"), timeout=timeout)
        return Attempt(output=result.text, reason=result.failure(timeout), duration_ms=result.duration_ms)


_WORD = re.compile(r"[a-z0-9][a-z0-9_-]{3,}")
FORGET_BELOW = 64  # out of 256: the mock forgets a relevant instruction a quarter of the time


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class MockExecutor:
    """A deterministic stand-in for the AI: it echoes the prompt and follows the skill's relevant lines.

    A skill line is relevant when it shares a word of four letters or more with
    the prompt; on each attempt the mock forgets some relevant lines (chosen by
    a hash of the attempt, the prompt and the line), so a better skill passes
    more tasks and pass@k can rescue a task. Same inputs, same output, always.
    """

    mock = True
    identity = MOCK
    command = MOCK

    def run(self, task_id: str, prompt: str, skill: str, *, timeout: float, attempt: int = 1) -> Attempt:
        started = time.monotonic()
        asked = _words(prompt)
        lines = [f"[mock answer to {task_id}]", prompt.strip()]
        for line in skill.splitlines():
            text = line.strip().lstrip("#-*> ").strip()
            if not text or not (_words(text) & asked):
                continue
            digest = hashlib.sha256(f"{attempt}\x00{prompt}\x00{text}".encode()).digest()
            if digest[0] >= FORGET_BELOW:
                lines.append(text)
        return Attempt(output="\n".join(lines) + "\n", reason=None,
                       duration_ms=int((time.monotonic() - started) * 1000), mock=True)


def make_executor(command: str | None, *, mock: bool) -> CommandExecutor | MockExecutor:
    """The executor of a run: --executor 'CMD' or --mock, exactly one of them."""
    if mock and command:
        raise InputError("--executor / --mock: give one of them, not both")
    if mock:
        return MockExecutor()
    if not command:
        raise InputError("--executor: expected a command (or --mock for the built-in deterministic executor)")
    return CommandExecutor(command)
