"""Actors (people and producers) and the capabilities that give them authority."""

from sqlite_utils import Database

from .clock import now_iso
from .db import transaction
from .errors import InputError, RefusedError
from .events import append_event

KINDS = ("person", "producer")

# Every capability gatepost knows, and what it lets an actor do.
CAPABILITIES: dict[str, str] = {
    "loop_change.keep": "keep a loop's change once every keep claim holds",
    "loop_change.apply_outside_surface": "apply a change outside the loop's surface (never a loop's)",
    "eval_design.review": "review an evaluation design (design_review evidence)",
    "case.close": "close a case as rejected, proposed or inconclusive",
    "proposal.review": "mark a proposal accepted, declined or needs changes",
    "manifest.review": "import manifests and approve or reject manifest drafts",
    "regression.triage": "acknowledge regressions and flag manifest mismatches",
    "evidence.record": "record evidence, skill runs and evaluation runs as a producer",
    "store.admin": "add actors, grant capabilities, register and change loops, record applied content",
}
# What a loop (a producer) may never hold.
NEVER_FOR_PRODUCERS = frozenset({"loop_change.apply_outside_surface", "store.admin"})
# Every capability a person may hold: what `gatepost demo` gives the person who runs it.
PERSON_CAPABILITIES = tuple(sorted(CAPABILITIES))


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not name or any(ch.isspace() for ch in name) or len(name) > 100:
        raise InputError(f"actor name: expected a non-empty name without spaces, got {name!r}")
    return name


def add_actor(db: Database, name: str, kind: str = "person", capabilities: tuple[str, ...] | list[str] = (),
              *, by: str | None = None) -> dict:
    """Create an actor (or grant more capabilities to an existing one of the same kind)."""
    name = _check_name(name)
    if kind not in KINDS:
        raise InputError(f"--kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    for cap in capabilities:
        if cap not in CAPABILITIES:
            raise InputError(f"--capability: unknown capability {cap!r}; known: {', '.join(CAPABILITIES)}")
        if kind == "producer" and cap in NEVER_FOR_PRODUCERS:
            raise RefusedError(f"--capability: {cap} is never granted to a loop (producer {name})")
    with transaction(db):
        existing = get_actor(db, name)
        if existing and existing["kind"] != kind:
            raise InputError(f"actor {name}: already exists as a {existing['kind']}, not a {kind}")
        if not existing:
            db["actors"].insert({"name": name, "kind": kind, "created_at": now_iso()})
            append_event(db, "actor.added", actor=by, subject_type="actor", subject_id=name,
                         payload={"kind": kind})
        have = set(capabilities_of(db, name))
        for cap in capabilities:
            if cap in have:
                continue
            db["capabilities"].insert({"actor": name, "capability": cap, "granted_by": by,
                                       "granted_at": now_iso()})
            append_event(db, "capability.granted", actor=by, subject_type="actor", subject_id=name,
                         payload={"capability": cap})
    return get_actor(db, name)


def ensure_producer(db: Database, name: str) -> None:
    """Producers named by imported files are registered on first sight, with no capabilities."""
    if not get_actor(db, name):
        add_actor(db, name, "producer")


def get_actor(db: Database, name: str) -> dict | None:
    rows = list(db["actors"].rows_where("name = ?", [name]))
    if not rows:
        return None
    actor = dict(rows[0])
    actor["capabilities"] = capabilities_of(db, name)
    return actor


def capabilities_of(db: Database, name: str) -> list[str]:
    return [r["capability"] for r in db["capabilities"].rows_where("actor = ?", [name], order_by="capability")]


def list_actors(db: Database) -> list[dict]:
    caps: dict[str, list[str]] = {}
    for row in db["capabilities"].rows_where(order_by="actor, capability"):
        caps.setdefault(row["actor"], []).append(row["capability"])
    return [dict(row, capabilities=caps.get(row["name"], [])) for row in db["actors"].rows_where(order_by="name")]
