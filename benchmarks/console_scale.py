"""How the console feels on a large store, against a naive console that loads whole tables.

    python benchmarks/console_scale.py [--store PATH] [--cases 10000] [--runs 1000] [--tasks 1000]
                                       [--skill-runs 100000] [--rebuild]

It builds the store once through gatepost's own functions (cases through
store.cases.import_case, task results through evaluator artifacts imported by
store.evaluator.import_artifact, skill runs through store.skills.record_run)
and reuses it afterwards (benchmarks/.stores/ by default). Then, with the app
driven headless, it measures: start to the first painted overview; each list's
first painted page; a filter and a search on the cases list. The naive
baseline is the same measurement for an app that loads the whole table into a
DataTable, which is what gatepost's lists avoid; the ratio shows the gap.
"""

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import DataTable

from gatepost.app import GatepostApp
from gatepost.store import cases, skills
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor, open_store, transaction
from gatepost.store.skills import import_manifest
from gatepost.widgets.paged_list import PagedList

ROOT = Path(__file__).resolve().parent.parent

SIZE = (160, 50)
PERSON = "ana"
KINDS = ["guard_check", "tuning_comparison", "heldout_comparison", "design_review"]
RESULTS = {"guard_check": ["clean", "outside", "leaked"], "tuning_comparison": ["reproduced", "not_reproduced",
           "not_better"], "heldout_comparison": ["held", "regressed"], "design_review": ["passed", "failed"]}


