"""Evaluator artifacts on disk: every shape the upstream `evaluate.py` writes, and gatepost's own.

Read: upstream's pipeline artifact (nested `evaluation` with execution/baseline pass rates, delta
and verdict; `candidate_results`, `baseline_results` possibly null), its skip/error artifact
(`evaluation.reason`, no results), its standalone artifact (`evaluation` with `total_tasks`,
`passed`, `failed`, `pass_rate`, `verdict`; `task_results`), and gatepost's older flat artifact.
Written: upstream's pipeline shape (so its orchestrator and gate read `evaluation.verdict`) with
gatepost's flat fields kept beside it. A file whose delta or verdict contradicts its own rates or
counts is refused, naming both values. No SQL here: runs.py stores what this module parses.

One reader (`_read`) reads every artifact, a file's text held whole or a large file streamed: the top-level
members one by one, each results array a window at a time (decoded at once by the typed decoder where it can
vouch for them, else value by value, which decides and words every refusal: one line naming the file and the
field).
"""

import codecs
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any, TypeGuard

from gatepost.store.kernel import (
    STRICT_JSON_DECODER,
    InputError,
    StrictValueError,
    open_regular,
    refuse_surrogates,
    write_text_atomic,
)

from .fast_results import MAX_REAL, Columns, decode_window
from .progress import report

VERDICTS = ("pass", "fail", "skipped", "error")
SCHEMA_VERSION = "1.0"  # upstream evaluate.py's SCHEMA_VERSION
STANDALONE_PASS = 0.5  # upstream standalone verdict: pass when pass_rate >= 0.5
DELTA_TOLERANCE = 1e-4  # upstream rounds delta to 4 places
SHAPES = ("upstream-pipeline", "upstream-skipped", "upstream-standalone", "gatepost-flat")

# A per-task row as parsed, before the run id is known (TASK_COLUMNS without run_id and attempt).
RowTuple = tuple[str, str, int, int, Any, int, str, str | None, int, str | None, str | None, str | None]
ROW_WIDTH = 12  # RowTuple's fields


@dataclass
class ParsedArtifact:
    """One artifact file as gatepost stores it: its shape, its numbers and its per-task rows."""

    shape: str
    execution_pass_rate: float
    baseline_pass_rate: float | None
    delta: float | None
    verdict: str
    warnings: list[str]
    baseline_health: dict[str, Any]
    rows: list[RowTuple] = field(default_factory=list)
    mock: bool = False
    data: dict[str, Any] = field(default_factory=dict)




def _finite(value: Any) -> TypeGuard[int | float]:
    # an int is finite however long (math.isfinite would overflow converting a 400-digit one to float)
    return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)))


def _rate(block: dict[str, Any], key: str, where: str, name: str) -> float:
    value = block.get(key)
    if value is None:
        raise InputError(f"{name}: {where}{key}: missing (expected a pass rate from 0 to 1)")
    if not _finite(value):
        raise InputError(f"{name}: {where}{key}: expected a pass rate from 0 to 1")
    if not 0 <= value <= 1:
        raise InputError(f"{name}: {where}{key}: expected a pass rate from 0 to 1, got {value!r}")
    return float(value)


def _count(block: dict[str, Any], key: str, name: str) -> int:
    value = block.get(key)
    if type(value) is not int or value < 0:
        missing = "missing (expected" if value is None else "expected"
        raise InputError(f"{name}: evaluation.{key}: {missing} a whole number of tasks{')' if value is None else ''}")
    return value


def _verdict(block: dict[str, Any], where: str, name: str) -> str:
    verdict = block.get("verdict")
    if verdict not in VERDICTS:
        raise InputError(f"{name}: {where}verdict: expected one of {', '.join(VERDICTS)}, got {verdict!r}")
    return str(verdict)


