"""The CLI and the console agree: skills worst first in `skills show` and `report regressions` as on the
Regressions screen; `events` says what each decision was, gives the newest N, and leaves lease events out."""

import json

import pytest

from gatepost.store.kernel import open_store
from gatepost.store.views import worst_first
from tests.conftest import run_gatepost


def _console_order(path) -> list[str]:
    db = open_store(path)
    rows, _total = worst_first(db, limit=1000)
    db.close()
    return [r["skill"] for r in rows]


@pytest.mark.slow
def test_skills_show_and_the_report_list_skills_worst_first_as_the_console(demo_copy):
    shown = run_gatepost("--db", str(demo_copy), "skills", "show", "--json")
    assert shown.returncode == 0, shown.stderr
    order = _console_order(demo_copy)
    assert [r["skill"] for r in json.loads(shown.stdout)] == order
    report = run_gatepost("--db", str(demo_copy), "report", "regressions", "--json", "--no-remember")
    assert report.returncode == 0, report.stderr
    assert [r["skill"] for r in json.loads(report.stdout)["skills"]] == order


@pytest.mark.slow
def test_events_last_n_no_leases_and_the_outcome(demo_copy):
    every = run_gatepost("--db", str(demo_copy), "events", "--json", "--limit", "10000")
    events = [json.loads(line) for line in every.stdout.splitlines()]
    assert any(e["kind"].startswith("lease.") for e in events)
    last = run_gatepost("--db", str(demo_copy), "events", "--last", "5")
    assert last.returncode == 0, last.stderr
    seqs = [int(line.split()[0][1:]) for line in last.stdout.splitlines()]
    assert seqs == [e["seq"] for e in events[-5:]]  # the newest five, oldest first
    quiet = run_gatepost("--db", str(demo_copy), "events", "--no-leases", "--json", "--limit", "10000")
    kept = [json.loads(line) for line in quiet.stdout.splitlines()]
    assert kept and not any(e["kind"].startswith("lease.") for e in kept)
    assert len(kept) == len([e for e in events if not e["kind"].startswith("lease.")])
    decided = next(e for e in events if e["kind"] == "case.decided")
    text = run_gatepost("--db", str(demo_copy), "events", "--since", str(decided["seq"] - 1), "--limit", "1")
    assert f"case.decided → {decided['payload']['outcome']} case:" in text.stdout
