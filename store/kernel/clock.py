"""One notion of time for the store: UTC, ISO 8601, second precision."""

from datetime import UTC, datetime

from .errors import InputError


def now_iso() -> str:
    """The current time as gatepost writes it everywhere (UTC, ISO 8601, 'Z')."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except OverflowError:  # 9999-12-31T23:59:59-01:00 is past year 9999 in UTC
        raise InputError(f"{field}: {value!r} is out of range (years 1 to 9999 in UTC)") from None
