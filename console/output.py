"""The only way the CLI reaches stdout and stderr: everything written here is inert.

Commands never call click.echo or print. A line is one line (a newline inside data is
shown as `\\n`, so a field cannot forge a line); a block keeps its newlines; JSON escapes
C1, bidi and zero-width characters too (`\\u009b`), which json.dumps leaves raw. Every
other control character, ESC included, is shown as a `\\x1b`-style escape by
gatepost.safe.inert, the function the console uses for its cells.
"""

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from gatepost.safe import BIDI_AND_INVISIBLE, Later, inert, printable

_JSON_UNSAFE = Later("[\x7f-\x9f\ud800-\udfff" + BIDI_AND_INVISIBLE + "]")


def field(value: object) -> str:
    """A value from data as one inert line, to put inside a line or block of text."""
    return inert(value, one_line=True)


def line(text: object = "", *, err: bool = False) -> None:
    """Print one line; newlines and controls inside it are shown escaped."""
    click.echo(inert(text, one_line=True), err=err)


def block(text: object, *, err: bool = False, nl: bool = True) -> None:
    """Print text that may span lines (a report, a file's content): controls shown escaped, newlines kept."""
    click.echo(inert(text), err=err, nl=nl)


def error(message: object) -> None:
    """A failure for people: `gatepost: ...` on one line of stderr."""
    line(f"gatepost: {message}", err=True)


def _json_escaped(text: str) -> str:
    """JSON text with its raw C1, bidi and zero-width characters as \\uXXXX escapes (JSON escapes the C0 ones)."""
    if printable(text, keep="\n\t"):
        return text  # nothing _JSON_UNSAFE matches
    return _JSON_UNSAFE.compiled().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_text(value: Any) -> str:
    """JSON with every control, C1, bidi and zero-width character as a \\uXXXX escape (still valid JSON)."""
    return _json_escaped(json.dumps(value, indent=2, ensure_ascii=False))


def json_out(value: Any) -> None:
    """Print a value as JSON on stdout."""
    click.echo(json_text(value))


def json_line(value: Any) -> None:
    """Print a value as one line of canonical JSON (keys sorted, no spaces): one JSON Lines record."""
    click.echo(_json_escaped(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)))


def json_block(text: str, *, nl: bool = True) -> None:
    """Print JSON text made elsewhere (json.dumps with ensure_ascii=False), its raw C1/bidi characters escaped."""
    click.echo(_json_escaped(text), nl=nl)



class Progress:
    """Progress of long work on stderr, shown only on a terminal: stdout and stderr both one (a command piped
    or redirected prints its results and nothing else) and not --quiet.

    `total`: units of work (None: not known, a count of what is done is shown); `unit` "bytes": the units are
    bytes, shown as sizes with the rows read beside them (an import); "parts": the description names the part
    and how many there are (the demo's build). With a total, the time left is shown.
    """

    def __init__(self, label: str, total: int | None, *, quiet: bool = False, unit: str = "items") -> None:
        self.label, self.total, self.done, self.unit = label, total, 0, unit
        self.rows = 0
        self.enabled = not quiet and sys.stdout.isatty() and sys.stderr.isatty()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> "Progress":
        if self.enabled:
            # Rich is imported only here: a command that shows no progress never pays for it.
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                MofNCompleteColumn,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as Progress_

            description = TextColumn("{task.description}", markup=False)
            left = [TextColumn("ETA"), TimeRemainingColumn()] if self.total else []
            if self.unit == "bytes":
                count = [BarColumn(bar_width=20), DownloadColumn(), TextColumn("{task.fields[rows]:,} rows"), *left]
            elif self.total:
                count = [BarColumn(bar_width=20), MofNCompleteColumn(), *left]
            elif self.unit == "parts":  # the description says which part of how many
                count = []
            else:
                count = [TextColumn("{task.completed} done")]
            self._bar = Progress_(SpinnerColumn(), description, *count, TimeElapsedColumn(),
                                  console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self._describe(None), total=self.total, rows=0)
        return self

    def _describe(self, current: object) -> str:
        """The label and the current item, inert (the column shows it without markup)."""
        return self.label if current is None else f"{self.label} · {field(current)}"

    def step(self, current: object = None, *, advance: int = 1) -> None:
        """One more unit done; `current` (data, made inert) names what runs now (None: what was named stays)."""
        self.done += advance
        if self._bar is not None:
            description = self._describe(current) if current is not None else None
            self._bar.update(self._task, advance=advance, description=description)

    def show(self, current: object) -> None:
        """Name what runs now (data, made inert), before it is done."""
        if self._bar is not None:
            self._bar.update(self._task, description=self._describe(current))

    def reach(self, done: int, *, rows: int | None = None, current: object = None) -> None:
        """`done` units done in all (and `rows` read, for an import); `current` names what runs now."""
        self.done = done
        if rows is not None:
            self.rows = rows
        if self._bar is not None:
            description = self._describe(current) if current is not None else None
            self._bar.update(self._task, completed=done, rows=self.rows, description=description)

    def begun(self, word: str = "step") -> Callable[[str, int, int], None]:
        """A store function's `steps(name, done, total)` callback: names what begins and where it stands, as
        `backup · the backup: verify the sealed records, step 5 of 6` (the name is data, made inert)."""
        def begin(name: str, done: int, total: int) -> None:
            self.reach(done, current=f"{name}, {word} {done + 1} of {total}")
        return begin

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
