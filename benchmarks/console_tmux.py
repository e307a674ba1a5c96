"""A cursor move as a person sees it: time until the console's screen settles in a real terminal (tmux).

    python benchmarks/console_tmux.py [--store PATH] [--as NAME] [--moves 30] [--size 160x50]

The console runs in a detached tmux session (its own server socket, no user config) whose output is also
piped to a file (`tmux pipe-pane`): every byte the app writes to the terminal lands there as tmux reads it.
For each move the script sends Down (through one tmux control-mode client, as a key press arrives: no
process started per key) and watches that file grow:

  first output   from sending the key to the first byte of the app's answer;
  settled        from sending the key to the last byte, once nothing more came for --quiet ms
                 (the detail that follows the cursor included).

The same is measured, in the same run, on a bare Textual DataTable of 100 rows in the same terminal (the
floor: Textual drawing a moved cursor and nothing else). Issue 15's target: settled within 33 ms.

Without --store, the demo store is built into a temporary folder (`gatepost demo --no-console`). The
console opens on Cases (key 2; --screen for another deciding screen) with its default filter; the moves go
down its list, then back up (the demo's pending drafts are 10: --moves 16 at most on Manifests).
"""

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gatepost.render import FRAME_RATE

SCREENS = {"2": "Cases", "4": "Regressions", "5": "Manifests", "6": "Proposals"}  # the deciding screens, by key

BARE_APP = """
from textual.app import App
from textual.widgets import DataTable, Footer, Header, Static

class Bare(App):
    def compose(self):
        yield Header()
        yield DataTable(cursor_type="row")
        yield Static("detail")
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("id", "rev", "claims", "status", "title")
        for i in range(100):
            table.add_row(f"case-{i:05d}", "ab12cd", "+ + ? -", "open", f"Loop change {i}: reword the guidance")
        table.focus()

Bare().run()
"""


class Terminal:
    """One tmux session running `command`, its output piped to a file."""

    def __init__(self, command: str, size: tuple[int, int], folder: Path, env: dict[str, str]) -> None:
        self.socket = f"gatepost-bench-{os.getpid()}-{time.monotonic_ns()}"  # one server each: a killed one may linger
        self.out = folder / f"pane-{time.monotonic_ns()}.out"
        self.out.touch()
        self.env = env
        self.control: subprocess.Popen[bytes] | None = None
        self._tmux("new-session", "-d", "-s", "bench", "-x", str(size[0]), "-y", str(size[1]), command)
        self._tmux("pipe-pane", "-t", "bench", "-o", f"cat >> {shlex.quote(str(self.out))}")

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True,
                              text=True, env=self.env, check=True)
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "bench")

    def key(self, name: str) -> None:
        """Through a control-mode client started once: a `tmux send-keys` process per key spent 5-10 ms of
        the figure starting up before the key reached the app."""
        if self.control is None:
            self.control = subprocess.Popen(["tmux", "-L", self.socket, "-f", "/dev/null", "-C", "attach", "-t", "bench"],
                                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=self.env)
        assert self.control.stdin is not None
        self.control.stdin.write(f"send-keys -t bench {name}\n".encode())
        self.control.stdin.flush()

    def size(self) -> int:
        return self.out.stat().st_size

    def quiet(self, quiet_ms: float, limit_s: float = 60.0) -> None:
        """Until the app has written nothing for quiet_ms."""
        last, when, deadline = self.size(), time.perf_counter(), time.perf_counter() + limit_s
        while time.perf_counter() - when < quiet_ms / 1000:
            if time.perf_counter() > deadline:
                raise TimeoutError("the terminal never went quiet")
            time.sleep(0.002)
            now = self.size()
            if now != last:
                last, when = now, time.perf_counter()

    def until(self, text: str, limit_s: float = 120.0) -> None:
        deadline = time.perf_counter() + limit_s
        while text not in self.screen():
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{text!r} never showed; the screen:\n{self.screen()}")
            time.sleep(0.05)

    def move(self, key: str, quiet_ms: float) -> tuple[float, float]:
        """Send one key; (first output, settled) in ms."""
        before = self.size()
        started = time.perf_counter()
        self.key(key)
        first = last = None
        seen = before
        while True:
            now = time.perf_counter()
            size = self.size()
            if size != seen:
                seen, last = size, now
                first = first or now
            if last is not None and now - last > quiet_ms / 1000:
                break
            if last is None and now - started > 5:
                raise TimeoutError("the key brought no output")
            time.sleep(0.0005)
        assert first is not None and last is not None
        return (first - started) * 1000, (last - started) * 1000

    def close(self) -> None:
        if self.control is not None:
            self.control.kill()
            self.control.wait()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env)


