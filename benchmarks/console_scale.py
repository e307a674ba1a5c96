"""How the console feels on a large store, against a naive console that loads whole tables.

    python benchmarks/console_scale.py [--store PATH] [--cases 10000] [--runs 1000] [--tasks 1000]
                                       [--skill-runs 100000] [--rebuild] [--repeat 3]

It builds the store once through gatepost's own functions (cases through
store.cases.import_case, task results through evaluator artifacts imported by
store.evaluator.import_artifact, skill runs through store.skills.record_run)
and reuses it afterwards (benchmarks/.stores/ by default). Then, with the app
driven headless, it measures, each against a baseline run in the same process:
- the first page of every screen, against a minimal Textual app painting the same frame (header, 100-row
  DataTable, Static, footer): until the last frame written before its workers were done and applied (the
  page as a person sees it, whole; the app's start on the minimal side), its CPU, and until the test pilot
  saw it settled (the pilot's idle checks after the last frame, each at least 20 ms of sleep, included);
- a revisit: from the key to the screen's first frame written (a revisit reads nothing), its CPU, and the
  time until the test pilot saw the app idle (each of its idle checks sleeps at least 20 ms);
- a cursor move with the detail following, against the same move on a bare DataTable, three ways:
  its wall time through the test pilot (press, then wait until settled, on both sides: issue 15's own unit,
  in which a bare DataTable's move took 64 ms; the pilot's own waits are most of it); its CPU through the
  pilot; and from the key to the frame that shows the detail without the pilot (`keyed_moves`: CPU, and the
  wall time a person waits, the pilot's own walks over every widget left out), the last also against a
  second floor: the bare DataTable beside a Static that shows 45 lines built beforehand for the highlighted
  row at once (what Textual alone spends on a detail that follows);
- the longest gap of a 10 ms timer while another process holds the write lock for 3 s and a
  decision is made meanwhile (and whether it lands once the lock frees; the redraw once it lands is
  reported apart: it is drawing, not waiting);
- `gatepost --help` against `python -c "import click"` (median of 7).
"""

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Static

from gatepost.app import GatepostApp
from gatepost.render import set_frame_rate
from gatepost.screenshots import detail_settled
from gatepost.store import cases, skills
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor, open_store, transaction
from gatepost.store.skills import import_manifest
from gatepost.widgets.paged_list import PagedList

# both apps here run at the frame rate `gatepost console` sets as it starts (120 a second): at Textual's 60 a
# frame waited up to 33 ms for Textual's screen timer, not the 8.3-16.7 ms it waits in the console
set_frame_rate()

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
                          run_id=f"sr-{i}", at=f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z")
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
        await pilot.pause()


async def settle(pilot) -> None:
    """Until the app's workers are done and their results applied (what a person waits for)."""
    app = pilot.app
    for _ in range(100):
        await pilot.pause()
        await detail_settled(app)  # the detail follows the cursor after a short idle (a timer)
        running = [w for w in app.workers if not w.is_finished]
        if not running:
            return
        await app.workers.wait_for_complete(running)


