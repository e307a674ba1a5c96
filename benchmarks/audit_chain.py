"""Cost of the hash-chained audit trail: appending events with and without the chain, and verify.

    python benchmarks/audit_chain.py [--events 40000] [--batch 100] [--repeat 3]

Timed, each side into a fresh store, alternating, best of --repeat (other load only adds time):
- chained: `kernel.append_event` (reads the head, hashes the canonical encoding, inserts with
  prev_hash and hash), EVENTS events in transactions of BATCH events;
- plain: the same events inserted the way append_event did before the chain (one INSERT, no
  head read, no hash) into the same events table of a fresh store, same transactions;
- verify: `views.verify_store` (chain recomputed, triggers, records and lists against events)
  on the chained store of EVENTS events, and `gatepost verify` as a user runs it (process start
  included).
Prints per-event costs, events/s and the ratios chained/plain.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gatepost.store.kernel import append_event, now_iso, open_store, transaction
from gatepost.store.views import verify_store

PLAIN_INSERT = ("INSERT INTO events (at, actor, kind, subject_type, subject_id, revision, note, payload)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


def _events(n: int) -> list[tuple[str, str, str, dict]]:
    kinds = ("skill.run_recorded", "skill.evaluated", "proposal.gated", "lease.taken")  # no record each
    return [(kinds[i % 4], f"run-{i % 37}", f"case-{i % 500:04d}",
             {"kind": "result_reproduced", "result": "passed", "producer": f"run-{i % 37}", "n": i})
            for i in range(n)]


def chained(path: Path, events: list, batch: int) -> float:
    db = open_store(path)
    started = time.perf_counter()
    for start in range(0, len(events), batch):
        with transaction(db):
            for kind, actor, subject, payload in events[start:start + batch]:
                append_event(db, kind, actor=actor, subject_type="case", subject_id=subject, payload=payload)
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def plain(path: Path, events: list, batch: int) -> float:
    db = open_store(path)
    started = time.perf_counter()
    for start in range(0, len(events), batch):
        with transaction(db):
            for kind, actor, subject, payload in events[start:start + batch]:
                db.execute(PLAIN_INSERT, [now_iso(), actor, kind, "case", subject, None, None,
                                          json.dumps(payload, ensure_ascii=False, sort_keys=True)])
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=40_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    events = _events(args.events)
    best = {"chained": float("inf"), "plain": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        kept = Path(tmp) / "chained-kept.db"
        for round_ in range(args.repeat):
            for side, run in (("plain", plain), ("chained", chained)):
                path = Path(tmp) / f"{side}-{round_}.db"
                best[side] = min(best[side], run(path, events, args.batch))
                if side == "chained" and not kept.exists():
                    path.rename(kept)
        db = open_store(kept)
        verify_best = float("inf")
        for _ in range(args.repeat):
            started = time.perf_counter()
            report = verify_store(db)
            verify_best = min(verify_best, time.perf_counter() - started)
        db.close()
        assert report.intact and report.events == args.events, report.findings[:3]
        started = time.perf_counter()
        cli = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(kept), "verify"],
                             capture_output=True, text=True)
        cli_time = time.perf_counter() - started
        assert cli.returncode == 0, cli.stdout + cli.stderr
    n = args.events
    print(f"events: {n} in transactions of {args.batch}; best of {args.repeat}")
    for side in ("plain", "chained"):
        print(f"  append {side:8s} {best[side]:7.3f} s  {best[side] / n * 1e6:7.1f} µs/event  {n / best[side]:9.0f} events/s")
    print(f"  ratio chained/plain: {best['chained'] / best['plain']:.2f}x "
          f"(+{(best['chained'] - best['plain']) / n * 1e6:.1f} µs per event)")
    print(f"  verify_store        {verify_best:7.3f} s  {verify_best / n * 1e6:7.1f} µs/event  {n / verify_best:9.0f} events/s")
    print(f"  gatepost verify (a process, start included) {cli_time:.3f} s")
    print(f"  ratio verify/plain append of the same events: {verify_best / best['plain']:.2f}x")


if __name__ == "__main__":
    main()
