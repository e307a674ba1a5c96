"""The AI under test: an executor command (argv, never a shell) or the built-in mock.

`run_bounded` is the one way gatepost runs a foreign program (executors,
judges, scorers): one deadline for the whole run (pipes read without
blocking, so a daemon holding stdout cannot stretch it), its own session
killed on timeout together with every process it left behind (found by a
token in their environment, and adopted as orphans: gatepost is a child
subreaper on Linux), stdout read up to a cap so a runaway program cannot
exhaust memory.
"""

import ctypes
import hashlib
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gatepost.store.kernel import InputError, is_frozen

OUTPUT_CAP = 1024 * 1024  # bytes of stdout kept per run
STDERR_CAP = 16 * 1024
MOCK = "mock"


def elapsed_ms(started: float) -> int:
    """Milliseconds since `started` (time.monotonic); 0 under a frozen clock, so a frozen build (the demo,
    screenshots) stores the same task results, and the same digest of them in its events, every time."""
    return 0 if is_frozen() else int((time.monotonic() - started) * 1000)


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


_TOKEN_VAR = "GATEPOST_RUN_TOKEN"  # marks every process a run starts, so its strays can be found and killed
_READ_CHUNK = 65536
_ACTIVE: set[int] = set()  # leaders of runs in progress (never treated as strays of another run)
_ACTIVE_LOCK = threading.Lock()
_subreaper: bool | None = None
_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def _become_subreaper() -> bool:
    """Make this process the reaper of orphans its programs leave (Linux), so none escapes to init.

    A program that double-forks a daemon into a new session leaves its process
    group; as a child subreaper gatepost still is that daemon's parent, finds it
    and reaps it. Returns whether it worked (False off Linux).
    """
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _proc_stat(pid: int | str) -> tuple[int, int, int] | None:
    """(ppid, pgid, start time in clock ticks since boot) of a process from /proc, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2:].split()  # fields[0] is field 3 (state) of proc(5)
    try:
        return int(fields[1]), int(fields[2]), int(fields[19])
    except (IndexError, ValueError):
        return None


def _run_token(pid: str) -> bytes | None:
    """The run token in a process's environment; b"" when it has none, None when unreadable."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            env = fh.read()
    except OSError:
        return None
    prefix = _TOKEN_VAR.encode() + b"="
    for item in env.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix):]
    return b""


def _strays(token: str, leader: int, since: int = 0) -> list[int]:
    """Processes a run left behind: those carrying its token, and orphans re-parented to us that left the group.

    An orphan that cleared its environment is still found through its parent:
    as subreaper we adopt it, and it is in a group other than ours. Only
    processes started since the leader (`since`, clock ticks) can be its
    descendants, which keeps the scan to a few files.
    """
    me, my_group = os.getpid(), os.getpgrp()
    with _ACTIVE_LOCK:
        active = set(_ACTIVE)
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid in (me, leader) or pid in active:
            continue
        stat = _proc_stat(entry)
        if stat is None or stat[2] < since:
            continue
        ppid, pgid, _start = stat
        mark = _run_token(entry)
        if mark == token.encode():
            found.append(pid)
        elif ppid == me and pgid != my_group and not mark:  # an orphan of ours with no other run's token
            found.append(pid)
    return found


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except (ChildProcessError, OSError):  # not our child: its own parent (or init) reaps it
        pass


