"""Time from start to the first rows of one run's tasks: gatepost's console, gatepost serve in headless
Chromium, Inspect's and promptfoo's viewers, at 1,000 / 10,000 / 100,000 tasks.

    python benchmarks/viewer_compare.py [--sizes 1000,10000,100000] [--repeat 5]

For each size a store is built as benchmarks/run_scale.py builds it (two runs of one skill; the measured
run has SIZE tasks on both sides), and each foreign tool's log, untimed. Then the tools are measured in
rounds, one run of each per round (A B C D, the next round D C B A: benchmarks/measure.py's interleaving),
--repeat rounds (at least 5); each cell is the median with the spread (min-max). Every tool is timed the same
way: wall time from the moment its first process is spawned to the first rows shown. Wall time, not CPU:
three of the four sides are a server plus a browser page, whose CPU cannot be told apart from the browser's
own; so the figures are load-sensitive, and only ratios between cells of one run mean anything. There is no
floor here but the tools themselves: it is a comparison with the peers a team would otherwise use.

  gatepost console      run_scale.py's "console new" child: a fresh process starts the console headless
                        (run_test), opens the run and waits for its first 50 task rows; its own peak RSS
                        (wait4's rusage of that child: never this process's).
  gatepost serve        `gatepost serve --open results:RUN` is started; an already running headless
                        Chromium opens the URL it prints; the time runs until the page's terminal shows
                        the run's first task rows (read from xterm.js's buffer over DevTools). The peak
                        RSS is the console process the page started (VmHWM).

  Inspect view          an Inspect eval log of SIZE samples (the same task ids, inputs, outputs and pass/fail),
                        written untimed by inspect-ai's own recorder as its eval loop writes one (.eval
                        format); then, timed, `inspect view --log-dir DIR` is started and the same Chromium
                        opens the log's page (`#/logs/FILE`) until its sample list shows rows. Peak RSS: the
                        server's.
  promptfoo view        a promptfoo eval of SIZE test cases (echo provider, a `contains` assertion), made
                        untimed from a real `promptfoo eval` of two tests whose results are repeated SIZE
                        times and stored by `promptfoo import` in its own database; then, timed,
                        `promptfoo view` is started and Chromium opens `/eval/ID` until its table shows rows.

The foreign tools are not gatepost's dependencies: pass `--inspect PATH` (inspect-ai's `inspect`; its
Python is the one beside it) and `--promptfoo PATH` (the `promptfoo` command), or put them on PATH.
A tool that is not found is skipped with one line saying so. E.g.

    python3 -m venv /tmp/inspect-venv && /tmp/inspect-venv/bin/pip install inspect-ai
    mkdir /tmp/promptfoo-npm && cd /tmp/promptfoo-npm && npm install promptfoo
    python benchmarks/viewer_compare.py --inspect /tmp/inspect-venv/bin/inspect \\
        --promptfoo /tmp/promptfoo-npm/node_modules/.bin/promptfoo
"""

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import measure

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


def console_once(store: Path, run_id: str, *, streamed_stats: bool = False) -> tuple[float, float]:
    out = Path(tempfile.mkdtemp(prefix="gatepost-console-")) / "figures.json"
    env = dict(os.environ, BENCH_SPAWNED=repr(time.time()))
    if streamed_stats:
        env["GATEPOST_BENCH_STREAMED_STATS"] = "1"
    taken = measure.run([sys.executable, str(HERE / "run_scale.py"), "--child", "console-new", "--store",
                         str(store), "--run", run_id, "--out", str(out)], env=env)
    figures = json.loads(out.read_text())
    shutil.rmtree(out.parent, ignore_errors=True)
    return figures["seconds"], taken.rss_mib


async def serve_once(store: Path, run_id: str, devtools_port: int, folder: Path) -> tuple[float, float]:
    log = folder / "serve.log"
    started = time.perf_counter()
    proc = _start([sys.executable, "-m", "gatepost", "--db", str(store), "serve", "--port", str(_free_port()),
                   "--as", "ana", "--open", f"results:{run_id}"], log)
    try:
        found = _wait(lambda: re.search(r"on (http://\S+) as", log.read_text()), "gatepost serve's URL")

        async def shown(tools: DevTools) -> bool:
            text = await tools.evaluate(SCREEN_TEXT) or ""
            return len(re.findall(r"task-\d{3,}", text)) >= 5  # task rows (the id column may cut the id short)

        seconds = await _first_rows(devtools_port, found.group(1), started, shown, "serve", CATCH_TERMINAL)
        return seconds, _group_peak_mb(proc.pid, proc.pid)
    finally:
        _stop(proc)


