"""`gatepost verify` rebuilds every record and list from the events: any hand edit of a table is a named finding."""

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlite_utils import Database

from gatepost.store import cases, flows, skills
from gatepost.store.kernel import bind, freeze, grant, revoke
from gatepost.store.views import verify_store
from gatepost.store.views.replay import NOT_COMPARED, TABLE, TABLES
from tests.conftest import run_gatepost


@pytest.fixture(scope="module")
def demo_bytes(demo_store: Path) -> sqlite3.Connection:
    """The demo store in memory, copied for each edit (a copy of the file per example would be slower)."""
    memory = sqlite3.connect(":memory:")
    source = sqlite3.connect(demo_store)
    source.backup(memory)
    source.close()
    return memory


def _copy(memory: sqlite3.Connection) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    memory.backup(conn)
    return conn


def _edit(conn: sqlite3.Connection, *statements: str, params: list | None = None) -> None:
    """An attacker with the file: drop every trigger, edit, and put the triggers back as they were."""
    saved = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in saved:
        conn.execute(f"DROP TRIGGER {name}")
    for statement in statements:
        conn.execute(statement, params or [])
    for _, text in saved:
        conn.execute(text)
    conn.commit()


def _findings(conn: sqlite3.Connection) -> str:
    return "\n".join(verify_store(Database(conn)).findings)


def test_the_demo_store_verifies_clean(demo_bytes):
    assert _findings(_copy(demo_bytes)) == ""


