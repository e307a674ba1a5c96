"""Writers wait their turn in the store's write queue: under load no write fails, and a writer that does time
out says who held the lock (or that the store was busy)."""

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gatepost.store import cases
from gatepost.store.kernel import StoreError, add_actor, open_store
from gatepost.store.kernel.db import QUEUE_SUFFIX

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}
HOLDER = """import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
note = f"{os.getpid()}\\t{time.monotonic() - 60:.3f}\\tgatepost case import big.yaml\\n".encode()
os.pwrite(fd, note, 0); os.ftruncate(fd, len(note))
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    cases.import_case(db, {"id": "case-1", "title": "one", "author": "run-41",
                           "candidate": {"path": "a.md", "content": "x", "basis": BASIS},
                           "independent": {"different_agent_run": ["run-52"]}}, actor="ana")
    db.close()
    return path


def test_a_timed_out_writer_names_the_process_that_held_the_lock(store, monkeypatch):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(store) + QUEUE_SUFFIX], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("GATEPOST_BUSY_TIMEOUT", "0.3")
        db = open_store(store)
        with pytest.raises(StoreError, match=rf"busy: process {holder.pid} \(gatepost case import big.yaml\) has held "
                                             r"the store's write lock for 60 s; nothing was written; retry"):
            cases.add_evidence(db, "case-1", kind="guard_check", result="clean", actor="run-52")
    finally:
        holder.kill()
        holder.wait()
    # the holder is gone: the kernel released its lock, and the next write goes through
    cases.add_evidence(db, "case-1", kind="guard_check", result="clean", actor="run-52")
    assert db.execute("SELECT COUNT(*) FROM evidence").fetchone()[0] == 1


def test_a_writer_that_gives_up_leaves_the_queue_free(store, monkeypatch):
    monkeypatch.setenv("GATEPOST_BUSY_TIMEOUT", "0.2")
    fd = os.open(str(store) + QUEUE_SUFFIX, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # this test holds the turn, with no note of who it is
    os.ftruncate(fd, 0)
    db = open_store(store)
    with pytest.raises(StoreError, match=r"busy: the store was busy \(other writers queued ahead for 0.2 s\)"):
        cases.add_evidence(db, "case-1", kind="guard_check", result="clean", actor="run-52")
    os.close(fd)  # released: the abandoned waiter takes the lock and lets it go at once
    began = time.monotonic()
    cases.add_evidence(db, "case-1", kind="guard_check", result="clean", actor="run-52")
    assert time.monotonic() - began < 0.2


WRITER = """import sys, time
from gatepost.store import cases, flows
from gatepost.store.kernel import open_store
db = open_store(sys.argv[1]); w = int(sys.argv[2]); go = float(sys.argv[3])
while time.time() < go:
    time.sleep(0.001)
failed = 0
for n in range(40):
    try:
        if n % 10 == 9:
            flows.decide(db, f"w{w}-c{n // 10}", "inconclusive", actor="ana", note="load")
        else:
            cases.add_evidence(db, f"w{w}-c{n % 4}", kind="guard_check", result="clean", actor=f"p-{w}")
    except Exception as exc:
        failed += 1
        print(exc, file=sys.stderr)
print(failed)
"""


@pytest.mark.slow
def test_six_writers_at_once_lose_no_write(tmp_path):
    path = tmp_path / "load.db"
    db = open_store(path)
    add_actor(db, "ana", "person", ["case.close"])
    for w in range(6):
        add_actor(db, f"p-{w}", "producer", ["evidence.record"])
        for c in range(4):
            cases.import_case(db, {"id": f"w{w}-c{c}", "title": "t", "author": "run-41",
                                   "candidate": {"path": f"w{w}/{c}.md", "content": "x", "basis": BASIS},
                                   "independent": {"different_agent_run": [f"p-{w}"]}}, actor="ana")
    db.close()
    go = time.time() + 2  # the writers start together at this wall-clock instant
    env = dict(os.environ, GATEPOST_BUSY_TIMEOUT="20")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), str(go)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for w in range(6)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [o[0].strip() for o in outs] == ["0"] * 6, [o[1] for o in outs]
    db = open_store(path)
    assert db.execute("SELECT COUNT(*) FROM evidence").fetchone()[0] == 6 * 36
    assert db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 6 * 4
