"""A cursor move with the detail following, on each deciding screen, against the two floors of console_scale.

    python benchmarks/detail_moves.py [--store PATH] [--moves 8] [--repeat 3]

Without --store, the demo store is built into a temporary folder (`gatepost demo --no-console`): it holds
items on all four screens (the large store of console_scale.py has no manifest drafts). On Cases,
Regressions, Manifests and Proposals, from the key (sent as the terminal driver sends it) to the frame that
shows the detail read for the row the cursor reached: CPU and wall time, each screen against a bare
DataTable's move and a DataTable beside a Static that shows 45 prepared lines at once (the floors of
console_scale.py, run in the same process). Each figure is the median of --repeat runs.
"""

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import console_scale as cs  # first: it imports gatepost before Textual (the console's frame rate)

from gatepost.app import GatepostApp
from gatepost.widgets.paged_list import PagedList

SCREENS = (("cases", "2"), ("regressions", "4"), ("manifests", "5"), ("proposals", "6"))


async def floors() -> dict[str, tuple[float, float]]:
    out = {}
    for name, app_class in (("bare DataTable", cs.MinimalApp), ("DataTable + Static floor", cs.DetailFloorApp)):
        app = app_class()
        async with app.run_test(size=cs.SIZE) as pilot:
            await cs._until(pilot, lambda app=app: app.query_one(cs.DataTable).row_count == 100)
            await pilot.pause()
            table = app.query_one(cs.DataTable)
            floor = isinstance(app, cs.DetailFloorApp)  # the Static shows the row: wait for it, else the cursor
            done = (lambda app=app: app.shown) if floor else (lambda table=table: table.cursor_row)
            out[name] = await cs.keyed_moves(app, done)
    return out


async def screens(path: Path) -> dict[str, tuple[float, float]]:
    out = {}
    app = GatepostApp(path, person="ana")
    async with app.run_test(size=cs.SIZE) as pilot:
        await cs.settle(pilot)
        for name, key in SCREENS:
            await pilot.press(key)
            await cs.settle(pilot)
            screen = app.screen
            rows = len(screen.query_one(PagedList).keys)
            if rows <= cs.MOVES // 2:
                raise SystemExit(f"detail_moves: {name} lists {rows} rows; --moves needs more than {cs.MOVES // 2}")
            out[name] = await cs.keyed_moves(app, lambda s=screen: s.shown if s.detail_settled.is_set() else None)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, help="a store with items on all four screens (default: the demo)")
    parser.add_argument("--moves", type=int, default=8, help="moves a screen: half down, half back up")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cs.MOVES = args.moves
    with tempfile.TemporaryDirectory(prefix="gatepost-moves-") as folder:
        store = args.store
        if store is None:
            store = Path(folder) / "demo.db"
            subprocess.run([sys.executable, "-m", "gatepost", "demo", "--db", str(store), "--no-console", "-q",
                            "--as", "ana"], check=True, capture_output=True)
        runs = []
        for _ in range(args.repeat):  # interleaved: a drift of the machine reaches every figure
            runs.append({**asyncio.run(floors()), **asyncio.run(screens(store))})
    median = {name: tuple(statistics.median(run[name][i] for run in runs) for i in (0, 1)) for name in runs[0]}
    bare, floor = median["bare DataTable"], median["DataTable + Static floor"]
    print(f"key to the detail's frame, 160x50, {args.moves} moves, median of {args.repeat} runs:")
    for name, (cpu, wall) in median.items():
        print(f"  {name:<26} CPU {cpu * 1000:5.1f} ms ({cpu / bare[0]:4.2f}x bare, {cpu / floor[0]:4.2f}x floor)"
              f"   wall {wall * 1000:5.1f} ms ({wall / floor[1]:4.2f}x floor)")


if __name__ == "__main__":
    main()