EDITS = [
    ("UPDATE evidence SET details = json_remove(details, '$.mock') WHERE id = (SELECT MIN(id) FROM evidence"
     " WHERE json_extract(details, '$.mock') = 1)", "details.mock: the events say true"),
    ("UPDATE evidence SET about = (SELECT current_revision FROM cases c WHERE c.id = evidence.case_id) WHERE id ="
     " (SELECT MIN(e.id) FROM evidence e JOIN cases c ON c.id = e.case_id WHERE e.artifact = 'candidate'"
     " AND e.about != c.current_revision)", "about: the events say"),
    ("INSERT INTO evidence (case_id, kind, result, producer, artifact, about, observed_at, details, event_seq,"
     " recorded_by) SELECT e.case_id, e.kind, e.result, e.producer, e.artifact, c.current_revision, e.observed_at,"
     " e.details, e.event_seq, e.recorded_by FROM evidence e JOIN cases c ON c.id = e.case_id"
     " WHERE e.artifact = 'candidate' AND e.about != c.current_revision LIMIT 1",
     "a second row with this key; a copy was inserted by hand"),
    ("INSERT INTO evidence (case_id, kind, result, producer, artifact, about, observed_at, details, recorded_by)"
     " SELECT case_id, kind, result, producer, artifact, about, observed_at, details, recorded_by FROM evidence"
     " LIMIT 1", "no event made this row; it was inserted by hand"),
    ("UPDATE cases SET author = 'someone-else' WHERE id = (SELECT MIN(id) FROM cases)", "author: the events say"),
    ("UPDATE cases SET independent = '{}' WHERE id = (SELECT MIN(id) FROM cases)", "independent"),
    ("UPDATE cases SET current_revision = 'abc' WHERE id = (SELECT MIN(id) FROM cases)", "current_revision"),
    ("UPDATE cases SET candidate_path = 'elsewhere.md' WHERE id = (SELECT MIN(id) FROM cases)", "candidate_path"),
    ("UPDATE candidate_revisions SET content = '\"forged\"' WHERE (case_id, revision) = (SELECT id, current_revision"
     " FROM cases WHERE outcome = 'kept' LIMIT 1)", "content: the events say"),
    ("UPDATE actors SET kind = 'person' WHERE name = (SELECT MIN(name) FROM actors WHERE kind = 'producer')",
     "kind: the events say 'producer'"),
    ("UPDATE regression_states SET state = 'PASS', severity = NULL WHERE skill = (SELECT MIN(skill)"
     " FROM regression_states WHERE state = 'NEW_FAIL')", "state: the events say 'NEW_FAIL'"),
    ("UPDATE skill_evals SET passed = 1 WHERE id = (SELECT MIN(id) FROM skill_evals WHERE passed = 0)",
     "passed: the events say 0"),
    ("UPDATE assertion_results SET passed = 1 WHERE id = (SELECT MIN(id) FROM assertion_results WHERE passed = 0)",
     "passed: the events say 0"),
    ("UPDATE gate_results SET passed = 1 WHERE id = (SELECT MIN(id) FROM gate_results WHERE passed = 0)",
     "passed: the events say 0"),
    ("DELETE FROM decisions WHERE id = (SELECT MIN(id) FROM decisions)", "it was deleted by hand"),
    ("UPDATE manifests SET active_version_id = (SELECT MIN(id) FROM manifest_versions)"
     " WHERE active_version_id != (SELECT MIN(id) FROM manifest_versions)", "active_version_id"),
    ("UPDATE leases SET holder = 'mallory' WHERE rowid = (SELECT MIN(rowid) FROM leases)", "holder"),
    ("UPDATE evidence SET details = json_set(details, '$.mock', 1) WHERE id = (SELECT MIN(id) FROM evidence"
     " WHERE json_type(details, '$.mock') = 'true')", "details.mock: the events say true"),
    ("UPDATE cases SET needs_decision = 1 - needs_decision WHERE id = (SELECT MIN(id) FROM cases"
     " WHERE status = 'open')", "needs_decision: the events say"),
    ("UPDATE cases SET allowed = '[]' WHERE id = (SELECT MIN(id) FROM cases WHERE allowed != '[]')",
     "allowed: the events say"),
    ("UPDATE cases SET claims = json_set(claims, '$.\"tuning.improved\"', 'TRUE') WHERE id = (SELECT MIN(id)"
     " FROM cases WHERE json_extract(claims, '$.\"tuning.improved\"') != 'TRUE')",
     "claims.tuning.improved: the events say"),
    ("UPDATE cases SET last_seq = last_seq - 1 WHERE id = (SELECT MIN(id) FROM cases)", "last_seq: the events say"),
    ("UPDATE skills SET created_at = '2020-01-01T00:00:00Z' WHERE name = (SELECT MIN(name) FROM skills)",
     "created_at: the events say"),
    ("UPDATE evaluation_runs SET verdict = 'pass' WHERE id = (SELECT MIN(id) FROM evaluation_runs"
     " WHERE verdict != 'pass')", "verdict: the events say"),
    ("UPDATE evaluation_runs SET execution_pass_rate = 1.0 WHERE id = (SELECT MIN(id) FROM evaluation_runs"
     " WHERE execution_pass_rate < 1)", "execution_pass_rate: the events say"),
    ("UPDATE task_suites SET yaml = yaml || ' ' WHERE id = (SELECT MIN(id) FROM task_suites)", "yaml: the events say"),
    ("DELETE FROM loop_cases WHERE case_id = (SELECT MIN(case_id) FROM loop_cases)", "it was deleted by hand"),
]


@pytest.mark.slow
@pytest.mark.parametrize("statement, words", EDITS, ids=[w for _, w in EDITS])
def test_each_hand_edit_is_a_named_finding(demo_bytes, statement: str, words: str):
    conn = _copy(demo_bytes)
    _edit(conn, statement)
    assert conn.total_changes, "the edit changed nothing: the demo store lacks what it edits"
    found = _findings(conn)
    assert words in found, found


def test_a_revision_that_changes_nothing_writes_nothing(demo_bytes):
    """A case's cached columns move only with an event about it (verify rebuilds them from those events)."""
    conn = _copy(demo_bytes)
    db = Database(conn)
    case_id, updated = db.execute("SELECT id, updated_at FROM cases WHERE status = 'open' ORDER BY id").fetchone()
    with freeze("2099-01-01T00:00:00Z"):
        cases.revise_candidate(db, case_id, actor=None)
    assert db.execute("SELECT updated_at FROM cases WHERE id = ?", [case_id]).fetchone()[0] == updated
    assert _findings(conn) == ""


