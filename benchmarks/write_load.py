"""Writers never starve: N processes writing to one store at once, every write timed.

    python benchmarks/write_load.py [--writers 16] [--seconds 10] [--rounds 5] [--busy 30]

Each writer is its own process (multiprocessing, spawn) with its own connection. It records evidence on
its own cases as fast as it can and, every 10th write, decides one of its cases (a reviewer's decision:
the guarded act, the projection, the chain). Two modes, interleaved over --rounds rounds (at least 5; the
order alternates), each round on a fresh store: the store's write queue, and its floor, the same writers
waiting in SQLite's busy handler alone (the queue turned off in the writers, as gatepost was before it):
what SQLite gives without gatepost's queue, which the queue must not make slower per write and should make
fairer in the tail. Printed per mode: the median (min-max) over rounds of the writes done and failed, of
the p50/p99/max of a write and of a decision (wall time: waiting for the lock is the point), and the CPU
of every writer process per write (RUSAGE_CHILDREN of this process across the round). `--busy` sets
GATEPOST_BUSY_TIMEOUT (seconds) for the writers. Load-sensitive: the writers share the machine's cores with
whatever else runs; compare the modes within one run.
"""

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from gatepost.store import cases, flows
from gatepost.store.kernel import add_actor, open_store

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}
CASES_PER_WRITER = 60


def build(path: Path, writers: int) -> None:
    db = open_store(path)
    add_actor(db, "ana", "person", ["loop_change.keep", "case.close", "evidence.record_for"])
    for w in range(writers):
        add_actor(db, f"p-{w}", "producer", ["evidence.record"])
        for c in range(CASES_PER_WRITER):
            cases.import_case(db, {"id": f"w{w}-c{c}", "title": f"case {c} of writer {w}", "author": "run-41",
                                   "candidate": {"path": f"w{w}/c{c}.md", "content": f"text {c}", "basis": BASIS},
                                   "independent": {"different_agent_run": [f"p-{w}", "ana"]}}, actor="ana")
    db.close()


def writer(path: str, w: int, seconds: float, sqlite_only: bool, start_at: float, out: "mp.Queue[object]") -> None:
    if sqlite_only:
        from gatepost.store.kernel import db as kernel_db
        kernel_db._queue = lambda db: None  # type: ignore[assignment]  # the comparison: SQLite's busy handler only
    db = open_store(path)
    while time.time() < start_at:
        time.sleep(0.001)
    writes: list[float] = []
    decisions: list[float] = []
    failed: list[str] = []
    n = 0
    decided = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        n += 1
        case_id = f"w{w}-c{n % CASES_PER_WRITER}"
        began = time.perf_counter()
        try:
            if n % 10 == 0 and decided < CASES_PER_WRITER:
                flows.decide(db, f"w{w}-c{decided}", "inconclusive", actor="ana", note="load")
                decided += 1
                decisions.append(time.perf_counter() - began)
            else:
                cases.add_evidence(db, case_id, kind="guard_check", result="clean", actor=f"p-{w}")
                writes.append(time.perf_counter() - began)
        except Exception as exc:  # noqa: BLE001 (a failed write is what this counts)
            failed.append(f"{type(exc).__name__}: {exc}"[:200])
    db.close()
    out.put((writes, decisions, failed))


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def one_round(args: argparse.Namespace, sqlite_only: bool) -> dict[str, float]:
    ctx = mp.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "load.db"
        build(path, args.writers)
        out: mp.Queue[object] = ctx.Queue()
        start_at = time.time() + 3
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        procs = [ctx.Process(target=writer, args=(str(path), w, args.seconds, sqlite_only, start_at, out))
                 for w in range(args.writers)]
        for p in procs:
            p.start()
        results = [out.get(timeout=args.seconds + args.busy + 120) for _ in procs]
        for p in procs:
            p.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    writes = [x for r in results for x in r[0]]  # type: ignore[index]
    decisions = [x for r in results for x in r[1]]  # type: ignore[index]
    failed = [x for r in results for x in r[2]]  # type: ignore[index]
    for line in sorted(set(failed))[:3]:
        print(f"  failed: {line}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    done = len(writes) + len(decisions)
    figures = {"writes": float(done), "failed": float(len(failed)), "cpu per write ms": cpu / max(done, 1) * 1000}
    for name, values in (("write", writes), ("decision", decisions)):
        if values:
            figures |= {f"{name} p50 ms": pct(values, .5) * 1000, f"{name} p99 ms": pct(values, .99) * 1000,
                        f"{name} max ms": max(values) * 1000}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--busy", type=float, default=30)
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error("--rounds must be at least 5")
    os.environ["GATEPOST_BUSY_TIMEOUT"] = str(args.busy)
    modes = {"write queue": False, "SQLite busy handler only (floor)": True}
    found: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    for round_no in range(args.rounds):
        for mode in list(modes) if round_no % 2 == 0 else list(modes)[::-1]:
            found[mode].append(one_round(args, modes[mode]))
    print(f"{args.writers} writers for {args.seconds:g} s each round; median (min-max) of {args.rounds} interleaved rounds")
    for mode, rounds in found.items():
        print(f"  {mode}:")
        for name in rounds[0]:
            values = [r.get(name, 0.0) for r in rounds]
            print(f"    {name:<18} {statistics.median(values):9.1f} ({min(values):.1f}–{max(values):.1f})")


if __name__ == "__main__":
    main()
