"""Repository paths: the one check every path a case, a proposal or a landing names goes through.

A change lands on a file of the project's repository, so its path is a repository path: relative,
'/'-separated and normalised (no `.` or empty segment), never absolute, never on a drive, never
leaving the repository through `..`, and every character of it visible (no control, bidi or zero-width
character a screen would hide). Anything else is bad input naming the field, wherever a path comes
in: a case file, a revision, `current`, `case applied`, `proposal applied`, a proposal file.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from .errors import InputError
from .pipeline import INVISIBLE

MAX_PATH_CHARS = 1024  # a repository path longer than this is not one a person reads
MAX_SEGMENT_CHARS = 255  # what file systems hold in one name
_DRIVE = re.compile(r"[A-Za-z]:")
EXPECTED = "a repository path (relative, '/'-separated, no '..', no drive letter, printable)"


def repo_path(value: Any, field: str = "path") -> str:
    """`value` as a repository path (NFC, '\\' read as '/', `./` and empty segments dropped); else InputError."""

    def bad(why: str) -> InputError:
        return InputError(f"{field}: {why}; expected {EXPECTED}, got {value!r}"[:600])

    if not isinstance(value, str) or not value.strip():
        raise bad("missing or empty")
    text = unicodedata.normalize("NFC", value.strip())
    for ch in text:
        if ch in INVISIBLE or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise bad(f"holds the invisible or control character U+{ord(ch):04X}")
    text = text.replace("\\", "/")
    if text.startswith("/"):
        raise bad("an absolute path")
    if _DRIVE.match(text):
        raise bad("names a drive")
    segments = [s for s in text.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise bad("a '..' segment leaves the repository")
    if not segments:
        raise bad("names no file")
    normal = "/".join(segments)
    if len(normal) > MAX_PATH_CHARS or any(len(s) > MAX_SEGMENT_CHARS for s in segments):
        raise bad(f"longer than {MAX_PATH_CHARS} characters (or a name longer than {MAX_SEGMENT_CHARS})")
    return normal
