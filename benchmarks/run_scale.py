"""First rows of one run's tasks at 1,000 / 10,000 / 100,000 / 1,000,000 tasks, and peak RSS (issue 19).

    python benchmarks/run_scale.py [--sizes 1000,10000,100000,1000000] [--repeat 3] [--old-max 100000]
                                   [--no-console] [--keep DIR]

For each size a store is built in a temporary folder with a raw executemany: two runs of the same
skill (the previous run and the measured one, about 5 % of the tasks changing between them, 20 %
candidate ≠ baseline), then the run's review order is written by refresh_task_order, as storing a run
does (its time is printed: the store-time cost of the projection; a run of at most 4,000 results
stores none, its order is computed when read). Every figure is then taken in a
fresh subprocess, the median of --repeat:

  store new   open the store, run_task_counts + the first page of run_task_page (50 rows)
  store old   open the store, run_tasks() (every task built and sorted), its first 50 rows
  console new the console headless (run_test): start → the Results screen showing the run's first rows
  console old the same console with the Results screen's former data loading (run_tasks() on open)
              (the old one without the run's statistics, which overflowed: see _leave_out_run_statistics;
              the new one with them, as the Results screen shows them)

ru_maxrss of each subprocess is its peak RSS. The old paths are the baseline in the same run; above
--old-max tasks they are skipped (they need ~3.7 KB per task: 3.7 GB at 1,000,000).
"""

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
def child_store(path: Path, run_id: str, old: bool) -> dict[str, float]:
    started = time.perf_counter()
    from gatepost.store.evaluation import run_task_counts, run_task_page, run_tasks
    from gatepost.store.kernel import open_store

    db = open_store(path, create=False)
    if old:
        rows = run_tasks(db, run_id)[:50]
    else:
        run_task_counts(db, run_id)
        rows = run_task_page(db, run_id, offset=0, limit=50)["rows"]
    assert len(rows) == 50, len(rows)
    return {"seconds": time.perf_counter() - started, "cpu_s": time.process_time()}


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
    started = time.perf_counter()
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
            first = time.perf_counter() - started
        return {"seconds": first, "open_s": time.perf_counter() - opened, "cpu_s": time.process_time()}

    return asyncio.run(run())


def child(mode: str, path: Path, run_id: str) -> None:
    if mode == "build":
        print(json.dumps(build(path, int(run_id))))
        return
    kind, age = mode.split("-")
    figures = (child_store if kind == "store" else child_console)(path, run_id, age == "old")
    figures["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def measure(mode: str, path: Path, run_id: str, repeat: int) -> tuple[float, float, float]:
    seconds, rss, cpu = [], [], []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, str(HERE), "--child", mode, "--store", str(path), "--run", run_id],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"{mode}: the measuring process failed:\n{out.stderr[-2000:]}")
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        seconds.append(figures["seconds"])
        rss.append(figures["rss_mb"])
        cpu.append(figures["cpu_s"])
    return statistics.median(seconds), statistics.median(rss), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old-max", type=int, default=100_000)
    parser.add_argument("--no-console", action="store_true")
    parser.add_argument("--keep", help="build the stores in this folder and keep them")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, Path(args.store), args.run)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = ["store-new", "store-old"] + ([] if args.no_console else ["console-new", "console-old"])
    results: dict[int, dict[str, tuple[float, float, float] | None]] = {}
    with tempfile.TemporaryDirectory(prefix="gatepost-run-scale-") as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for n in sizes:
            path = folder / f"run-{n}.db"
            if path.exists():
                path.unlink()
            # built in its own process: on Linux a child's ru_maxrss starts from its parent's at fork,
            # so this process stays small and every measuring process reports its own peak
            out = subprocess.run([sys.executable, str(HERE), "--child", "build", "--store", str(path),
                                  "--run", str(n)], capture_output=True, text=True, check=False)
            if out.returncode != 0:
                raise SystemExit(f"building the {n:,}-task store failed:\n{out.stderr[-2000:]}")
            built = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{n:>9,} tasks: store built (executemany of the run's {2 * n:,} results {built['insert_s']:.2f} s;"
                  f" its review order written by refresh_task_order {built['projection_s']:.2f} s,"
                  f" {built['projection_s'] / built['insert_s']:.2f}× the insert)", flush=True)
            results[n] = {}
            for mode in modes:
                if mode.endswith("old") and n > args.old_max:
                    results[n][mode] = None
                    continue
                results[n][mode] = measure(mode, path, str(built["run_id"]), args.repeat)
                secs, rss, cpu = results[n][mode]
                print(f"{'':>11}{mode:<12} first rows {secs:7.3f} s (process CPU {cpu:6.3f} s)  peak RSS {rss:7.1f} MB",
                      flush=True)
            if not args.keep:
                path.unlink()
                for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                    extra.unlink(missing_ok=True)

    def cell(value: tuple[float, float, float] | None) -> str:
        return "skipped" if value is None else f"{value[0]:.3f} s, {value[1]:.0f} MB"

    print()
    print(f"First rows of one run's tasks (median of {args.repeat}, each in a fresh process) and peak RSS")
    print("| N tasks | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    for n in sizes:
        print(f"| {n:,} | " + " | ".join(cell(results[n][m]) for m in modes) + " |")
    smallest, largest = sizes[0], sizes[-1]
    print()
    for mode in modes:
        low, high = results[smallest].get(mode), results[largest].get(mode)
        if low and high:
            print(f"{mode:<12} {largest:,} vs {smallest:,}: time {high[0] / low[0]:.2f}×, CPU {high[2] / low[2]:.2f}×,"
                  f" RSS {high[1] / low[1]:.2f}×")
    for n in sizes:
        for kind in ("store", "console"):
            new, old = results[n].get(f"{kind}-new"), results[n].get(f"{kind}-old")
            if new and old:
                print(f"{kind:<8} at {n:,}: old/new time {old[0] / new[0]:.1f}×, RSS {old[1] / new[1]:.1f}×")


if __name__ == "__main__":
    main()