def test_a_case_revised_through_gatepost_verifies_clean(demo_bytes):
    """Each act that brings a case's cached columns up to date is one verify replays (cases.PROJECTING)."""
    conn = _copy(demo_bytes)
    db = Database(conn)
    case_id, listed = db.execute("SELECT id, independent FROM cases WHERE status = 'open' ORDER BY id").fetchone()
    independent = {dimension: [*names, "run-99"] for dimension, names in json.loads(listed).items()}
    with freeze("2099-01-01T00:00:00Z"):
        cases.revise_candidate(db, case_id, actor=None, independent=independent, content={"edited": True})
    assert _findings(conn) == ""


def test_a_revoked_admin_inserted_again_is_found(demo_bytes):
    conn = _copy(demo_bytes)
    db = Database(conn)
    name = db.execute("SELECT MIN(name) FROM actors WHERE kind = 'person' AND name NOT IN"
                      " (SELECT actor FROM capabilities WHERE capability = 'store.admin')").fetchone()[0]
    grant(db, name, "store.admin", by=None)
    revoke(db, name, "store.admin", by=None)
    assert _findings(conn) == ""
    _edit(conn, "INSERT INTO capabilities (actor, capability, granted_by, granted_at) VALUES (?, 'store.admin',"
                " NULL, '2026-12-01T00:00:00Z')", params=[name])
    assert f"capabilities {name}/store.admin: no event made this row" in _findings(conn)


def test_a_cleared_binding_is_found(demo_bytes):
    conn = _copy(demo_bytes)
    db = Database(conn)
    name = db.execute("SELECT MIN(name) FROM actors WHERE kind = 'person'").fetchone()[0]
    bind(db, name, "someone", by=None)
    _edit(conn, "UPDATE actors SET os_user = NULL WHERE name = ?", params=[name])
    assert f"actors {name}: os_user: the events say 'someone'" in _findings(conn)


def test_a_rejected_case_reopened_and_decided_again_is_two_decisions(demo_bytes):
    conn = _copy(demo_bytes)
    db = Database(conn)
    case_id, actor = db.execute(
        "SELECT d.case_id, d.actor FROM decisions d WHERE d.outcome = 'rejected' AND NOT EXISTS (SELECT 1 FROM"
        " actor_keys k WHERE k.actor = d.actor) AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.subject_id ="
        " d.case_id) ORDER BY d.id LIMIT 1").fetchone()
    _edit(conn, "UPDATE cases SET status = 'open', outcome = NULL WHERE id = ?", params=[case_id])
    flows.decide(db, case_id, "rejected", actor=actor, note="again")
    found = _findings(conn)
    assert f"case {case_id}: decided twice" in found, found


def test_a_rejected_draft_reopened_and_approved_is_two_decisions(demo_bytes):
    conn = _copy(demo_bytes)
    db = Database(conn)
    draft = db.execute("SELECT MIN(id) FROM manifest_drafts WHERE status = 'rejected'").fetchone()[0]
    reviewer = db.execute("SELECT MIN(c.actor) FROM capabilities c WHERE c.capability = 'manifest.review'"
                          " AND NOT EXISTS (SELECT 1 FROM actor_keys k WHERE k.actor = c.actor)").fetchone()[0]
    _edit(conn, "UPDATE manifest_drafts SET status = 'pending', decided_at = NULL WHERE id = ?", params=[draft])
    skills.approve_draft(db, draft, actor=reviewer)
    found = _findings(conn)
    assert f"draft {draft}: decided twice" in found, found


def test_triggers_replaced_by_same_named_ones_that_never_fire_are_found(demo_copy: Path):
    conn = sqlite3.connect(demo_copy)
    for name, table in conn.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'"
                                         ).fetchall():
        conn.execute(f"DROP TRIGGER {name}")
        verb = "UPDATE" if name.endswith("_update") else "DELETE"
        conn.execute(f"CREATE TRIGGER {name} BEFORE {verb} ON {table} WHEN 0 BEGIN SELECT RAISE(ABORT, 'no'); END")
    conn.commit()
    conn.close()
    refused = run_gatepost("--db", str(demo_copy), "actors", "add", "zoe", "--as", "ana")
    assert refused.returncode == 2 and "append-only triggers are missing" in refused.stderr
    found = run_gatepost("--db", str(demo_copy), "verify")
    assert found.returncode == 1 and "not what the schema makes (actor_keys_no_delete" in found.stdout
    conn = sqlite3.connect(demo_copy)
    with pytest.raises(sqlite3.DatabaseError, match="decisions is append-only"):
        conn.execute("UPDATE decisions SET outcome = 'kept'")
    conn.close()


