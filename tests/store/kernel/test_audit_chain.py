"""A tamper-evident audit: hand edits of events, records or lists are found by `gatepost verify`."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database

from gatepost.store.demo.signed import DEMO_NEW_PRIVATE_KEY
from gatepost.store.kernel import GENESIS, canonical_event, chain_hash, open_store
from gatepost.store.kernel import append_event as append
from gatepost.store.schema import migrations
from tests.conftest import run_gatepost


@pytest.fixture
def store(demo_copy: Path) -> Path:
    """A fresh copy of the demo store (tests/conftest.py) for each test to damage."""
    return demo_copy


def sql(path: Path, *statements: str, unguarded: str | None = None) -> None:
    """Edit the store as an attacker with the file would: drop a table's triggers, edit, put them back."""
    conn = sqlite3.connect(path)
    saved = []
    if unguarded:
        saved = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?",
                             [unguarded]).fetchall()
        for name, _ in saved:
            conn.execute(f"DROP TRIGGER {name}")
    for statement in statements:
        conn.execute(statement)
    for _, text in saved:
        conn.execute(text)
    conn.commit()
    conn.close()


def verify(path: Path, *args: str):
    return run_gatepost("--db", str(path), "verify", *args)


def one(path: Path, query: str):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(query).fetchone()
    finally:
        conn.close()


@pytest.mark.slow
def test_an_untouched_store_is_intact_and_prints_its_head(store: Path):
    result = verify(store)
    assert result.returncode == 0, result.stdout + result.stderr
    seq, digest = one(store, "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")
    assert f"head: event {seq} sha256 {digest}" in result.stdout
    assert "intact" in result.stdout
    assert verify(store, "--expect", digest).returncode == 0


def test_every_event_links_to_the_one_before(store: Path):
    conn = sqlite3.connect(store)
    rows = conn.execute("SELECT seq, at, actor, kind, subject_type, subject_id, revision, note, payload,"
                        " prev_hash, hash FROM events ORDER BY seq").fetchall()
    conn.close()
    prev = GENESIS
    for row in rows:
        assert row[9] == prev
        assert row[10] == chain_hash(prev, canonical_event(*row[:9]))
        prev = row[10]


def test_an_edited_event_payload_is_found_naming_its_seq(store: Path):
    seq = one(store, "SELECT seq FROM events WHERE kind = 'case.decided' ORDER BY seq LIMIT 1")[0]
    sql(store, f"UPDATE events SET payload = replace(payload, '\"outcome\": \"', '\"outcome\": \"x') WHERE seq = {seq}",
        unguarded="events")
    result = verify(store)
    assert result.returncode == 1
    assert f"event {seq}: content does not match its hash" in result.stdout
    assert f"first broken at event {seq}" in result.stdout


def test_a_deleted_event_is_found(store: Path):
    seq = one(store, "SELECT seq FROM events WHERE kind = 'evidence.added' ORDER BY seq LIMIT 1 OFFSET 10")[0]
    sql(store, f"DELETE FROM events WHERE seq = {seq}", unguarded="events")
    result = verify(store)
    assert result.returncode == 1
    assert f"event {seq}: missing" in result.stdout
    assert f"first broken at event {seq}" in result.stdout


def test_an_edited_decision_record_is_found(store: Path):
    case_id, outcome, seq = one(store, "SELECT case_id, outcome, event_seq FROM decisions WHERE outcome != 'kept'"
                                       " LIMIT 1")
    sql(store, f"UPDATE decisions SET outcome = 'kept' WHERE case_id = '{case_id}'",
        f"UPDATE cases SET outcome = 'kept' WHERE id = '{case_id}'", unguarded="decisions")
    result = verify(store)
    assert result.returncode == 1
    assert f"decisions {seq}: outcome: the events say '{outcome}' (event {seq}), the table holds 'kept'" \
        in result.stdout
    assert f"cases {case_id}: outcome: the events say '{outcome}'" in result.stdout


def test_a_forged_decision_with_its_event_and_projection_is_found(store: Path):
    """The attack of the issue: rewrite a decision, its event and the projection, restore the triggers."""
    case_id, seq = one(store, "SELECT case_id, event_seq FROM decisions WHERE outcome = 'rejected' LIMIT 1")
    sql(store, f"UPDATE events SET payload = replace(payload, '\"rejected\"', '\"kept\"') WHERE seq = {seq}",
        unguarded="events")
    sql(store, f"UPDATE decisions SET outcome = 'kept' WHERE event_seq = {seq}",
        f"UPDATE cases SET outcome = 'kept' WHERE id = '{case_id}'", unguarded="decisions")
    result = verify(store)
    assert result.returncode == 1
    assert f"event {seq}: content does not match its hash" in result.stdout
    shown = run_gatepost("--db", str(store), "case", "show", case_id)
    assert "kept" in shown.stdout  # every command shows the forgery; only verify can tell