def _strings(value: Any, where: str, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise InputError(f"{name}: {where}: expected a list of strings")
    return value


def _pair_verdict(execution: float, baseline: float, delta: float, verdict: str, where: str, name: str) -> None:
    """delta = candidate - baseline (rounded to 4 places); pass when delta >= 0, as upstream's compute_results."""
    if abs(delta - (execution - baseline)) > DELTA_TOLERANCE:
        raise InputError(f"{name}: {where}delta: {delta!r} contradicts the pass rates "
                         f"({execution!r} - {baseline!r} = {round(execution - baseline, 4)!r})")
    if verdict in ("pass", "fail"):
        implied = "pass" if delta >= 0 else "fail"
        if verdict != implied:
            raise InputError(f"{name}: {where}verdict: {verdict!r} contradicts delta {delta!r} "
                             f"(a delta of {delta!r} is {implied!r})")


def _results(items: Any, key: str, name: str, side: str, *, nullable: bool = False,
             start: int = 0) -> tuple[list[RowTuple], bool]:
    """Check an artifact's per-task results and build their rows (one attempt each).

    One tight pass checks and builds every row; only a file with a bad result pays for the
    second pass that names the first bad field.
    """
    if items is None and nullable:
        return [], False
    if not isinstance(items, list):
        raise InputError(f"{name}: {key}: expected a list of per-task results")
    rows: list[RowTuple] = []
    append, isfinite = rows.append, math.isfinite
    mock_any = False
    for item in items:
        if type(item) is not dict:
            break
        get = item.get
        task_id, passed, score, duration = get("task_id"), get("passed"), get("score"), get("duration_ms", 0)
        output, reason, split, mock = get("output", ""), get("reason"), get("split"), get("mock")
        details, error = get("details"), get("error")
        ts, td = type(score), type(duration)
        if (type(task_id) is not str or not task_id or type(passed) is not bool
                or not (score is None or (ts is int and -MAX_REAL <= score <= MAX_REAL)
                        or (ts is float and isfinite(score)))
                or not (td is int or (td is float and isfinite(duration)))
                or not (output is None or type(output) is str)
                or not (details is None or type(details) is str) or not (error is None or type(error) is str)):
            break
        if mock:
            mock_any = True
        if type(reason) is not str:
            # upstream says why in `error` (a crash, a timeout) or `details` (what the judge found)
            reason = None if passed else (error or details or None)
        append((side, task_id, 1 if passed else 0, 0 if get("judged", True) is False else 1, score,
                int(duration), output or "", reason, 1 if mock else 0, split if type(split) is str else None,
                details, error))
    else:
        return rows, mock_any
    _explain_bad_result(items, key, name, start)
    raise AssertionError("unreachable: _explain_bad_result raises")  # pragma: no cover


def _explain_bad_result(items: list[Any], key: str, name: str, start: int = 0) -> None:
    """Raise the InputError naming the first bad per-task result and its field."""
    for i, item in enumerate(items, start):
        if not isinstance(item, dict):
            raise InputError(f"{name}: {key}[{i}]: expected an object with task_id and passed")
        task_id, score, duration, output = (item.get("task_id"), item.get("score"), item.get("duration_ms", 0),
                                            item.get("output", ""))
        if type(task_id) is not str or not task_id:
            missing = "missing (expected a non-empty string)" if task_id is None else "expected a non-empty string"
            raise InputError(f"{name}: {key}[{i}].task_id: {missing}")
        if type(item.get("passed")) is not bool:
            missing = "missing (expected true or false)" if item.get("passed") is None else "expected true or false"
            raise InputError(f"{name}: {key}[{i}].passed: {missing}")
        if score is not None and not (_finite(score) and -MAX_REAL <= score <= MAX_REAL):
            raise InputError(f"{name}: {key}[{i}].score: expected a number or null (at most {MAX_REAL:.4g} either "
                             "way: a score is stored as a REAL)")
        if not _finite(duration):
            raise InputError(f"{name}: {key}[{i}].duration_ms: expected a number of milliseconds")
        if output is not None and type(output) is not str:
            raise InputError(f"{name}: {key}[{i}].output: expected a string")
        for text_key in ("details", "error"):
            if item.get(text_key) is not None and type(item.get(text_key)) is not str:
                raise InputError(f"{name}: {key}[{i}].{text_key}: expected a string")


def _health(value: Any, where: str, name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"{name}: {where}baseline_health: expected an object")
    return value


def _standalone(data: dict[str, Any], block: dict[str, Any], name: str, streamed: tuple[int, int] | None = None) -> ParsedArtifact:
    total, passed, failed = (_count(block, k, name) for k in ("total_tasks", "passed", "failed"))
    rate = _rate(block, "pass_rate", "evaluation.", name)
    verdict = _verdict(block, "evaluation.", name)
    if passed + failed != total:
        raise InputError(f"{name}: evaluation.total_tasks: {total} contradicts passed {passed} + failed {failed}")
    implied_rate = passed / total if total else 0.0
    if abs(rate - implied_rate) > DELTA_TOLERANCE:
        raise InputError(f"{name}: evaluation.pass_rate: {rate!r} contradicts passed {passed} of {total} tasks")
    if verdict in ("pass", "fail"):
        implied = "pass" if rate >= STANDALONE_PASS else "fail"
        if verdict != implied:
            raise InputError(f"{name}: evaluation.verdict: {verdict!r} contradicts pass_rate {rate!r} "
                             f"(standalone passes at {STANDALONE_PASS} or more: {implied!r})")
    rows, mock = _results(data.get("task_results", []), "task_results", name, "candidate")
    seen, counted = streamed if streamed is not None else (len(rows), sum(r[2] for r in rows))
    if seen and (seen != total or counted != passed):
        raise InputError(f"{name}: evaluation.passed: {passed} of {total} contradicts task_results "
                         f"({counted} of {seen} passed)")
    return ParsedArtifact("upstream-standalone", rate, None, None, verdict,
                          _strings(data.get("warnings"), "warnings", name), {}, rows, mock, data)


def _pipeline(data: dict[str, Any], block: dict[str, Any], name: str) -> ParsedArtifact:
    execution = _rate(block, "execution_pass_rate", "evaluation.", name)
    baseline = _rate(block, "baseline_pass_rate", "evaluation.", name)
    delta = block.get("delta")
    if not _finite(delta):
        raise InputError(f"{name}: evaluation.delta: expected a finite number (candidate - baseline), got {delta!r}")
    verdict = _verdict(block, "evaluation.", name)
    _pair_verdict(execution, baseline, float(delta), verdict, "evaluation.", name)
    for key in ("execution_pass_rate", "baseline_pass_rate", "delta", "verdict"):
        if key in data and data[key] != block[key]:  # gatepost writes both; they must agree
            raise InputError(f"{name}: {key}: {data[key]!r} contradicts evaluation.{key} {block[key]!r}")
    warnings = _strings(data.get("warnings"), "warnings", name) or _strings(block.get("warnings"),
                                                                            "evaluation.warnings", name)
    health = _health(block.get("baseline_health", data.get("baseline_health")), "evaluation.", name)
    reason = block.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise InputError(f"{name}: evaluation.reason: expected a string")
    shape = "upstream-skipped" if "candidate_results" not in data and verdict in ("skipped", "error") \
        else "upstream-pipeline"
    candidate, cmock = _results(data.get("candidate_results", []), "candidate_results", name, "candidate")
    baseline_rows, bmock = _results(data.get("baseline_results", []), "baseline_results", name, "baseline",
                                    nullable=True)
    if reason and not warnings and shape == "upstream-skipped":
        warnings = [f"{verdict}: {reason}"]
    return ParsedArtifact(shape, execution, baseline, round(float(delta), 4), verdict, warnings, health,
                          candidate + baseline_rows, bool(data.get("mock")) or cmock or bmock, data)


def _flat(data: dict[str, Any], name: str) -> ParsedArtifact:
    execution = _rate(data, "execution_pass_rate", "", name)
    baseline = _rate(data, "baseline_pass_rate", "", name)
    delta = data.get("delta")
    if delta is None:
        raise InputError(f"{name}: delta: missing (expected a number (candidate - baseline))")
    if not _finite(delta):
        raise InputError(f"{name}: delta: expected a finite number (candidate - baseline), got {delta!r}")
    verdict = _verdict(data, "", name)
    _pair_verdict(execution, baseline, float(delta), verdict, "", name)
    warnings = _strings(data.get("warnings", []), "warnings", name)
    health = _health(data.get("baseline_health", {}), "", name)
    candidate, cmock = _results(data.get("candidate_results", []), "candidate_results", name, "candidate")
    baseline_rows, bmock = _results(data.get("baseline_results", []), "baseline_results", name, "baseline",
                                    nullable=True)
    return ParsedArtifact("gatepost-flat", execution, baseline, round(float(delta), 4), verdict, warnings, health,
                          candidate + baseline_rows, bool(data.get("mock")) or cmock or bmock, data)


def parse_artifact(text: str, *, name: str) -> ParsedArtifact:
    """Parse and check one artifact file's text; InputError (one line, naming the field) when it is not one.

    Read as a large file is streamed (`_read`), from the text in memory: its results arrays decoded a window at
    a time by the typed decoder where it can vouch for them, else value by value; its rows in the order of the
    shape's arrays (the candidate's, then the baseline's).
    """
    found: dict[str, list[Any]] = {}
    parsed = _read(_Reader.over(text, name), lambda key, rows: found.setdefault(key, []).extend(rows), (), 5000)
    parsed.rows = [row for key in _shape_results(parsed.shape) for row in found.get(key, ())]
    return parsed


def parse_artifact_columns(text: str, *, name: str) -> tuple[ParsedArtifact, Sequence[Sequence[Any]], int]:
    """parse_artifact, its rows given as their columns instead (one sequence per RowTuple field, in the same
    order) and their number: `parsed.rows` is left empty. What an import stores a file read whole from: the typed
    decoder has its windows as columns, and a tuple made per row here would be taken apart again."""
    found: dict[str, list[Sequence[Any] | Columns]] = {}
    parsed = _read(_Reader.over(text, name), lambda key, rows: found.setdefault(key, []).append(rows), (), 5000,
                   as_columns=True)
    parts = [part if isinstance(part, Columns) else Columns.of(part)
             for key in _shape_results(parsed.shape) for part in found.get(key, ()) if len(part)]
    if not parts:
        return parsed, [()] * ROW_WIDTH, 0
    if len(parts) == 1:
        return parsed, parts[0].values, parts[0].n
    fields = range(len(parts[0].values))
    return parsed, [list(chain.from_iterable(part.values[i] for part in parts)) for i in fields], \
        sum(part.n for part in parts)


def _shape_results(shape: str) -> tuple[str, ...]:
    """The results arrays an artifact of this shape holds (a standalone run: task_results; else both sides)."""
    return ("task_results",) if shape == "upstream-standalone" else ("candidate_results", "baseline_results")


def _dispatch(data: dict[str, Any], name: str, streamed: tuple[int, int] | None = None) -> ParsedArtifact:
    block = data.get("evaluation")
    if block is None:
        parsed = _flat(data, name)
    elif not isinstance(block, dict):
        raise InputError(f"{name}: evaluation: expected an object (upstream's pass rates and verdict)")
    elif "pass_rate" in block or "task_results" in data:
        parsed = _standalone(data, block, name, streamed)
    else:
        parsed = _pipeline(data, block, name)
    # an array of results the shape does not read would be stored from a large file (streamed before the
    # shape is known) and dropped from a small one: refused from both, so no result is kept or lost unseen
    for key in RESULT_KEYS:
        if isinstance(data.get(key), list) and key not in _shape_results(parsed.shape):
            raise InputError(f"{name}: {key}: not read in a {parsed.shape} artifact, whose results are "
                             f"{' and '.join(_shape_results(parsed.shape))}; a file holds one kind of results")
    return parsed


# --- streaming a large artifact in bounded memory -----------------------------------------
STREAM_CHUNK = 4 * 1024 * 1024
MAX_ELEMENT_CHARS = 64 * 1024 * 1024  # one JSON value (a per-task result, a header field) at most
RESULT_KEYS = ("candidate_results", "baseline_results", "task_results")
_WS = re.compile(r"[ \t\n\r]*")
_SPACE = frozenset(" \t\n\r")  # what _WS skips


def max_artifact_bytes() -> int:
    """The size limit of a streamed artifact: 4 GiB, or GATEPOST_MAX_ARTIFACT_BYTES."""
    value = os.environ.get("GATEPOST_MAX_ARTIFACT_BYTES", "")
    return int(value) if value.isdigit() else 4 * 1024 ** 3


_DECODER = STRICT_JSON_DECODER  # duplicate keys and over-long integers refused, as in parse_json


def artifact_digest(path: Path, *, name: str, max_bytes: int) -> str:
    """First pass over a large artifact: its size limit, no NUL byte, and its sha256 (the run's id)."""
    digest = hashlib.sha256()
    offset = 0
    with open_regular(path, what="artifact file") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise InputError(f"{path}: {size:,} bytes is larger than the {max_bytes:,}-byte limit for a artifact "
                             "file (GATEPOST_MAX_ARTIFACT_BYTES)")
        while chunk := handle.read(STREAM_CHUNK):
            nul = chunk.find(b"\0")
            if nul >= 0:
                raise InputError(f"{name}: a NUL byte at offset {offset + nul:,}: expected UTF-8 text, not binary data")
            digest.update(chunk)
            offset += len(chunk)
    return digest.hexdigest()


class _Reader:
    """A window of the file's text: values are decoded one at a time (C-speed raw_decode), never the whole."""

    def __init__(self, handle: Any, name: str) -> None:
        self.handle, self.name = handle, name
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf, self.pos, self.eof, self.consumed = "", 0, False, 0

    @classmethod
    def over(cls, text: str, name: str) -> "_Reader":
        """A reader of text already in memory (a file read whole): one window, the last."""
        reader = cls(None, name)
        reader.buf, reader.eof = text, True
        return reader

    def fill(self) -> None:
        data = self.handle.read(STREAM_CHUNK)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise InputError(f"{self.name}: not UTF-8 text (an invalid byte after character "
                             f"{self.consumed + len(self.buf):,})") from None
        self.eof = not data
        self.consumed += self.pos
        self.buf, self.pos = self.buf[self.pos:] + text, 0

    def peek(self) -> str:
        buf, pos = self.buf, self.pos
        if pos < len(buf) and buf[pos] not in _SPACE:  # the commonest answer, without the expression's call
            return buf[pos]
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos] if self.pos < len(self.buf) else ""
            self.fill()

    def where(self, pos: int) -> str:
        """Where position `pos` of the window is, for a person: its line and column in a text read whole, its
        character in a file streamed (whose earlier lines are no longer held)."""
        if self.handle is None:
            line = self.buf.count("\n", 0, pos)
            return f"line {line + 1}, column {pos - self.buf.rfind(chr(10), 0, pos)}"
        return f"character {self.consumed + pos:,}"

    def report(self, rows: int) -> None:
        """Say how far the file has been read (a text read whole was reported as it was read)."""
        if self.handle is not None:
            report(self.handle.tell(), rows)

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise InputError(f"{self.name}: not valid JSON at {self.where(self.pos)}: expected {what}")
        self.pos += 1

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or self.eof:
                    if "\\u" in self.buf[self.pos:end]:  # only a \\u escape can make a lone surrogate
                        refuse_surrogates(value, source=self.name)
                    self.pos = end
                    return value
            except json.JSONDecodeError as exc:
                if self.eof or len(self.buf) - self.pos > MAX_ELEMENT_CHARS:
                    raise InputError(f"{self.name}: not valid JSON at {self.where(exc.pos)}: {exc.msg}") from None
            except StrictValueError as exc:
                raise InputError(f"{self.name}: {exc}") from None
            except RecursionError:
                raise InputError(f"{self.name}: nested too deeply") from None
            self.fill()  # the value may go on past the window: read more and decode it again


