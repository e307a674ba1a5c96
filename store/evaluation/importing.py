"""Importing many artifact files: each read and checked ahead in a second process while this one stores the
files before it, so a CI job's thousand artifacts take about as long as storing them.

Reading a file (its bytes, their hash, the JSON and every result's checks) needs no store, and it is about
half of an import's time. Threads cannot share it: SQLite gives Python's lock back while it writes, but a
thread taking the lock back waits behind the parser each time (measured: slower than one thread). So the
files are read by a worker process and handed over already checked (`runs.ReadArtifact`); storing them
stays here, in the order given, each in its own transaction, as one file at a time would be.

The worker is a plain `python -c` child reading paths from its stdin and writing what it read to its
stdout (pickled): not multiprocessing, whose "spawn" runs the caller's main script again in the child and
whose "fork" would copy this process's open store. It never opens the store. What it cannot read for a
reason other than a bad file (it died, or a bug) this process reads itself, so every error is worded and
raised as one file at a time would raise it. A few small files are read here: a worker starts in ~0.15 s.
"""

import fcntl
import os
import pickle
import select
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from sqlite_utils import Database

from gatepost.store.kernel import GatepostError

from .runs import ReadArtifact, read_artifact_file, store_artifact_file

AHEAD_MIN_BYTES = 16 * 1024 * 1024  # below this in all, the files are read here
AHEAD_MAX_FILES = 8  # paths asked for and not yet answered, at most (they always fit in its stdin pipe)
WORKER = "from gatepost.store.evaluation.importing import serve_reads; serve_reads()"


def read_ahead_bytes() -> int:
    """From how many bytes of files in all a worker reads them ahead: 16 MiB, or GATEPOST_READ_AHEAD_BYTES
    (0: always; `off`: never)."""
    value = os.environ.get("GATEPOST_READ_AHEAD_BYTES", "").strip().lower()
    if value == "off":
        return -1
    return int(value) if value.isdigit() else AHEAD_MIN_BYTES


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def import_artifacts(db: Database, paths: Sequence[str | Path], *, actor: str | None = None
                     ) -> Iterator[tuple[Path, str, bool]]:
    """Store artifact files as evaluation runs, in the order given, each in its own transaction; yields
    (path, run id, newly stored) as each is stored. The first bad file raises its InputError (naming it)
    when its turn comes: the files before it are stored, none after it.

    With two cores or more and enough to read, files are read ahead by a worker process; what is stored,
    and every error, is the same as `import_artifact` one file at a time.
    """
    files = [Path(p) for p in paths]
    sizes = [_size(p) for p in files]
    least = read_ahead_bytes()
    if least < 0 or _cores() < 2 or len(files) < 2 or sum(sizes) < least or not sys.executable:
        yield from _read_here(db, files, actor=actor)
        return
    try:
        worker = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
    except OSError:  # no interpreter to start (a frozen build, one removed or not executable): read here
        yield from _read_here(db, files, actor=actor)
        return
    yield from _read_ahead(db, worker, files, actor=actor)


def _read_here(db: Database, files: list[Path], *, actor: str | None) -> Iterator[tuple[Path, str, bool]]:
    """import_artifacts reading every file in this process, one at a time."""
    for path in files:
        yield _store_here(db, path, actor=actor)


def _store_here(db: Database, path: Path, *, actor: str | None) -> tuple[Path, str, bool]:
    """One file read and stored by this process (a bad file raises here, as it would alone)."""
    return (path, *store_artifact_file(db, read_artifact_file(path), actor=actor))


def _read_ahead(db: Database, worker: subprocess.Popen[bytes], files: list[Path], *, actor: str | None
                ) -> Iterator[tuple[Path, str, bool]]:
    """import_artifacts with the worker reading the files ahead. Until it has started (it says so), this
    process reads the files itself: none waits on it. Memory stays bounded: the worker writes what it read
    into a pipe this process empties one answer at a time, so it is at most a few files ahead. What the
    worker read needs nothing of the store: its rows are sealed by their position in their run, not by the
    ids the store gives them."""
    requests, answers = worker.stdin, worker.stdout
    assert requests is not None and answers is not None
    _widen(answers)
    asked = answered = 0  # files asked for (from the one the worker started on); answers read
    started = False  # the worker said it is ready: from then on it reads every file
    alone = False  # the worker is gone: this process reads the rest itself
    try:
        for index, path in enumerate(files):
            read = None
            if not alone:
                try:
                    if not started and _ready(answers):
                        started, asked = True, index
                    if started and asked < len(files) and asked - index < AHEAD_MAX_FILES:
                        while asked < len(files) and asked - index < AHEAD_MAX_FILES:
                            pickle.dump(files[asked], requests)
                            asked += 1
                        requests.flush()
                    if started:
                        answered += 1
                        read = _answer(answers)
                except (OSError, EOFError, pickle.UnpicklingError):  # it died (killed, out of memory)
                    alone = True
            if read is None:  # not read there: read here
                yield _store_here(db, path, actor=actor)
                continue
            yield (path, *store_artifact_file(db, read, actor=actor))
    finally:
        _stop(worker, idle=started and not alone and answered == asked)


def _ready(answers: IO[bytes]) -> bool:
    """Whether the worker has started: its first answer, ("ready", None), is there to read (not waited for)."""
    if not select.select([answers], [], [], 0)[0]:
        return False
    if pickle.load(answers) != ("ready", None):
        raise pickle.UnpicklingError("the import worker did not start as expected")
    return True


def _widen(pipe: IO[bytes]) -> None:
    """A pipe that holds a whole answer (1 MiB where Linux allows it, 64 KiB otherwise): the worker writes
    one file's rows while this process stores the one before, instead of waiting for it to read them."""
    if hasattr(fcntl, "F_SETPIPE_SZ"):  # Linux
        try:
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, 1024 * 1024)
        except OSError:  # above /proc/sys/fs/pipe-max-size for this user: the pipe stays as it was
            pass


def _answer(answers: IO[bytes]) -> ReadArtifact | None:
    """The worker's next answer: what it read; its error for a bad file, raised here; None to read it here."""
    kind, value = pickle.load(answers)
    if kind == "error":
        raise value
    return value if kind == "read" else None


def _stop(worker: subprocess.Popen[bytes], *, idle: bool) -> None:
    """End the worker. Idle (every answer read), it ends when its stdin closes; else it is killed: a bad file
    or an error stopped the import and it may be reading files no one will store, or the import ended
    before it had even started."""
    for pipe in (worker.stdin, worker.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:
            pass
    if idle:
        try:
            worker.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            pass
    worker.kill()
    worker.wait()


def serve_reads(requests: IO[bytes] | None = None, answers: IO[bytes] | None = None) -> None:
    """The worker: says ("ready", None), then reads each path asked for, in order, until its stdin ends, and
    answers ("read", ReadArtifact), ("error", the file's GatepostError), or ("here", None) when anything
    else went wrong (read it there)."""
    requests = requests or sys.stdin.buffer
    answers = answers or sys.stdout.buffer
    pickle.dump(("ready", None), answers)  # started: the importing process hands over the files from now on
    answers.flush()
    while True:
        try:
            path = pickle.load(requests)
        except EOFError:
            return
        answer: tuple[str, Any]
        try:
            answer = ("read", read_artifact_file(path))
        except GatepostError as exc:
            answer = ("error", exc)
        except Exception:  # noqa: BLE001 - read again by the importing process, which raises it with its traceback
            answer = ("here", None)
        pickle.dump(answer, answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()