class MinimalApp(App):
    """The floor: a header, a DataTable of one page (100 rows), a Static and a footer, no store."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row")
        yield Static("detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("id", "rev", "claims", "status", "title")
        table.add_rows([(f"case-{i:05d}", "abc123", "✔✔✔?✔✔ ?", "open", f"Loop change {i}") for i in range(100)])
        table.focus()


# what the idiomatic detail pane shows for each of the 100 rows: 45 lines of text, built before any move
DETAIL_TEXTS = [Text("\n".join(f"case-{i:05d} line {j}: " + "the evidence held " * (3 + (i + j) % 4) for j in range(45)))
                for i in range(100)]


class DetailFloorApp(MinimalApp):
    """A second floor, for the cursor move with the detail following: the same DataTable beside a Static that
    shows the highlighted row's 45 lines at once (Static.update in the highlight handler, the text built
    beforehand: no store, no worker, no idle). What Textual itself spends to draw a detail that follows."""

    CSS = "DataTable { width: 1fr; } #floor-detail { width: 1fr; height: 1fr; overflow-y: auto; }"
    shown = 0  # the row whose lines the Static shows (MinimalApp's on_mount fills the table: Textual calls each)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield DataTable(cursor_type="row")
            yield Static(DETAIL_TEXTS[0], id="floor-detail")
        yield Footer()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.query_one("#floor-detail", Static).update(DETAIL_TEXTS[event.cursor_row])
        self.shown = event.cursor_row


async def keyed_moves(app: App, done) -> tuple[float, float]:  # noqa: ANN001
    """CPU (mean) and wall time (median) of one move without the test pilot, from the key (sent as the terminal
    driver sends it) to the frame that shows what `done()` waits for (the moved row; for gatepost, the detail
    read for it). The pilot's press and pause walk every widget of the screen after each key, a cost no person
    pays and one that grows with the widgets a screen has (31 on Cases, 8 on the minimal app). Each move is
    followed by 60 ms of rest (no CPU). The moves go down then back up from the list's top, so neither table
    scrolls (a scroll repaints every row)."""
    frame = asyncio.Event()
    display = app._display

    def on_display(screen, renderable) -> None:  # noqa: ANN001
        display(screen, renderable)
        if renderable is not None:
            frame.set()

    app._display = on_display  # type: ignore[method-assign]
    total, walls = 0.0, []
    for i in range(MOVES):
        before = done()
        cpu, wall = time.process_time(), time.perf_counter()
        app._driver.send_message(events.Key("down" if i < MOVES // 2 else "up", None))
        while True:
            frame.clear()
            await frame.wait()
            now = done()
            if now is not None and now != before:
                break
        total += time.process_time() - cpu
        walls.append(time.perf_counter() - wall)
        await asyncio.sleep(0.06)
    app._display = display  # type: ignore[method-assign]
    return total / MOVES, statistics.median(walls)


def record_frames(app: App) -> list[tuple[float, object]]:
    """(when, screen) of every frame the app writes to its terminal, from now on."""
    frames: list[tuple[float, object]] = []
    display = app._display

    def timed_display(screen, renderable) -> None:  # noqa: ANN001
        display(screen, renderable)
        if renderable is not None:
            frames.append((time.perf_counter(), screen))

    app._display = timed_display  # type: ignore[method-assign]
    return frames


async def last_frame(pilot, frames: list[tuple[float, object]], started: float) -> float:  # noqa: ANN001
    """From `started` to the last frame of the screen shown written since: the page as the person sees it at
    last, everything read and drawn (the pilot's idle checks after it, each at least 20 ms of sleep, left out).
    Called once the pilot saw the screen settled; a frame Textual still holds back then is waited for."""
    screen = pilot.app.screen
    await _until(pilot, lambda: any(t > started and shown is screen for t, shown in frames))
    return max(t for t, shown in frames if t > started and shown is screen) - started


async def measure_minimal() -> dict[str, float]:
    figures: dict[str, float] = {}
    started, cpu = time.perf_counter(), time.process_time()
    app = MinimalApp()
    frames = record_frames(app)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: app.query_one(DataTable).row_count == 100)
        await pilot.pause()
        PILOT["first frame"] = time.perf_counter() - started
        figures["first frame (CPU)"] = time.process_time() - cpu
        figures["first frame"] = await last_frame(pilot, frames, started)
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(MOVES):
            await pilot.press("down")
            await settle(pilot)  # as on gatepost's side: here one more pause, nothing follows the cursor
        figures["cursor move (CPU)"] = (time.process_time() - cpu) / MOVES
        figures["cursor move (wall)"] = (time.perf_counter() - wall) / MOVES
        table = app.query_one(DataTable)
        table.move_cursor(row=0)
        await pilot.pause()
        cpu_moved, wall_moved = await keyed_moves(app, lambda: table.cursor_row)
        figures["cursor move, key to frame (CPU)"] = cpu_moved
        figures["cursor move, key to frame (wall)"] = wall_moved
    floor = DetailFloorApp()
    async with floor.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: floor.query_one(DataTable).row_count == 100)
        await pilot.pause()
        cpu_moved, wall_moved = await keyed_moves(floor, lambda: floor.shown)
        figures["detail floor: key to detail frame (CPU)"] = cpu_moved
        figures["detail floor: key to detail frame (wall)"] = wall_moved
    return figures


MOVES = 30
SETTLED: dict[str, float] = {}  # a revisit until the pilot saw the app idle (its waits included)
PILOT: dict[str, float] = {}  # a first page until the pilot saw it settled (its idle checks included)
CPU: dict[str, float] = {}  # the process's CPU for each first page (all threads): steadier than wall on a loaded machine


async def measure_gatepost(path: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    started, cpu = time.perf_counter(), time.process_time()
    app = GatepostApp(path, person=PERSON)
    frames = record_frames(app)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: type(app.screen).__name__ == "OverviewScreen")
        await settle(pilot)
        PILOT["overview: first page"] = time.perf_counter() - started
        CPU["overview: first page"] = time.process_time() - cpu
        figures["overview: first page"] = await last_frame(pilot, frames, started)
        for mode, key, _label, _target in app.screen_specs[1:]:
            started, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            await _until(pilot, lambda mode=mode: app.current_mode == mode and bool(app.screen.query(PagedList))
                         and all(p.loaded for p in app.screen.query(PagedList)))
            await settle(pilot)
            PILOT[f"{mode}: first page"] = time.perf_counter() - started
            CPU[f"{mode}: first page"] = time.process_time() - cpu
            figures[f"{mode}: first page"] = await last_frame(pilot, frames, started)
        for mode, key, _label, _target in app.screen_specs:
            started, cpu = time.perf_counter(), time.process_time()
            await pilot.press(key)
            await settle(pilot)
            # the key to the revisited screen's first frame (a revisit reads nothing: the frame is all of it);
            # waiting until settled adds the test pilot's own idle checks (each at least 20 ms of sleep)
            figures[f"{mode}: revisit"] = next(t for t, screen in frames if t > started and screen is app.screen) - started
            CPU[f"{mode}: revisit"] = time.process_time() - cpu
            SETTLED[f"{mode}: revisit"] = time.perf_counter() - started
        await pilot.press("2")
        await settle(pilot)
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(MOVES):
            await pilot.press("down")
            await settle(pilot)  # the detail follows every move
        figures["cases: cursor move, detail following (CPU)"] = (time.process_time() - cpu) / MOVES
        figures["cases: cursor move, detail following (wall)"] = (time.perf_counter() - wall) / MOVES
        screen = app.screen
        screen.query_one(PagedList).table.move_cursor(row=0)
        await settle(pilot)
        cpu_moved, wall_moved = await keyed_moves(app, lambda: screen.shown if screen.detail_settled.is_set() else None)
        figures["cases: cursor move, key to detail frame (CPU)"] = cpu_moved
        figures["cases: cursor move, key to detail frame (wall)"] = wall_moved
    return figures


HOLD_LOCK = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(3.0)
db.execute("COMMIT")
"""


async def measure_stall(path: Path) -> dict[str, float]:
    """The longest gap between 10 ms ticks while another process holds the write lock 3 s and the
    person decides a case meanwhile; and whether that decision lands once the lock frees."""
    app = GatepostApp(path, person=PERSON)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(pilot)
        app.screen.apply_filter(status="needs_decision")
        await settle(pilot)
        screen = app.screen
        case_id = screen.paged.keys[0]
        screen.open_item(case_id)
        await settle(pilot)
        outcome = next(d.name for d in screen.DECISIONS if screen.legal(d.name)[0])
        await pilot.press(next(d.key for d in screen.DECISIONS if d.name == outcome))
        await settle(pilot)
        from textual.widgets import TextArea

        app.screen.query_one(TextArea).insert("benchmark: decided while the store was busy")
        idle: list[float] = []  # the baseline: the same timer and loop for 3 s with nobody holding the lock
        timer = app.set_interval(0.01, lambda: idle.append(time.perf_counter()))
        until = time.perf_counter() + 3.0
        while time.perf_counter() < until:
            await pilot.pause()
        timer.stop()
        figures["longest stall, no lock held"] = max(b - a for a, b in zip(idle, idle[1:], strict=False))
        ticks: list[float] = []
        app.set_interval(0.01, lambda: ticks.append(time.perf_counter()))
        holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        locked_at = time.perf_counter()
        ticks.append(locked_at)
        await pilot.press("ctrl+s")  # the decision is written while the lock is held
        while holder.poll() is None:
            await pilot.pause()
        released_at = time.perf_counter()  # within one pause of the holder's exit
        await settle(pilot)
        gaps = [(a, b - a) for a, b in zip(ticks, ticks[1:], strict=False)]
        # while the lock was held (a gap that began before the release counts whole); then the redraw once it lands
        figures["longest stall under a 3 s write lock"] = max(g for a, g in gaps if a < released_at)
        figures["longest frame after the lock freed"] = max((g for a, g in gaps if a >= released_at), default=0.0)
        decided = cases.get_case(app.reader, case_id)
        figures["decision landed after the lock (1 = yes)"] = float(decided["status"] == "closed")
        figures["lock held"] = time.perf_counter() - locked_at
    return figures


def measure_cli(runs: int = 7) -> dict[str, float]:
    def median(argv: list[str]) -> float:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    return {"gatepost --help": median([sys.executable, "-m", "gatepost", "--help"]),
            "python -c 'import click'": median([sys.executable, "-c", "import click"])}


def _median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's median over the runs: one run's first page moved 1.3-2.2x the minimal app on an idle machine
    (a garbage collection, the scheduler), which one run cannot tell from a change."""
    return {name: statistics.median(run[name] for run in runs) for name in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=ROOT / "benchmarks" / ".stores" / "console_scale.db")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--tasks", type=int, default=1_000, help="task results per run")
    parser.add_argument("--skill-runs", type=int, default=100_000)
    parser.add_argument("--rebuild", action="store_true", help="build the store again even if it exists")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side; every figure is their median")
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
    floors, runs, cpus, settleds, pilots = [], [], [], [], []
    for _ in range(args.repeat):  # interleaved, each in a fresh app: a drift of the machine reaches both sides
        floors.append(asyncio.run(measure_minimal()))
        runs.append(asyncio.run(measure_gatepost(args.store)))
        cpus.append(dict(CPU))
        settleds.append(dict(SETTLED))
        pilots.append(dict(PILOT))
    floor, ours = _median_of(floors), _median_of(runs)
    CPU.update(_median_of(cpus))
    SETTLED.update(_median_of(settleds))
    PILOT.update(_median_of(pilots))
    print(f"(each figure: the median of {args.repeat} runs)")
    stall = asyncio.run(measure_stall(args.store))
    cli = measure_cli()
    print(f"\nminimal Textual app (same frame, no store): first frame {floor['first frame'] * 1000:.0f} ms "
          f"({floor['first frame (CPU)'] * 1000:.0f} ms CPU; {PILOT['first frame'] * 1000:.0f} ms until the pilot saw it"
          ");\n  cursor move through the pilot "
          f"{floor['cursor move (wall)'] * 1000:.1f} ms ({floor['cursor move (CPU)'] * 1000:.1f} ms CPU), key to frame "
          f"{floor['cursor move, key to frame (wall)'] * 1000:.1f} ms ({floor['cursor move, key to frame (CPU)'] * 1000:.1f}"
          " ms CPU)")
    print(f"  with a 45-line Static that follows the cursor at once (no store): key to detail frame "
          f"{floor['detail floor: key to detail frame (wall)'] * 1000:.1f} ms "
          f"({floor['detail floor: key to detail frame (CPU)'] * 1000:.1f} ms CPU), "
          f"{floor['detail floor: key to detail frame (CPU)'] / floor['cursor move, key to frame (CPU)']:.2f}× the bare "
          "DataTable's CPU")
    print("\ngatepost:")
    for name, seconds in ours.items():
        unit = "(wall)" if name.endswith("(wall)") else "(CPU)"
        base = (floor[f"cursor move, key to frame {unit}"] if "key to" in name else floor[f"cursor move {unit}"]
                if "cursor" in name else floor["first frame"])
        ratio = f"{seconds / base:5.2f}× the minimal app" if "revisit" not in name else ""
        if name in CPU and "revisit" in name:
            ratio = (f"key to frame;  CPU {CPU[name] * 1000:4.0f} ms;  {SETTLED[name] * 1000:4.0f} ms until the "
                     "pilot saw it idle")
        elif name in CPU:
            ratio += (f"   CPU {CPU[name] * 1000:4.0f} ms, {CPU[name] / floor['first frame (CPU)']:4.2f}×;  until the pilot "
                      f"saw it settled {PILOT[name] * 1000:4.0f} ms, {PILOT[name] / PILOT['first frame']:4.2f}×")
        if "key to detail" in name:
            ratio += f";  {seconds / floor[f'detail floor: key to detail frame {unit}']:4.2f}× the Static floor"
        print(f"  {name:<46} {seconds * 1000:8.1f} ms  {ratio}")
    print("\nunder another process's write lock:")
    print(f"  longest stall of a 10 ms timer            {stall['longest stall under a 3 s write lock'] * 1000:8.1f} ms"
          f"   (no lock held, same 3 s: {stall['longest stall, no lock held'] * 1000:.1f} ms)")
    print(f"  decision made meanwhile landed            {'yes' if stall['decision landed after the lock (1 = yes)'] else 'NO'}")
    print(f"  longest frame once it landed (redraw)     {stall['longest frame after the lock freed'] * 1000:8.1f} ms")
    print("\nCLI start-up (median of 7):")
    for name, seconds in cli.items():
        print(f"  {name:<46} {seconds * 1000:8.1f} ms")
    ratio = cli["gatepost --help"] / cli["python -c 'import click'"]
    print(f"  ratio {ratio:5.2f}×")


if __name__ == "__main__":
    main()