def _boundary(buf: str, pos: int, end: int, tries: int = 32) -> int | None:
    """The end of the last whole result in buf[pos:end] (a '}' followed by ',' or ']'), or None."""
    i = buf.rfind("}", pos, end)
    while i >= pos and tries > 0:
        j = _WS.match(buf, i + 1).end()  # type: ignore[union-attr]
        if j < len(buf) and buf[j] in ",]":
            return i + 1
        i, tries = buf.rfind("}", pos, i), tries - 1
    return None


def _array_end(buf: str, at: int, limit: int) -> int:
    """Where the first '}' followed (past whitespace) by ']' is in buf[at:limit] (a result's '}' then the array's
    ']', or the same inside a string), or -1. Found from each ']' in turn (str.find, at memchr speed) looking back
    past whitespace: a search for the '}' would stop at every result's."""
    close = buf.find("]", at, limit)
    while close >= 0:
        before = close - 1
        while before >= at and buf[before] in _SPACE:
            before -= 1
        if before >= at and buf[before] == "}":
            return before
        close = buf.find("]", close + 1, limit)
    return -1


def _fast_window(reader: "_Reader", side: str, prefix: tuple[Any, ...], as_columns: bool = False
                 ) -> tuple[Sequence[Any] | Columns, int, bool] | None:
    """The whole results ahead in the reader's window (at most STREAM_CHUNK characters), decoded at once
    (fast_results); None: read them value by value (a window the typed decoder cannot vouch for, or no whole
    result in it).

    The window ends at the array's end when it is in it: the first '}' ']' where the text before decodes as
    whole results (JSON read from the array's start is read the same whatever follows, so a '}]' inside a
    string or a nested value leaves a window that does not decode, and the next is tried); else after the last
    whole result in it.
    """
    if len(reader.buf) - reader.pos < STREAM_CHUNK and not reader.eof:
        reader.fill()
    reader.peek()
    buf, pos = reader.buf, reader.pos
    limit = min(len(buf), pos + STREAM_CHUNK)
    at = pos
    for _ in range(4):
        array_end = _array_end(buf, at, limit)
        if array_end < 0:
            break
        decoded = decode_window(buf[pos:array_end + 1], prefix, side, as_columns)
        if decoded is not None:
            reader.pos = array_end + 1
            return decoded
        at = array_end + 1
    end = _boundary(buf, pos, limit)
    if end is None:
        return None
    decoded = decode_window(buf[pos:end], prefix, side, as_columns)
    if decoded is not None:
        reader.pos = end
    return decoded