async def _first_rows(devtools_port: int, url: str, started: float, shown, what: str,
                      on_new_document: str | None = None) -> float:
    """Open `url` in the running Chromium (over DevTools) and poll until `shown(tools)`; seconds since
    `started`. Web fonts are blocked (no network here); `on_new_document` runs before the page's scripts."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{devtools_port}/json/list") as answer:
            page = next(t for t in await answer.json(content_type=None) if t["type"] == "page")
        async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            tools = DevTools(ws)
            await tools.call("Network.enable")
            await tools.call("Network.setBlockedURLs", urls=["*fonts.googleapis.com*", "*fonts.gstatic.com*"])
            await tools.call("Page.enable")
            if on_new_document:
                await tools.call("Page.addScriptToEvaluateOnNewDocument", source=on_new_document)
            await tools.call("Page.navigate", url=url)
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                if await shown(tools):
                    break
                await asyncio.sleep(0.05)
            else:
                raise SystemExit(f"{what}: no task rows within {WAIT:.0f} s")
            seconds = time.perf_counter() - started
            await tools.call("Page.navigate", url="about:blank")
    return seconds


# --- the same first rows in the viewers people use instead (Inspect, promptfoo) ----------------------------
def _answer(i: int) -> tuple[bool, str]:
    """Task i's pass/fail and output, the same for every tool (about 70 % pass)."""
    passed = (i * 7919) % 10 < 7
    return passed, f"candidate output of task {i}: " + ("the expected answer" if passed else "something else")


FOREIGN_ROWS = r"candidate output of task \d+"  # a row of the run's tasks on an Inspect or promptfoo page
COUNT_ROWS = ("(() => { const t = document.body ? document.body.innerText : '';"
              " return (t.match(/candidate output of task \\d+/g) || []).length; })()")


def _tool(given: str | None, env: str, name: str) -> Path | None:
    found = given or os.environ.get(env) or shutil.which(name)
    return Path(found) if found and Path(found).exists() else None


INSPECT_LOG = """
import asyncio
import os
import sys
from inspect_ai.log import (EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalPlan, EvalResults, EvalSample,
                            EvalScore, EvalSpec, EvalStats)
from inspect_ai.log._recorders.eval import EvalRecorder
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score
n, out = int(sys.argv[1]), sys.argv[2]
samples, passes = [], 0
for i in range(n):
    passed = (i * 7919) % 10 < 7
    passes += passed
    text = f"candidate output of task {i}: " + ("the expected answer" if passed else "something else")
    samples.append(EvalSample(id=f"task-{i:07d}", epoch=1, input=f"question {i}", target="the expected answer",
                              messages=[ChatMessageUser(content=f"question {i}"), ChatMessageAssistant(content=text)],
                              output=ModelOutput.from_content("mockllm/model", text),
                              scores={"includes": Score(value="C" if passed else "I", answer=text)}))
spec = EvalSpec(created="2026-11-02T09:00:00+00:00", task="bench", task_id="bench", task_version=0,
                dataset=EvalDataset(name="bench", samples=n, sample_ids=[s.id for s in samples]),
                model="mockllm/model", config=EvalConfig())
log = EvalLog(eval=spec, plan=EvalPlan(), status="success", samples=samples,
              results=EvalResults(total_samples=n, completed_samples=n, scores=[EvalScore(
                  name="includes", scorer="includes", metrics={"accuracy": EvalMetric(name="accuracy", value=passes / n)})]),
              stats=EvalStats(started_at="2026-11-02T09:00:00+00:00", completed_at="2026-11-02T09:10:00+00:00"))


async def write() -> None:
    # As inspect's own eval loop writes a log: samples buffered and flushed in groups (its high-throughput
    # log buffer). write_eval_log buffers every sample before one flush, and its buffer compares each new
    # sample with all buffered ones: quadratic, over 13 CPU-minutes at 100,000 samples.
    recorder = EvalRecorder(os.path.dirname(os.path.abspath(out)))
    await recorder.log_init(spec, out, clean=True)
    await recorder.log_start(spec, log.plan)
    every = recorder.default_log_buffer(n, True)
    for i, sample in enumerate(samples, 1):
        await recorder.log_sample(spec, sample)
        if i % every == 0:
            await recorder.flush(spec)
    await recorder.log_finish(spec, log.status, log.stats, log.results, log.reductions)
asyncio.run(write())
"""


def inspect_build(inspect: Path, folder: Path, n: int) -> tuple[Path, str]:
    """A log folder holding one Inspect eval log of n samples, written by inspect-ai itself (untimed)."""
    logs = folder / f"inspect-{n}"
    logs.mkdir(exist_ok=True)
    name = f"bench-{n}.eval"
    subprocess.run([str(inspect.parent / "python"), "-c", INSPECT_LOG, str(n), str(logs / name)],
                   check=True, capture_output=True)
    return logs, name


