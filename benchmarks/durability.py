"""What a durable commit costs: decisions and evidence under synchronous = NORMAL and FULL.

    python benchmarks/durability.py [--decisions 200] [--runs 5]

The store runs in WAL mode. Under NORMAL a commit is written to the WAL but synced only at a checkpoint:
a power cut (not a crash or a kill: those keep it) can lose commits already reported to the person. Under
FULL each commit syncs the WAL before it returns. A third mode, NORMAL with a checkpoint after each
decision, is timed too (the alternative the design considered). The floor is NORMAL, the least WAL mode
offers (a commit written, not synced): the ratios say what each stronger promise costs; the store runs FULL
(docs/reliability.md). Wall time per act, not CPU: a sync is time spent
waiting on the disk, which CPU does not count; so the figures depend on the disk and on the other
processes using it. The modes are interleaved A B C, C B A, ... over --runs rounds (at least 5), each in a
fresh store on the disk of the working folder; printed: per mode the median of the rounds' medians with
its spread (min-max), and the p99 of every act of the mode.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gatepost.store import cases, flows
from gatepost.store.kernel import add_actor, open_store

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}
MODES = ("NORMAL", "FULL", "NORMAL+checkpoint")


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
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    found: dict[str, list[tuple[list[float], list[float]]]] = {mode: [] for mode in MODES}
    for round_no in range(args.runs):
        for mode in MODES if round_no % 2 == 0 else MODES[::-1]:
            found[mode].append(run(mode, args.decisions))

    def summary(rounds: list[list[float]]) -> tuple[float, str]:
        medians = [statistics.median(r) for r in rounds]
        every = sorted(x for r in rounds for x in r)
        p99 = every[int(0.99 * len(every))]
        return statistics.median(medians), (f"{statistics.median(medians) * 1000:6.2f} ms ({min(medians) * 1000:.2f}–"
                                            f"{max(medians) * 1000:.2f}) p99 {p99 * 1000:6.2f} ms")

    floor = summary([d for d, _ in found["NORMAL"]])[0]
    print(f"wall time per act, median of {args.runs} interleaved rounds (min-max), each of {args.decisions} acts:")
    for mode in MODES:
        decided, text = summary([d for d, _ in found[mode]])
        _, evidence = summary([e for _, e in found[mode]])
        print(f"  {mode:<18} decision {text}  {decided / floor:.2f}x NORMAL · evidence {evidence}")


if __name__ == "__main__":
    main()
