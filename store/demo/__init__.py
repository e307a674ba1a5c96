"""The demo store: deterministic (seeded), realistic, built only through the store's functions.

Each module in this package is one part of the demo with `ORDER` (an int) and
`populate(db, rng, person) -> str` (a short summary); parts run in ORDER, so a
new area adds its own module and never edits this one. Parts run at the frozen DEMO_NOW (the same
store bytes on every build), except a part with `LIVE = True`, which runs at the real now.
"""

import importlib
import os
import pkgutil
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from sqlite_utils import Database

from gatepost.store.kernel import (
    SYNCHRONOUS,
    RefusedError,
    StoreError,
    append_event,
    freeze,
    now_iso,
    open_store,
)
from gatepost.store.loops import base_status

DEMO_MARK = "demo.built"
# The demo's "now": after every dated record of the demo, so the same seed gives the same store bytes
# (record times included) whenever it is built; see kernel.clock.
DEMO_NOW = "2026-12-01T09:00:00Z"


def _parts() -> list[ModuleType]:
    modules = [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)]
    return sorted((m for m in modules if hasattr(m, "populate")), key=lambda m: (m.ORDER, m.__name__))


def _is_demo_store(path: Path) -> bool:
    db = open_store(path, create=False)
    try:
        return db.execute("SELECT 1 FROM events WHERE kind = ? LIMIT 1", [DEMO_MARK]).fetchone() is not None
    finally:
        db.close()


def work_since_built(path: Path) -> dict[str, int]:
    """The events a demo store gained after it was built (leases left out: opening an item is not work),
    by kind: a person's decisions that replacing the store would throw away."""
    db = open_store(path, create=False)
    try:
        mark = db.execute("SELECT MAX(seq) FROM events WHERE kind = ?", [DEMO_MARK]).fetchone()[0]
        if mark is None:
            return {}
        rows = db.execute("SELECT kind, COUNT(*) FROM events WHERE seq > ? AND kind NOT LIKE 'lease.%' "
                          "GROUP BY kind ORDER BY COUNT(*) DESC, kind", [mark]).fetchall()
        return {str(kind): int(n) for kind, n in rows}
    finally:
        db.close()


def _loops_summary(db: Database) -> str:
    """Each loop's cases as the store holds them: how many, how many kept and recorded applied, how many kept and
    not landed yet, how many rest on content that is no longer current (stale: they cannot be kept until
    rebased)."""
    parts = []
    names = [name for (name,) in db.execute("SELECT name FROM loops ORDER BY name").fetchall()]
    for name in names:
        rows = db.execute("SELECT c.path, c.base_hash, c.event_seq, EXISTS(SELECT 1 FROM applications a"
                          " WHERE a.subject_type = 'case' AND a.subject_id = c.case_id), k.outcome"
                          " FROM loop_cases c JOIN cases k ON k.id = c.case_id WHERE c.loop = ?", [name]).fetchall()
        applied = sum(1 for row in rows if row[3])
        waiting = sum(1 for row in rows if not row[3] and row[4] == "kept")
        stale = sum(1 for row in rows if not row[3] and base_status(db, row[0], row[1], row[2]) is not None)
        parts.append(f"({name}): {len(rows)} cases, {applied} kept and applied, "
                     + (f"{waiting} kept not landed, " if waiting else "") + f"{stale} stale")
    return f"{len(names)} loop{'' if len(names) == 1 else 's'} " + " · ".join(parts) if names else "no loops"


