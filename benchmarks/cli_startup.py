"""How much CPU a CLI command costs to start and answer, against the floor `python -c "import click"`.

    python benchmarks/cli_startup.py [--runs 7] [--store FILE]

Every side runs as a fresh process, interleaved with the floor and the others
(benchmarks/measure.py): the CPU of all its processes, the median of --runs
with the spread, and the ratio to the floor's median in the same run. The
floor is the least a click CLI can cost: the interpreter starting and click
imported. Sides: `gatepost --help`, and read-only commands on a demo store
(built first with `gatepost demo --no-console`, untimed, unless --store names
one): `case list --json`, `skills show --json`, `events --since 0`,
`proposal list`, `report regressions --no-remember` (by default a report records
itself as the consumer's "since last report" mark: a write, with the store's
damage scan before a connection's first write; --no-remember reads only), the
same report as HTML, and as JSON (`--json`: no template, so no Jinja2).

Then it lists the modules `--help` imports beyond click (`python -X importtime`)
and exits 1 if a heavy one slipped in, and the modules `case list --json`
imports beyond click. `import sqlite_utils` alone is printed as a second
reference, also as the `gatepost` program loads modules (the cyclic collector
paused, then what was loaded frozen): the store's library, which a read-only
command does not import (it opens a current store and reads it with SELECTs
on the connection; sqlite-utils loads for a write or a migration:
store/kernel/db.py).
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import measure

HEAVY = ("textual", "sqlite_utils", "jinja2", "gatepost.store", "rich")
GATEPOST = [sys.executable, "-m", "gatepost"]
HELP = [*GATEPOST, "--help"]
CLICK = [sys.executable, "-c", "import click"]
SQLITE_UTILS = [sys.executable, "-c", "import sqlite_utils"]
# as the `gatepost` program loads it: the cyclic collector paused while modules load (gatepost.cli.run)
SQLITE_UTILS_PAUSED = [sys.executable, "-c", "import gc; gc.disable(); import sqlite_utils; gc.freeze(); gc.enable()"]
READ_ONLY = [["case", "list", "--json"], ["skills", "show", "--json"], ["events", "--since", "0"],
             ["proposal", "list"], ["report", "regressions", "--no-remember"],
             ["report", "regressions", "--no-remember", "--format", "html"],
             ["report", "regressions", "--no-remember", "--json"]]


def imported(argv: list[str]) -> dict[str, int]:
    """Module -> cumulative import microseconds, from `python -X importtime`."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], check=True, capture_output=True, text=True)
    modules = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if cumulative.strip().isdigit():
            modules[name.strip()] = int(cumulative)
    return modules


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--store", type=Path, default=None, help="a demo store to read (default: build one)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    work = Path(tempfile.mkdtemp(prefix="gatepost-cli-"))
    try:
        store = args.store or work / "demo.db"
        if args.store is None:
            subprocess.run([*GATEPOST, "demo", "--db", str(store), "--no-console", "-q"], check=True,
                           stdout=subprocess.DEVNULL)
        measure.compile_all()
        sides = {"import click": CLICK, "import sqlite_utils": SQLITE_UTILS,
                 "import sqlite_utils, collector paused": SQLITE_UTILS_PAUSED, "gatepost --help": HELP}
        sides |= {f"gatepost {' '.join(cmd)}": [*GATEPOST, "--db", str(store), *cmd] for cmd in READ_ONLY}
        for argv in sides.values():  # warm the file cache
            measure.run(argv)
        samples = measure.interleave({name: (lambda argv=argv: measure.run(argv)) for name, argv in sides.items()},
                                     args.runs)
        print(f"CPU of every process, median of {args.runs} interleaved runs (spread), against `import click`:")
        ratios = measure.report(samples, "import click")
        worst = max(ratio for name, ratio in ratios.items() if name.startswith("gatepost ") and name != "gatepost --help")
        print(f"slowest read-only command: {worst:.2f}x the floor (target <= 2x: {'met' if worst <= 2 else 'NOT met'})")
        beyond = set(imported(sides["gatepost case list --json"])) - set(imported(CLICK))
        print(f"modules case list --json imports beyond click ({len(beyond)}): "
              f"{', '.join(sorted({name.split('.')[0] for name in beyond if not name.startswith('gatepost')}))}; "
              f"gatepost's own: {len([name for name in beyond if name.startswith('gatepost')])}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    extra = set(imported(HELP)) - set(imported(CLICK))
    top = sorted({name.split(".")[0] if not name.startswith("gatepost.") else name for name in extra})
    print(f"modules --help imports beyond click ({len(extra)}): {', '.join(top)}")
    heavy = sorted(name for name in extra if name.startswith(HEAVY))
    if heavy:
        print(f"HEAVY modules imported by --help: {', '.join(heavy)}")
        return 1
    print("no heavy module (textual, sqlite_utils, jinja2, rich, gatepost.store) is imported by --help")
    return 0


if __name__ == "__main__":
    sys.exit(main())
