"""What every command module shares: the store of this invocation, the person, JSON output."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gatepost import output
from gatepost.identity import resolve_person
from gatepost.store import kernel, protocol, rubrics
from gatepost.store.kernel import (
    InputError,
    open_store,
    resolve_path,
)

if TYPE_CHECKING:
    from sqlite_utils import Database

MAX_TIMEOUT = 31_536_000  # a year of seconds: longer than any wait a loop means, short enough for every timer
MAX_SQL_INT = 2**63 - 1  # a sequence number or seed SQLite and the generators can hold


class FiniteFloat(click.FloatRange):
    """A float option within its bounds that is a number: `nan` and `inf` are refused (nan compares false
    with every bound, so click's own range check lets it through)."""

    name = "finite number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


TIMEOUT = FiniteFloat(min=0, max=MAX_TIMEOUT)
SEQ = click.IntRange(min=0, max=MAX_SQL_INT)

as_option = click.option(
    "--as", "as_name", metavar="NAME", default=None,
    help="Who acts. Default: $GATEPOST_REVIEWER, else your OS user name.",
)


def store_path(ctx: click.Context) -> Path:
    """The store path of this invocation (--db, else $GATEPOST_DB, else ./gatepost.db)."""
    return resolve_path(ctx.find_root().obj.get("db_path"))


def open_ctx_store(ctx: click.Context, *, create: bool = False) -> Database:
    """Open this invocation's store; a missing one is an error unless the command creates it.

    The invocation's `--key` becomes the key this process signs decisions with (the console's too); set through
    the kernel face only when `--key` is given.
    """
    key = ctx.find_root().obj.get("signing_key")
    if key:
        kernel.set_signing_key(key)
    return open_store(store_path(ctx), create=create)


def answer_option(where: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--answer KEY=VALUE`, repeated: the rubric's answers (`where` says whose rubric it is)."""
    return click.option("--answer", "answers", multiple=True, metavar="KEY=VALUE",
                        help=f"An answer to {where} (gatepost rubric show lists its questions): yes/no, or 1..N on "
                             "a scale; repeat for each. Every question is answered, or the decision is refused.")


def answers_given(values: tuple[str, ...]) -> dict[str, str] | None:
    """The `--answer` options as a mapping (None when none was given)."""
    if not values:
        return None
    return protocol.parse_answer_options(values)


def person_acts(note_help: str) -> Callable[[Callable[..., Any]], click.Command | Callable[..., Any]]:
    """What a person's decision on one item takes: a required --note, --as, and the invocation's context."""

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        return click.option("--note", required=True, help=note_help)(as_option(click.pass_context(f)))

    return wrap


# The options `suite run` and `case evaluate` share: one definition, one help text.
suite_option = click.option(
    "--suite", "suite_file", required=True, type=click.Path(dir_okay=False),
    help="The task suite YAML (v1.0); its tasks with split: heldout are the held-out ones.")
executor_option = click.option(
    "--executor", "executor_cmd", metavar="'CMD'", default=None,
    help="The AI under test: a command split on whitespace (no shell) that reads "
         '{"task_id","prompt","skill"} JSON on stdin and prints its output.')
mock_option = click.option(
    "--mock", is_flag=True,
    help="Use gatepost's built-in deterministic executor (and a fixed passing llm-rubric score without "
         "--judge-command); every result is marked mock.")
judge_command_option = click.option(
    "--judge-command", metavar="'CMD'", default=None,
    help='The llm-rubric judge: reads {"rubric","output"} JSON on stdin, prints {"score": 0..1}. '
         "Without it, llm-rubric tasks are not judged (never passed) unless --mock.")
pass_k_option = click.option(
    "--pass-k", type=click.IntRange(min=1), default=1, show_default=True,
    help="Attempts per task; a task passes if any attempt passes (every attempt is stored).")
cache_dir_option = click.option(
    "--cache-dir", type=click.Path(file_okay=False), default=None,
    help="Cache baseline results here for 7 days (keyed by suite, baseline content and executor).")
baseline_option = click.option(
    "--baseline", "baseline_path", type=click.Path(), default=None,
    help="The baseline skill to compare with: a SKILL.md file or a folder holding one "
         "(default: an empty skill, i.e. no skill at all).")
quiet_option = click.option("--quiet", "-q", is_flag=True, help="No progress display on stderr.")

force_option = click.option("--force", is_flag=True,
                            help="Replace the output file if it exists (never the store, never a SQLite file).")


def rubric_answers(db: Database, subject_type: str, subject_id: str) -> list[dict[str, Any]]:
    """The answers an item's decisions gave to their queue's rubric, oldest first, as `show --json` prints them:
    each with its decision's event, the person, the time and the `rubric.set` event it answered."""
    return [{k: v for k, v in a.items() if k != "questions"} for a in rubrics.answers_on(db, subject_type, subject_id)]


def rubric_answer_lines(db: Database, subject_type: str, subject_id: str) -> list[str]:
    """The answers an item's decisions gave to their queue's rubric, one line each, oldest first, as `show`
    prints them (the console's detail shows the same answers)."""
    return [f"rubric ({a['decision']} by {output.field(a['person'])} at {a['at']}, event #{a['event_seq']}): "
            f"{output.field(protocol.answers_text(a['answers'], a['questions']))}"
            for a in rubrics.answers_on(db, subject_type, subject_id)]


def person(as_name: str | None) -> str:
    return resolve_person(as_name)


def echo_json(value: object) -> None:
    """Print a value as JSON through the output layer (controls, C1, bidi escaped)."""
    output.json_out(value)


SQLITE_HEADER = b"SQLite format 3\x00"


def check_target(path: str | Path, *, store: Path, force: bool, option: str = "--output",
                 ours: Callable[[Path], bool] | None = None) -> Path:
    """Refuse to write over the store (or its -wal/-shm/-journal), any SQLite file, or an existing file
    unless --force or `ours` recognises it as a file gatepost wrote there (an artifact it may refresh):
    a report or export never destroys what is not ours. Returns the resolved path."""
    target = Path(path).expanduser().resolve()
    own = store.expanduser().resolve()
    if target in {own, *(own.with_name(own.name + s) for s in ("-wal", "-shm", "-journal"))} or (
            target.exists() and own.exists() and _same_file(target, own)):
        raise InputError(f"{option}: {target}: is the store itself; choose another file")
    if target.is_dir():
        raise InputError(f"{option}: {target}: is a folder, expected a file")
    kernel.check_output(target, what="file to write")  # a FIFO or a device is never opened, read or replaced
    if target.exists():
        try:
            with open(target, "rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise InputError(f"{option}: {target}: cannot be read to check it ({exc.strerror})") from None
        if header == SQLITE_HEADER:
            raise InputError(f"{option}: {target}: is a SQLite database; gatepost never writes over one")
        if not force and not (ours and ours(target)):
            raise InputError(f"{option}: {target}: already exists; add --force to replace it")
    if not target.parent.is_dir():
        raise InputError(f"{option}: {target.parent}: no such folder")
    return target


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_file(path: str | Path, text: str, *, store: Path, force: bool, option: str = "--output") -> Path:
    """Write data we made to `path` after check_target, through a temporary file renamed into place."""
    target = check_target(path, store=store, force=force, option=option)
    try:
        return kernel.write_text_atomic(target, text)
    except OSError as exc:
        raise InputError(f"{option}: {target}: cannot be written ({exc.strerror or exc})") from None


class ReportingExecutor:
    """An executor that shows a progress display what runs (the candidate or the baseline, task n of N of that
    side, the task's id) and counts each task it finishes; everything else passes through.

    `side_of`: the side's name ("candidate", "baseline") of the skill text a task runs with. `per_side`: the tasks
    each side runs in all (N), when known."""

    def __init__(self, inner: Any, progress: output.Progress, *, side_of: Callable[[str], str] | None = None,
                 per_side: int | None = None) -> None:
        self._inner, self._progress = inner, progress
        self._side_of, self._per_side = side_of, per_side
        self._ran: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def run(self, task_id: str, prompt: str, skill: str, *, timeout: float, attempt: int = 1) -> Any:
        side = self._side_of(skill) if self._side_of else None
        if side is not None:
            n = self._ran.get(side, 0) + (attempt == 1)
            of = f" of {self._per_side}" if self._per_side else ""
            again = f", attempt {attempt}" if attempt > 1 else ""
            self._progress.show(f"{side} · task {n}{of}{again} · {output.field(task_id)}")
        result = self._inner.run(task_id, prompt, skill, timeout=timeout, attempt=attempt)
        if attempt == 1:
            if side is not None:
                self._ran[side] = self._ran.get(side, 0) + 1
            self._progress.step(None if side else task_id)
        return result
