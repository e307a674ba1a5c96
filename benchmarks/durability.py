"""What a durable commit costs: decisions and evidence under synchronous = NORMAL and FULL.

    python benchmarks/durability.py [--decisions 200]

The store runs in WAL mode. Under NORMAL a commit is written to the WAL but synced only at a checkpoint:
a power cut (not a crash or a kill: those keep it) can lose commits already reported to the person. Under
FULL each commit syncs the WAL before it returns. A third mode, NORMAL with a checkpoint after each
decision, is timed too (the alternative the design considered). Printed: median and p99 ms per act, per mode.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gatepost.store import cases, flows
from gatepost.store.kernel import add_actor, open_store

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}


def run(mode: str, n: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory(dir=".") as tmp:  # on the disk of the working folder, not a tmpfs
        db = open_store(Path(tmp) / "d.db")
        db.execute(f"PRAGMA synchronous = {'FULL' if mode == 'FULL' else 'NORMAL'}")
        add_actor(db, "ana", "person", ["case.close"])
        add_actor(db, "run-52", "producer", ["evidence.record"])
        for i in range(n):
            cases.import_case(db, {"id": f"c{i}", "title": "t", "author": "run-41",
                                   "candidate": {"path": f"p{i}.md", "content": "x", "basis": BASIS},
                                   "independent": {"different_agent_run": ["run-52"]}}, actor="ana")
        decisions, evidence = [], []
        for i in range(n):
            began = time.perf_counter()
            cases.add_evidence(db, f"c{i}", kind="guard_check", result="clean", actor="run-52")
            evidence.append(time.perf_counter() - began)
            began = time.perf_counter()
            flows.decide(db, f"c{i}", "inconclusive", actor="ana", note="bench")
            if mode == "NORMAL+checkpoint":
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            decisions.append(time.perf_counter() - began)
        db.close()
    return decisions, evidence


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    args = parser.parse_args()
    for mode in ("NORMAL", "FULL", "NORMAL+checkpoint"):
        decisions, evidence = run(mode, args.decisions)
        p99 = sorted(decisions)[int(0.99 * len(decisions))]
        print(f"{mode:<18} decision median {statistics.median(decisions) * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms"
              f" · evidence median {statistics.median(evidence) * 1000:6.2f} ms")


if __name__ == "__main__":
    main()
