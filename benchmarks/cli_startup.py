"""How long `gatepost --help` takes to start, against the floor: `python -c "import click"`.

    python benchmarks/cli_startup.py [--runs 15]

The CLI lists its commands from a static table and imports a command's module
only when that command runs, so `--help` must not import Textual, sqlite-utils,
Jinja2 or any store module. This prints the median wall time of each over
--runs fresh interpreters, the ratio, the modules `--help` imports that
`import click` does not (from `python -X importtime`), and whether any heavy
module slipped in (exit 1 if one did).
"""

import argparse
import statistics
import subprocess
import sys
import time

HEAVY = ("textual", "sqlite_utils", "jinja2", "gatepost.store", "rich")
HELP = [sys.executable, "-m", "gatepost", "--help"]
CLICK = [sys.executable, "-c", "import click"]


def wall(argv: list[str], runs: int) -> float:
    """Median seconds of `runs` fresh runs of argv."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    wall(HELP, 2)  # warm the file cache and the bytecode
    click_s, help_s = wall(CLICK, runs), wall(HELP, runs)
    print(f"python -c 'import click': {click_s * 1000:7.1f} ms (median of {runs})")
    print(f"gatepost --help:          {help_s * 1000:7.1f} ms (median of {runs})")
    print(f"ratio:                    {help_s / click_s:7.2f}x")
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
