"""What CI needs to see beyond a skill's regression state.

- coverage: installed skills without a manifest are listed, never silently skipped;
- staleness: a skill whose newest output is older than its cadence (`--max-age 2d`) is `STALE`, not
  "PASS forever";
- acknowledgements with an expiry (`skills acknowledge SKILL --until DATE`): until then, `--fail-on`
  leaves out the failure acknowledged (its evaluation, and later ones where the same assertions fail:
  the acknowledgement carried forward); after it, or once the skill passed or failed on another
  assertion, the failure counts again.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gatepost.store import protocol
from gatepost.store.kernel import InputError, now_iso

if TYPE_CHECKING:
    from sqlite_utils import Database

STALE = "STALE"


MAX_AGE_SECONDS = 36_500 * 86_400  # a century


def parse_max_age(value: str | None, *, option: str = "--max-age") -> int | None:
    """`15m`, `36h`, `2d` in seconds (None when not given); anything else is bad input."""
    if value is None:
        return None
    seconds = protocol.age_seconds(value.strip())  # the interpreter loads only when an age is given
    if not seconds:
        raise InputError(f"{option}: expected an age such as 15m, 36h or 2d (a whole number and one unit of "
                         f"s, m, h, d), got {value!r}")
    if seconds > MAX_AGE_SECONDS:  # a time that far back is before any store; past it, date arithmetic overflows
        raise InputError(f"{option}: {value!r} is longer than the {MAX_AGE_SECONDS // 86400}d limit")
    return seconds


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def newest_output_at(db: Database, skill: str) -> str | None:
    """When the skill's newest run happened (any status), or None if it never ran."""
    row = db.execute("SELECT MAX(at) FROM skill_runs WHERE skill = ?", [skill]).fetchone()
    return row[0] if row else None


def staleness(db: Database, skill: str, max_age: int | None, *, now: str | None = None) -> str | None:
    """Why a skill is STALE (its newest output older than `max_age` seconds, or none at all), else None."""
    if max_age is None:
        return None
    newest = newest_output_at(db, skill)
    if newest is None:
        return f"{skill} has never produced an output"
    age = (_instant(now or now_iso()) - _instant(newest)).total_seconds()
    if age > max_age:
        return f"{skill}'s newest output is from {newest[:19]}Z, {age / 3600:.1f} h ago (max age {max_age / 3600:g} h)"
    return None


def acknowledged_until(db: Database, skill: str, *, now: str | None = None) -> dict[str, Any] | None:
    """The acknowledgement with an expiry still in the future that covers the skill's failure now, or None.

    It covers the failure it acknowledged, never the skill: the evaluation it named, or a later one it
    was carried forward to (`regression.carried`: the same assertions failing, no pass in between). A
    failure after a pass, or on a newly failing assertion, is a new one, whatever `until` said.
    """
    row = db.execute("SELECT seq, actor, note, payload FROM events WHERE kind = 'regression.acknowledged' AND "
                     "subject_type = 'skill' AND subject_id = ? ORDER BY seq DESC LIMIT 1", [skill]).fetchone()
    if not row:
        return None
    payload = json.loads(row[3]) if row[3] else {}
    until = payload.get("until")
    if not until or _instant(until) <= _instant(now or now_iso()):
        return None
    if not _covers(db, skill, payload.get("eval_id"), row[0]):
        return None
    return {"seq": row[0], "actor": row[1], "note": row[2], "until": until}


def _covers(db: Database, skill: str, acknowledged: Any, since: int) -> bool:
    """Whether the skill's current evaluation is the acknowledged one, or one it was carried forward to."""
    state = db.execute("SELECT last_eval_id, acknowledged_eval_id FROM regression_states WHERE skill = ?",
                       [skill]).fetchone()
    if state is None or state[1] is None or state[0] != state[1]:
        return False
    carried = {}
    for (text,) in db.execute("SELECT payload FROM events WHERE kind = 'regression.carried' AND subject_type = 'skill'"
                              " AND subject_id = ? AND seq > ? ORDER BY seq", [skill, since]).fetchall():
        data = json.loads(text) if text else {}
        carried[data.get("eval_id")] = data.get("from_eval_id")
    current, steps = state[1], 0
    while current != acknowledged and current in carried and steps <= len(carried):
        current, steps = carried[current], steps + 1
    return bool(current == acknowledged)


def triage(db: Database, skill: str) -> dict[str, Any] | None:
    """The newest triage of a skill (acknowledged or mismatch flagged): who, when, the note, an expiry."""
    row = db.execute("SELECT seq, at, actor, kind, note, payload FROM events WHERE subject_type = 'skill' AND "
                     "subject_id = ? AND kind IN ('regression.acknowledged', 'regression.mismatch') "
                     "ORDER BY seq DESC LIMIT 1", [skill]).fetchone()
    if not row:
        return None
    payload = json.loads(row[5]) if row[5] else {}
    return {"seq": row[0], "at": row[1], "actor": row[2], "kind": row[3].split(".")[-1], "note": row[4],
            "until": payload.get("until")}


def states_at(db: Database, seq: int) -> dict[str, str | None]:
    """Each skill's regression state as of event `seq` (from its skill.evaluated events)."""
    out: dict[str, str | None] = {}
    for subject, payload in db.execute("SELECT subject_id, payload FROM events WHERE kind = 'skill.evaluated' "
                                       "AND seq <= ? ORDER BY seq", [int(seq)]).fetchall():
        out[subject] = (json.loads(payload) if payload else {}).get("state")
    return out
