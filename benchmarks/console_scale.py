"""How the console's first pages and cursor moves compare with Textual's own floor, on large stores.

    python benchmarks/console_scale.py [--store PATH ...] [--runs 5] [--cases 10000] [--runs-of-tasks 1000]
                                       [--tasks 1000] [--skill-runs 100000] [--rebuild] [--stall]
                                       [--screens results,moves]

A store is built once through gatepost's own functions (cases through store.cases.import_case, task results
through evaluator artifacts imported by store.evaluation.import_artifact, skill runs through
store.skills.record_run) and reused (benchmarks/.stores/ by default; --store may be given more than once, e.g.
a 10,000-case and a 100,000-case store, each measured in turn).

Every sample is a fresh child process (benchmarks/measure.py) that runs an app headless at 160x50, so no
side inherits the other's caches; the floor's and gatepost's children are interleaved A B A B, --runs of
each (at least 5), and each figure is the median with its spread (min-max) and the ratio of the medians
with the spread of the per-round ratios. Within a child a figure is that process's CPU (every thread: the
console's reads run in worker threads; it starts no other process) from the key, sent as the terminal
driver sends it (no test pilot: its waits and its walks over every widget are no person's cost), to the first
frame written that shows the data.

- First page: a switch to a screen not shown before, in an app already running, until the frame that shows
  its data (gatepost: every list of the screen loaded and its detail drawn for the highlighted row).
  The floor: the same switch in a minimal app, to a screen of a header, a DataTable of 100 rows beside a Static
  that shows 45 lines prepared beforehand, and a footer (no store, no worker): what Textual itself spends
  to show a page of a list with its detail. It is the floor because any console built on Textual showing
  that page pays it; the first such switch of its process is taken, as gatepost's screens are its first
  visits.
- The Overview (the screen gatepost starts on): its CPU from the process's start to the frame that shows its
  counts, at each store size: it is flat when the figure does not grow with the store (no floor: it is the
  start of the app).
- A cursor move on Cases with the detail following: from the key to the frame that shows the detail read for
  the new row (the mean of 30 moves, down then up from the top so no table scrolls, each followed by 60 ms of
  rest). The floor: the same move in the floor's page, whose Static shows the new row's prepared lines at
  once (Static.update in the highlight handler): what Textual spends to draw a detail that follows.
- --screens: only these first pages (screen names, comma-separated; `moves` for the cursor move), to iterate on
  one: the screens before them in the console's order are still visited, unmeasured, so a screen is measured in
  the state a whole run measures it in; the floor's child skips its moves unless `moves` is named.
- --stall: the longest gap of a 10 ms timer while another process holds the write lock for 3 s and a decision
  is made meanwhile, and whether it lands once the lock frees (one run, in this process).

CPU figures are steadier than wall time on a loaded machine, but a machine whose other processes take both
cores still slows the caches and the scheduler: compare ratios within one run, not figures across runs.
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
from collections.abc import Callable
from pathlib import Path

import measure
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, OptionList, Static

from gatepost.app import SCREENS, GatepostApp
from gatepost.render import set_frame_rate
from gatepost.screenshots import settle
from gatepost.store import cases, skills
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor, open_store, transaction
from gatepost.store.skills import import_manifest
from gatepost.widgets.paged_list import PagedList

# both sides run at the frame rate `gatepost console` sets as it starts (120 a second): at Textual's 60 a
# frame waited up to 33 ms for Textual's screen timer, not the 8.3-16.7 ms it waits in the console
set_frame_rate()

ROOT = Path(__file__).resolve().parent.parent

SIZE = (160, 50)
PERSON = "ana"
MOVES = 30
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


# what the floor's detail shows for each of its 100 rows: 45 lines of text, built before any move
DETAIL_TEXTS = [Text("\n".join(f"case-{i:05d} line {j}: " + "the evidence held " * (3 + (i + j) % 4) for j in range(45)))
                for i in range(100)]


class FloorScreen(Screen[None]):
    """The floor's page: a header, a DataTable of 100 rows beside a Static showing the highlighted row's 45
    prepared lines (updated at once when the cursor moves), a footer."""

    CSS = "DataTable { width: 1fr; } #floor-detail { width: 1fr; height: 1fr; overflow-y: auto; }"
    shown: int | None = None  # the row whose lines the Static shows

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            yield DataTable(cursor_type="row")
            yield Static(id="floor-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("id", "rev", "claims", "status", "title")
        table.add_rows([(f"case-{i:05d}", "abc123", "✔✔✔?✔✔ ?", "open", f"Loop change {i}") for i in range(100)])
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.query_one("#floor-detail", Static).update(DETAIL_TEXTS[event.cursor_row])
        self.shown = event.cursor_row


class FloorApp(App[None]):
    """The floor: an app running on a blank screen; key 2 shows the floor's page (a mode, as gatepost's screens
    are)."""

    MODES = {"blank": lambda: Screen(), "page": FloorScreen}  # noqa: RUF012 - Textual reads it from the class
    BINDINGS = [("2", "switch_mode('page')", "Page")]  # noqa: RUF012

    def on_mount(self) -> None:
        self.switch_mode("blank")


FORCED = [0]  # repaints asked for in this process (Frames.until)


class Frames:
    """Watches the frames an app writes: `until(done)` resolves at the first frame written when `done()` holds,
    with the process's CPU and the wall clock at that frame."""

    def __init__(self, app: App) -> None:  # type: ignore[type-arg]
        self.app, self.done, self.at = app, None, (0.0, 0.0)
        self.seen = asyncio.Event()
        display = app._display

        def on_display(screen, renderable) -> None:  # noqa: ANN001
            display(screen, renderable)
            if renderable is not None and self.done is not None and not self.seen.is_set() and self.done():
                self.at = (time.process_time(), time.perf_counter())
                self.seen.set()

        app._display = on_display  # type: ignore[method-assign]

    forced = 0  # frames asked for because done() held and no frame came (counted, printed by the child)

    async def until(self, done: Callable[[], object], timeout: float = 120.0) -> tuple[float, float]:
        """The first frame written when done() holds. If done() holds and no frame comes for 5 s (the data
        drawn changed no cell after all), a repaint is asked for and counted (printed by the parent; its CPU
        is in the figure, the wait, idle, is not). At `timeout` it fails naming what the app shows (app_state):
        a wait that never ends says which state it was stuck in."""
        self.seen.clear()
        self.done = done
        deadline = time.perf_counter() + timeout
        while not self.seen.is_set():
            try:
                await asyncio.wait_for(self.seen.wait(), 5.0)
            except TimeoutError:
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"no frame showed the data within {timeout:g} s; done() is {bool(done())}; "
                                       f"{app_state(self.app)}") from None
                if done():
                    self.forced += 1
                    FORCED[0] += 1
                    self.app.screen.refresh()
        self.done = None
        return self.at

    async def key(self, key: str, done: Callable[[], object]) -> tuple[float, float]:
        """CPU and wall seconds from `key` (sent as the terminal driver sends it) to the first frame showing done()."""
        cpu, wall = time.process_time(), time.perf_counter()
        self.app._driver.send_message(events.Key(key, key if len(key) == 1 else None))
        at_cpu, at_wall = await self.until(done)
        return at_cpu - cpu, at_wall - wall