def _members(reader: _Reader) -> Iterator[str]:
    """The keys of the artifact's top-level object, each yielded with the reader at its value (which the
    caller reads); checks the separators, that no key is given twice and that nothing follows the object."""
    name = reader.name
    reader.expect("{", "an object (an evaluator artifact)")
    if reader.peek() == "}":
        reader.pos += 1
    else:
        keys: set[str] = set()
        while True:
            key = reader.value()
            if not isinstance(key, str):
                raise InputError(f"{name}: not valid JSON: expected a key")
            if key in keys:
                raise InputError(f"{name}: duplicate key {key[:40]!r} (each key may appear once)")
            keys.add(key)
            reader.expect(":", "':'")
            yield key
            if reader.peek() == ",":
                reader.pos += 1
                continue
            reader.expect("}", "',' or '}'")
            break
    if reader.peek() != "":
        raise InputError(f"{name}: not valid JSON: extra data after the artifact's object")




def stream_artifact(path: Path, *, name: str, on_rows: Callable[[list[Any]], None],
                    batch: int = 5000, run_id: str | None = None) -> ParsedArtifact:
    """Parse a large artifact in bounded memory: per-task results are checked and handed to `on_rows` in
    batches as they are read (in the file's order); everything else (small) is kept and checked as
    parse_artifact checks it, by the same reader. With `run_id`, rows are task_results rows (TASK_COLUMNS
    order) of it."""
    with open_regular(path, what="artifact file") as handle:
        return _read(_Reader(handle, name), lambda _key, rows: on_rows(rows),
                     (run_id,) if run_id is not None else (), batch)


