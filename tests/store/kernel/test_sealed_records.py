"""The chain covers the records an event created (issue 12, item 11): skill runs, manifest versions and
task results. Editing, adding or deleting one is found by `gatepost verify`, naming the event."""

import json
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from gatepost.store.kernel import migrations, open_store
from gatepost.store.kernel.chain import insert_chained
from tests.store.kernel.test_audit_chain import one, sql, verify


@pytest.fixture
def store(demo_copy: Path) -> Path:
    """A fresh copy of the demo store (tests/conftest.py) for each test to damage."""
    return demo_copy


def finding(result, seq: int) -> str:
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith(f"event {seq}:")]
    assert len(lines) == 1, result.stdout
    return lines[0]


def test_the_events_that_create_records_seal_them(store: Path):
    for kind in ("skill.run_recorded", "suite.run", "manifest.imported", "draft.approved"):
        payload = one(store, f"SELECT payload FROM events WHERE kind = '{kind}' ORDER BY seq DESC LIMIT 1")[0]
        assert len(json.loads(payload)["records_sha256"]) == 64, kind
    assert verify(store).returncode == 0


def test_an_edited_task_result_is_found(store: Path):
    run_id, seq = one(store, "SELECT r.id, r.event_seq FROM evaluation_runs r JOIN task_results t ON t.run_id = r.id"
                             " WHERE t.passed = 0 LIMIT 1")
    sql(store, f"UPDATE task_results SET passed = 1 WHERE id = (SELECT MIN(id) FROM task_results WHERE run_id = "
               f"'{run_id}' AND passed = 0)", unguarded="task_results")
    result = verify(store)
    assert result.returncode == 1
    assert "task results it created (suite.run) no longer hash to what it sealed" in finding(result, seq)


def test_a_deleted_or_added_task_result_is_found(store: Path):
    run_id, seq = one(store, "SELECT r.id, r.event_seq FROM evaluation_runs r JOIN task_results t ON t.run_id = r.id"
                             " ORDER BY r.event_seq DESC LIMIT 1")
    sql(store, f"DELETE FROM task_results WHERE id = (SELECT MAX(id) FROM task_results WHERE run_id = '{run_id}')",
        unguarded="task_results")
    result = verify(store)
    assert result.returncode == 1 and "no longer hash" in finding(result, seq)


def test_an_edited_skill_run_is_found(store: Path):
    run_id, seq = one(store, "SELECT id, event_seq FROM skill_runs WHERE status = 'ok' ORDER BY event_seq DESC LIMIT 1")
    sql(store, f"UPDATE skill_runs SET output = output || ' WATCH' WHERE id = '{run_id}'", unguarded="skill_runs")
    result = verify(store)
    assert result.returncode == 1
    assert "(skill.run_recorded) no longer hash to what it sealed; a record was edited" in finding(result, seq)


def test_an_edited_manifest_version_is_found(store: Path):
    version_id, seq = one(store, "SELECT id, event_seq FROM manifest_versions ORDER BY id DESC LIMIT 1")
    sql(store, f"UPDATE manifest_versions SET assertions = '{{}}' WHERE id = {version_id}",
        unguarded="manifest_versions")
    result = verify(store)
    assert result.returncode == 1 and "no longer hash to what it sealed" in finding(result, seq)


def test_a_skill_run_inserted_by_hand_is_found(store: Path):
    seq = one(store, "SELECT seq FROM events WHERE kind = 'case.imported' LIMIT 1")[0]
    skill = one(store, "SELECT name FROM skills LIMIT 1")[0]
    sql(store, "INSERT INTO skill_runs (id, skill, at, status, output, word_count, producer, recorded_at, event_seq)"
               f" VALUES ('forged-1', '{skill}', '2026-12-01T00:00:00Z', 'ok', 'all good', 2, 'run-41',"
               f" '2026-12-01T00:00:00Z', {seq})")
    result = verify(store)
    assert result.returncode == 1
    assert "no hash covers them; they were inserted by hand" in finding(result, seq)


def _old_store(path: Path) -> dict[str, int]:
    """A store as gatepost wrote it before events sealed their records: a run, a version, task results."""
    db = Database(sqlite3.connect(path))
    migrations.apply(db, stop_before="m008_kernel_signatures_and_sealed_records")
    at = "2026-11-01T00:00:00Z"
    with db.atomic():
        db.execute("INSERT INTO skills (name, created_at) VALUES ('digest', ?)", [at])
        run = insert_chained(db, at, "run-7", "skill.run_recorded", "skill", "digest", None, None,
                             json.dumps({"run_id": "digest-0001"}))
        db.execute("INSERT INTO skill_runs (id, skill, at, status, output, word_count, producer, recorded_at,"
                   " event_seq) VALUES ('digest-0001', 'digest', ?, 'ok', 'hello world', 2, 'run-7', ?, ?)",
                   [at, at, run])
        version = insert_chained(db, at, "ana", "manifest.imported", "skill", "digest", None, None, "{}")
        db.execute("INSERT INTO manifest_versions (skill, version, assertions, source, author, created_at, event_seq)"
                   " VALUES ('digest', 1, '{\"min_words\": 2}', 'import', 'ana', ?, ?)", [at, version])
        suite = insert_chained(db, at, "ci", "suite.run", "run", "r1", None, None, "{}")
        db.execute("INSERT INTO evaluation_runs (id, verdict, execution_pass_rate, event_seq)"
                   " VALUES ('r1', 'improved', 1.0, ?)", [suite])
        for n in range(3):
            db.execute("INSERT INTO task_results (run_id, side, task_id, attempt, passed, score)"
                       " VALUES ('r1', 'candidate', ?, 1, 1, 1.0)", [f"t{n}"])
    db.conn.close()
    return {"run": run, "version": version, "suite": suite}


def test_an_older_store_has_its_records_sealed_once_as_an_event(tmp_path: Path):
    path = tmp_path / "old.db"
    seqs = _old_store(path)
    open_store(path).close()
    kind, payload = one(path, "SELECT kind, payload FROM events WHERE kind NOT IN ('audit.events_complete',"
                              " 'audit.projections_complete')"
                              " ORDER BY seq DESC LIMIT 1")
    assert kind == "audit.records_sealed"
    assert set(json.loads(payload)["digests"]) == {str(s) for s in seqs.values()}
    assert verify(path).returncode == 0
    sql(path, "UPDATE task_results SET score = 0.5 WHERE task_id = 't1'", unguarded="task_results")
    sql(path, "UPDATE skill_runs SET output = 'bye' WHERE id = 'digest-0001'", unguarded="skill_runs")
    result = verify(path)
    assert result.returncode == 1
    assert "(sealed by the migration) no longer hash" in finding(result, seqs["suite"])
    assert "no longer hash" in finding(result, seqs["run"])
    assert f"event {seqs['version']}:" not in result.stdout
