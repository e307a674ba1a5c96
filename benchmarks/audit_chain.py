"""Cost of the hash-chained audit trail: appending events with and without the chain, and verify.

    python benchmarks/audit_chain.py [--events 40000] [--batch 100] [--repeat 5]

Timed in CPU (this process's, plus its children's: the ssh-keygen a signed decision starts), each side into a
fresh store, the sides alternating A B A B, --repeat rounds (at least 5); each figure is the median with its
spread (min-max), each ratio one of medians in the same run. The floors: the plain append for the chained
one (the same events without the chain: what the chain adds is the ratio), the plain append again for
verify (verify reads and checks what an append wrote), the insert of a run's results for their seal, the
unsigned decision for the signed one.
- chained: `kernel.append_event` (reads the head, hashes the canonical encoding, inserts with
  prev_hash and hash), EVENTS events in transactions of BATCH events;
- plain: the same events inserted the way append_event did before the chain (one INSERT, no
  head read, no hash) into the same events table of a fresh store, same transactions;
- verify: `views.verify_store` (chain recomputed, triggers, records and lists against events)
  on the chained store of EVENTS events, and `gatepost verify` as a user runs it (process start
  included).
- sealed records: an evaluation run of --tasks task results inserted (one executemany, as
  `store_run` does) and then sealed by its event (`records_digest` reads them back and hashes
  them); the ratio seal/insert is what sealing adds to storing a run;
- signed decisions: a decision event by a person with a registered key (one `ssh-keygen -Y sign`
  process; the signature checked in process) against the same event unsigned.
- verify on an existing store (`--store PATH`, e.g. console_scale.py's 10,000-case store): the same two
  processes on that store alone.
- verify scaling (`--cases 1000,4000`): stores whose events create records, as real ones do (cases
  imported with their evidence through `cases.import_case`, a third of them decided through
  `flows.decide`); on each, `gatepost verify` as a process against its floor, a process reading every
  event and recomputing the chain (nothing else); CPU of all processes (RUSAGE_CHILDREN), the sizes and
  sides interleaved, --repeat rounds; medians with their spread (min-max), per event, the ratio
  verify/floor, and the ratio of verify's cost per event on the largest store to the smallest.
Prints per-event costs, events/s and the ratios chained/plain.
"""

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gatepost.store import cases, flows
from gatepost.store.kernel import (
    add_actor,
    append_event,
    next_seq,
    now_iso,
    open_store,
    records_digest,
    register_key,
    set_signing_key,
    transaction,
)
from gatepost.store.views import verify_store