def _read(reader: "_Reader", on_rows: Callable[[str, Any], None], prefix: tuple[Any, ...],
          batch: int, as_columns: bool = False) -> ParsedArtifact:
    """The one reading of an artifact, in memory or streamed: its top-level members one by one; each results
    array's results checked and handed over (`on_rows(key, rows)`) a window at a time, decoded at once by the
    typed decoder (fast_results) where it can vouch for them, else value by value, which decides and words every
    refusal; then the header (everything else) checked by its shape. `as_columns`: the typed decoder's windows
    are handed over as their columns (fast_results.Columns), the strict reader's as rows."""
    name = reader.name
    header: dict[str, Any] = {}
    counts: dict[str, tuple[int, int]] = {}
    done = 0  # rows of the result lists read before this one (for the progress report)
    mock_any = False
    for key in _members(reader):
        if key not in RESULT_KEYS or reader.peek() != "[":
            header[key] = reader.value()
            continue
        reader.pos += 1
        side = "baseline" if key == "baseline_results" else "candidate"
        items: list[Any] = []
        seen = passed = 0
        if reader.peek() == "]":
            reader.pos += 1
        else:
            while True:
                fast = _fast_window(reader, side, prefix, as_columns) if not items else None
                if fast is not None:
                    on_rows(key, fast[0])
                    seen, passed, mock_any = seen + len(fast[0]), passed + fast[1], mock_any or fast[2]
                    reader.report(done + seen)
                else:
                    items.append(reader.value())
                closing = reader.peek()
                if items and (len(items) >= batch or closing == "]"):
                    rows, mock = _results(items, key, name, side, start=seen)
                    mock_any = mock_any or mock
                    seen += len(rows)
                    passed += sum(r[2] for r in rows)
                    on_rows(key, [(*prefix, r[0], r[1], 1, *r[2:]) for r in rows] if prefix else rows)
                    reader.report(done + seen)
                    items = []
                if closing == ",":
                    reader.pos += 1
                    continue
                reader.expect("]", f"',' or ']' in {key}")
                break
        header[key] = []
        counts[key] = (seen, passed)
        done += seen
    parsed = _dispatch(header, name, counts.get("task_results"))
    parsed.mock = parsed.mock or mock_any
    return parsed


