"""A cursor move with the detail following, on each deciding screen, against console_scale's floor.

    python benchmarks/detail_moves.py [--store PATH] [--moves 8] [--runs 5] [--first-visits] [--screens cases,...]

Without --store, the demo store is built into a temporary folder (`gatepost demo --no-console`): it holds
items on all four screens (the large store of console_scale.py has no manifest drafts). On Cases,
Regressions, Manifests and Proposals, the CPU from the key (sent as the terminal driver sends it) to the
frame that shows the detail read for the row the cursor reached (the mean of --moves moves, half down, half
back up). The floor is console_scale.py's: a DataTable beside a Static that shows the new row's 45 prepared
lines at once, what Textual itself spends on a detail that follows. Each side is a fresh child process
(benchmarks/measure.py), the floor's and gatepost's children interleaved, --runs of each (at least 5);
printed: the median with its spread and the ratio to the floor's median.

--first-visits: every move goes down, each to an item not shown before in the process, on both sides. The
console keeps what a detail drew (its wrapped lines, its scrollbar's and the key footer's looks), so a move back
to an item shown before costs less than one to a new item; the default (half the moves back up) mixes the two as
a person going back and forth does, this measures a person reading down a list. The floor moves down too (its
DataTable draws each row it reaches with the cursor for the first time, as the console's does). --screens: some of
the four (a store without manifest drafts, as console_scale.py's, has no Manifests list to move on).
"""

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import console_scale as cs  # first: it imports gatepost before Textual (the console's frame rate)
import measure

from gatepost.app import GatepostApp
from gatepost.screenshots import settle
from gatepost.widgets.paged_list import PagedList

SCREENS = (("cases", "2"), ("regressions", "4"), ("manifests", "5"), ("proposals", "6"))
FIRST_VISITS = False  # --first-visits: every move down, to an item not shown before


async def moves(frames: cs.Frames, shown: Callable[[], object]) -> float:
    """The mean CPU of a move (console_scale's keyed_moves; with --first-visits every move down)."""
    return await cs.keyed_moves(frames, shown, down_only=FIRST_VISITS)


async def floor() -> dict[str, float]:
    app = cs.FloorApp()
    frames = cs.Frames(app)
    async with app.run_test(size=cs.SIZE) as pilot:
        await pilot.pause()
        await frames.key("2", lambda: isinstance(app.screen, cs.FloorScreen) and app.screen.shown == 0)
        screen = app.screen
        return {"floor": await moves(frames, lambda: screen.shown)}


async def screens(path: Path) -> dict[str, float]:
    out = {}
    app = GatepostApp(path, person="ana")
    frames = cs.Frames(app)
    async with app.run_test(size=cs.SIZE) as pilot:
        await settle(pilot)
        for name, key in SCREENS:
            await pilot.press(key)
            await settle(pilot)
            screen = app.screen
            rows = len(screen.query_one(PagedList).keys)
            needed = cs.MOVES if FIRST_VISITS else cs.MOVES // 2
            if rows <= needed:
                raise SystemExit(f"detail_moves: {name} lists {rows} rows; --moves needs more than {needed}")
            out[name] = await moves(frames, lambda s=screen: s.shown if s.detail_settled.is_set() else None)
    return out


def main() -> None:
    global SCREENS, FIRST_VISITS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, help="a store with items on all four screens (default: the demo)")
    parser.add_argument("--moves", type=int, default=8, help="moves a screen: half down, half back up")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--first-visits", action="store_true",
                        help="every move down, to an item not shown before (both sides)")
    parser.add_argument("--screens", default=",".join(name for name, _key in SCREENS),
                        help="the screens to move on, comma-separated (default: all four)")
    parser.add_argument("--child", choices=("floor", "gatepost"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    wanted = args.screens.split(",")
    if unknown := set(wanted) - {name for name, _key in SCREENS}:
        parser.error(f"--screens: expected some of cases, regressions, manifests, proposals; got {', '.join(unknown)}")
    SCREENS = tuple((name, key) for name, key in SCREENS if name in wanted)
    FIRST_VISITS = args.first_visits
    cs.MOVES = args.moves
    if args.child:
        figures = asyncio.run(floor() if args.child == "floor" else screens(args.store))
        args.out.write_text(json.dumps(figures))
        return
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    measure.compile_all()
    with tempfile.TemporaryDirectory(prefix="gatepost-moves-") as folder:
        store = args.store
        if store is None:
            store = Path(folder) / "demo.db"
            subprocess.run([sys.executable, "-m", "gatepost", "demo", "--db", str(store), "--no-console", "-q",
                            "--as", "ana"], check=True, capture_output=True)
        found: dict[str, list[dict[str, float]]] = {"floor": [], "gatepost": []}
        me = [sys.executable, str(Path(__file__).resolve()), "--moves", str(args.moves), "--screens", args.screens,
              *(["--first-visits"] if FIRST_VISITS else [])]

        def side(name: str) -> measure.Sample:
            out = Path(folder) / f"{name}.json"
            taken = measure.run([*me, "--child", name, "--out", str(out), *(["--store", str(store)]
                                                                         if name == "gatepost" else [])])
            found[name].append(json.loads(out.read_text()))
            return taken

        measure.interleave({name: (lambda name=name: side(name)) for name in found}, args.runs)
    base = [f["floor"] for f in found["floor"]]
    print(f"CPU from the key to the detail's frame, 160x50, {args.moves} moves a run"
          f"{' (each down, to an item not shown before)' if FIRST_VISITS else ''}, median of {args.runs} "
          "interleaved runs (min-max):")
    print(f"  {'floor (DataTable + Static)':<28} {measure.spread(base)}")
    for name, _key in SCREENS:
        ours = [f[name] for f in found["gatepost"]]
        print(f"  {name:<28} {measure.spread(ours)}  {measure.ratio(ours, base)}")


if __name__ == "__main__":
    main()
