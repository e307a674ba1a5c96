"""Sealing a record costs the same on a large store as on a small one.

    python benchmarks/record_scale.py [--results 200000] [--skill-runs 200] [--rounds 5]

Every act that creates records (a skill run, a manifest version, an evaluation run's task results) seals
them into its event: records.records_digest reads back the rows of that event, and `gatepost verify` does
so for every such event. This builds two stores through gatepost's own functions — one with 1,000 task
results (the baseline, in the same process) and one with --results task results — and times, on each,
recording --skill-runs skill runs (store.skills.record_run: one sealed act each) and the digest of one
skill run's event, in CPU (this process's: the acts start no other process). The floor is the small
store: the same act where the store holds almost nothing, so the ratio large/small says what the store's
size adds; it should stay near 1 (the cost follows the records an event made). The two stores are measured
in --rounds interleaved rounds (at least 5: small, large, then large, small, ...), each round's figure the
median of its acts; printed: the median of the rounds with their spread, and the ratio of the medians.
"""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from gatepost.store import skills
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor, open_store
from gatepost.store.kernel.records import records_digest
from gatepost.store.skills import import_manifest

TASKS_PER_RUN = 1000


def build(path: Path, n_results: int) -> None:
    """A store with `n_results` task results (runs of 1,000 tasks, imported as evaluator artifacts)."""
    db = open_store(path)
    add_actor(db, "ana", "person", PERSON_CAPABILITIES)
    add_actor(db, "run-52", "producer", ["evidence.record"])
    import_manifest(db, "bench.yaml", actor="ana", text="skill-0:\n  min_words: 2\n")
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(max(1, n_results // TASKS_PER_RUN)):
            half = TASKS_PER_RUN // 2
            artifact = {"skill_id": f"skill-{r % 40}", "execution_pass_rate": 0.5, "baseline_pass_rate": 0.5,
                        "delta": 0.0, "verdict": "pass", "run": r,
                        "candidate_results": [{"task_id": f"t{t}", "passed": t % 3 != 0, "score": 1.0,
                                               "output": f"answer {t}"} for t in range(half)],
                        "baseline_results": [{"task_id": f"t{t}", "passed": t % 2 == 0, "score": 0.0,
                                              "output": f"base {t}"} for t in range(half)]}
            file = Path(tmp) / f"run-{r}.json"
            file.write_text(json.dumps(artifact))
            import_artifact(db, file, actor="ana")
    db.close()


def measure(path: Path, n_skill_runs: int) -> tuple[float, float]:
    """Median ms of one record_run, and of one records_digest of a skill run's event."""
    db = open_store(path)
    skills.record_run(db, "skill-0", "warm up the first write's health check", actor="run-52")
    each = []
    for i in range(n_skill_runs):
        started = time.process_time()
        skills.record_run(db, "skill-0", f"word {i}", actor="run-52")
        each.append(time.process_time() - started)
    seq = db.execute("SELECT event_seq FROM skill_runs ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    digests = []
    for _ in range(20):
        started = time.process_time()
        records_digest(db, seq)
        digests.append(time.process_time() - started)
    db.close()
    return statistics.median(each) * 1000, statistics.median(digests) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=int, default=200_000, help="task results in the large store")
    parser.add_argument("--skill-runs", type=int, default=200, help="skill runs recorded on each store per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.rounds < 5:
        parser.error("--rounds must be at least 5")
    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small.db", Path(tmp) / "large.db"
        for path, n in ((small, TASKS_PER_RUN), (large, args.results)):
            started = time.perf_counter()
            build(path, n)
            print(f"built {path.name}: {n:,} task results in {time.perf_counter() - started:.1f} s", flush=True)
        found: dict[Path, list[tuple[float, float]]] = {small: [], large: []}
        for round_no in range(args.rounds):
            for path in (small, large) if round_no % 2 == 0 else (large, small):
                found[path].append(measure(path, args.skill_runs))

    def spread(values: list[float], digits: int) -> str:
        return f"{statistics.median(values):.{digits}f} ms ({min(values):.{digits}f}–{max(values):.{digits}f})"

    runs = {path: [r for r, _ in found[path]] for path in found}
    digests = {path: [d for _, d in found[path]] for path in found}
    print(f"CPU, median of {args.rounds} interleaved rounds (min-max), each the median of its acts:")
    print(f"  record_run: {spread(runs[large], 2)} on {args.results:,} results, {spread(runs[small], 2)} on "
          f"{TASKS_PER_RUN:,}: {statistics.median(runs[large]) / statistics.median(runs[small]):.2f}x")
    print(f"  records_digest of a skill run's event: {spread(digests[large], 3)} against {spread(digests[small], 3)}: "
          f"{statistics.median(digests[large]) / statistics.median(digests[small]):.2f}x")


if __name__ == "__main__":
    main()
