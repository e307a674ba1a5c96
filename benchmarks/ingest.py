"""Ingest speed: task results through gatepost's import path against a plain sqlite3 insert of the same rows.

    python benchmarks/ingest.py [--rows 1000000] [--per-file 1000] [--repeat 1] [--keep DIR] [--profile]

It writes evaluator artifact files (ROWS / PER_FILE files of PER_FILE task
results each) to a temporary folder first, untimed. Then, timed:

- gatepost: store.evaluation.import_artifacts of all the files into a fresh
  store, as `gatepost suite import-artifact FILE...` does: a worker process
  reads, parses and validates the files ahead while this one stores each in
  its own transaction (the run, its event, its task results);
- raw: the same task-result rows, already in memory as tuples, inserted with
  plain sqlite3 `executemany` in ONE transaction into a fresh file holding a
  table of the same shape and the same index, with the same journal settings
  (WAL, synchronous=NORMAL).

It prints both times (wall clock, and the CPU time of this process: the
worker's is not counted; the wall clock is what counts), rows/s and the ratio
(issue 19's target: gatepost within 1.3x of the raw insert). With --repeat N
both sides run N times, alternating, each into fresh files, and the best time
of each side counts (as timeit does: other load on the machine only ever adds
time); the median of the N pairs' own ratios is printed too. --profile runs the gatepost side under cProfile and prints where the
time goes.
"""

import argparse
import cProfile
import hashlib
import json
import pstats
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gatepost.store.evaluation import import_artifacts
from gatepost.store.kernel import open_store

ROOT = Path(__file__).resolve().parent.parent

