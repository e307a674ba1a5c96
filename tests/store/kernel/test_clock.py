"""The clock seam: one "now" for store and console, frozen for the demo, screenshots and tests."""

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gatepost.store.cases import import_case
from gatepost.store.demo import DEMO_NOW, build_demo
from gatepost.store.kernel import (
    add_actor,
    freeze,
    now,
    now_iso,
    open_store,
)
from gatepost.store.kernel import take as take_lease
from tests.conftest import ROOT, run_gatepost

BASIS = {"baseline": "b-1", "question_set": "q-1", "data_revision": "d-1", "design": "x-1"}


def test_freeze_fixes_now_and_nests():
    with freeze("2026-12-01T09:00:00Z") as moment:
        assert now() == moment == datetime(2026, 12, 1, 9, tzinfo=UTC)
        assert now_iso() == "2026-12-01T09:00:00.000000Z"
        with freeze("2030-01-01T00:00:00+01:00"):
            assert now_iso() == "2029-12-31T23:00:00.000000Z"
        assert now_iso() == "2026-12-01T09:00:00.000000Z"
    assert now().year >= 2026 and now_iso() != "2026-12-01T09:00:00.000000Z"


def test_records_and_leases_take_the_frozen_time(store_path: Path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", ["case.close"])  # a lease is for who could decide the item
    import_case(db, {"id": "case-0001", "title": "A case to lease", "author": "run-41",  # a lease needs its item
                     "candidate": {"path": "procedures/a.md", "content": "x", "basis": BASIS}},
                actor="ana")
    with freeze("2026-12-01T09:00:00Z"):
        lease = take_lease(db, "case", "case-0001", "ana")
    at = db.execute("SELECT at FROM events ORDER BY seq DESC LIMIT 1").fetchone()[0]
    db.close()
    assert at == "2026-12-01T09:00:00.000000Z"
    assert lease["expires_at"] == "2026-12-01T09:15:00.000000Z"


def test_no_environment_variable_moves_the_clock_of_an_installed_gatepost(tmp_path: Path):
    """A caller who could set the store's clock would stamp decisions with any time and outlast a lease."""
    store = tmp_path / "store.db"
    env = {"GATEPOST_FROZEN_CLOCK": "2099-01-01T00:00:00Z", "GATEPOST_REVIEWER": ""}
    assert run_gatepost("--db", str(store), "init", "--admin", "ana", env=env).returncode == 0
    stamped = sqlite3.connect(store).execute("SELECT MIN(at), MAX(at) FROM events").fetchone()
    assert stamped[0][:4] != "2099" and stamped[1][:4] != "2099"
    assert abs(datetime.fromisoformat(stamped[1].replace("Z", "+00:00")) - datetime.now(UTC)).total_seconds() < 300


def test_no_other_wall_clock_in_store_or_console():
    """Every record time comes from kernel.clock: no datetime.now()/time.time() elsewhere."""
    pattern = re.compile(r"datetime\.now\(|datetime\.utcnow\(|time\.time\(|date\.today\(")
    offenders = []
    for folder in ("store", "console"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == ROOT / "store" / "kernel" / "clock.py":
                continue
            for number, text in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(text):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {text.strip()}")
    assert offenders == []


@pytest.mark.slow
def test_the_demo_is_the_same_store_whenever_it_is_built(tmp_path: Path, demo_store: Path, built_demo: Path):
    def dump(path: Path) -> list:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT seq, at, actor, kind, subject_id, payload FROM events ORDER BY seq").fetchall()

    # built through the CLI now, against the one this test process built earlier (tests/conftest.py)
    again = run_gatepost("--db", str(tmp_path / "demo.db"), "demo", "--no-console", "-q", "--as", "ana")
    assert again.returncode == 0, again.stderr
    a, b = dump(demo_store), dump(tmp_path / "demo.db")
    # the same store, but for the times of the live part (colleagues' leases, taken at the real now so the
    # console opened on the demo shows them held) and of the mark that closes the build
    live = ("lease.taken", "lease.released", "demo.built")
    assert len(a) > 100 and [e if e[3] not in live else (e[0], e[2], e[3], e[4]) for e in a] == \
        [e if e[3] not in live else (e[0], e[2], e[3], e[4]) for e in b]
    assert [e for e in a if e[3] not in live] == [e for e in b if e[3] not in live]
    # under a frozen clock (as `gatepost screenshots` builds it, in-process) every byte of every event is
    # the same on every build, the live part included
    (tmp_path / "frozen").mkdir()
    with freeze(DEMO_NOW):
        build_demo(tmp_path / "frozen" / "demo.db", seed=7, person="ana")
    assert dump(tmp_path / "frozen" / "demo.db") == dump(built_demo)


@pytest.mark.slow
def test_screenshots_are_byte_identical_to_the_committed_ones(tmp_path: Path):
    """Frozen clock, fixed store name: a run gives the SVGs in screenshots/ byte for byte (on any machine, from
    any checkout), so the committed pictures are the product as it is."""
    first = run_gatepost("screenshots", "--out", str(tmp_path / "one"), timeout=180)
    assert first.returncode == 0, first.stderr
    one = sorted(p.name for p in (tmp_path / "one").glob("*.svg"))
    assert len(one) >= 14 and one == sorted(p.name for p in (ROOT / "screenshots").glob("*.svg"))
    differ = [n for n in one if (tmp_path / "one" / n).read_bytes() != (ROOT / "screenshots" / n).read_bytes()]
    assert differ == [], "regenerate with `gatepost screenshots` and look at them"
    overview = (tmp_path / "one" / "01-overview.svg").read_text()
    assert "demo.db" in overview and "/tmp" not in overview and str(tmp_path) not in overview