def test_verify_json_prints_the_findings(demo_copy: Path):
    conn = sqlite3.connect(demo_copy)
    _edit(conn, "UPDATE cases SET author = 'x' WHERE id = (SELECT MIN(id) FROM cases)")
    conn.close()
    done = run_gatepost("--db", str(demo_copy), "verify", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["intact"] is False and any("author: the events say" in f for f in report["findings"])


# --- every column of every table ---------------------------------------------------------------------
def _columns() -> list[tuple[str, str]]:
    return [(t.name, c) for t in TABLES for c in (*t.key, *t.columns)]


def test_every_column_of_a_rebuilt_table_is_compared(demo_bytes):
    """A column added to a table verify rebuilds is compared, or said not to be (NOT_COMPARED)."""
    for table in TABLES:
        stored = [r[1] for r in demo_bytes.execute(f"PRAGMA table_info([{table.name}])")]
        loose = [c for c in stored if c not in (*table.key, *table.columns)
                 and c not in NOT_COMPARED and f"{table.name}.{c}" not in NOT_COMPARED]
        assert not loose, f"{table.name}: {loose} neither compared nor in replay.NOT_COMPARED"


def _changed(value):
    """Another value of the same kind (what a hand edit would write)."""
    if value is None:
        return "x"
    if isinstance(value, bool | int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value + "x"
        return json.dumps({"edited": parsed}) if not isinstance(parsed, str) else value + "x"
    return "x"


def _edit_one(memory: sqlite3.Connection, table: str, column: str, pick: int) -> tuple[sqlite3.Connection, str | None]:
    """One column of one row edited by hand; the row's key as verify names it (None: SQLite refused the edit)."""
    conn = _copy(memory)
    keys = TABLE[table].key
    rows = conn.execute(f"SELECT rowid, [{column}], {', '.join(keys)} FROM [{table}] ORDER BY rowid").fetchall()
    assert rows, f"the demo store has no {table} row"
    rowid, value, *key = rows[pick % len(rows)]
    for edited in (_changed(value), *([value + 1_000_003] if isinstance(value, int) else [])):
        try:
            _edit(conn, f"UPDATE [{table}] SET [{column}] = ? WHERE rowid = ?", params=[edited, rowid])
        except sqlite3.IntegrityError:  # SQLite itself refuses the edit (an id taken by another row): another
            conn = _copy(memory)
            continue
        return conn, "/".join(str(k) for k in key)
    return conn, None


def _named(conn: sqlite3.Connection, table: str, column: str, key: str) -> None:
    """verify finds the edit (exit 1) and names the table, the row and the column (a key column: the row the
    events made is gone)."""
    report = verify_store(Database(conn))
    found = "\n".join(report.findings)
    assert not report.intact, (table, column, "verify found nothing")
    if column in TABLE[table].key:
        assert f"{table} {key}: the events made this row" in found, (table, column, found)
    else:
        assert f"{table} {key}: {column}" in found, (table, column, found)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.sampled_from(_columns()), pick=st.integers(min_value=0, max_value=10_000))
def test_any_column_edited_by_hand_is_named(demo_bytes, target: tuple[str, str], pick: int):
    table, column = target
    conn, key = _edit_one(demo_bytes, table, column, pick)
    if key is not None:
        _named(conn, table, column, key)


@pytest.mark.slow
@pytest.mark.parametrize("table, column", _columns())
def test_every_column_edited_by_hand_is_named(demo_bytes, table: str, column: str):
    conn, key = _edit_one(demo_bytes, table, column, 0)
    assert key is not None, f"SQLite refused editing {table}.{column}"
    _named(conn, table, column, key)