def cpu_now() -> float:
    """CPU seconds of this process and of the children it waited for (ssh-keygen)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def spread(values: list[float], scale: float = 1.0, unit: str = "s") -> str:
    return (f"{statistics.median(values) * scale:.3g} {unit} ({min(values) * scale:.3g}–{max(values) * scale:.3g})")


PLAIN_INSERT = ("INSERT INTO events (at, actor, kind, subject_type, subject_id, revision, note, payload)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


def _events(n: int) -> list[tuple[str, str, str, dict]]:
    # kinds no act writes: no record, nothing for verify to replay (a `skill.run_recorded` would say a skill row)
    kinds = ("bench.recorded", "report.written", "bench.noted", "bench.checked")
    return [(kinds[i % 4], f"run-{i % 37}", f"case-{i % 500:04d}",
             {"kind": "result_reproduced", "result": "passed", "producer": f"run-{i % 37}", "n": i})
            for i in range(n)]


def chained(path: Path, events: list, batch: int) -> float:
    db = open_store(path)
    started = cpu_now()
    for start in range(0, len(events), batch):
        with transaction(db):
            for kind, actor, subject, payload in events[start:start + batch]:
                append_event(db, kind, actor=actor, subject_type="case", subject_id=subject, payload=payload)
    elapsed = cpu_now() - started
    db.close()
    return elapsed


def plain(path: Path, events: list, batch: int) -> float:
    db = open_store(path)
    started = cpu_now()
    for start in range(0, len(events), batch):
        with transaction(db):
            for kind, actor, subject, payload in events[start:start + batch]:
                db.execute(PLAIN_INSERT, [now_iso(), actor, kind, "case", subject, None, None,
                                          json.dumps(payload, ensure_ascii=False, sort_keys=True)])
    elapsed = cpu_now() - started
    db.close()
    return elapsed


TASK_INSERT = ("INSERT INTO task_results (run_id, side, task_id, attempt, passed, judged, score, duration_ms, output,"
               " reason, mock, split) VALUES (?, ?, ?, 1, ?, 1, ?, ?, ?, NULL, 0, NULL)")


def sealing(path: Path, tasks: int) -> tuple[float, float]:
    """(seconds to insert the run's task results, seconds to seal them: read back and hash)."""
    db = open_store(path)
    rows = [("bench-run", "candidate" if i % 2 else "baseline", f"task-{i // 2:06d}", i % 3 != 0, (i % 7) / 7, i % 900,
             f"output of task {i} " * 8) for i in range(tasks)]
    with transaction(db):
        seq = next_seq(db)
        db.execute("INSERT INTO evaluation_runs (id, verdict, execution_pass_rate, event_seq) VALUES (?, ?, ?, ?)",
                   ["bench-run", "pass", 1.0, seq])
        started = cpu_now()
        db.conn.executemany(TASK_INSERT, rows)
        inserted = cpu_now() - started
        started = cpu_now()
        append_event(db, "suite.run", actor="ci", subject_type="run", subject_id="bench-run", payload={}, seal=True)
        sealed = cpu_now() - started
    assert records_digest(db, seq) is not None
    db.close()
    return inserted, sealed


def signing(folder: Path, repeat: int) -> dict[str, list[float]] | None:
    """CPU seconds of each decision event signed (ssh-keygen's included), of each unsigned; None without ssh-keygen."""
    if shutil.which("ssh-keygen") is None:
        return None
    key = folder / "bench-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    db = open_store(folder / "signed.db")
    add_actor(db, "ana", "person", [])
    add_actor(db, "bo", "person", [])
    register_key(db, "ana", key.with_suffix(".pub").read_text(), by=None)
    set_signing_key(key)
    times: dict[str, list[float]] = {"ana": [], "bo": []}
    for i in range(repeat):
        for who in ("ana", "bo"):
            started = cpu_now()
            with transaction(db):
                append_event(db, "case.decided", actor=who, subject_type="case", subject_id=f"c{i}",
                             payload={"outcome": "rejected"})
            times[who].append(cpu_now() - started)
    set_signing_key(None)
    db.close()
    return times


FLOOR = """
import sqlite3, sys
from sqlite_utils import Database
from gatepost.store.views.replay import Replay
from gatepost.store.views.verify import VerifyReport, _chain
class Nothing(Replay):
    def apply(self, *event):
        pass
_chain(Database(sqlite3.connect(sys.argv[1])), VerifyReport(), Nothing())
"""


def case_store(path: Path, n: int) -> int:
    """A store of `n` cases imported with evidence (records each), a third decided; returns its events."""
    db = open_store(path)
    add_actor(db, "ana", "person", ["store.admin", "case.close", "evidence.record_for"])
    for i in range(n):
        case_id = cases.import_case(db, {
            "protocol": "eval.gated_change/1", "id": f"case-{i:05d}", "title": f"change {i}", "author": "run-41",
            "candidate": {"path": f"p/{i % 50}.md", "content": f"step {i}\n" * 5,
                          "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-1",
                                    "design": "design-2"}},
            "independent": {"different_agent_run": ["run-52", "run-53"]},
            "evidence": [{"kind": "guard_check", "result": "clean", "producer": "run-52", "details": {"n": i}},
                         {"kind": "tuning_comparison", "result": "not_better", "producer": "run-53"}]},
            actor="ana")
        if i % 3 == 0:
            flows.decide(db, case_id, "inconclusive", actor="ana", note="not now")
    events: int = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    db.close()
    return events


def _cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of a child process run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def verify_scaling(folder: Path, sizes: list[int], repeat: int) -> None:
    stores = {n: folder / f"cases-{n}.db" for n in sizes}
    events = {n: case_store(stores[n], n) for n in sizes}
    empty = folder / "empty.db"
    open_store(empty).close()
    times: dict[tuple[int, str], list[float]] = {(n, side): [] for n in sizes for side in ("verify", "floor")}
    start: dict[str, list[float]] = {"verify": [], "floor": []}
    for _ in range(repeat):
        start["floor"].append(_cpu([sys.executable, "-c", FLOOR, str(empty)]))
        start["verify"].append(_cpu([sys.executable, "-m", "gatepost", "--db", str(empty), "verify"]))
        for n in sizes:
            times[(n, "floor")].append(_cpu([sys.executable, "-c", FLOOR, str(stores[n])]))
            times[(n, "verify")].append(_cpu([sys.executable, "-m", "gatepost", "--db", str(stores[n]), "verify"]))
    started = {side: statistics.median(got) for side, got in start.items()}
    print(f"verify scaling: CPU of all processes, median (min-max) of {repeat}, sizes and sides interleaved; "
          f"per event after the process start on an empty store (floor {started['floor']:.2f} s, "
          f"verify {started['verify']:.2f} s)")
    per_event = {}
    for n in sizes:
        line = []
        for side in ("floor", "verify"):
            got = times[(n, side)]
            line.append(f"{side} {statistics.median(got):.2f} s ({min(got):.2f}-{max(got):.2f}) "
                        f"{(statistics.median(got) - started[side]) / events[n] * 1e6:.1f} µs/event")
        per_event[n] = (statistics.median(times[(n, "verify")]) - started["verify"]) / events[n]
        ratio = ((statistics.median(times[(n, "verify")]) - started["verify"])
                 / (statistics.median(times[(n, "floor")]) - started["floor"]))
        print(f"  {n:6d} cases, {events[n]:7d} events: {'; '.join(line)}; verify/floor {ratio:.2f}x")
    print(f"  verify per event, {max(sizes)} against {min(sizes)} cases: "
          f"{per_event[max(sizes)] / per_event[min(sizes)]:.2f}x (linear: about 1)")


