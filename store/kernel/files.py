"""Reading foreign files safely: size limits, UTF-8 only, YAML without alias bombs, one-line errors."""

import contextlib
import json
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from .errors import InputError

MAX_FILE_BYTES = 64 * 1024 * 1024  # no importer needs more; a larger file is refused before it is read
MAX_YAML_ALIASES = 20  # gatepost formats need none; 20 bounds any expansion to a few thousand nodes


def read_text(path: str | Path, *, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> str:
    """The file's text, or an InputError naming the file: missing, too large, binary or not UTF-8."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read this {what} ({exc.strerror})") from None
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected a {what}")
    if size > max_bytes:
        raise InputError(f"{path}: {size:,} bytes is larger than the {max_bytes:,}-byte limit for a {what}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read this {what} ({exc.strerror})") from None
    if b"\x00" in data:
        raise InputError(f"{path}: binary data (a NUL byte), not UTF-8 text; expected a {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start} is not valid UTF-8); expected a {what}") from None


class _GuardedLoader(yaml.SafeLoader):
    """SafeLoader that refuses documents with more aliases than any gatepost file needs."""

    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases (a YAML alias bomb?)")
        return super().compose_node(parent, index)


def parse_yaml(text: str, *, source: str) -> Any:
    """One YAML document (safe types only); syntax errors become one line with the position."""
    try:
        return yaml.load(text, Loader=_GuardedLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(f"{source}: not valid YAML{where}: {exc.problem or exc.context}") from None
    except RecursionError:
        raise InputError(f"{source}: not valid YAML: nested too deeply") from None
    except (yaml.YAMLError, ValueError, TypeError) as exc:  # an alias bomb; a date such as 2026-13-01
        raise InputError(f"{source}: not valid YAML: {_first_line(exc)}") from None


def parse_json(text: str, *, source: str) -> Any:
    """One JSON document; errors become one line with the position."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{source}: not valid JSON: nested too deeply") from None


def parse_toml(text: str, *, source: str) -> dict[str, Any]:
    """One TOML document; errors become one line with the position."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML ({_first_line(exc)})") from None
    except RecursionError:
        raise InputError(f"{source}: not valid TOML: nested too deeply") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def load_yaml_file(path: str | Path, *, what: str = "YAML file") -> Any:
    return parse_yaml(read_text(path, what=what), source=str(path))


def read_stream(stream: BinaryIO, *, source: str = "stdin", what: str = "file",
                max_bytes: int | None = None) -> str:
    """A stream's text under read_text's rules (size limit, no NUL, UTF-8), read in chunks: stdin is a file too."""
    max_bytes = MAX_FILE_BYTES if max_bytes is None else max_bytes
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        size += len(chunk)
        if size > max_bytes:
            raise InputError(f"{source}: more than the {max_bytes:,}-byte limit for a {what}")
        if b"\x00" in chunk:
            raise InputError(f"{source}: binary data (a NUL byte), not UTF-8 text; expected a {what}")
        chunks.append(chunk)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: not UTF-8 text (byte {exc.start} is not valid UTF-8); expected a {what}") from None


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write `text` to a temporary file beside `path`, then rename it into place: never a half-written file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
