"""Time from start to the first rows of one run's tasks (issue 19's comparison table): gatepost's console
and gatepost serve in headless Chromium, at 1,000 / 10,000 / 100,000 tasks, median of --repeat.

    python benchmarks/viewer_compare.py [--sizes 1000,10000,100000] [--repeat 3]

For each size a store is built as benchmarks/run_scale.py builds it (two runs of one skill; the measured
run has SIZE tasks on both sides), untimed. Then, each repeat from nothing:

  gatepost console      run_scale.py's "console new" child: a fresh process starts the console headless
                        (run_test), opens the run and waits for its first 50 task rows; its peak RSS.
  gatepost serve        `gatepost serve --open results:RUN` is started; an already running headless
                        Chromium opens the URL it prints; the time runs until the page's terminal shows
                        the run's first task rows (read from xterm.js's buffer over DevTools). The peak
                        RSS is the console process the page started (VmHWM).

Inspect view and promptfoo view are not measured by this script: it has no driver for them (their logs
would have to be generated in their own formats and their pages read the same way). Their column in
the issue's table stays the issue's figures until someone adds them.
"""

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
from tests.console.commands.test_serve_browser import (  # noqa: E402
    CATCH_TERMINAL,
    CHROMIUM,
    SCREEN_TEXT,
    DevTools,
)

WAIT = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(argv: list[str], log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _group_peak_mb(pgid: int, leader: int) -> float:
    """The largest VmHWM among the group's processes other than the server itself (the page's console)."""
    peak = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == leader:
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]))
        except (OSError, ValueError):
            continue
    return peak / 1024


def _wait(check, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"{what}: not within {WAIT:.0f} s")


def build(folder: Path, n: int) -> tuple[Path, str]:
    store = folder / f"run-{n}.db"
    done = subprocess.run([sys.executable, str(HERE / "run_scale.py"), "--child", "build", "--store", str(store),
                           "--run", str(n)], capture_output=True, text=True, check=True)
    return store, json.loads(done.stdout.strip().splitlines()[-1])["run_id"]


def console_once(store: Path, run_id: str) -> tuple[float, float]:
    done = subprocess.run([sys.executable, str(HERE / "run_scale.py"), "--child", "console-new", "--store",
                           str(store), "--run", run_id], capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["seconds"], figures["rss_mb"]


async def serve_once(store: Path, run_id: str, devtools_port: int, folder: Path) -> tuple[float, float]:
    log = folder / "serve.log"
    started = time.perf_counter()
    proc = _start([sys.executable, "-m", "gatepost", "--db", str(store), "serve", "--port", str(_free_port()),
                   "--as", "ana", "--open", f"results:{run_id}"], log)
    try:
        found = _wait(lambda: re.search(r"on (http://\S+) as", log.read_text()), "gatepost serve's URL")
        url = found.group(1)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{devtools_port}/json/list") as answer:
                page = next(t for t in await answer.json(content_type=None) if t["type"] == "page")
            async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                tools = DevTools(ws)
                await tools.call("Network.enable")
                await tools.call("Network.setBlockedURLs", urls=["*fonts.googleapis.com*", "*fonts.gstatic.com*"])
                await tools.call("Page.enable")
                await tools.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
                await tools.call("Page.navigate", url=url)
                deadline = time.monotonic() + WAIT
                while time.monotonic() < deadline:
                    text = await tools.evaluate(SCREEN_TEXT) or ""
                    if len(re.findall(r"task-\d{7}", text)) >= 5:  # the run's task rows are on the page
                        break
                    await asyncio.sleep(0.05)
                else:
                    raise SystemExit(f"serve: no task rows within {WAIT:.0f} s:\n{text}")
                seconds = time.perf_counter() - started
                await tools.call("Page.navigate", url="about:blank")
        return seconds, _group_peak_mb(proc.pid, proc.pid)
    finally:
        _stop(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gatepost-viewers-"))
    chromium = None
    if CHROMIUM:
        profile = folder / "chromium-profile"
        chromium = _start([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,800",
                           "about:blank"], folder / "chromium.log")
        active = profile / "DevToolsActivePort"
        devtools = int(_wait(lambda: active.exists() and active.read_text().split("\n")[0].strip(),
                             "Chromium's DevTools port"))
    try:
        print("| N tasks in one run | gatepost console | gatepost serve + Chromium | Inspect view | promptfoo view |")
        print("|---|---|---|---|---|")
        for n in (int(s) for s in args.sizes.split(",")):
            store, run_id = build(folder, n)
            console = [console_once(store, run_id) for _ in range(args.repeat)]
            cells = [f"{statistics.median(s for s, _ in console):.2f} s, "
                     f"{statistics.median(m for _, m in console):.0f} MB"]
            if chromium is not None:
                served = [asyncio.run(serve_once(store, run_id, devtools, folder)) for _ in range(args.repeat)]
                cells.append(f"{statistics.median(s for s, _ in served):.2f} s, console "
                             f"{statistics.median(m for _, m in served):.0f} MB")
            else:
                cells.append("not measured (no Chromium)")
            print(f"| {n:,} | {' | '.join(cells)} | not measured | not measured |", flush=True)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{store}{suffix}").unlink(missing_ok=True)
    finally:
        if chromium is not None:
            _stop(chromium)


if __name__ == "__main__":
    main()
