"""Decisions are durable: every writable connection runs synchronous = FULL, a decision's commit is synced to
disk before the person is told it landed, and a backup taken while others write restores and verifies.

A real power cut cannot be made here. What a power cut keeps is what was synced before it, so the test
that stands for it traces the CLI's system calls (strace): the last write of the decision to the WAL is
followed by a sync of the WAL before the line that tells the person it was decided.
"""

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gatepost.store import cases
from gatepost.store.kernel import SYNCHRONOUS, add_actor, open_store
from tests.conftest import run_gatepost

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    db = open_store(path)
    add_actor(db, "admin", "person", ["store.admin", "case.close"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    for i in range(3):
        cases.import_case(db, {"id": f"case-{i}", "title": "t", "author": "run-41",
                               "candidate": {"path": f"p{i}.md", "content": "x", "basis": BASIS},
                               "independent": {"different_agent_run": ["run-52"]}}, actor="admin")
    db.close()
    return path


def test_every_writable_connection_syncs_every_commit(store):
    assert SYNCHRONOUS == "FULL"
    db = open_store(store)
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    cases.add_evidence(db, "case-0", kind="guard_check", result="clean", actor="run-52")
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # still, after a commit


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to watch the commit path")
def test_a_decision_is_synced_to_disk_before_the_person_is_told(store, tmp_path):
    trace = tmp_path / "trace.txt"
    done = subprocess.run(["strace", "-f", "-y", "-o", str(trace), "-e", "trace=pwrite64,write,fsync,fdatasync",
                           sys.executable, "-m", "gatepost", "--db", str(store), "case", "decide", "case-1",
                           "inconclusive", "--note", "nothing settled", "--as", "admin"],
                          capture_output=True, text=True, timeout=120)
    if "PTRACE" in done.stderr or "Operation not permitted" in done.stderr:
        pytest.skip("strace cannot trace here")
    assert done.returncode == 0, done.stderr
    lines = trace.read_text().splitlines()
    told = next(i for i, line in enumerate(lines) if re.search(r"write\(1<[^>]*>, \"case-1: inconclusive", line))
    wal_writes = [i for i, line in enumerate(lines[:told]) if re.search(r"pwrite64\(\d+<[^>]*store\.db-wal>", line)]
    assert wal_writes, "the decision was written to the WAL"
    syncs = [i for i, line in enumerate(lines[:told]) if re.search(r"f(data)?sync\(\d+<[^>]*store\.db-wal>", line)]
    assert syncs and syncs[-1] > wal_writes[-1], "the WAL is synced after the decision's last write, before the reply"
    db = open_store(store)
    assert db.execute("SELECT outcome FROM cases WHERE id = 'case-1'").fetchone()[0] == "inconclusive"


SEEN = """import sys
from gatepost.store import cases, flows
from gatepost.store.kernel import open_store
db = open_store(sys.argv[1])
flows.mark_seen(db, "admin", "case", "case-0")
print("seen", db.execute("PRAGMA synchronous").fetchone()[0], flush=True)
cases.decide_case(db, "case-1", "inconclusive", note="nothing settled", actor="admin")
print("decided", flush=True)
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to watch the commit path")
def test_a_read_receipt_is_not_waited_on_and_the_next_act_is_synced_again(store, tmp_path):
    """A person opening an item leaves a read receipt (mark_seen): no record, so its commit does not wait for the
    disk (a synced one cost the console's writer 3-6 ms and ~0.4 ms of CPU for every item opened). The connection
    is synchronous FULL again after it, and a decision it makes next is synced before it returns."""
    trace = tmp_path / "trace.txt"
    done = subprocess.run(["strace", "-f", "-y", "-o", str(trace), "-e", "trace=pwrite64,write,fsync,fdatasync",
                           sys.executable, "-c", SEEN, str(store)], capture_output=True, text=True, timeout=120)
    if "PTRACE" in done.stderr or "Operation not permitted" in done.stderr:
        pytest.skip("strace cannot trace here")
    assert done.returncode == 0, done.stderr
    assert "seen 2" in done.stdout  # FULL again once the receipt is committed
    lines = trace.read_text().splitlines()

    def said(word: str) -> int:
        return next(i for i, line in enumerate(lines) if re.search(rf'write\(1<[^>]*>, "{word}', line))

    def wal(call: str, before: int, after: int = 0) -> list[int]:
        return [i for i, line in enumerate(lines[:before]) if i >= after
                and re.search(rf"{call}\(\d+<[^>]*store\.db-wal>", line)]

    seen, decided = said("seen"), said("decided")
    receipt = wal("pwrite64", seen)
    assert receipt, "the receipt was written to the WAL"
    assert not wal("f(data)?sync", seen, receipt[-1]), "no sync of the WAL after the receipt's last write"
    decision = wal("pwrite64", decided, seen)
    assert decision and wal("f(data)?sync", decided, decision[-1]), "the decision after it is synced"
    db = open_store(store)
    assert db.execute("SELECT COUNT(*) FROM seen_marks WHERE subject_id = 'case-0'").fetchone()[0] == 1


WRITER = """import sys
from gatepost.store import cases
from gatepost.store.kernel import open_store
db = open_store(sys.argv[1])
for n in range(int(sys.argv[2])):
    cases.add_evidence(db, f"case-{n % 3}", kind="guard_check", result="clean", actor="run-52")
print("done", flush=True)
"""


@pytest.mark.slow
def test_a_backup_taken_while_others_write_verifies_and_restores(store, tmp_path):
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(store), "60"], stdout=subprocess.PIPE, text=True)
               for _ in range(3)]
    try:
        time.sleep(0.3)  # the writers are writing (a backup of an idle store proves nothing)
        backup = tmp_path / "copy.db"
        made = run_gatepost("--db", str(store), "backup", str(backup), "--json", timeout=120)
        assert made.returncode == 0, made.stderr
        doc = json.loads(made.stdout)
    finally:
        outs = [w.communicate(timeout=120)[0] for w in writers]
    assert outs == ["done\n"] * 3
    assert doc["schema"] == "gatepost.backup/1" and doc["head_seq"] > 0
    # a single self-contained file, its head an event of the store
    assert not Path(str(backup) + "-wal").exists()
    conn = sqlite3.connect(store)
    assert conn.execute("SELECT hash FROM events WHERE seq = ?", [doc["head_seq"]]).fetchone()[0] == doc["head_hash"]
    total = conn.execute("SELECT COUNT(*) FROM evidence").fetchone()[0]
    conn.close()
    assert total == 180
    # it is not written over without --force
    again = run_gatepost("--db", str(store), "backup", str(backup))
    assert again.returncode == 2 and "exists; give another file, or --force" in again.stderr
    # restore: refused while the store has events the backup lacks (one is written after it, whether or not the
    # writers outran the backup), then forced; verified, and recorded
    later = run_gatepost("--db", str(store), "actors", "add", "zoe", "--as", "admin")
    assert later.returncode == 0, later.stderr
    refused = run_gatepost("--db", str(store), "restore", str(backup), "--as", "admin")
    assert refused.returncode == 2 and "restoring would lose them: --force" in refused.stderr
    restored = run_gatepost("--db", str(store), "restore", str(backup), "--force", "--as", "admin", "--json")
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout)["head_seq"] == doc["head_seq"] + 1  # and its store.restored event
    assert run_gatepost("--db", str(store), "verify").returncode == 0
    events = run_gatepost("--db", str(store), "events", "--kind", "store.restored", "--json").stdout
    assert json.loads(events.splitlines()[0])["actor"] == "admin"


@pytest.mark.slow
def test_a_damaged_backup_is_never_restored(store, tmp_path):
    backup = tmp_path / "copy.db"
    assert run_gatepost("--db", str(store), "backup", str(backup)).returncode == 0
    conn = sqlite3.connect(backup)
    conn.execute("DROP TRIGGER IF EXISTS events_no_update")
    conn.execute("UPDATE events SET kind = 'case.forged' WHERE seq = 3")
    conn.commit()
    conn.close()
    refused = run_gatepost("--db", str(store), "restore", str(backup), "--force", "--as", "admin")
    assert refused.returncode == 2 and "the backup does not verify" in refused.stderr
    assert run_gatepost("--db", str(store), "verify").returncode == 0  # the store was not touched
