"""One large artifact imported in bounded memory: time and peak RSS against a raw executemany.

    python benchmarks/import_stream.py [--mb 1024] [--output-chars 300] [--keep DIR]

It writes one evaluator artifact of about MB megabytes (both sides, OUTPUT_CHARS-character outputs)
to a temporary folder, untimed. Then, each in its own fresh process (so peak RSS is that side's own):

- gatepost: `import_artifact` into a fresh store, as `gatepost suite import-artifact` does: a file over
  64 MiB is hashed, then parsed value by value and stored in batches inside one transaction;
- raw: the same rows, generated in memory as tuples (no file, no JSON), inserted with plain sqlite3
  `executemany` in ONE transaction into a fresh file with a table of the same shape and index.

Each side runs --runs times (at least 5) as a fresh child on a fresh store file, the sides interleaved
(benchmarks/measure.py): the CPU of every process a side ran, its
wall time and the child's own peak RSS, as medians with their spread, and the CPU ratio to the raw side (targets:
gatepost's peak RSS under 300 MB for 1 GB; CPU within 1.3x of raw).
"""

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import measure

ROOT = Path(__file__).resolve().parent.parent

RAW_SCHEMA = """
CREATE TABLE task_results (
    id INTEGER PRIMARY KEY, run_id TEXT NOT NULL, side TEXT NOT NULL, task_id TEXT NOT NULL, attempt INTEGER,
    passed INTEGER, judged INTEGER, score FLOAT, duration_ms INTEGER, output TEXT, reason TEXT, mock INTEGER,
    split TEXT, details TEXT, error TEXT
);
CREATE INDEX idx_task_results_run_id_side_task_id_attempt ON task_results (run_id, side, task_id, attempt);
"""
RAW_INSERT = ("INSERT INTO task_results (run_id, side, task_id, attempt, passed, judged, score, duration_ms, output,"
              " reason, mock, split, details, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _result(i: int, side: str, chars: int) -> dict:
    passed = (i % 3 != 0) if side == "candidate" else (i % 4 != 0)
    text = (f"{side} answer {i}: " + "lorem ipsum dolor sit amet " * (chars // 27 + 1))[:chars]
    return {"task_id": f"task-{i:07d}", "passed": passed, "score": 1.0 if passed else 0.0,
            "duration_ms": 40 + (i * 7) % 900, "output": text}


def _count_for(mb: int, chars: int) -> int:
    one = len(json.dumps(_result(1, "candidate", chars))) + 2
    return max(1, mb * 1024 * 1024 // (2 * one))


def write_artifact(path: Path, n: int, chars: int) -> None:
    """Written piece by piece, so the writer's memory stays small too."""
    c = sum(1 for i in range(n) if i % 3 != 0) / n
    b = sum(1 for i in range(n) if i % 4 != 0) / n
    c, b = round(c, 4), round(b, 4)
    delta = round(c - b, 4)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"schema_version": "1.0", "lane": "generic-skill", "run_id": "bench", "stage": "evaluated",
                              "status": "success", "evaluation": {"execution_pass_rate": c, "baseline_pass_rate": b,
                                                                  "delta": delta,
                                                                  "verdict": "pass" if delta >= 0 else "fail"}})[:-1])
        for key, side in (("candidate_results", "candidate"), ("baseline_results", "baseline")):
            out.write(f', "{key}": [')
            for i in range(n):
                out.write(("," if i else "") + json.dumps(_result(i, side, chars)))
            out.write("]")
        out.write(', "warnings": []}\n')


def _child_gatepost(artifact: str, store: str) -> None:
    sys.path.insert(0, str(ROOT))
    from gatepost.store.evaluation import import_artifact  # noqa: PLC0415 - the child's only import
    from gatepost.store.kernel import open_store  # noqa: PLC0415
    db = open_store(store)
    started, cpu = time.perf_counter(), time.process_time()
    run_id, _ = import_artifact(db, artifact, actor="bench")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    rows = db.execute("SELECT COUNT(*) FROM task_results WHERE run_id = ?", [run_id]).fetchone()[0]
    print(json.dumps({"seconds": elapsed, "cpu": cpu, "rows": rows,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def _child_raw(n: str, chars: str, store: str) -> None:
    import sqlite3  # noqa: PLC0415
    count, width = int(n), int(chars)
    conn = sqlite3.connect(store, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(RAW_SCHEMA)
    started, cpu = time.perf_counter(), time.process_time()
    conn.execute("BEGIN IMMEDIATE")
    for side in ("candidate", "baseline"):
        batch = []
        for i in range(count):
            r = _result(i, side, width)
            batch.append(("imp-bench", side, r["task_id"], 1, int(r["passed"]), 1, r["score"], r["duration_ms"],
                          r["output"], None, 0, None, None, None))
            if len(batch) == 5000:
                conn.executemany(RAW_INSERT, batch)
                batch = []
        conn.executemany(RAW_INSERT, batch)
    conn.execute("COMMIT")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(json.dumps({"seconds": elapsed, "cpu": cpu, "rows": 2 * count,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def _side(*args: str, store: Path) -> measure.Sample:
    """One run of a side in a fresh child process, on a fresh store file: every process's CPU, wall time and the child's own peak RSS."""
    for leftover in store.parent.glob(store.name + "*"):
        leftover.unlink()
    return measure.run([sys.executable, __file__, *args, str(store)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1024)
    parser.add_argument("--output-chars", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5, help="rounds of each side, interleaved (at least 5)")
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    folder = args.keep or Path(tempfile.mkdtemp(prefix="gatepost-stream-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        measure.compile_all()
        n = _count_for(args.mb, args.output_chars)
        artifact = folder / "large.json"
        write_artifact(artifact, n, args.output_chars)
        size = artifact.stat().st_size
        print(f"artifact: {size / 1024 / 1024:,.0f} MB, {2 * n:,} task results ({args.output_chars}-char outputs)")
        sides = {
            "raw executemany": lambda: _side("--child-raw", str(n), str(args.output_chars), store=folder / "raw.db"),
            "gatepost import": lambda: _side("--child-gatepost", str(artifact), store=folder / "gatepost.db"),
        }
        print(f"CPU of every process from each child's start to its end, median (min-max) of {args.runs}, "
              "interleaved; the floor inserts the same rows, made in memory (no file, no JSON)")
        measure.report(measure.interleave(sides, args.runs), "raw executemany", unit="s", scale=1.0, target=1.3)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child-gatepost":
        _child_gatepost(*sys.argv[2:4])
    elif len(sys.argv) > 1 and sys.argv[1] == "--child-raw":
        _child_raw(*sys.argv[2:5])
    else:
        main()
