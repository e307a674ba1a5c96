"""Whole-store ingest: a realistic store's worth of artifacts, cases and skill runs through
gatepost, against a raw executemany of the very rows gatepost stored.

    python benchmarks/store_ingest.py [--artifacts 200] [--results 1000] [--cases 2000] [--skill-runs 20000]
                                      [--runs 5] [--keep DIR]

Untimed first: ARTIFACTS evaluator artifact files of RESULTS task results each (candidate and baseline
sides), CASES case mappings (each with four evidence items, as `gatepost case import` reads them) and
SKILL_RUNS skill-run outputs over 200 skills. Then, timed, each on a fresh store:

- gatepost: what the CLI does for each input, one transaction each: `import_artifact` (the run, its
  event, its task results, its review order), `import_case` (the case, its revision, its evidence, their
  events, the projection) and `record_run` (the skill run and its event), through the guarded pipeline
  (identity, capability, hash-chained events);
- raw: every row gatepost ended up storing, in every table (events, cases, evidence, runs, task results,
  skill runs, ...), read back into memory untimed, then inserted with plain sqlite3 `executemany` in ONE
  transaction into a fresh file with the same tables and indexes (no triggers), WAL and synchronous=NORMAL.

Each side runs in this process (neither starts another process, and CPU here is every thread's), --runs
rounds (at least 5), the sides interleaved and their order alternating (gatepost, raw; raw, gatepost; ...);
the raw side inserts the rows of the first round's gatepost store. Printed: each side's CPU and wall time as
the median with its spread (min-max), rows per second, each kind's share of gatepost's time, and the CPU
ratio of the medians with the spread of the per-round ratios.
"""

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import measure

from gatepost.store.cases import import_case
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import add_actor, open_store
from gatepost.store.skills import record_run

SKILLS = 200


def _result(file_no: int, i: int, side: str) -> dict:
    passed = (file_no + i + (side == "baseline")) % 3 != 0
    return {"task_id": f"task-{i:05d}", "passed": passed, "score": 1.0 if passed else 0.25,
            "duration_ms": 40 + (i * 7) % 900, "output": f"{side} answer {file_no}-{i}: the expected value is {i * 3}",
            "split": "tuning" if i % 5 else "heldout"}


def write_artifacts(folder: Path, count: int, per_file: int) -> list[Path]:
    paths = []
    for file_no in range(count):
        cand = [_result(file_no, i, "candidate") for i in range(per_file)]
        base = [_result(file_no, i, "baseline") for i in range(per_file)]
        c = round(sum(r["passed"] for r in cand) / per_file, 4)
        b = round(sum(r["passed"] for r in base) / per_file, 4)
        artifact = {"skill_id": f"skill-{file_no % 40:02d}", "executor": "bench", "execution_pass_rate": c,
                    "baseline_pass_rate": b, "delta": round(c - b, 4), "verdict": "pass" if c >= b else "fail",
                    "candidate_results": cand, "baseline_results": base, "warnings": [],
                    "started_at": f"2026-05-{1 + file_no % 28:02d}T{file_no % 24:02d}:00:00Z"}
        path = folder / f"artifact-{file_no:05d}.json"
        path.write_text(json.dumps(artifact), encoding="utf-8")
        paths.append(path)
    return paths


def case_mapping(n: int) -> dict:
    return {"protocol": "eval.gated_change/1", "id": f"case-{n:05d}", "title": f"Procedure change {n}",
            "author": f"run-{n % 50}",
            "candidate": {"path": f"procedures/p{n % 97}.md",
                          "content": f"# Procedure {n}\n1. Tag the release.\n2. Run smoke check {n}.\n",
                          "basis": {"baseline": f"b-{n % 7}", "question_set": "qs-3", "data_revision": "d-12",
                                    "design": f"design-{n}"}},
            "independent": {"different_agent_run": [f"run-{50 + n % 13}", "ana"]},
            "evidence": [{"kind": "guard_check", "result": "clean", "producer": f"run-{50 + n % 13}",
                          "about": "current"},
                         {"kind": "design_review", "result": "passed", "producer": "ana", "about": f"design-{n}"},
                         {"kind": "tuning_comparison", "result": "reproduced", "producer": f"run-{50 + n % 13}",
                          "about": "current"},
                         {"kind": "heldout_comparison", "result": "held", "producer": f"run-{n % 50}",
                          "about": "current"}]}


def skill_output(n: int) -> tuple[str, str]:
    skill = f"skill-{n % SKILLS:03d}"
    return skill, f"## Summary\nRun {n} of {skill}.\n\n## Steps\n" + "".join(f"- step {k}\n" for k in range(n % 9 + 3))


def _fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