PROMPTFOO_CONFIG = """description: bench
prompts:
  - "{{question}}"
providers:
  - echo
tests:
  - vars: {question: "the expected answer"}
    assert: [{type: contains, value: "answer"}]
  - vars: {question: "something else"}
    assert: [{type: contains, value: "answer"}]
"""


def _promptfoo_env(home: Path) -> dict[str, str]:
    return {**os.environ, "PROMPTFOO_CONFIG_DIR": str(home), "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1", "PROMPTFOO_DISABLE_SHARING": "1"}


def promptfoo_build(promptfoo: Path, folder: Path, n: int) -> tuple[Path, str]:
    """A promptfoo home whose database holds one eval of n test cases (untimed): a real two-test eval with
    the echo provider, its results repeated n times in promptfoo's own output format, `promptfoo import`ed."""
    template = folder / "promptfoo-template"
    if not (template / "out.json").exists():
        template.mkdir(exist_ok=True)
        (template / "promptfooconfig.yaml").write_text(PROMPTFOO_CONFIG, encoding="utf-8")
        done = subprocess.run([str(promptfoo), "eval", "-c", "promptfooconfig.yaml", "-o", "out.json",
                               "--no-progress-bar"], cwd=template, env=_promptfoo_env(template / "home"),
                              capture_output=True, text=True)  # exit 100: a test failed, as one does here
        if not (template / "out.json").exists():
            raise SystemExit(f"promptfoo eval wrote no results:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    data = json.loads((template / "out.json").read_text(encoding="utf-8"))
    kinds = {r["success"]: r for r in data["results"]["results"]}
    results = []
    for i in range(n):
        passed, text = _answer(i)
        row = json.loads(json.dumps(kinds[passed]))
        row.update(id=f"00000000-0000-4000-8000-{i:012d}", testIdx=i, vars={"question": f"question {i}"})
        row["testCase"]["vars"] = {"question": f"question {i}"}
        row["prompt"]["raw"] = f"question {i}"
        row["response"]["output"] = row["response"]["raw"] = text
        results.append(row)
    passes = sum(r["success"] for r in results)
    data["results"]["results"] = results
    data["evalId"] = f"eval-bench-{n}"
    data["results"]["prompts"][0]["metrics"].update(testPassCount=passes, testFailCount=n - passes)
    data["results"]["stats"].update(successes=passes, failures=n - passes)
    home = folder / f"promptfoo-{n}"
    source = folder / f"promptfoo-{n}.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    subprocess.run([str(promptfoo), "import", str(source)], env=_promptfoo_env(home), check=True, capture_output=True)
    source.unlink()
    return home, data["evalId"]


async def page_once(argv: list[str], env: dict[str, str] | None, ready: str, url: str, devtools_port: int,
                    folder: Path, what: str) -> tuple[float, float]:
    """Start a viewer's server, open `url` in the running Chromium once the server's log matches `ready`,
    and time from the start until the page shows five rows of the run's tasks; the group's peak RSS."""
    log = folder / "viewer.log"
    started = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=folder, env=env)
    try:
        _wait(lambda: re.search(ready, log.read_text(errors="replace")), f"{what}'s server")

        async def shown(tools: DevTools) -> bool:
            return (await tools.evaluate(COUNT_ROWS) or 0) >= 5

        seconds = await _first_rows(devtools_port, url, started, shown, what)
        return seconds, _group_peak_mb(proc.pid, -1)
    finally:
        _stop(proc)


def inspect_once(inspect: Path, logs: Path, name: str, devtools: int, folder: Path) -> tuple[float, float]:
    port = _free_port()
    return asyncio.run(page_once([str(inspect), "view", "--log-dir", str(logs), "--host", "127.0.0.1", "--port",
                                  str(port)], None, r"Running on http://", f"http://127.0.0.1:{port}/#/logs/{name}",
                                 devtools, folder, "Inspect view"))


def promptfoo_once(promptfoo: Path, home: Path, eval_id: str, devtools: int, folder: Path) -> tuple[float, float]:
    port = _free_port()
    return asyncio.run(page_once([str(promptfoo), "view", "--port", str(port), "-n"], _promptfoo_env(home),
                                 r"Server running at", f"http://localhost:{port}/eval/{eval_id}", devtools, folder,
                                 "promptfoo view"))


def _cell(figures: list[tuple[float, float]], memory: str) -> str:
    seconds = [s for s, _ in figures]
    return (f"{statistics.median(seconds):.2f} s ({min(seconds):.2f}–{max(seconds):.2f}), {memory + ' ' if memory else ''}"
            f"{statistics.median(m for _, m in figures):.0f} MB")