@pytest.mark.slow
@pytest.mark.parametrize("edit, words", [
    ("UPDATE cases SET status = 'open', outcome = NULL WHERE id = (SELECT case_id FROM decisions LIMIT 1)",
     "status: the events say 'closed'"),
    ("UPDATE proposals SET status = 'accepted' WHERE id = (SELECT id FROM proposals WHERE status = 'waiting' LIMIT 1)",
     "status: the events say 'waiting'"),
    ("UPDATE manifest_drafts SET status = 'approved' WHERE id = (SELECT id FROM manifest_drafts"
     " WHERE status = 'pending' LIMIT 1)", "status: the events say 'pending'"),
    ("UPDATE regression_states SET acknowledged_eval_id = last_eval_id WHERE acknowledged_eval_id IS NULL"
     " AND state = 'NEW_FAIL'", "acknowledged_eval_id: the events say null"),
    ("INSERT INTO capabilities (actor, capability, granted_by, granted_at) SELECT name, 'loop_change.keep', name,"
     " '2026-12-01' FROM actors WHERE kind = 'producer' LIMIT 1", "no event made this row; it was inserted by hand"),
])
def test_a_list_edited_without_an_event_is_found(store: Path, edit: str, words: str):
    sql(store, edit)
    result = verify(store)
    assert result.returncode == 1, result.stdout
    assert words in result.stdout


def test_an_edited_evidence_record_is_found(store: Path):
    sql(store, "UPDATE evidence SET result = 'passed' WHERE id = (SELECT id FROM evidence"
               " WHERE result != 'passed' LIMIT 1)", unguarded="evidence")
    result = verify(store)
    assert result.returncode == 1 and "result: the events say" in result.stdout
    assert "the table holds 'passed'; the row was edited by hand" in result.stdout


@pytest.mark.slow
def test_a_cut_tail_is_found_with_the_head_kept_elsewhere(store: Path):
    kept = verify(store).stdout.split("sha256 ")[1].split()[0]
    sql(store, "DELETE FROM events WHERE seq > (SELECT MAX(seq) - 3 FROM events) AND kind LIKE 'lease.%'"
               " OR seq = (SELECT MAX(seq) FROM events)", unguarded="events")
    assert verify(store).returncode in (0, 1)  # without --expect a cut tail may look whole
    result = verify(store, "--expect", kept)
    assert result.returncode == 1 and "the tail was cut or the history rewritten" in result.stdout
    head = result.stdout.split("head: event ")[1].split()[0]
    assert f"first broken at event {int(head) + 1}" not in result.stdout  # no event past the head is named
    assert result.stdout.index("the tail was cut") < result.stdout.index("head: event")  # the head after findings


@pytest.mark.slow
def test_an_empty_or_malformed_expected_head_is_bad_input(store: Path):
    for value in ("", "  ", "abc"):
        result = verify(store, "--expect", value)
        assert result.returncode == 2 and "--expect: expected a head hash (64 hex digits" in result.stderr


def resign_with_the_demo_key(store: Path, folder: Path) -> None:
    """Sign every signed decision's (new) event hash again with the demo signer's published (current) key."""
    key = folder / "demo-key"
    key.write_text(DEMO_NEW_PRIVATE_KEY)  # the key chen signs with since her rotation
    key.chmod(0o600)
    conn = sqlite3.connect(store)
    remade = []
    for seq, event_hash in conn.execute("SELECT s.event_seq, e.hash FROM signatures s JOIN events e"
                                        " ON e.seq = s.event_seq").fetchall():
        made = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "gatepost-decision", "-f", str(key)],
                              input=event_hash.encode(), capture_output=True, check=True).stdout.decode()
        remade.append((made, seq))
    conn.close()
    sql(store, *[f"UPDATE signatures SET signature = '{made}' WHERE event_seq = {seq}" for made, seq in remade],
        unguarded="signatures")