def verify_store_file(path: Path, repeat: int) -> None:
    """`gatepost verify` on an existing store (e.g. console_scale.py's 10,000-case store) against its floor: a
    process reading every event and recomputing the chain; CPU of all processes, sides interleaved, medians."""
    times: dict[str, list[float]] = {"floor": [], "verify": []}
    for _ in range(repeat):
        times["floor"].append(_cpu([sys.executable, "-c", FLOOR, str(path)]))
        times["verify"].append(_cpu([sys.executable, "-m", "gatepost", "--db", str(path), "verify"]))
    median = {side: statistics.median(got) for side, got in times.items()}
    print(f"verify on {path}: CPU of all processes, median (min-max) of {repeat}, interleaved")
    for side, got in times.items():
        print(f"  {side:6s} {median[side]:.2f} s ({min(got):.2f}-{max(got):.2f})")
    print(f"  verify/floor {median['verify'] / median['floor']:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=40_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="rounds of each side (at least 5)")
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--cases", default="1000,4000", help="store sizes of the verify scaling, comma-separated")
    parser.add_argument("--scaling-only", action="store_true", help="measure the verify scaling alone")
    parser.add_argument("--store", type=Path, default=None,
                        help="measure verify against its floor on this store alone (e.g. console_scale.py's)")
    args = parser.parse_args()
    if args.store is not None:
        verify_store_file(args.store, max(args.repeat, 5))
        return
    if args.scaling_only:
        with tempfile.TemporaryDirectory() as tmp:
            verify_scaling(Path(tmp), [int(n) for n in args.cases.split(",")], max(args.repeat, 5))
        return
    if args.repeat < 5:
        parser.error("--repeat must be at least 5")
    events = _events(args.events)
    took: dict[str, list[float]] = {"chained": [], "plain": []}
    with tempfile.TemporaryDirectory() as tmp:
        kept = Path(tmp) / "chained-kept.db"
        for round_ in range(args.repeat):
            for side, run in (("plain", plain), ("chained", chained))[::1 if round_ % 2 == 0 else -1]:
                path = Path(tmp) / f"{side}-{round_}.db"
                took[side].append(run(path, events, args.batch))
                if side == "chained" and not kept.exists():
                    path.rename(kept)
                else:
                    path.unlink()
        db = open_store(kept)
        verified = []
        for _ in range(args.repeat):
            started = cpu_now()
            report = verify_store(db)
            verified.append(cpu_now() - started)
        db.close()
        assert report.intact and report.events == args.events, report.findings[:3]
        cli = [cli_cpu(kept) for _ in range(args.repeat)]
        seals = [sealing(Path(tmp) / f"sealed-{r}.db", args.tasks) for r in range(args.repeat)]
        signed = signing(Path(tmp), args.repeat)
        verify_scaling(Path(tmp), [int(n) for n in args.cases.split(",")], args.repeat)
    n = args.events
    plain_med = statistics.median(took["plain"])
    print(f"events: {n} in transactions of {args.batch}; CPU, median (min-max) of {args.repeat} interleaved rounds")
    for side in ("plain", "chained"):
        print(f"  append {side:8s} {spread(took[side])}  {statistics.median(took[side]) / n * 1e6:7.1f} µs/event")
    print(f"  ratio chained/plain: {statistics.median(took['chained']) / plain_med:.2f}x "
          f"(+{(statistics.median(took['chained']) - plain_med) / n * 1e6:.1f} µs per event)")
    print(f"  verify_store        {spread(verified)}  {statistics.median(verified) / n * 1e6:7.1f} µs/event")
    print(f"  gatepost verify (a process, start included) {spread(cli)}")
    print(f"  ratio verify/plain append of the same events: {statistics.median(verified) / plain_med:.2f}x")
    inserted, sealed = [i for i, _ in seals], [s for _, s in seals]
    print(f"sealed records: a run of {args.tasks} task results; CPU, median (min-max) of {args.repeat}")
    print(f"  insert {spread(inserted)}   seal (read back + sha256) {spread(sealed)} "
          f"({statistics.median(sealed) / args.tasks * 1e6:.1f} µs/result)   ratio seal/insert "
          f"{statistics.median(sealed) / statistics.median(inserted):.2f}x")
    if signed is None:
        print("signed decisions: skipped (no ssh-keygen)")
    else:
        print(f"signed decisions: CPU with ssh-keygen's, median (min-max) of {args.repeat}")
        print(f"  signed {spread(signed['ana'], 1000, 'ms')}   unsigned {spread(signed['bo'], 1000, 'ms')}   "
              f"ratio {statistics.median(signed['ana']) / statistics.median(signed['bo']):.0f}x (one ssh-keygen process)")


def cli_cpu(store: Path) -> float:
    """CPU of `gatepost verify` as a process (its start included), read from this process's children's."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(store), "verify"], capture_output=True,
                          text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stdout + done.stderr
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    main()