def measure(command: str, ready: str, keys_first: list[str], args: argparse.Namespace, folder: Path,
            env: dict[str, str]) -> tuple[list[float], list[float]]:
    term = Terminal(command, args.size, folder, env)
    try:
        term.until(ready)
        for key in keys_first:
            term.key(key)
        term.quiet(1000)
        firsts, settles = [], []
        for i in range(args.moves):  # half down the list, half back up: a short list is not run off
            first, settled = term.move("Down" if i < args.moves // 2 else "Up", args.quiet)
            firsts.append(first)
            settles.append(settled)
        return firsts, settles
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None, help="a gatepost store (default: a fresh demo store)")
    parser.add_argument("--as", dest="person", default="bench", help="who the console runs as")
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--quiet", type=float, default=250.0, help="ms without output that count as settled")
    parser.add_argument("--size", default="160x50")
    parser.add_argument("--screen", choices=sorted(SCREENS), default="2",
                        help="the screen's key: " + ", ".join(f"{k} {name}" for k, name in SCREENS.items()))
    args = parser.parse_args()
    args.size = tuple(int(n) for n in args.size.split("x"))
    if shutil.which("tmux") is None:
        raise SystemExit("console_tmux: tmux is not on PATH")
    folder = Path(tempfile.mkdtemp(prefix="gatepost-tmux-"))
    # the bare app at the frame rate `gatepost console` sets as it starts (a TEXTUAL_FPS set here wins in both)
    env = {**os.environ, "TERM": "xterm-256color", "GATEPOST_REVIEWER": args.person,
           "TEXTUAL_FPS": os.environ.get("TEXTUAL_FPS", str(FRAME_RATE))}
    env.pop("TMUX", None)
    try:
        store = args.store
        if store is None:
            store = folder / "demo.db"
            subprocess.run([sys.executable, "-m", "gatepost", "demo", "--db", str(store), "--no-console", "-q",
                            "--as", args.person], check=True, env=env)
        gatepost = f"{shlex.quote(sys.executable)} -m gatepost --db {shlex.quote(str(store))} console"
        ours = measure(gatepost, "Overview", [args.screen], args, folder, env)
        bare_file = folder / "bare.py"
        bare_file.write_text(BARE_APP, encoding="utf-8")
        bare = measure(f"{shlex.quote(sys.executable)} {shlex.quote(str(bare_file))}", "case-00000", [], args,
                       folder, env)
        print(f"{args.moves} cursor moves in tmux at {args.size[0]}x{args.size[1]} (median, p90 in ms; settled = no "
              f"output for {args.quiet:.0f} ms after):")
        for name, (firsts, settles) in ((f"gatepost {SCREENS[args.screen]}, detail following", ours),
                                        ("bare DataTable", bare)):
            p90 = statistics.quantiles(settles, n=10)[-1] if len(settles) > 1 else settles[0]
            print(f"  {name:<36} first output {statistics.median(firsts):6.1f}   settled "
                  f"{statistics.median(settles):6.1f} (p90 {p90:6.1f})")
        ratio = statistics.median(ours[1]) / statistics.median(bare[1])
        print(f"  ratio (gatepost / bare), settled: {ratio:.2f}x; target: settled within 33 ms")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