def build(path: Path, n_cases: int, n_runs: int, n_tasks: int, n_skill_runs: int) -> None:
    rng = random.Random(11)
    db = open_store(path)
    add_actor(db, PERSON, "person", PERSON_CAPABILITIES)
    for producer in ("run-41", "run-52", "run-53"):
        add_actor(db, producer, "producer", ["evidence.record"])
    started = time.perf_counter()
    for i in range(n_cases):
        evidence = []
        for kind in rng.sample(KINDS, rng.randint(0, 4)):
            producer = "ana" if kind == "design_review" else rng.choice(["run-52", "run-53", "run-41"])
            evidence.append({"kind": kind, "result": rng.choice(RESULTS[kind]), "producer": producer,
                             "about": "design-2" if kind == "design_review" else "current"})
        cases.import_case(db, {
            "protocol": "eval.gated_change/1", "id": f"case-{i:05d}",
            "title": f"Loop change {i}: {rng.choice(['tighten', 'loosen', 'reword', 'split'])} "
                     f"{rng.choice(['release', 'search', 'triage', 'summary'])} guidance",
            "author": "run-41",
            "candidate": {"path": f"procedures/p{i % 50}.md", "content": f"step {i}\n" * 5,
                          "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": f"d-{i % 9}",
                                    "design": "design-2"}},
            "independent": {"different_agent_run": ["run-52", "run-53", "ana"]},
            "evidence": evidence,
        }, actor=PERSON)
    print(f"  {n_cases:,} cases in {time.perf_counter() - started:.1f} s", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(n_runs):
            artifact = {
                "skill_id": f"skill-{r % 40}", "execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0,
                "verdict": "pass", "warnings": [],
                "candidate_results": [{"task_id": f"t{t}", "passed": rng.random() < 0.6, "score": 1.0,
                                       "duration_ms": rng.randint(5, 900), "output": f"answer {t}"}
                                      for t in range(n_tasks // 2)],
                "baseline_results": [{"task_id": f"t{t}", "passed": rng.random() < 0.5, "score": 0.0,
                                      "duration_ms": rng.randint(5, 900), "output": f"base {t}"}
                                     for t in range(n_tasks - n_tasks // 2)],
                "run": r,
            }
            file = Path(tmp) / f"run-{r}.json"
            file.write_text(json.dumps(artifact))
            import_artifact(db, file, actor=PERSON)
    print(f"  {n_runs * n_tasks:,} task results in {time.perf_counter() - started:.1f} s", flush=True)
    started = time.perf_counter()
    skill_names = [f"skill-{s}" for s in range(100)]
    import_manifest(db, "bench.yaml", actor=PERSON,
                    text="\n".join(f"{name}:\n  min_words: 4\n" for name in skill_names))
    for i in range(n_skill_runs):
        skills.record_run(db, skill_names[i % 100], "word " * rng.randint(1, 9), actor="run-52",
                          run_id=f"sr-{i}", at=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z")
    skills.evaluate(db, actor=PERSON)
    print(f"  {n_skill_runs:,} skill runs in {time.perf_counter() - started:.1f} s", flush=True)
    with transaction(db):
        pass
    db.close()


async def _until(pilot, check, timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError("the screen did not paint in time")
        await pilot.pause(0.01)


async def measure_gatepost(path: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    started = time.perf_counter()
    app = GatepostApp(path, person=PERSON)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: type(app.screen).__name__ == "OverviewScreen")
        await pilot.pause()
        figures["start → overview painted"] = time.perf_counter() - started
        for mode, key, _label, _target in app.screen_specs[1:]:
            started = time.perf_counter()
            await pilot.press(key)
            await _until(pilot, lambda mode=mode: app.current_mode == mode and bool(app.screen.query(PagedList))
                         and all(p.loaded for p in app.screen.query(PagedList)))
            await pilot.pause()
            figures[f"{mode}: first page painted"] = time.perf_counter() - started
        await pilot.press("2")
        await pilot.pause()
        paged = app.screen.query(PagedList).first()
        started = time.perf_counter()
        app.screen.apply_filter(status="open")
        await pilot.pause()
        figures["cases: filter status=open"] = time.perf_counter() - started
        started = time.perf_counter()
        paged.set_search("release")
        await pilot.pause()
        figures["cases: search 'release'"] = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(50):
            await pilot.press("down")
        await pilot.pause()
        figures["cases: 50 rows scrolled (detail follows)"] = time.perf_counter() - started
    return figures


class NaiveApp(App):
    """What gatepost's lists avoid: the whole table in one DataTable."""

    def __init__(self, path: Path, sql: str) -> None:
        super().__init__()
        self.path, self.sql = path, sql

    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        db = open_store(self.path, create=False)
        cursor = db.execute(self.sql)
        table = self.query_one(DataTable)
        table.add_columns(*[c[0] for c in cursor.description])
        table.add_rows(cursor.fetchall())
        db.close()


async def measure_naive(path: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name, sql in [
        ("cases", "SELECT id, title, current_revision, status, outcome, claims FROM cases ORDER BY updated_at DESC"),
        ("regressions", "SELECT skill, at, status, word_count FROM skill_runs ORDER BY at DESC"),
        ("results", "SELECT run_id, side, task_id, attempt, passed, score, duration_ms FROM task_results"),
    ]:
        started = time.perf_counter()
        app = NaiveApp(path, sql)
        async with app.run_test(size=SIZE) as pilot:
            await _until(pilot, lambda app=app: app.query_one(DataTable).row_count > 0, timeout=1800)
            await pilot.pause()
        figures[f"{name}: whole table painted"] = time.perf_counter() - started
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=ROOT / "benchmarks" / ".stores" / "console_scale.db")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--tasks", type=int, default=1_000, help="task results per run")
    parser.add_argument("--skill-runs", type=int, default=100_000)
    parser.add_argument("--rebuild", action="store_true", help="build the store again even if it exists")
    parser.add_argument("--build-only", action="store_true", help="build (or reuse) the store, measure nothing")
    args = parser.parse_args()
    if args.rebuild or not args.store.exists():
        args.store.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(str(args.store) + suffix).unlink(missing_ok=True)
        print(f"building {args.store} …", flush=True)
        build(args.store, args.cases, args.runs, args.tasks, args.skill_runs)
    db = open_store(args.store, create=False)
    sizes = {t: db[t].count for t in ("cases", "task_results", "skill_runs", "events")}
    db.close()
    print("store: " + ", ".join(f"{n:,} {t}" for t, n in sizes.items()))
    if args.build_only:
        return
    ours = asyncio.run(measure_gatepost(args.store))
    naive = asyncio.run(measure_naive(args.store))
    print("\ngatepost (pages from SQL):")
    for name, seconds in ours.items():
        print(f"  {name:<44} {seconds * 1000:9.0f} ms")
    print("\nnaive (whole table in a DataTable):")
    for name, seconds in naive.items():
        print(f"  {name:<44} {seconds * 1000:9.0f} ms")
    print("\nratio naive / gatepost, first painted list:")
    for name in ("cases", "regressions", "results"):
        mine = ours.get(f"{name}: first page painted")
        theirs = naive.get(f"{name}: whole table painted")
        if mine and theirs:
            print(f"  {name:<12} {theirs / mine:8.1f}×")


if __name__ == "__main__":
    main()