def _clean_up(proc: subprocess.Popen[bytes], token: str, since: int) -> None:
    """Kill the run's process group, then every stray it left (daemons in new sessions too), and reap them."""
    _kill_group(proc.pid)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        strays = _strays(token, proc.pid, since)
        if not strays:
            break
        for pid in strays:
            _kill_group(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            _reap(pid)
        time.sleep(0.01)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # stuck in the kernel (D state): nothing more we can do
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


def run_bounded(argv: list[str], stdin: bytes, *, timeout: float, cap: int = OUTPUT_CAP,
                cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None) -> Bounded:
    """Run argv with `stdin`, at most `timeout` seconds and `cap` bytes of stdout.

    The deadline covers the whole run: output is read without blocking until
    every pipe is closed and the program has exited, so a grandchild holding
    stdout cannot stretch the run; at the deadline the run is timed out, its
    group and every process it left behind are killed.
    """
    _become_subreaper()
    token = secrets.token_hex(16)
    child_env = dict(os.environ if env is None else env)
    child_env[_TOKEN_VAR] = token
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=child_env, start_new_session=True, bufsize=0)
    except OSError as exc:
        return Bounded(b"", b"", None, 0, error=f"could not start {argv[0]}: {exc.strerror or exc}")
    with _ACTIVE_LOCK:
        _ACTIVE.add(proc.pid)
    leader = _proc_stat(proc.pid)  # not reaped yet, so readable even if it already exited
    since = leader[2] if leader else 0
    try:
        out, err, timed_out, over = _pump(proc, stdin, started + timeout, cap)
    finally:  # also on Ctrl-C: never leave the program or its daemons running behind us
        with _ACTIVE_LOCK:
            _ACTIVE.discard(proc.pid)
        _clean_up(proc, token, since)
    duration = elapsed_ms(started)
    return Bounded(bytes(out), bytes(err), proc.returncode, duration, timed_out=timed_out, truncated=over)


def _pump(proc: subprocess.Popen[bytes], stdin: bytes, deadline: float, cap: int) -> tuple[bytearray, bytearray, bool, bool]:
    """Feed stdin and drain stdout/stderr until both close and the program exits, or the deadline passes."""
    out, err = bytearray(), bytearray()
    # the program was started with all three pipes (stdin, stdout and stderr are PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd, in_fd = proc.stdout.fileno(), proc.stderr.fileno(), proc.stdin.fileno()
    pending = memoryview(stdin)
    with selectors.DefaultSelector() as selector:
        for fd in (out_fd, err_fd):
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        if pending:
            os.set_blocking(in_fd, False)
            selector.register(in_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        reading = {out_fd, err_fd}
        while reading:
            left = deadline - time.monotonic()
            if left <= 0:
                return out, err, True, False
            for key, _mask in selector.select(timeout=min(left, 0.5)):
                fd = key.fd
                if fd == in_fd:
                    try:
                        pending = pending[os.write(fd, pending[:_READ_CHUNK]):]
                    except BlockingIOError:
                        continue
                    except OSError:  # the program stopped reading (broken pipe): the rest is not needed
                        pending = pending[:0]
                    if not pending:
                        selector.unregister(fd)
                        proc.stdin.close()
                    continue
                try:
                    chunk = os.read(fd, _READ_CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    selector.unregister(fd)
                    reading.discard(fd)
                elif fd == out_fd:
                    room = cap - len(out)
                    out.extend(chunk[:room])
                    if len(chunk) > room:
                        return out, err, False, True
                elif len(err) < STDERR_CAP:
                    err.extend(chunk[: STDERR_CAP - len(err)])
    try:
        proc.wait(timeout=max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return out, err, True, False
    return out, err, False, False


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
        asked = _words(prompt)
        lines = [f"[mock answer to {task_id}]", prompt.strip()]
        for line in skill.splitlines():
            text = line.strip().lstrip("#-*> ").strip()
            if not text or not (_words(text) & asked):
                continue
            digest = hashlib.sha256(f"{attempt}\x00{prompt}\x00{text}".encode()).digest()
            if digest[0] >= FORGET_BELOW:
                lines.append(text)
        # no duration: the mock stands in for an AI's time too, and a measured one made equal inputs give
        # unequal attempts (0 ms, then 1 ms, on a loaded machine)
        return Attempt(output="\n".join(lines) + "\n", reason=None, duration_ms=0, mock=True)


def make_executor(command: str | None, *, mock: bool) -> CommandExecutor | MockExecutor:
    """The executor of a run: --executor 'CMD' or --mock, exactly one of them."""
    if mock and command:
        raise InputError("--executor / --mock: give one of them, not both")
    if mock:
        return MockExecutor()
    if not command:
        raise InputError("--executor: expected a command (or --mock for the built-in deterministic executor)")
    return CommandExecutor(command)