def store_summary(db: Database) -> str:
    """What the demo store holds, counted from the store itself (never from what the parts meant to add)."""
    def one(sql: str, params: tuple[str, ...] = ()) -> int:
        return int(db.execute(sql, params).fetchone()[0])

    def split(sql: str) -> str:
        return ", ".join(f"{int(n)} {k}" for k, n in db.execute(sql).fetchall())

    held = one("SELECT COUNT(*) FROM leases WHERE expires_at > ?", (now_iso(),))
    return "; ".join(part for part in (
        f"{one('SELECT COUNT(*) FROM actors')} actors ({split('SELECT kind, COUNT(*) FROM actors GROUP BY kind ORDER BY kind')})",
        f"{one('SELECT COUNT(*) FROM skills')} skills ({split('SELECT state, COUNT(*) FROM regression_states GROUP BY state ORDER BY state')})",
        f"{one('SELECT COUNT(*) FROM manifest_drafts')} manifest drafts "
        f"({split('SELECT status, COUNT(*) FROM manifest_drafts GROUP BY status ORDER BY status')})",
        f"{one('SELECT COUNT(*) FROM cases')} cases ({split('SELECT status, COUNT(*) FROM cases GROUP BY status ORDER BY status')})",
        f"{one('SELECT COUNT(*) FROM evaluation_runs')} evaluation runs",
        f"{one('SELECT COUNT(*) FROM proposals')} proposals "
        f"({split('SELECT status, COUNT(*) FROM proposals GROUP BY status ORDER BY status')})",
        _loops_summary(db),
        f"{one('SELECT COUNT(*) FROM assignments')} items assigned",
        f"{one('SELECT COUNT(*) FROM comments')} comments ({one('SELECT COUNT(*) FROM comment_mentions')} mentions)",
        f"{held} items held by colleagues for 15 minutes" if held else "",
    ) if part)


def build_demo(path: str | os.PathLike[str], *, seed: int = 7, person: str, force: bool = False,
               progress: Callable[[str, int, int], None] | None = None) -> str:
    """Build the demo store at `path`, replacing an earlier demo store there (never another store, nor a demo
    store holding decisions made after it was built unless `force`); returns what the store holds.

    `progress(part, done, parts)`: called as each part of the demo (cases, skills, runs…) is about to be built,
    and once at the end (`part` "done"), for a display of how far the build is."""
    path = Path(path)
    if path.exists() and path.stat().st_size > 0 and not _is_demo_store(path):
        raise StoreError(f"{path}: holds a store that is not a demo store; refusing to replace it (use --db)")
    if path.exists() and path.stat().st_size > 0 and not force:
        work = work_since_built(path)
        if work:
            kinds = ", ".join(f"{kind} ×{n}" if n > 1 else kind for kind, n in list(work.items())[:3])
            more = ", …" if len(work) > 3 else ""
            count = sum(work.values())
            raise RefusedError(f"demo {path}: refused: newer-decisions: it holds {count} "
                               f"decision{'' if count == 1 else 's'} made after the demo was built ({kinds}{more}); "
                               "--force replaces them")
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    rng = random.Random(seed)
    parts = _parts()
    db = open_store(path)
    # a demo store is announced only once built: its thousands of acts need not each wait for the disk;
    # it is synced once, whole, at the end (and a build cut short is rebuilt, never used)
    db.execute("PRAGMA synchronous = OFF")
    built = 0

    def populate(part: ModuleType) -> None:
        nonlocal built
        if progress is not None:
            progress(part.__name__.rsplit(".", 1)[-1], built, len(parts))
        part.populate(db, rng, person)  # its own summary: the store is counted below
        built += 1

    try:
        with freeze(DEMO_NOW):
            for part in parts:
                if not getattr(part, "LIVE", False):
                    populate(part)
        # live parts (colleagues holding items for the next 15 minutes) happen at the real now, so the console
        # opened on the demo shows them held; under freeze() they too carry the frozen time
        for part in parts:
            if getattr(part, "LIVE", False):
                populate(part)
        with db.atomic():
            append_event(db, DEMO_MARK, actor=person, subject_type="store", subject_id=str(path.name),
                         payload={"seed": seed})
        db.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the whole store into the main file, synced
        if progress is not None:
            progress("done", len(parts), len(parts))
        return store_summary(db)
    finally:
        db.close()
