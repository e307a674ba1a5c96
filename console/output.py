"""The only way the CLI reaches stdout and stderr: everything written here is inert.

Commands never call click.echo or print. A line is one line (a newline inside data is
shown as `\\n`, so a field cannot forge a line); a block keeps its newlines; JSON escapes
C1, bidi and zero-width characters too (`\\u009b`), which json.dumps leaves raw. Every
other control character, ESC included, is shown as a `\\x1b`-style escape by
gatepost.safe.inert, the function the console uses for its cells.
"""

import json
import re
from typing import Any

import click

from gatepost.safe import BIDI_AND_INVISIBLE, inert

_JSON_UNSAFE = re.compile("[\x7f-\x9f\ud800-\udfff" + BIDI_AND_INVISIBLE + "]")


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


def json_text(value: Any) -> str:
    """JSON with every control, C1, bidi and zero-width character as a \\uXXXX escape (still valid JSON)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_out(value: Any) -> None:
    """Print a value as JSON on stdout."""
    click.echo(json_text(value))


def json_block(text: str, *, nl: bool = True) -> None:
    """Print JSON text made elsewhere (json.dumps with ensure_ascii=False), its raw C1/bidi characters escaped."""
    click.echo(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text), nl=nl)

