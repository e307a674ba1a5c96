"""First rows of one run's tasks at 1,000 / 10,000 / 100,000 / 1,000,000 tasks, and peak memory.

    python benchmarks/run_scale.py [--sizes 1000,10000,100000,1000000] [--runs 5] [--old-max 100000]
                                   [--no-console] [--keep DIR]

For each size a store is built in a temporary folder with a raw executemany: two runs of the same
skill (the previous run and the measured one, about 5 % of the tasks changing between them, 20 %
candidate ≠ baseline), then the run's review order is written by refresh_task_order, as storing a run
does (its time is printed: the store-time cost of the projection; a run of at most 4,000 results
stores none, its order is computed when read). Then every side runs as a fresh child process
(benchmarks/measure.py), the sides interleaved A B A B, --runs of each (at least 5):

  floor       python and sqlite3 alone: open the file, read 50 of the run's task results through their index
              (no order, no gatepost): the least any reader of the run pays, so the floor
  store new   open the store, run_task_counts + the first page of run_task_page (50 rows, in review order)
  store old   open the store, run_tasks() (every task built and sorted), its first 50 rows
  console new the console headless (run_test): start → the Results screen showing the run's first rows
  console old (--console-old) the same console with the Results screen's former data loading (run_tasks() on
              open), patched into today's screen; on 2026-12-05 its child had not shown the run's first rows of
              1,000 tasks after 12 minutes, so it is off unless asked for
              (the old one without the run's statistics, which overflowed: see _leave_out_run_statistics;
              the new one with them, as the Results screen shows them)

A side's figures: its CPU (the process's, every thread, from its start to the first rows shown: the console's
reads run in worker threads, no side starts another process), the wall time to the same point, and the
child's own peak RSS (wait4's rusage of that child, never this process's). Each is the median of the runs
with the spread (min-max); ratios are of medians in the same run. The old paths are former baselines; above
--old-max tasks they are skipped (they need ~3.7 KB per task: 3.7 GB at 1,000,000). Flat means the new
paths' figures at the largest size are about those at the smallest.
"""

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import measure

HERE = Path(__file__).resolve()
SKILL = "bench-skill"
PERSON = "ana"
SIZE = (160, 50)


