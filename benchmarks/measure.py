"""How every benchmark here times a side: in a child process, all its processes' CPU, sides interleaved.

- A side runs as a fresh child process (`python -c ...` or a command). Its CPU is the CPU of every process
  it ran — the child, and the workers and children it started and waited for — read as the growth of this
  process's RUSAGE_CHILDREN across the run (user + system). Its memory is the child's own peak resident
  set (wait4's rusage of that child alone, never this process's or an earlier child's).
- Sides are interleaved A B A B …, so load that comes and goes on the machine falls on both alike.
- A figure is the median of the runs, printed with its spread (min–max); a ratio is taken between
  medians measured in the same run, never against a figure from another day.

This machine sets PYTHONDONTWRITEBYTECODE: `compile_all()` compiles gatepost's sources once, before
timing starts, so no side pays for compiling what the other found compiled.
"""

from __future__ import annotations

import compileall
import os
import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Sample:
    """One run of one side: wall seconds, CPU seconds of all its processes, the child's peak RSS in MiB."""

    wall: float
    cpu: float
    rss_mib: float


def compile_all() -> None:
    """Compile gatepost's sources to bytecode in place (the interpreter here never writes .pyc on import;
    compileall writes them all the same)."""
    for folder in ("console", "store", "benchmarks"):
        compileall.compile_dir(str(ROOT / folder), quiet=1)


def run(argv: Sequence[str], *, env: dict[str, str] | None = None, stdin: bytes | None = None,
        cwd: str | Path | None = None) -> Sample:
    """Run argv to its end as a child; its wall time, every process's CPU, and the child's peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, own = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {err.decode(errors='replace').strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Sample(wall, cpu, own.ru_maxrss / 1024)


def interleave(sides: dict[str, Callable[[], Sample]], runs: int) -> dict[str, list[Sample]]:
    """Each side `runs` times, in rounds A B A B …; the first round's order alternates with the second's."""
    samples: dict[str, list[Sample]] = {name: [] for name in sides}
    names = list(sides)
    for round_no in range(runs):
        for name in names if round_no % 2 == 0 else reversed(names):
            samples[name].append(sides[name]())
    return samples


def spread(values: Sequence[float], unit: str = "ms", scale: float = 1000.0) -> str:
    """`median (min–max) unit`."""
    med, low, high = (statistics.median(values) * scale, min(values) * scale, max(values) * scale)
    return f"{med:.3g} {unit} ({low:.3g}–{high:.3g})"


def ratio(side: Sequence[float], floor: Sequence[float]) -> str:
    """The median ratio of a side to its floor, with the spread of the per-round ratios."""
    pairs = [s / f for s, f in zip(side, floor, strict=True) if f > 0]
    med = statistics.median(side) / statistics.median(floor)
    return f"{med:.2f}x (per round {min(pairs):.2f}–{max(pairs):.2f}x)" if pairs else f"{med:.2f}x"


def report(samples: dict[str, list[Sample]], floor: str, *, unit: str = "ms", scale: float = 1000.0,
           target: float | None = None) -> dict[str, float]:
    """Print each side's CPU, wall time and memory with spreads and its CPU ratio to `floor`; return ratios."""
    ratios = {}
    width = max(len(name) for name in samples)
    base = [s.cpu for s in samples[floor]]
    for name, runs in samples.items():
        cpu, wall = [s.cpu for s in runs], [s.wall for s in runs]
        line = (f"{name:<{width}}  cpu {spread(cpu, unit, scale)}  wall {spread(wall, unit, scale)}"
                f"  rss {statistics.median(s.rss_mib for s in runs):.0f} MiB")
        if name != floor:
            ratios[name] = statistics.median(cpu) / statistics.median(base)
            verdict = "" if target is None else f"; target <= {target}x: {'met' if ratios[name] <= target else 'NOT met'}"
            line += f"  cpu/{floor} {ratio(cpu, base)}{verdict}"
        print(line, flush=True)
    return ratios