@pytest.mark.slow
def test_a_history_rewritten_whole_is_found_with_the_head_kept_elsewhere(store: Path):
    kept = verify(store).stdout.split("sha256 ")[1].split()[0]
    conn = sqlite3.connect(store)
    conn.execute("DROP TRIGGER events_no_update")
    rows = conn.execute("SELECT seq, at, actor, kind, subject_type, subject_id, revision, note, payload"
                        " FROM events ORDER BY seq").fetchall()
    prev = GENESIS
    for row in rows:
        row = list(row)
        if row[0] == 5:
            row[7] = "mallory was here"  # a note no table holds: the tables still agree with the events
        digest = chain_hash(prev, canonical_event(*row))
        conn.execute("UPDATE events SET note = ?, prev_hash = ?, hash = ? WHERE seq = ?", [row[7], prev, digest, row[0]])
        prev = digest
    conn.execute("CREATE TRIGGER events_no_update BEFORE UPDATE ON events"
                 " BEGIN SELECT RAISE(ABORT, 'events is append-only: UPDATE refused'); END")
    conn.commit()
    conn.close()
    # consistent means the signed decisions are signed again too: possible here only because the demo's
    # signer (chen) uses the demo-only key published with gatepost; anyone else's needs their private key
    resign_with_the_demo_key(store, store.parent)
    assert verify(store).returncode == 0  # a consistent rewrite is only caught against a head kept elsewhere
    assert verify(store, "--expect", kept).returncode == 1


@pytest.mark.slow
def test_dropped_triggers_refuse_writes_until_verify_has_run(store: Path):
    sql(store, "DROP TRIGGER decisions_no_update")
    refused = run_gatepost("--db", str(store), "actors", "add", "zoe", "--as", "ana")
    assert refused.returncode == 2
    assert "append-only triggers are missing (decisions_no_update)" in refused.stderr
    assert "gatepost verify" in refused.stderr and "Traceback" not in refused.stderr
    result = verify(store, "--as", "ana")
    assert result.returncode == 1 and "triggers: append-only triggers are missing" in result.stdout
    assert "recreated 1 append-only triggers" in result.stdout
    assert one(store, "SELECT COUNT(*) FROM events WHERE kind = 'audit.triggers_restored'")[0] == 1
    assert verify(store).returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("trigger", ["applications_no_delete", "loop_cases_no_update", "signatures_no_delete"])
def test_every_record_tables_dropped_trigger_is_found(store: Path, trigger: str):
    """Not only m001's tables: where a loop's change landed and who signed are records too."""
    sql(store, f"DROP TRIGGER {trigger}")
    refused = run_gatepost("--db", str(store), "actors", "add", "zoe", "--as", "ana")
    assert refused.returncode == 2 and f"append-only triggers are missing ({trigger})" in refused.stderr
    result = verify(store, "--as", "ana")
    assert result.returncode == 1 and "recreated 1 append-only triggers" in result.stdout
    assert verify(store).returncode == 0


@pytest.mark.slow
def test_verify_of_a_file_that_is_not_a_store_exits_2(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("hello")
    result = verify(tmp_path / "notes.txt")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    result = verify(other)
    assert result.returncode == 2 and "not a gatepost store" in result.stderr
    assert verify(tmp_path / "missing.db").returncode == 2


def test_an_older_store_is_hashed_once_in_sequence_order_as_an_event(tmp_path: Path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    db = Database(conn)
    migrations.apply(db, stop_before="m003_kernel_audit_chain")
    for n in range(5):
        db.execute("INSERT INTO events (at, actor, kind, subject_type, subject_id, payload) VALUES (?, ?, ?, ?, ?, ?)",
                   [f"2026-11-0{n + 1}T00:00:00Z", "ana", "test.old", "case", f"c{n}", json.dumps({"n": n})])
    db.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    db = open_store(path)
    rows = db.execute("SELECT seq, kind, prev_hash, hash FROM events ORDER BY seq").fetchall()
    assert [r[1] for r in rows] == ["test.old"] * 5 + ["audit.chained", "audit.events_complete",
                                         "audit.projections_complete"]
    assert rows[0][2] == GENESIS and all(rows[i][2] == rows[i - 1][3] for i in range(1, 6))
    with db.atomic():
        append(db, "test.new", actor="ana", subject_type="case", subject_id="c9")
    db.close()
    assert verify(path).returncode == 0


@pytest.mark.slow
def test_the_audit_benchmark_runs_on_the_stores_it_builds(tmp_path):
    """benchmarks/audit_chain.py checks that verify finds its own stores intact before it times them: its synthetic
    events must be kinds no act writes (a `skill.run_recorded` says a skill row, which verify then misses)."""
    script = Path(__file__).resolve().parents[3] / "benchmarks" / "audit_chain.py"
    done = subprocess.run([sys.executable, str(script), "--events", "300", "--tasks", "500", "--cases", "20,40"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "verify per event, 40 against 20 cases" in done.stdout
