"""Ingest speed: task results through gatepost's import path against a floor doing the same work by hand.

    python benchmarks/ingest.py [--rows 200000] [--per-file 1000] [--runs 5] [--keep DIR] [--profile]

It writes evaluator artifact files (ROWS / PER_FILE files of PER_FILE task
results each) to a temporary folder first, untimed. Then each side runs as its
own child process into a fresh store, interleaved (A B A B …, --runs rounds),
and the CPU of every process of a side is counted (benchmarks/measure.py).

- gatepost: store.evaluation.import_artifacts of all the files into a fresh
  store, as `gatepost suite import-artifact FILE...` does (each file read,
  checked and stored in its own transaction: the run, its event, its task
  results, its review order, and the order of the run after it when an older
  run lands later);
- floor: the least any importer must do with the same files: read each file,
  decode its JSON with msgspec, hash its bytes (the run id) and its rows (the
  records' seal), and insert the rows with plain sqlite3 `executemany`, one
  transaction per file, into a table of the same shape and index, with the
  store's journal settings (WAL, synchronous FULL: each file's commit on disk
  before the next, as gatepost's is; wal_autocheckpoint 10000);
- raw: the rows inserted with `executemany` alone, decoded before the timer
  starts inside the child (printed for reference: no importer can skip reading).

It prints each side's CPU and wall time as the median with its spread, and
the CPU ratio against the floor (target <= 1.3x). --profile runs the gatepost
side once more in this process under cProfile (not timed) and prints where
the time goes.
"""

import argparse
import cProfile
import hashlib
import json
import pstats
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import measure
import msgspec

from gatepost.store.evaluation import import_artifacts
from gatepost.store.kernel import SYNCHRONOUS, open_store

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


def _rows(run_id: str, data: dict) -> list[tuple]:
    return [(run_id, "candidate", r["task_id"], 1, int(r["passed"]), 1, r["score"], r["duration_ms"], r["output"],
             r["reason"], 0, r["split"]) for r in data["candidate_results"]]


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def _raw_store(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(_fresh(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    # the durability gatepost's store gives every commit (kernel/db.py): an importer that reported a file stored
    # before it was on disk would do less than the same work
    conn.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
    conn.execute("PRAGMA wal_autocheckpoint = 10000")
    conn.executescript(RAW_SCHEMA)
    return conn


def side_gatepost(store: Path, paths: list[Path], expect: int) -> None:
    """The gatepost side, in its child: import every file into a fresh store."""
    db = open_store(_fresh(store))
    for _ in import_artifacts(db, paths, actor="bench"):
        pass
    stored = db.execute("SELECT COUNT(*) FROM task_results").fetchone()[0]
    if stored != expect:
        sys.exit(f"gatepost stored {stored:,} task results, expected {expect:,}")


def side_floor(store: Path, paths: list[Path]) -> None:
    """The floor, in its child: read, decode (msgspec), hash the file and its rows, executemany per file."""
    conn = _raw_store(store)
    decode = msgspec.json.Decoder()
    for path in paths:
        raw = path.read_bytes()
        run_id = "imp-" + hashlib.sha256(raw).hexdigest()[:12]
        rows = _rows(run_id, decode.decode(raw))
        seal = hashlib.sha256()
        for row in rows:
            seal.update(msgspec.json.encode(row) + b"\n")
        conn.execute("BEGIN")
        conn.executemany(RAW_INSERT, rows)
        conn.execute("COMMIT")
    conn.close()


def side_raw(store: Path, paths: list[Path]) -> None:
    """executemany alone, for reference: the rows are decoded before its own timer starts, so this side prints
    the CPU of the insert itself (rusage cannot leave the decoding out)."""
    rows = [row for path in paths for row in _rows("imp-" + hashlib.sha256(path.read_bytes()).hexdigest()[:12],
                                                    json.loads(path.read_bytes()))]
    conn = _raw_store(store)
    cpu = time.process_time()
    conn.execute("BEGIN")
    conn.executemany(RAW_INSERT, rows)
    conn.execute("COMMIT")
    conn.close()
    print(f"{time.process_time() - cpu:.6f}")


def profile(store: Path, paths: list[Path]) -> None:
    db = open_store(_fresh(store))
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in import_artifacts(db, paths, actor="bench"):
        pass
    profiler.disable()
    print("\n--- where gatepost's import time goes in this process (cProfile, cumulative) ---")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)


def child(side: str, work: Path, expect: int) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--side", side, "--keep", str(work), "--rows", str(expect)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000, help="task results in all (default 200,000)")
    parser.add_argument("--per-file", type=int, default=1_000, help="task results per artifact file (default 1,000)")
    parser.add_argument("--runs", type=int, default=5, help="rounds of the sides, interleaved (default 5)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="work in this folder and keep the artifacts and stores (default: a temp folder)")
    parser.add_argument("--profile", action="store_true", help="profile gatepost's side with cProfile")
    parser.add_argument("--side", choices=("gatepost", "floor", "raw"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rows < 1 or args.per_file < 1 or args.runs < 1:
        parser.error("--rows, --per-file and --runs must be at least 1")
    if args.side:  # a child: one side, timed by the parent
        paths = sorted((args.keep / "artifacts").glob("artifact-*.json"))
        store = args.keep / f"{args.side}.db"
        {"gatepost": lambda: side_gatepost(store, paths, args.rows), "floor": lambda: side_floor(store, paths),
         "raw": lambda: side_raw(store, paths)}[args.side]()
        return
    work = args.keep or Path(tempfile.mkdtemp(prefix="gatepost-ingest-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        artifacts = work / "artifacts"
        shutil.rmtree(artifacts, ignore_errors=True)
        artifacts.mkdir()
        t0 = time.perf_counter()
        paths = write_artifacts(artifacts, args.rows, args.per_file)
        print(f"wrote {len(paths):,} artifact files, {args.rows:,} task results ({time.perf_counter() - t0:.1f} s,"
              " untimed)", flush=True)
        measure.compile_all()
        samples = measure.interleave({side: (lambda side=side: measure.run(child(side, work, args.rows)))
                                      for side in ("gatepost", "floor")}, args.runs)
        print(f"{args.rows:,} task results in {len(paths):,} files; {args.runs} interleaved rounds; CPU of every "
              "process of a side:")
        measure.report(samples, "floor", unit="s", scale=1.0, target=1.3)
        raw = [float(subprocess.run(child("raw", work, args.rows), check=True, capture_output=True,
                                   text=True).stdout) for _ in range(args.runs)]
        print(f"for reference, executemany alone (rows decoded beforehand): cpu {measure.spread(raw, 's', 1.0)}")
        if args.profile:
            profile(work / "profile.db", paths)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