# --- building a store ----------------------------------------------------------------------------
def build(path: Path, n: int) -> dict[str, float | str]:
    from gatepost.store.evaluation.task_order import refresh_task_order
    from gatepost.store.kernel import (
        PERSON_CAPABILITIES,
        add_actor,
        open_store,
        transaction,
    )

    rng = random.Random(n)
    db = open_store(path)
    db.execute("PRAGMA synchronous = OFF")
    runs = {}
    figures: dict[str, float | str] = {}
    prev_pass = [rng.random() < 0.7 for _ in range(n)]
    for label, day in (("previous", 1), ("measured", 2)):
        run_id = f"bench-{label}-{n}"
        runs[label] = run_id
        if label == "previous":
            cand = prev_pass
        else:
            cand = [(not p) if rng.random() < 0.05 else p for p in prev_pass]
        base = [(not c) if rng.random() < 0.2 else c for c in cand]
        with transaction(db):
            db.execute(
                "INSERT INTO evaluation_runs (id, skill_id, executor, mock, pass_k, split, execution_pass_rate,"
                " baseline_pass_rate, delta, verdict, warnings, baseline_health, artifact, purpose, started_at,"
                " finished_at) VALUES (?, ?, 'bench', 0, 1, 'all', ?, ?, ?, 'pass', '[]', '{}', '{}', 'imported',"
                " ?, ?)", [run_id, SKILL, sum(cand) / n, sum(base) / n, (sum(cand) - sum(base)) / n,
                           f"2026-11-{day:02d}T09:00:00Z", f"2026-11-{day:02d}T09:10:00Z"])
            rows = [(run_id, side, f"task-{i:07d}", 1, int(passed), 1, float(passed), 1200,
                     f"{side} output of task {i}: " + ("the expected answer" if passed else "something else"),
                     None if passed else "expected 'answer' in the output", 0,
                     "heldout" if i % 5 == 0 else "tuning")
                    for side, passes in (("candidate", cand), ("baseline", base)) for i, passed in enumerate(passes)]
            started = time.perf_counter()
            db.conn.executemany(
                "INSERT INTO task_results (run_id, side, task_id, attempt, passed, judged, score, duration_ms,"
                " output, reason, mock, split) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            inserted = time.perf_counter() - started
            started = time.perf_counter()
            refresh_task_order(db, run_id, rows)  # as _store does, from the rows just inserted
            projected = time.perf_counter() - started
        if label == "measured":
            figures.update(insert_s=inserted, projection_s=projected)
    add_actor(db, PERSON, "person", PERSON_CAPABILITIES)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every size measured from a checkpointed file
    db.close()
    figures["run_id"] = runs["measured"]
    return figures


# --- the measurements (each in its own process) -------------------------------------------------
FLOOR = """
import sqlite3, sys, time
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT * FROM task_results WHERE run_id = ? AND side = 'candidate' LIMIT 50", [sys.argv[2]]).fetchall()
assert len(rows) == 50, len(rows)
import os
print(time.process_time(), time.time() - float(os.environ["BENCH_SPAWNED"]), file=open(sys.argv[3], "w"))
"""


def since_spawn() -> float:
    """Wall seconds since the parent started this process (it passes the time it spawned it)."""
    return time.time() - float(os.environ["BENCH_SPAWNED"])


def child_store(path: Path, run_id: str, old: bool) -> dict[str, float]:
    from gatepost.store.evaluation import run_task_counts, run_task_page, run_tasks
    from gatepost.store.kernel import open_store

    db = open_store(path, create=False)
    if old:
        rows = run_tasks(db, run_id)[:50]
    else:
        run_task_counts(db, run_id)
        rows = run_task_page(db, run_id, offset=0, limit=50)["rows"]
    assert len(rows) == 50, len(rows)
    return {"seconds": since_spawn(), "cpu_s": time.process_time()}


def _patch_old_results() -> None:
    """The Results screen's former data loading: every task built and sorted when a run is shown."""
    from gatepost.safe import literal, one_line
    from gatepost.screens import results
    from gatepost.store.evaluation import run_tasks

    new_show_run = results.ResultsScreen.show_run

    def show_run(self, run_id):
        self._old_tasks = run_tasks(self.db, run_id) if run_id else []
        new_show_run(self, run_id)

    def fetch_tasks(self, search, offset, limit):
        tasks = [t for t in getattr(self, "_old_tasks", []) if not search or search.lower() in t["task_id"].lower()]
        page = tasks[offset:offset + limit]
        return [(t["task_id"], [results.mark_cell(t), literal(one_line(t["task_id"], 30)),
                                literal(t["split"] or "—"), results.side_cell(t["candidate"]),
                                results.side_cell(t["baseline"]), results.attempts_cell(t)])
                for t in page], len(tasks)

    results.ResultsScreen.show_run = show_run
    results.ResultsScreen._fetch_tasks = fetch_tasks


def _leave_out_run_statistics() -> None:
    """The old console path without the run's statistics: the old run_statistics read every task result
    of the run, and above ~1,000 discordant tasks it failed (OverflowError in stats.sign_test)."""
    from gatepost.screens import results

    results.run_statistics = lambda db, run_id, **_: None


def child_console(path: Path, run_id: str, old: bool) -> dict[str, float]:
    from textual.pilot import WaitForScreenTimeout

    from gatepost.app import GatepostApp
    from gatepost.widgets.paged_list import PagedList

    if old:
        _patch_old_results()
        _leave_out_run_statistics()  # the new console shows the run's statistics (SQL-grouped, bounded)
    elif os.environ.get("GATEPOST_BENCH_STREAMED_STATS"):  # viewer_compare's console-streamed: the former way
        import gatepost.store.evaluation.noise as noise
        noise.stored_figures = lambda db, run_id: None  # the statistics streamed task by task, as before

    async def run() -> dict[str, float]:
        app = GatepostApp(path, person=PERSON)
        async with app.run_test(size=SIZE) as pilot:
            opened = time.perf_counter()
            app.open_item("results", run_id)

            def shown() -> bool:
                screen = app.screen
                if type(screen).__name__ != "ResultsScreen" or getattr(screen, "run_id", None) != run_id:
                    return False
                return len(screen.query_one("#run-tasks", PagedList).keys) == 50

            while not shown():
                try:
                    await pilot.pause(0.005)
                except WaitForScreenTimeout:  # the old path blocks the app for seconds while it sorts
                    pass
            await pilot.pause()
            first = since_spawn()
        return {"seconds": first, "open_s": time.perf_counter() - opened, "cpu_s": time.process_time()}

    return asyncio.run(run())


def child(mode: str, path: Path, run_id: str, out: Path | None) -> None:
    if mode == "build":
        print(json.dumps(build(path, int(run_id))))
        return
    kind, age = mode.split("-")
    figures = (child_store if kind == "store" else child_console)(path, run_id, age == "old")
    assert out is not None
    out.write_text(json.dumps(figures))


Figures = tuple[list[float], list[float], list[float]]  # CPU s, wall s, peak RSS MiB of each run


def measure_modes(modes: list[str], path: Path, run_id: str, runs: int, work: Path) -> dict[str, Figures]:
    """Every mode's runs, interleaved with the floor's: CPU and wall time to the first rows, the child's RSS."""
    found: dict[str, Figures] = {mode: ([], [], []) for mode in ["floor", *modes]}

    def side(mode: str) -> measure.Sample:
        out = work / f"{mode}.json"
        env = {**os.environ, "BENCH_SPAWNED": repr(time.time())}
        if mode == "floor":
            taken = measure.run([sys.executable, "-c", FLOOR, str(path), run_id, str(out)], env=env)
            cpu, wall = map(float, out.read_text().split())
        else:
            taken = measure.run([sys.executable, str(HERE), "--child", mode, "--store", str(path), "--run", run_id,
                                 "--out", str(out)], env=env)
            figures = json.loads(out.read_text())
            cpu, wall = figures["cpu_s"], figures["seconds"]
        for into, value in zip(found[mode], (cpu, wall, taken.rss_mib), strict=True):
            into.append(value)
        return taken

    measure.interleave({mode: (lambda mode=mode: side(mode)) for mode in found}, runs)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=5, help="runs of each side per size (at least 5)")
    parser.add_argument("--old-max", type=int, default=100_000)
    parser.add_argument("--no-console", action="store_true")
    parser.add_argument("--console-old", action="store_true",
                        help="also the console with the Results screen's former loading (patched into today's "
                             "screen; it may no longer fit it)")
    parser.add_argument("--keep", help="build the stores in this folder and keep them")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, Path(args.store), args.run, args.out)
        return
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    measure.compile_all()
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = ["store-new", "store-old"] + ([] if args.no_console else ["console-new"])
    if args.console_old and not args.no_console:
        modes.append("console-old")
    results: dict[int, dict[str, Figures]] = {}
    with tempfile.TemporaryDirectory(prefix="gatepost-run-scale-") as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for n in sizes:
            path = folder / f"run-{n}.db"
            if path.exists():
                path.unlink()
            # built in its own process: this one stays small
            out = subprocess.run([sys.executable, str(HERE), "--child", "build", "--store", str(path),
                                  "--run", str(n)], capture_output=True, text=True, check=False)
            if out.returncode != 0:
                raise SystemExit(f"building the {n:,}-task store failed:\n{out.stderr[-2000:]}")
            built = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{n:>9,} tasks: store built (executemany of the run's {2 * n:,} results {built['insert_s']:.2f} s;"
                  f" its review order written by refresh_task_order {built['projection_s']:.2f} s,"
                  f" {built['projection_s'] / built['insert_s']:.2f}× the insert)", flush=True)
            these = [m for m in modes if not (m.endswith("old") and n > args.old_max)]
            results[n] = measure_modes(these, path, str(built["run_id"]), args.runs, Path(tmp))
            floor_cpu = results[n]["floor"][0]
            for mode, (cpu, wall, rss) in results[n].items():
                versus = "" if mode == "floor" else f"  cpu/floor {measure.ratio(cpu, floor_cpu)}"
                print(f"{'':>11}{mode:<12} to first rows: cpu {measure.spread(cpu)}  wall {measure.spread(wall)}"
                      f"  peak RSS {statistics.median(rss):.0f} MiB ({min(rss):.0f}–{max(rss):.0f}){versus}", flush=True)
            if not args.keep:
                path.unlink()
                for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                    extra.unlink(missing_ok=True)
    smallest, largest = sizes[0], sizes[-1]
    print(f"\nmedians of {args.runs} interleaved runs; {largest:,} tasks against {smallest:,} (flat: about 1):")
    for mode in ["floor", *modes]:
        low, high = results[smallest].get(mode), results[largest].get(mode)
        if low and high:
            print(f"  {mode:<12} CPU {statistics.median(high[0]) / statistics.median(low[0]):.2f}×,"
                  f" wall {statistics.median(high[1]) / statistics.median(low[1]):.2f}×,"
                  f" RSS {statistics.median(high[2]) / statistics.median(low[2]):.2f}×")
    for n in sizes:
        for kind in ("store", "console"):
            new, old = results[n].get(f"{kind}-new"), results[n].get(f"{kind}-old")
            if new and old:
                print(f"  {kind:<8} at {n:,}: old/new CPU {statistics.median(old[0]) / statistics.median(new[0]):.1f}×,"
                      f" RSS {statistics.median(old[2]) / statistics.median(new[2]):.1f}×")


if __name__ == "__main__":
    main()