def app_state(app: App) -> str:  # type: ignore[type-arg]
    """What the app shows, for a wait that timed out: its mode and screen, each list's state (loaded, cursor,
    rows), and a list-detail screen's detail (wanted, shown, settled)."""
    screen = app.screen
    parts = [f"mode {getattr(app, 'current_mode', None)!r}, screen {type(screen).__name__}"]
    for paged in screen.query(PagedList):
        table = paged.table
        parts.append(f"list #{paged.id}: loaded {paged.loaded}, cursor row {table.cursor_row} "
                     f"({paged.current_key!r}) of {table.row_count}")
    for name in ("wanted", "shown"):
        if hasattr(screen, name):
            parts.append(f"{name} {getattr(screen, name)!r}")
    settled = getattr(screen, "detail_settled", None)
    if settled is not None:
        parts.append(f"detail settled {settled.is_set()}")
    if isinstance(screen, FloorScreen):
        parts.append(f"floor shown {screen.shown!r}, cursor row {screen.query_one(DataTable).cursor_row}")
    return "; ".join(parts)


async def keyed_moves(frames: Frames, shown: Callable[[], object], *, down_only: bool = False) -> float:
    """The mean CPU of a cursor move, from the key to the frame that shows `shown()` changed: half the moves down,
    then back up (`down_only`: every move down, each to a row not shown before)."""
    total = 0.0
    for i in range(MOVES):
        before = shown()
        key = "down" if down_only or i < MOVES // 2 else "up"
        cpu, _ = await frames.key(key, lambda b=before: shown() not in (None, b))
        total += cpu
        await asyncio.sleep(0.06)
    return total / MOVES


