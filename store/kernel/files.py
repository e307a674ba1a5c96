"""Reading foreign files safely: regular files only, size limits, UTF-8 only, bounded YAML, one-line errors.

Every path gatepost reads (or checks before writing over it) is opened by
`open_regular`: a FIFO, a device or a socket is refused before anything waits
on it. YAML goes through libyaml's C parser: a first pass over its events
refuses a document past MAX_YAML_NODES nodes, MAX_YAML_DEPTH levels or
MAX_YAML_ALIASES aliases before any node is built, so memory stays bounded by
the budget, not by the file. Text from JSON or YAML escapes is refused when it
holds a lone surrogate (`"\\ud800"`): it could not be stored or hashed as UTF-8.

Parsers are strict: a key given twice in one mapping is an error in YAML,
JSON and TOML (never "last one wins", which let `{"passed": false, ...,
"passed": true}` pass a gate), and integers longer than MAX_INT_DIGITS are
refused as one line instead of Python's ValueError.

The YAML and TOML parsers are in markup.py: importing PyYAML and tomllib costs a command's start more than
all of this module, and most commands read neither.
"""

import contextlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

from .errors import InputError

MAX_FILE_BYTES = 64 * 1024 * 1024  # no importer needs more; a larger file is refused before it is read
MAX_YAML_ALIASES = 20  # gatepost formats need none; 20 bounds any expansion to a few thousand nodes
MAX_INT_DIGITS = 4300  # Python's own default limit for int(str); no gatepost number needs a tenth of it
MAX_YAML_NODES = 250_000  # a suite of 20,000 tasks fits; the nodes of a document at the limit take ~100 MB
MAX_YAML_DEPTH = 100  # gatepost formats nest fewer than 10 levels; libyaml's composer recurses in C
_CHUNK = 1024 * 1024


def open_regular(path: str | os.PathLike[str], *, what: str = "file") -> BinaryIO:
    """`path` opened for reading if it is a regular file; else an InputError naming what it is.

    Opened without blocking, then checked on the descriptor itself: a FIFO with no
    writer, a terminal or a device is refused at once instead of waiting forever,
    and a path swapped between a check and the open cannot slip through.
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise InputError(f"{name}: no such {what}") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a folder, expected a {what}") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read this {what} ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{name}: {_kind_of(mode)}, not a regular file; expected a {what}")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind_of(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "is a folder"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
                       (stat.S_ISCHR, "is a character device"), (stat.S_ISBLK, "is a block device"),
                       (stat.S_ISSOCK, "is a socket")):
        if test(mode):
            return kind
    return "is a special file"


def check_regular(path: str | os.PathLike[str], *, what: str = "file") -> None:
    """An InputError unless `path` is a regular file (for paths handed on rather than read here)."""
    open_regular(path, what=what).close()


def check_output(path: str | os.PathLike[str], *, what: str = "output file") -> None:
    """An InputError if `path` exists and is not a regular file: gatepost never writes into a FIFO or device."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{os.fspath(path)}: cannot check this {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{os.fspath(path)}: {_kind_of(mode)}, not a regular file; expected a {what}")


def read_text(path: str | os.PathLike[str], *, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> str:
    """The file's text, or an InputError naming the file: missing, not a regular file, too large, binary or not UTF-8."""
    path = Path(path)
    with open_regular(path, what=what) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > max_bytes:
            raise InputError(f"{path}: {size:,} bytes is larger than the {max_bytes:,}-byte limit for a {what}")
        try:  # streamed: a file that grows while read still stops at the limit
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


def refuse_surrogates(value: Any, *, source: str) -> None:
    """An InputError if any string in `value` (keys included) holds a lone surrogate such as "\\ud800".

    Such text is not Unicode: it cannot be written to the store, hashed or printed as UTF-8.
    """
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError as exc:
                    field = f" in {at}" if at else ""
                    raise InputError(f"{source}: a lone surrogate (\\u{ord(item[exc.start]):04x}){field}; "
                                     "expected Unicode text") from None
        elif isinstance(item, dict):
            for key, sub in item.items():
                stack.append((key, f"a key of {at}" if at else "a key"))
                stack.append((sub, f"{at}.{key}" if at else str(key)))
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, f"{at}[{i}]") for i, sub in enumerate(item))


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
        value = json.loads(text, object_pairs_hook=_json_object, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except _Refused as exc:
        raise InputError(f"{source}: not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{source}: not valid JSON: nested too deeply") from None
    except ValueError as exc:  # anything else json cannot turn into a value
        raise InputError(f"{source}: not valid JSON: {_first_line(exc)}") from None
    if "\\u" in text:  # only a \\u escape can make a lone surrogate
        refuse_surrogates(value, source=source)
    return value


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


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write `text` to a temporary file beside `path`, then rename it into place: never a half-written file."""
    import tempfile  # only a command that writes a file needs it (as in signing.py)

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
