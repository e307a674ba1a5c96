"""`gatepost demo` never silently throws away work done on a demo store, and says what the store holds."""

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import run_gatepost


@pytest.mark.slow
def test_a_demo_store_with_newer_decisions_is_kept_unless_forced(tmp_path: Path, demo_store: Path):
    db = tmp_path / "demo.db"
    shutil.copy(demo_store, db)  # a demo store `gatepost demo` built (tests/conftest.py)
    again = run_gatepost("--db", str(db), "demo", "--no-console", "-q", "--as", "ana")
    assert again.returncode == 0, again.stderr  # nothing decided since: rebuilt
    with sqlite3.connect(db) as conn:  # the summary counts what the store holds
        cases = conn.execute("SELECT COUNT(*) FROM cases").fetchone()[0]
        runs = conn.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0]
    assert f" {cases} cases (" in again.stdout and f" {runs} evaluation runs" in again.stdout
    decided = run_gatepost("--db", str(db), "case", "decide", "case-0002", "kept", "--note", "fine", "--as", "ana")
    assert decided.returncode == 0, decided.stderr
    refused = run_gatepost("--db", str(db), "demo", "--no-console", "-q", "--as", "ana")
    assert refused.returncode == 3 and refused.stdout == ""
    assert refused.stderr.strip().count("\n") == 0 and "Traceback" not in refused.stderr
    assert "refused: newer-decisions" in refused.stderr and "1 decision made after the demo was built" in refused.stderr
    assert "--force" in refused.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT outcome FROM cases WHERE id = 'case-0002'").fetchone()[0] == "kept"  # untouched
    forced = run_gatepost("--db", str(db), "demo", "--no-console", "-q", "--as", "ana", "--force")
    assert forced.returncode == 0, forced.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT outcome FROM cases WHERE id = 'case-0002'").fetchone()[0] is None
