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
from pathlib import Path
from types import ModuleType

from gatepost.store.kernel import StoreError, append_event, freeze, open_store

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


def build_demo(path: str | os.PathLike[str], *, seed: int = 7, person: str) -> str:
    """Build the demo store at `path`, replacing an earlier demo store there (never another store)."""
    path = Path(path)
    if path.exists() and path.stat().st_size > 0 and not _is_demo_store(path):
        raise StoreError(f"{path}: holds a store that is not a demo store; refusing to replace it (use --db)")
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    rng = random.Random(seed)
    summaries = []
    parts = _parts()
    db = open_store(path)
    try:
        with freeze(DEMO_NOW):
            for part in parts:
                if not getattr(part, "LIVE", False):
                    summaries.append(part.populate(db, rng, person))
        # live parts (colleagues holding items for the next 15 minutes) happen at the real now, so the console
        # opened on the demo shows them held; a frozen GATEPOST_FROZEN_CLOCK still gives the same bytes
        for part in parts:
            if getattr(part, "LIVE", False):
                summaries.append(part.populate(db, rng, person))
        with db.atomic():
            append_event(db, DEMO_MARK, actor=person, subject_type="store", subject_id=str(path.name),
                         payload={"seed": seed})
    finally:
        db.close()
    return "; ".join(s for s in summaries if s)
