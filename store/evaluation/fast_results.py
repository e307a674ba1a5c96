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
  outside strings equal its results' keys, so the ':' of the window must equal those of the decoded
  results encoded again (msgspec writes one ':' per key it kept, fields left UNSET are not written, and
  a ':' inside a string stays one). A result with nested values goes the strict way; so does a window
  with a \\u003a escape (a ':' that is not one in the text).
"""

import re
from collections.abc import Sequence
from itertools import repeat
from typing import Annotated, Any

import msgspec

MAX_REAL = 1.7976931348623157e308  # the largest REAL (sys.float_info.max): a score beyond it has none to be stored as
Finite = Annotated[float, msgspec.Meta(ge=-MAX_REAL, le=MAX_REAL)]  # 1e999 decodes to inf: refused here
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
    reason: str | None = UNSET  # another type (the strict reader makes it null): the strict way
    split: str | None = UNSET  # the same
    mock: Any = UNSET
    judged: Any = UNSET
    details: str | None = UNSET
    error: str | None = UNSET


_DECODER = msgspec.json.Decoder(list[_Result])


class Columns:
    """Rows (`artifacts.RowTuple`) held as their columns: `values`, one sequence per RowTuple field, `n` values
    each. What the typed decoder has before it makes a tuple per row: a file read whole is stored from these
    (its rows would be taken apart into columns again), so `len()` is the number of rows, as of a list of them."""

    __slots__ = ("n", "values")

    def __init__(self, n: int, values: Sequence[Sequence[Any]]) -> None:
        self.n, self.values = n, values

    def __len__(self) -> int:
        return self.n

    @classmethod
    def of(cls, rows: Sequence[Sequence[Any]]) -> "Columns":
        """Rows (the strict reader's) as columns."""
        return cls(len(rows), list(zip(*rows, strict=True)))
astuple = msgspec.structs.astuple
_COLON_ESCAPE = re.compile(r"\\u003[aA]")


def _absent_to(column: tuple[Any, ...], value: Any, unset: int) -> Sequence[Any]:
    """The column with UNSET (a key not given, in `unset` of its values) as `value`."""
    if not unset:
        return column
    return [value] * len(column) if unset == len(column) else [value if v is UNSET else v for v in column]


_TEXT_OR_NOTHING = {str, type(None), type(msgspec.UNSET)}


def _text_colons(column: tuple[Any, ...]) -> int | None:
    """':' inside the strings of an any-typed column; None when a value is nested (read the strict way)."""
    if set(map(type, column)) <= _TEXT_OR_NOTHING:  # as upstream writes it: counted at C speed (None, UNSET
        return "".join(filter(None, column)).count(":")  # and "" are falsy; a third of the reading)
    colons = 0
    for value in column:
        if type(value) is str:
            colons += value.count(":")
        elif value is not UNSET and type(value) not in _SCALARS:
            return None
    return colons


def decode_window(text: str, prefix: tuple[Any, ...], side: str, as_columns: bool = False
                  ) -> tuple[Sequence[tuple[Any, ...]] | Columns, int, bool] | None:
    """(rows, passes, whether any result is a mock) for `text`, whole results separated by commas (the
    inside of a results array); None when the strict decoder must read it instead.

    Without a prefix each row is an `artifacts.RowTuple`; with one (the run id) it is the task_results
    row in evaluation's TASK_COLUMNS order, attempt 1, ready for executemany. `as_columns` (no prefix): the
    RowTuples as their columns (`Columns`), as they are decoded, no tuple made per row.

    The results are checked and turned into rows a column at a time (C-speed list operations over the
    window's fields, no Python loop per result where a field is given as upstream gives it).
    """
    # a ':' written as an escape goes the strict way; a window without a backslash is known by one memchr-speed
    # scan, where searching for the escape scans at a twentieth of that speed (twice, it cost as much as decoding)
    if "\\" in text and _COLON_ESCAPE.search(text):
        return None
    try:
        results = _DECODER.decode("".join(("[", text, "]")))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    n = len(results)
    if not n:
        return None
    task_ids, passed, scores, durations, outputs, reasons, splits, mocks, judged, details, errors = \
        zip(*map(astuple, results), strict=True)
    # a key twice in a result (msgspec kept one): the window's ':' are one per key given plus those inside strings
    absent = [column.count(UNSET) for column in (scores, durations, outputs, reasons, splits, mocks, judged, details,
                                                 errors)]  # per optional key, the results without it
    no_score, no_duration, no_output, no_reason, no_split, no_mock, no_judged, no_details, no_error = absent
    keys = 2 * n + sum(n - unset for unset in absent)
    colons = "".join(task_ids).count(":")
    for column in (outputs, details, errors, reasons, splits):
        colons += "".join(filter(None, column)).count(":")  # its strings (UNSET, None and "" are falsy)
    for column, unset in ((mocks, no_mock), (judged, no_judged)):
        if unset != n:
            inside = _text_colons(column)
            if inside is None:
                return None
            colons += inside
    if text.count(":") != keys + colons:
        return None
    score_values = _absent_to(scores, None, no_score)
    if no_duration or len(set(map(type, durations))) > 1 or type(durations[0]) is not int:
        durations = tuple(0 if d is UNSET else int(d) for d in durations)
    if no_output or None in outputs:
        outputs = tuple(o or "" for o in outputs)
    detail_values, error_values = _absent_to(details, None, no_details), _absent_to(errors, None, no_error)
    passes = passed.count(True)
    # why a result failed: its reason, else upstream's `error` (a crash, a timeout) or `details` (the judge)
    if error_values.count(None) == n and detail_values.count(None) == n:  # then a reason given or null
        reason_values = _absent_to(reasons, None, no_reason)
    else:
        reason_values = [r if r is not None and r is not UNSET else None if p else (e or d or None)
                         for r, p, e, d in zip(reasons, passed, error_values, detail_values, strict=True)]
    split_values = _absent_to(splits, None, no_split)
    mock_any = no_mock != n and any(mocks)
    mock_values = [1 if m else 0 for m in mocks] if mock_any else repeat(0)
    judged_values = repeat(1) if no_judged == n else [0 if j is False else 1 for j in judged]
    columns = (task_ids, map(int, passed), judged_values, score_values, durations, outputs, reason_values,
               mock_values, split_values, detail_values, error_values)
    if as_columns:  # the endless repeat() columns made n long
        judged_column = [1] * n if isinstance(judged_values, repeat) else judged_values
        mock_column = [0] * n if isinstance(mock_values, repeat) else mock_values
        return Columns(n, ([side] * n, task_ids, list(map(int, passed)), judged_column, score_values, durations,
                           outputs, reason_values, mock_column, split_values, detail_values, error_values)), \
            passes, mock_any
    if not prefix:  # artifacts.RowTuple: no id, no run id, no attempt
        return list(zip(repeat(side, n), *columns, strict=False)), passes, mock_any  # repeat(): endless
    ahead: tuple[Any, ...] = (repeat(prefix[0]), repeat(side), task_ids, repeat(1), *columns[1:])
    return list(zip(*ahead, strict=False)), passes, mock_any  # the repeat() columns are endless