def interleaved(sides: dict[str, Callable[[], tuple[float, float]]], rounds: int) -> dict[str, list[tuple[float, float]]]:
    """Each side once per round, rounds in alternating order (as benchmarks/measure.py interleaves)."""
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    names = list(sides)
    for round_no in range(rounds):
        for name in names if round_no % 2 == 0 else reversed(names):
            found[name].append(sides[name]())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5, help="rounds, one run of each tool per round (at least 5)")
    parser.add_argument("--tools", default="console,serve,inspect,promptfoo",
                        help="which columns to measure (e.g. --sizes 1000000 --tools console); console-streamed: "
                             "also the console with the run's statistics streamed task by task (as before they "
                             "were stored with the run), interleaved with the console's repeats, printed below")
    parser.add_argument("--inspect", default=None, help="inspect-ai's `inspect` command (default: on PATH)")
    parser.add_argument("--promptfoo", default=None, help="the `promptfoo` command (default: on PATH)")
    args = parser.parse_args()
    if args.repeat < 5:
        parser.error("--repeat must be at least 5")
    wanted = set(args.tools.split(","))
    folder = Path(tempfile.mkdtemp(prefix="gatepost-viewers-"))
    inspect = _tool(args.inspect, "GATEPOST_BENCH_INSPECT", "inspect") if "inspect" in wanted else None
    promptfoo = _tool(args.promptfoo, "GATEPOST_BENCH_PROMPTFOO", "promptfoo") if "promptfoo" in wanted else None
    if "inspect" in wanted and (inspect is None or not (inspect.parent / "python").exists()):
        print("Inspect view: skipped: inspect-ai's `inspect` not found (pass --inspect PATH or put it on PATH)")
        inspect = None
    if "promptfoo" in wanted and promptfoo is None:
        print("promptfoo view: skipped: `promptfoo` not found (pass --promptfoo PATH or put it on PATH)")
    chromium = None
    if CHROMIUM and wanted & {"serve", "inspect", "promptfoo"}:
        profile = folder / "chromium-profile"
        chromium = _start([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={profile}", "--remote-debugging-port=0", "--window-size=1280,800",
                           "about:blank"], folder / "chromium.log")
        active = profile / "DevToolsActivePort"
        devtools = int(_wait(lambda: active.exists() and active.read_text().split("\n")[0].strip(),
                             "Chromium's DevTools port"))
    elif wanted & {"serve", "inspect", "promptfoo"}:
        print("gatepost serve, Inspect view, promptfoo view: skipped: no Chromium found")
    before: dict[int, str] = {}
    try:
        print("| N tasks in one run | gatepost console | gatepost serve + Chromium | Inspect view | promptfoo view |")
        print("|---|---|---|---|---|")
        for n in (int(s) for s in args.sizes.split(",")):
            store, run_id = build(folder, n)
            sides: dict[str, Callable[[], tuple[float, float]]] = {}
            memory = {"console": "", "serve": "console", "inspect": "server", "promptfoo": "server"}
            if "console" in wanted:
                sides["console"] = lambda store=store, run_id=run_id: console_once(store, run_id)
                if "console-streamed" in wanted:
                    sides["console-streamed"] = lambda store=store, run_id=run_id: console_once(store, run_id, streamed_stats=True)
            if chromium is not None and "serve" in wanted:
                sides["serve"] = lambda store=store, run_id=run_id: asyncio.run(serve_once(store, run_id, devtools, folder))
            if chromium is not None and inspect is not None:
                logs, name = inspect_build(inspect, folder, n)
                sides["inspect"] = lambda logs=logs, name=name: inspect_once(inspect, logs, name, devtools, folder)
            if chromium is not None and promptfoo is not None:
                home, eval_id = promptfoo_build(promptfoo, folder, n)
                sides["promptfoo"] = lambda home=home, eval_id=eval_id: promptfoo_once(promptfoo, home, eval_id, devtools, folder)
            found = interleaved(sides, args.repeat)
            cells = [_cell(found[tool], memory[tool]) if tool in found else "not measured"
                     for tool in ("console", "serve", "inspect", "promptfoo")]
            if "console-streamed" in found:
                before[n] = _cell(found["console-streamed"], "")
            for suffix in ("", "-wal", "-shm"):
                Path(f"{store}{suffix}").unlink(missing_ok=True)
            if "inspect" in sides:
                shutil.rmtree(logs, ignore_errors=True)
            if "promptfoo" in sides:
                shutil.rmtree(home, ignore_errors=True)
            print(f"| {n:,} | {' | '.join(cells)} |", flush=True)
        for n, cell in before.items():
            print(f"console with the statistics streamed task by task (before run_task_figures), {n:,}: {cell}")
    finally:
        if chromium is not None:
            _stop(chromium)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
