"""Reading foreign files safely: size limits, UTF-8 only, YAML without alias bombs, one-line errors.

Parsers are strict: a key given twice in one mapping is an error in YAML,
JSON and TOML (never "last one wins", which let `{"passed": false, ...,
"passed": true}` pass a gate), and integers longer than MAX_INT_DIGITS are
refused as one line instead of Python's ValueError.
"""

import contextlib
import json
import os
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import IO, Any, BinaryIO

import yaml

from .errors import InputError

MAX_FILE_BYTES = 64 * 1024 * 1024  # no importer needs more; a larger file is refused before it is read
MAX_YAML_ALIASES = 20  # gatepost formats need none; 20 bounds any expansion to a few thousand nodes
MAX_INT_DIGITS = 4300  # Python's own default limit for int(str); no gatepost number needs a tenth of it
_CHUNK = 1024 * 1024


def read_text(path: str | os.PathLike[str], *, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> str:
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
        with path.open("rb") as stream:  # streamed: a file that grows while read still stops at the limit
            data = _read_limited(stream, name=str(path), what=what, max_bytes=max_bytes)
    except OSError as exc:
        raise InputError(f"{path}: cannot read this {what} ({exc.strerror})") from None
    return _decode(data, name=str(path), what=what)


def read_stdin(*, what: str = "input", max_bytes: int = MAX_FILE_BYTES, stream: BinaryIO | None = None) -> str:
    """Standard input as text, with the checks of a file: read in chunks, refused past the limit, UTF-8, no NUL."""
    source = stream if stream is not None else sys.stdin.buffer
    try:
        data = _read_limited(source, name="stdin", what=what, max_bytes=max_bytes)
    except OSError as exc:
        raise InputError(f"stdin: cannot read this {what} ({exc.strerror or exc})") from None
    return _decode(data, name="stdin", what=what)


def read_input(path: str | Path, *, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> str:
    """A file's text, or standard input's for '-': one set of limits and checks for both."""
    if str(path) == "-":
        return read_stdin(what=what, max_bytes=max_bytes)
    return read_text(path, what=what, max_bytes=max_bytes)


def _read_limited(stream: BinaryIO, *, name: str, what: str, max_bytes: int) -> bytes:
    """At most max_bytes from a stream, in chunks; one byte more and it is refused, without reading the rest."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = stream.read(min(_CHUNK, max_bytes + 1 - size))
        if not chunk:
            return b"".join(chunks)
        if b"\x00" in chunk:
            raise InputError(f"{name}: binary data (a NUL byte), not UTF-8 text; expected a {what}")
        size += len(chunk)
        if size > max_bytes:
            raise InputError(f"{name}: more than the {max_bytes:,}-byte limit for a {what}")
        chunks.append(chunk)


def _decode(data: bytes, *, name: str, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start} is not valid UTF-8); expected a {what}") from None


class _GuardedLoader(yaml.SafeLoader):
    """SafeLoader that refuses documents with more aliases than any gatepost file needs."""

    def __init__(self, stream: str | bytes | IO[str] | IO[bytes]) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases (a YAML alias bomb?)")
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping whose keys are all different: a repeated key is an error, not a silent overwrite."""
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _value in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base` may be overridden on purpose
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # unhashable: the base class reports it
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {_shown(key)} (each key may appear once)", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


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
        reason = _digits_reason(exc) if isinstance(exc, ValueError) else _first_line(exc)
        raise InputError(f"{source}: not valid YAML: {reason}") from None


class StrictValueError(ValueError):
    """A JSON/TOML value refused by a parse hook (duplicate key, integer too long)."""


_Refused = StrictValueError


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _Refused(f"duplicate key {_shown(key)} (each key may appear once)")
        obj[key] = value
    return obj


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("+-").replace("_", ""))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {digits:,} digits is longer than the {MAX_INT_DIGITS:,}-digit limit")
    return int(text)


# The strict decoder for JSON read piece by piece (a streamed artifact): the same hooks as parse_json.
STRICT_JSON_DECODER = json.JSONDecoder(object_pairs_hook=_json_object, parse_int=_bounded_int)


def parse_json(text: str, *, source: str) -> Any:
    """One JSON document, strict: no duplicate keys, no integer over MAX_INT_DIGITS; errors are one line."""
    try:
        return json.loads(text, object_pairs_hook=_json_object, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except _Refused as exc:
        raise InputError(f"{source}: not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{source}: not valid JSON: nested too deeply") from None
    except ValueError as exc:  # anything else json cannot turn into a value
        raise InputError(f"{source}: not valid JSON: {_first_line(exc)}") from None


def parse_toml(text: str, *, source: str) -> dict[str, Any]:
    """One TOML document (tomllib refuses duplicate keys); integers over MAX_INT_DIGITS are refused; one line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML ({_first_line(exc)})") from None
    except RecursionError:
        raise InputError(f"{source}: not valid TOML: nested too deeply") from None
    except ValueError as exc:  # int() past Python's digit limit
        raise InputError(f"{source}: not valid TOML: {_digits_reason(exc)}") from None


def _digits_reason(exc: ValueError) -> str:
    text = _first_line(exc)
    if "digits" in text:
        return f"an integer longer than the {MAX_INT_DIGITS:,}-digit limit"
    return text


def _shown(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= 80 else text[:77] + "..."


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def load_yaml_file(path: str | Path, *, what: str = "YAML file") -> Any:
    return parse_yaml(read_text(path, what=what), source=str(path))


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
