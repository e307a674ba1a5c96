"""One notion of time for the store: UTC, ISO 8601, microsecond precision, from one place.

`now()` is the only "now" of store and console (record times, lease expiry). In-process callers
freeze it with `freeze("2026-12-01T09:00:00Z")`, a context manager (tests, the demo builder,
`gatepost screenshots`), so they give the same bytes whenever they run. Nothing outside the process
moves it: no environment variable sets the clock of an installed gatepost, since a caller who could
would stamp decisions with any time and outlast another person's lease.
Order is never taken from these times (the store's sequence orders records); a frozen
clock only makes every record carry the same time.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from .errors import InputError

ISO_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
MIN_YEAR = 1000  # the first year whose %Y has four digits: every stored time sorts and parses as text

_frozen: list[datetime] = []  # a stack: freeze() nests


def _moment(value: str | datetime, *, field: str) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.strptime(parse_iso(value, field=field), ISO_FORMAT).replace(tzinfo=UTC)


def now() -> datetime:
    """The current time (UTC, aware), or the frozen one."""
    if _frozen:
        return _frozen[-1]
    return datetime.now(UTC)


def now_iso() -> str:
    """The current time as gatepost writes it everywhere (UTC, ISO 8601, 'Z')."""
    return now().strftime(ISO_FORMAT)


def is_frozen() -> bool:
    """True when `now()` is frozen (by freeze(), in this process)."""
    return bool(_frozen)


@contextmanager
def freeze(at: str | datetime) -> Iterator[datetime]:
    """Within the block, `now()` returns `at`: the same store and screens on every run."""
    moment = _moment(at, field="frozen clock")
    _frozen.append(moment)
    try:
        yield moment
    finally:
        _frozen.pop()


def parse_iso(value: str, *, field: str = "time") -> str:
    """Normalise a person's ISO 8601 time to gatepost's form; naive times are taken as UTC."""
    try:
        text = value.strip().replace("Z", "+00:00")
        moment = datetime.fromisoformat(text)
    except (ValueError, AttributeError):
        raise InputError(f"{field}: expected an ISO 8601 time such as 2026-12-02T10:00:00Z, got {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-01:00 is past year 9999 in UTC
        raise InputError(f"{field}: {value!r} is out of range (years {MIN_YEAR} to 9999 in UTC)") from None
    if moment.year < MIN_YEAR:  # strftime writes year 999 as '999': a time no reader of the store could parse
        raise InputError(f"{field}: {value!r} is out of range (years {MIN_YEAR} to 9999 in UTC)")
    return moment.strftime(ISO_FORMAT)