def time_gatepost(store: Path, paths: list[Path], cases: list[dict], runs: list[tuple[str, str]]) -> dict:
    db = open_store(_fresh(store))
    add_actor(db, "bench", "person", ("evidence.record", "evidence.record_for"), by="bench")
    add_actor(db, "ana", "person", ("eval_design.review",), by="bench")  # the cases' design reviewer
    times = {}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for path in paths:
        import_artifact(db, path, actor="bench")
    times["artifacts"] = time.perf_counter() - wall0
    started = time.perf_counter()
    for mapping in cases:
        import_case(db, mapping, actor="bench")
    times["cases"] = time.perf_counter() - started
    started = time.perf_counter()
    for skill, text in runs:
        record_run(db, skill, text, actor="bench")
    times["skill runs"] = time.perf_counter() - started
    times["wall"], times["cpu"] = time.perf_counter() - wall0, time.process_time() - cpu0
    db.close()
    return times


def stored_rows(store: Path) -> tuple[list[str], list[tuple[str, str, list[tuple]]]]:
    """The gatepost store's schema (tables and indexes, no triggers) and every row of every table."""
    conn = sqlite3.connect(store)
    schema = [sql for (sql,) in conn.execute(
        "SELECT sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL"
        " AND name NOT LIKE 'sqlite_%' ORDER BY type = 'index', rowid")]
    tables = []
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                                " ORDER BY rowid").fetchall():
        columns = [c[1] for c in conn.execute(f'PRAGMA table_info("{name}")')]
        rows = conn.execute(f'SELECT {", ".join(f"[{c}]" for c in columns)} FROM "{name}"').fetchall()
        if rows:
            sql = (f'INSERT INTO "{name}" ({", ".join(f"[{c}]" for c in columns)})'
                   f' VALUES ({", ".join("?" * len(columns))})')
            tables.append((name, sql, rows))
    conn.close()
    return schema, tables


def time_raw(store: Path, schema: list[str], tables: list[tuple[str, str, list[tuple]]]) -> dict:
    conn = sqlite3.connect(_fresh(store), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    for sql in schema:
        conn.execute(sql)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    conn.execute("BEGIN")
    for _, sql, rows in tables:
        conn.executemany(sql, rows)
    conn.execute("COMMIT")
    out = {"wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0}
    conn.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--artifacts", type=int, default=200)
    parser.add_argument("--results", type=int, default=1000, help="task results per side of each artifact")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--skill-runs", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds (at least 5)")
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    rounds = max(args.runs, 5)
    work = args.keep or Path(tempfile.mkdtemp(prefix="gatepost-store-ingest-"))
    (work / "artifacts").mkdir(parents=True, exist_ok=True)
    try:
        measure.compile_all()
        paths = write_artifacts(work / "artifacts", args.artifacts, args.results)
        cases = [case_mapping(n) for n in range(args.cases)]
        runs = [skill_output(n) for n in range(args.skill_runs)]
        print(f"inputs: {len(paths):,} artifacts ({2 * args.results:,} task results each), {len(cases):,} cases "
              f"(4 evidence items each), {len(runs):,} skill runs over {SKILLS} skills (written untimed)")
        ours: list[dict] = []
        raw: list[dict] = []
        schema: list[str] = []
        tables: list[tuple[str, str, list[tuple]]] = []
        for round_no in range(rounds):
            def gatepost_side() -> None:
                ours.append(time_gatepost(work / "gatepost.db", paths, cases, runs))
                if not tables:  # the raw side's rows: what the first gatepost round stored (read untimed)
                    found = stored_rows(work / "gatepost.db")
                    schema.extend(found[0])
                    tables.extend(found[1])

            def raw_side() -> None:
                raw.append(time_raw(work / "raw.db", schema, tables))

            for side in (gatepost_side, raw_side) if round_no % 2 == 0 or not tables else (raw_side, gatepost_side):
                side()
        total = sum(len(rows) for _, _, rows in tables)
        print("rows gatepost stored: " + ", ".join(f"{name} {len(rows):,}" for name, _, rows in tables
                                                   if len(rows) >= 100))
        print(f"median (min-max) of {rounds} interleaved rounds, CPU and wall time of this process:")
        kinds = ", ".join(f"{kind} {statistics.median(r[kind] for r in ours):.2f} s"
                          for kind in ("artifacts", "cases", "skill runs"))
        for name, got, extra in (("gatepost", ours, f"[{kinds}; one transaction per input]"),
                                 ("raw", raw, f"[{total:,} rows, one executemany per table, one transaction]")):
            wall = [r["wall"] for r in got]
            print(f"{name:8s}  cpu {measure.spread([r['cpu'] for r in got], 's', 1.0)}  "
                  f"wall {measure.spread(wall, 's', 1.0)}  {total / statistics.median(wall):,.0f} rows/s  {extra}")
        print(f"CPU gatepost / raw: {measure.ratio([r['cpu'] for r in ours], [r['cpu'] for r in raw])}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
