"""Per-task results decoded many at a time by a typed C decoder (msgspec), checked as they are decoded.

A large artifact's results arrays are read in windows of whole results; msgspec decodes a window into
typed structs whose types are the per-result checks of `artifacts._results` (task_id a non-empty string,
passed a boolean, score a finite number or null, ...). A window the fast decoder cannot vouch for returns
None, and the caller reads it value by value with the strict Python decoder, which gives the usual
one-line error naming the first bad result and field. So the fast path never accepts what the strict
path refuses, and never words an error itself. It returns None when:

- msgspec refuses the window (malformed JSON, invalid UTF-8, a wrong type, an integer over 64 bits,
  a number out of range), or the window is not whole results (cut inside a string or object);
- a key may appear twice in a result (msgspec keeps the last one; gatepost refuses): a window's ':'
  outside strings equal its results' keys, so each result's keys are counted (fields default to UNSET)
  and the ':' of the window must equal those keys plus the ':' inside their strings. A result with keys
  this struct does not name, or nested values, fails the count too and goes the strict way; so does a
  window with a \\u003a escape (a ':' that is not one in the text).
"""

from typing import Annotated, Any

import msgspec

_MAX = 1.7976931348623157e308
Finite = Annotated[float, msgspec.Meta(ge=-_MAX, le=_MAX)]  # 1e999 decodes to inf: refused here
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]  # what SQLite stores; longer: the strict way
UNSET: Any = msgspec.UNSET
_SCALARS = (bool, int, float, type(None))


class _Result(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One per-task result as `artifacts._results` accepts it; UNSET marks a key that is not there.

    Not tracked by the garbage collector (gc=False): it holds decoded JSON values, never itself, and a
    window makes thousands of them (tracking them cost more than decoding them)."""

    task_id: Annotated[str, msgspec.Meta(min_length=1)]
    passed: bool
    score: Int64 | Finite | None = UNSET
    duration_ms: Int64 | Finite = UNSET
    output: str | None = UNSET
    reason: Any = UNSET
    split: Any = UNSET
    mock: Any = UNSET
    judged: Any = UNSET
    details: str | None = UNSET
    error: str | None = UNSET


_DECODER = msgspec.json.Decoder(list[_Result])
astuple = msgspec.structs.astuple


def _colons(value: Any) -> int:
    """':' in a decoded value of an any-typed field; -1 when it is nested (counted the strict way)."""
    if type(value) is str:
        return value.count(":")
    return 0 if value is UNSET or type(value) in _SCALARS else -1


def decode_window(text: str, prefix: tuple[Any, ...], side: str, first_id: int | None = None
                  ) -> tuple[list[tuple[Any, ...]], int, bool] | None:
    """(rows, passes, whether any result is a mock) for `text`, whole results separated by commas (the
    inside of a results array); None when the strict decoder must read it instead.

    Without a prefix each row is an `artifacts.RowTuple`; with one (the run id) it is the task_results
    row in evaluation's TASK_COLUMNS order, attempt 1, ready for executemany; with `first_id` too, each row
    starts with its id (first_id, first_id + 1, ...), so the caller need not build every row again.
    """
    if "\\u003a" in text or "\\u003A" in text:
        return None
    try:
        results = _DECODER.decode("[" + text + "]")
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    run_id = prefix[0] if prefix else None
    rows: list[tuple[Any, ...]] = []
    append = rows.append
    keys = passes = 0
    i = first_id or 0
    mock_any = False
    for task_id, passed, score, duration, output, reason, split, mock, judged, details, error in map(astuple, results):
        # keys counts the ':' this result's text holds: one per key present, and those inside its strings
        keys += 2 + task_id.count(":")
        if score is UNSET:
            score = None
        else:
            keys += 1
        if duration is UNSET:
            duration = 0
        else:
            keys += 1
            if type(duration) is not int:
                duration = int(duration)
        if output:
            keys += 1 + output.count(":")
        else:
            if output is not UNSET:
                keys += 1
            output = ""
        if details is UNSET:
            details = None
        else:
            keys += 1 + details.count(":") if details else 1
        if error is UNSET:
            error = None
        else:
            keys += 1 + error.count(":") if error else 1
        if reason is UNSET and split is UNSET and mock is UNSET and judged is UNSET:  # upstream's usual result
            if passed:
                passes += 1
                append((i, run_id, side, task_id, 1, 1, 1, score, duration, output, None, 0, None, details, error))
            else:
                append((i, run_id, side, task_id, 1, 0, 1, score, duration, output, error or details or None, 0, None,
                        details, error))
            i += 1
            continue
        colons = (_colons(reason), _colons(split), _colons(mock), _colons(judged))
        if -1 in colons:
            return None
        keys += sum(colons) + (reason is not UNSET) + (split is not UNSET) + (mock is not UNSET) \
            + (judged is not UNSET)
        if mock is UNSET:
            mock = None
        if mock:
            mock_any = True
        if type(split) is not str:
            split = None
        if type(reason) is not str:
            reason = None if passed else (error or details or None)
        if passed:
            passes += 1
        append((i, run_id, side, task_id, 1, 1 if passed else 0, 0 if judged is False else 1, score, duration,
                output, reason, 1 if mock else 0, split, details, error))
        i += 1
    if text.count(":") != keys:  # a key twice, or one this struct does not name: the strict way decides
        return None
    if not prefix:  # artifacts.RowTuple: no id, no run id, no attempt
        rows = [(row[2], row[3], *row[5:]) for row in rows]
    elif first_id is None:
        rows = [row[1:] for row in rows]
    return rows, passes, mock_any