RAW_SCHEMA = """
CREATE TABLE task_results (
    id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, side TEXT NOT NULL, task_id TEXT NOT NULL, attempt INTEGER,
    passed INTEGER, judged INTEGER, score FLOAT, duration_ms INTEGER, output TEXT, reason TEXT, mock INTEGER,
    split TEXT
);
CREATE INDEX idx_task_results_run_id_side_task_id_attempt ON task_results (run_id, side, task_id, attempt);
"""
RAW_INSERT = ("INSERT INTO task_results (run_id, side, task_id, attempt, passed, judged, score, duration_ms, output,"
              " reason, mock, split) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def result(file_no: int, i: int) -> dict:
    passed = (file_no + i) % 3 != 0
    return {"task_id": f"task-{i:05d}", "passed": passed, "score": 1.0 if passed else 0.25,
            "duration_ms": 40 + (i * 7) % 900, "output": f"answer {file_no}-{i}: the expected value is {i * 3}",
            "reason": None if passed else "expected string not found", "split": "tuning"}


def write_artifacts(folder: Path, rows: int, per_file: int) -> list[Path]:
    paths = []
    for file_no in range((rows + per_file - 1) // per_file):
        n = min(per_file, rows - file_no * per_file)
        results = [result(file_no, i) for i in range(n)]
        rate = round(sum(r["passed"] for r in results) / n, 4)
        artifact = {"skill_id": f"skill-{file_no % 40:02d}", "executor": "bench", "execution_pass_rate": rate,
                    "baseline_pass_rate": 0.5, "delta": round(rate - 0.5, 4), "verdict": "pass" if rate >= 0.5
                    else "fail", "candidate_results": results, "baseline_results": [], "warnings": [],
                    "baseline_health": {"status": "healthy", "baseline_pass_rate": 0.5, "threshold": 0.2},
                    "started_at": f"2026-05-{1 + file_no % 28:02d}T08:00:00Z"}
        path = folder / f"artifact-{file_no:05d}.json"
        path.write_text(json.dumps(artifact, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return paths


def raw_rows(paths: list[Path]) -> list[tuple]:
    """The rows gatepost stores (the same run ids too), as tuples, built before the raw insert is timed."""
    rows = []
    for path in paths:
        raw = path.read_bytes()
        data = json.loads(raw)
        run_id = "imp-" + hashlib.sha256(raw).hexdigest()[:12]  # as import_artifact names the run
        for r in data["candidate_results"]:
            rows.append((run_id, "candidate", r["task_id"], 1, int(r["passed"]), 1, r["score"], r["duration_ms"],
                         r["output"], r["reason"], 0, r["split"]))
    return rows


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def time_gatepost(store: Path, paths: list[Path], profile: bool) -> tuple[float, float, int]:
    db = open_store(_fresh(store))
    profiler = cProfile.Profile() if profile else None
    cpu = time.process_time()
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    for _ in import_artifacts(db, paths, actor="bench"):
        pass
    if profiler:
        profiler.disable()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    stored = db.execute("SELECT COUNT(*) FROM task_results").fetchone()[0]
    db.close()
    if profiler:
        print("\n--- where gatepost's import time goes (cProfile, cumulative) ---")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)
    return elapsed, cpu, stored


def time_raw(store: Path, rows: list[tuple]) -> tuple[float, float]:
    conn = sqlite3.connect(_fresh(store), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(RAW_SCHEMA)
    cpu = time.process_time()
    started = time.perf_counter()
    conn.execute("BEGIN")
    conn.executemany(RAW_INSERT, rows)
    conn.execute("COMMIT")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.close()
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="task results in all (default 1,000,000)")
    parser.add_argument("--per-file", type=int, default=1_000, help="task results per artifact file (default 1,000)")
    parser.add_argument("--repeat", type=int, default=1, help="run both sides N times; the best counts (default 1)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="work in this folder and keep the artifacts and both stores (default: a temp folder)")
    parser.add_argument("--profile", action="store_true", help="profile gatepost's side with cProfile")
    args = parser.parse_args()
    if args.rows < 1 or args.per_file < 1 or args.repeat < 1:
        parser.error("--rows, --per-file and --repeat must be at least 1")
    work = args.keep or Path(tempfile.mkdtemp(prefix="gatepost-ingest-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        artifacts = work / "artifacts"
        artifacts.mkdir(exist_ok=True)
        t0 = time.perf_counter()
        paths = write_artifacts(artifacts, args.rows, args.per_file)
        print(f"wrote {len(paths):,} artifact files, {args.rows:,} task results ({time.perf_counter() - t0:.1f} s,"
              " untimed)")
        rows = raw_rows(paths)
        gate, raw = [], []
        for n in range(args.repeat):
            gate_s, gate_cpu, stored = time_gatepost(work / "gatepost.db", paths, args.profile and n == 0)
            if stored != args.rows:
                sys.exit(f"gatepost stored {stored:,} task results, expected {args.rows:,}")
            gate.append((gate_s, gate_cpu))
            raw.append(time_raw(work / "raw.db", rows))
            if args.repeat > 1:
                print(f"  run {n + 1}: gatepost {gate_s:.2f} s, raw {raw[-1][0]:.2f} s ({gate_s / raw[-1][0]:.2f}x)")
        pairs = statistics.median(g[0] / r[0] for g, r in zip(gate, raw, strict=True))
        (gate_s, gate_cpu), (raw_s, raw_cpu) = min(gate), min(raw)
        ratio = gate_s / raw_s
        best = f" (best of {args.repeat})" if args.repeat > 1 else ""
        print(f"gatepost import_artifacts: {gate_s:7.2f} s  {args.rows / gate_s:>10,.0f} rows/s  cpu {gate_cpu:6.2f} s"
              f"  ({len(paths):,} files, one transaction each){best}")
        print(f"raw sqlite3 executemany:   {raw_s:7.2f} s  {args.rows / raw_s:>10,.0f} rows/s  cpu {raw_cpu:6.2f} s"
              f"  (one transaction){best}")
        print(f"ratio gatepost / raw:      {ratio:7.2f}x  (median of the pairs {pairs:.2f}x; cpu of this process "
              f"{gate_cpu / raw_cpu:.2f}x; target <= 1.3x: {'met' if ratio <= 1.3 else 'NOT met'})")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