# --- writing ------------------------------------------------------------------------------------
def _upstream_result(result: dict[str, Any]) -> dict[str, Any]:
    """One per-task result as upstream writes it (task_id, passed, score, details, duration_ms, error),
    gatepost's own fields kept beside."""
    reason = result.get("reason") or ""
    out = {"task_id": result["task_id"], "passed": bool(result["passed"]),
           "score": result.get("score") if result.get("score") is not None else 0.0,
           "details": result.get("details") if result.get("details") is not None else
           ("" if result["passed"] else reason),
           "duration_ms": int(result.get("duration_ms") or 0),
           "error": result.get("error") if result.get("error") is not None else ""}
    out.update({k: v for k, v in result.items() if k not in out})
    return out


def upstream_artifact(artifact: dict[str, Any]) -> dict[str, Any]:
    """The artifact in upstream evaluate.py's shape, gatepost's flat fields kept beside.

    A standalone run (no baseline rate) comes out as upstream's standalone artifact; any other as
    its pipeline artifact with a nested `evaluation` (what the orchestrator and the gate read).
    """
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "lane": artifact.get("lane") or ("standalone" if artifact.get("baseline_pass_rate") is None
                                          else "generic-skill"),
        "run_id": artifact.get("source_run_id") or artifact["run_id"],
        "stage": "evaluated",
        "status": "success" if artifact["verdict"] in ("pass", "fail") else artifact["verdict"],
        "created_at": artifact.get("created_at") or artifact.get("finished_at"),
    }
    candidate = [_upstream_result(r) for r in artifact.get("candidate_results") or []]
    baseline = artifact.get("baseline_results")
    if artifact.get("baseline_pass_rate") is None:
        passed = sum(1 for r in candidate if r["passed"])
        out.update({"task_suite": artifact.get("task_suite") or artifact.get("suite"),
                    "skill_id": artifact.get("skill_id") or "",
                    "pass_k": artifact.get("pass_k") or 1,
                    "evaluation": {"total_tasks": len(candidate), "passed": passed,
                                   "failed": len(candidate) - passed,
                                   "pass_rate": artifact["execution_pass_rate"], "verdict": artifact["verdict"]},
                    "task_results": candidate})
    else:
        health = dict(artifact.get("baseline_health") or {})
        if health:
            health.setdefault("reason", health.get("message", ""))
        evaluation: dict[str, Any] = {"execution_pass_rate": artifact["execution_pass_rate"],
                                      "baseline_pass_rate": artifact["baseline_pass_rate"],
                                      "delta": artifact["delta"], "verdict": artifact["verdict"]}
        if health:
            evaluation["baseline_health"] = health
        if artifact.get("evaluation_reason"):
            evaluation["reason"] = artifact["evaluation_reason"]
        if artifact.get("warnings") and artifact.get("shape") != "upstream-skipped":  # upstream's skip/error: none
            evaluation["warnings"] = list(artifact["warnings"])
        out.update({"candidate_id": artifact.get("candidate_id") or artifact.get("skill_id"),
                    "task_suite": artifact.get("task_suite") or artifact.get("suite"),
                    "task_suite_skill_id": artifact.get("task_suite_skill_id") or artifact.get("skill_id") or "",
                    "pass_k": artifact.get("pass_k") or 1,
                    "evaluation": evaluation})
        if artifact.get("shape") != "upstream-skipped":
            out["candidate_results"] = candidate
            out["baseline_results"] = None if baseline is None else [_upstream_result(r) for r in baseline]
        out["warnings"] = list(artifact.get("warnings") or [])
        # upstream's _build_artifact: an error aborts to a person; skipped, pass and fail go to the gate
        out["next_step"] = "abort" if artifact["verdict"] == "error" else "gate_decision"
        out["next_owner"] = "human" if artifact["verdict"] == "error" else "gate"
    for key, value in artifact.items():  # gatepost's own fields, beside upstream's (upstream ignores them)
        if key not in out and key not in ("candidate_results", "baseline_results", "shape"):
            out[key] = value
    if out.get("baseline_pass_rate") is None:
        for key in ("baseline_pass_rate", "delta"):
            out.pop(key, None)
    out["truth_anchor"] = artifact.get("truth_anchor")
    return out


def write_artifact(artifact: dict[str, Any], path: Path) -> str:
    """Write the artifact JSON in upstream's shape; its truth_anchor is its own absolute path."""
    path = path.expanduser().resolve()
    artifact["truth_anchor"] = str(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(upstream_artifact(artifact), indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise InputError(f"--output: {path}: cannot be written ({exc.strerror or exc})") from None
    return str(path)


__all__ = ["VERDICTS", "SCHEMA_VERSION", "STANDALONE_PASS", "SHAPES", "ParsedArtifact", "artifact_digest",
           "max_artifact_bytes", "parse_artifact", "parse_artifact_columns", "stream_artifact", "upstream_artifact", "write_artifact"]