async def floor_child(screens: set[str] | None = None) -> dict[str, float]:
    """`screens`: measure only these (None: all); the floor has one page, and its moves unless `moves` is left out."""
    app = FloorApp()
    frames = Frames(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()

        def page_shown() -> bool:
            screen = app.screen
            return isinstance(screen, FloorScreen) and screen.query_one(DataTable).row_count == 100 \
                and screen.shown == 0

        cpu, wall = await frames.key("2", page_shown)
        figures = {"first page": cpu, "first page (wall)": wall}
        screen = app.screen
        assert isinstance(screen, FloorScreen)
        if screens is None or "moves" in screens:
            figures["cursor move, detail following"] = await keyed_moves(frames, lambda: screen.shown)
    return figures


async def gatepost_child(path: Path, screens: set[str] | None = None) -> dict[str, float]:
    """`screens`: measure only these first pages (and the moves if `moves` is in it); None: every one. The screens
    before the last named are visited all the same, unmeasured."""
    app = GatepostApp(path, person=PERSON)
    frames = Frames(app)
    figures: dict[str, float] = {}
    async with app.run_test(size=SIZE) as pilot:
        def overview_shown() -> bool:
            lines = app.screen.query("#overview-lines")
            return bool(lines) and lines.first(OptionList).option_count > 0

        at_cpu, _ = await frames.until(overview_shown)
        figures["overview: start to counts shown"] = at_cpu  # the process's CPU since it started
        await settle(pilot)
        specs = app.screen_specs[1:]
        if screens is not None:
            named = [i for i, spec in enumerate(specs) if spec[0] in screens]
            specs = specs[:max(named) + 1] if named else []
        for mode, key, _label, _target in specs:
            def page_shown(mode: str = mode) -> bool:
                screen = app.screen
                lists = list(screen.query(PagedList)) if app.current_mode == mode else []
                settled = getattr(screen, "detail_settled", None)
                return bool(lists) and all(p.loaded for p in lists) and (settled is None or settled.is_set())

            cpu, wall = await frames.key(key, page_shown)
            if screens is None or mode in screens:
                figures[f"{mode}: first page"], figures[f"{mode}: first page (wall)"] = cpu, wall
            await settle(pilot)
        if screens is not None and "moves" not in screens:
            return figures
        await frames.key("2", lambda: app.current_mode == "cases")
        await settle(pilot)
        screen = app.screen
        screen.query_one(PagedList).table.move_cursor(row=0)
        await settle(pilot)
        figures["cases: cursor move, detail following"] = await keyed_moves(
            frames, lambda: screen.shown if screen.detail_settled.is_set() else None)
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


def child(side: str, store: Path | None, out: Path, screens: set[str] | None = None) -> None:
    figures = asyncio.run(floor_child(screens) if side == "floor" else
                          gatepost_child(store, screens))  # type: ignore[arg-type]
    figures["repaints asked for"] = FORCED[0]
    out.write_text(json.dumps(figures))


def sample(argv: list[str], out: Path, into: list[dict[str, float]]) -> measure.Sample:
    taken = measure.run(argv)
    into.append(json.loads(out.read_text()))
    return taken


def compare(name: str, ours: list[float], floor: list[float], target: float | None = 1.2) -> None:
    line = f"  {name:<44} {measure.spread(ours)}   floor {measure.spread(floor)}   {measure.ratio(ours, floor)}"
    if target is not None:
        met = statistics.median(ours) / statistics.median(floor) <= target
        line += f"; target <= {target}x: {'met' if met else 'NOT met'}"
    print(line, flush=True)


def measure_store(store: Path, runs: int, work: Path, screens: str | None = None) -> float:
    """Interleaved children of both sides on one store; prints the comparison, returns the Overview's figure."""
    floors: list[dict[str, float]] = []
    ours: list[dict[str, float]] = []
    me = [sys.executable, str(Path(__file__).resolve()), *(["--screens", screens] if screens else [])]
    floor_out, our_out = work / "floor.json", work / "gatepost.json"
    measure.interleave({
        "floor": lambda: sample([*me, "--child", "floor", "--out", str(floor_out)], floor_out, floors),
        "gatepost": lambda: sample([*me, "--child", "gatepost", "--store", str(store), "--out", str(our_out)],
                                   our_out, ours),
    }, runs)
    print(f"CPU from the key to the frame that shows the data, median of {runs} interleaved runs (min-max), "
          "against the floor:")
    floor_page = [f["first page"] for f in floors]
    for name in ours[0]:
        if name.endswith(": first page"):
            compare(name, [f[name] for f in ours], floor_page)
    if "cases: cursor move, detail following" in ours[0]:
        compare("cases: cursor move, detail following", [f["cases: cursor move, detail following"] for f in ours],
                [f["cursor move, detail following"] for f in floors])
    overview = [f["overview: start to counts shown"] for f in ours]
    print(f"  overview: process start to counts shown     {measure.spread(overview)} (CPU, imports included)")
    asked = sum(f.get("repaints asked for", 0) for f in floors + ours)
    if asked:
        print(f"  ({asked:g} repaint(s) asked for: the data was shown and no frame came for 5 s)")
    return statistics.median(overview)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, action="append", default=None,
                        help="a store to measure (built if missing); repeat for several sizes")
    parser.add_argument("--runs", type=int, default=5, help="children of each side per store (at least 5)")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs-of-tasks", type=int, default=1_000, help="evaluation runs in a built store")
    parser.add_argument("--tasks", type=int, default=1_000, help="task results per run")
    parser.add_argument("--skill-runs", type=int, default=100_000)
    parser.add_argument("--rebuild", action="store_true", help="build the store again even if it exists")
    parser.add_argument("--build-only", action="store_true", help="build (or reuse) the store, measure nothing")
    parser.add_argument("--stall", action="store_true", help="also measure a stall under another's write lock")
    parser.add_argument("--screens", help="measure only these first pages, comma-separated (e.g. results,cases); "
                        "`moves` for the cursor move")
    parser.add_argument("--child", choices=("floor", "gatepost"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    stores = args.store or [ROOT / "benchmarks" / ".stores" / "console_scale.db"]
    screens = {name.strip() for name in args.screens.split(",") if name.strip()} if args.screens else None
    if screens is not None:
        known = {spec[0] for spec in SCREENS[1:]} | {"moves"}
        if screens - known:
            parser.error(f"--screens: {', '.join(sorted(screens - known))}: expected some of {', '.join(sorted(known))}")
    if args.child:
        child(args.child, stores[0] if args.store else None, args.out, screens)
        return
    if args.runs < 5 and not args.build_only:
        parser.error("--runs must be at least 5 (a median of fewer says little on a shared machine)")
    for store in stores:
        if args.rebuild or not store.exists():
            store.parent.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-wal", "-shm"):
                Path(str(store) + suffix).unlink(missing_ok=True)
            print(f"building {store} …", flush=True)
            build(store, args.cases, args.runs_of_tasks, args.tasks, args.skill_runs)
    if args.build_only:
        return
    measure.compile_all()
    overviews = {}
    with tempfile.TemporaryDirectory() as tmp:
        for store in stores:
            db = open_store(store)  # migrated here, not inside a timed child
            sizes = {t: db[t].count for t in ("cases", "task_results", "skill_runs", "events")}
            db.close()
            print(f"\nstore {store.name}: " + ", ".join(f"{n:,} {t}" for t, n in sizes.items()), flush=True)
            overviews[sizes["cases"]] = measure_store(store, args.runs, Path(tmp), args.screens)
    if len(overviews) > 1:
        (small, low), (large, high) = min(overviews.items()), max(overviews.items())
        print(f"\noverview start to counts shown: {high / low:.2f}x at {large:,} cases against {small:,} "
              "(flat: about 1)")
    if args.stall:
        stall = asyncio.run(measure_stall(stores[0]))
        print("\nunder another process's write lock:")
        print(f"  longest stall of a 10 ms timer            {stall['longest stall under a 3 s write lock'] * 1000:8.1f} ms"
              f"   (no lock held, same 3 s: {stall['longest stall, no lock held'] * 1000:.1f} ms)")
        print(f"  decision made meanwhile landed            "
              f"{'yes' if stall['decision landed after the lock (1 = yes)'] else 'NO'}")
        print(f"  longest frame once it landed (redraw)     {stall['longest frame after the lock freed'] * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
