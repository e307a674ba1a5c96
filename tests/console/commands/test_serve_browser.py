"""`gatepost serve` in a real browser: headless Chromium driven over the DevTools protocol.

The server runs as a real subprocess on loopback; Chromium opens the page, and
the test reads what xterm.js (the page's terminal) holds and what it painted:
the overview renders, "7" opens the audit log, "1" comes back to the overview.

xterm.js draws on a canvas, so its text is not in the DOM; a small script
installed before the page loads keeps a reference to the page's xterm
Terminal so the test can read its screen buffer (what a person would read).
Screenshots (decoded with zlib) check that pixels were painted and changed.
"""

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _chromium() -> str | None:
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


CHROMIUM = _chromium()

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium installed (/usr/bin/chromium or `chromium` on PATH); "
           ".ci/system-deps installs Debian's chromium",
)]

WAIT = 30.0  # the longest any single wait may take, so the suite can never hang here

# Keeps the page's xterm.js Terminal in window.__gatepostTerm: its constructor assigns `this._core`.
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "_core", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "_core", {value, writable: true, configurable: true, enumerable: true});
    if (typeof this.loadAddon === "function" && !window.__gatepostTerm) { window.__gatepostTerm = this; }
  },
});
"""

SCREEN_TEXT = """
(() => {
  const term = window.__gatepostTerm;
  if (!term) { return null; }
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()
"""


# --- processes ------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(argv: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
    """A process in its own group, so stopping it stops everything it started."""
    with log.open("wb") as out:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=ROOT, env=env)


def _stop(proc: subprocess.Popen) -> None:
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:  # the group may still hold children (consoles, renderers)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return


def _wait_until(check, what: str, log: Path | None = None, proc: subprocess.Popen | None = None):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"{what}: the process exited ({proc.returncode}): {log.read_text(errors='replace')[-2000:]}")
        value = check()
        if value:
            return value
        time.sleep(0.1)
    tail = log.read_text(errors="replace")[-2000:] if log else ""
    pytest.fail(f"{what}: not within {WAIT:.0f} s. {tail}")


def _port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.fixture
def served(tmp_path: Path, demo_store: Path):
    """A copy of the demo store served by `gatepost serve` on a free loopback port; yields the URL."""
    db = tmp_path / "demo.db"
    shutil.copy(demo_store, db)
    port = _free_port()
    log = tmp_path / "serve.log"
    proc = _start([sys.executable, "-m", "gatepost", "--db", str(db), "serve", "--port", str(port),
                   "--as", "ana"], log, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        _wait_until(lambda: _port_answers(port), "gatepost serve to listen", log, proc)
        banner = _wait_until(lambda: re.search(r"on (http://\S+\?token=\S+) as", log.read_text()),
                             "gatepost serve to print its URL", log, proc)
        yield banner.group(1), log  # the tokened URL it prints: without its token the page is refused
    finally:
        _stop(proc)


@pytest.fixture
def chromium(tmp_path: Path):
    """Headless Chromium with a throwaway profile; yields its DevTools port."""
    profile = tmp_path / "chromium-profile"
    log = tmp_path / "chromium.log"
    proc = _start([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                   "--no-first-run", "--disable-background-networking", "--disable-component-update",
                   "--disable-sync", f"--user-data-dir={profile}", "--remote-debugging-port=0",
                   "--window-size=1280,800", "about:blank"], log)
    active = profile / "DevToolsActivePort"
    try:
        port = _wait_until(lambda: active.exists() and active.read_text().split("\n")[0].strip(),
                           "Chromium to open its DevTools port", log, proc)
        yield int(port)
    finally:
        _stop(proc)


# --- the DevTools protocol -------------------------------------------------------------

class DevTools:
    """Just enough of the Chrome DevTools Protocol: call a method, wait for its answer."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.next_id = 0

    async def call(self, method: str, **params):
        self.next_id += 1
        ident = self.next_id
        await self.ws.send_json({"id": ident, "method": method, "params": params})
        async with asyncio.timeout(WAIT):
            while True:
                message = json.loads(await self.ws.receive_str())
                if message.get("id") == ident:
                    if "error" in message:
                        raise AssertionError(f"{method}: {message['error']}")
                    return message.get("result", {})

    async def evaluate(self, expression: str):
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def wait_text(self, predicate, what: str) -> str:
        deadline = time.monotonic() + WAIT
        text = None
        while time.monotonic() < deadline:
            text = await self.evaluate(SCREEN_TEXT)
            if text is not None and predicate(text):
                return text
            await asyncio.sleep(0.1)
        if text is None:
            raise AssertionError(f"{what}: no xterm.js terminal found on the page within {WAIT:.0f} s")
        raise AssertionError(f"{what}: not within {WAIT:.0f} s; the terminal shows:\n{text}")

    async def screenshot(self) -> "Picture":
        result = await self.call("Page.captureScreenshot", format="png",
                                 clip={"x": 0, "y": 0, "width": 1280, "height": 800, "scale": 0.25})
        return Picture.from_png(base64.b64decode(result["data"]))

    async def click(self, x: int, y: int) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            await self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    async def press(self, key: str) -> None:
        code = f"Digit{key}" if key.isdigit() else f"Key{key.upper()}"
        common = {"key": key, "code": code, "windowsVirtualKeyCode": ord(key.upper())}
        await self.call("Input.dispatchKeyEvent", type="keyDown", text=key, **common)
        await self.call("Input.dispatchKeyEvent", type="keyUp", **common)


class Picture:
    """A decoded PNG (8-bit RGB or RGBA, as Chromium writes them), as rows of pixel tuples."""

    def __init__(self, width: int, height: int, pixels: list[tuple], png: bytes = b"") -> None:
        self.width, self.height, self.pixels, self.png = width, height, pixels, png

    @classmethod
    def from_png(cls, data: bytes) -> "Picture":
        assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
        pos, idat, header = 8, [], None
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                header = struct.unpack(">IIBBBBB", body)
            elif kind == b"IDAT":
                idat.append(body)
            pos += 12 + length
        width, height, depth, color, _, _, interlace = header
        assert depth == 8 and color in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
        bpp = 4 if color == 6 else 3
        raw = zlib.decompress(b"".join(idat))
        stride = width * bpp
        previous = bytearray(stride)
        pixels = []
        for y in range(height):
            start = y * (stride + 1)
            kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                up = previous[i]
                if kind == 1:
                    line[i] = (line[i] + left) & 0xFF
                elif kind == 2:
                    line[i] = (line[i] + up) & 0xFF
                elif kind == 3:
                    line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
                elif kind == 4:
                    corner = previous[i - bpp] if i >= bpp else 0
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                    line[i] = (line[i] + pred) & 0xFF
            pixels.extend(tuple(line[x:x + 3]) for x in range(0, stride, bpp))
            previous = line
        return cls(width, height, pixels, data)

    def painted_share(self) -> float:
        """The share of pixels that differ from the most common colour (the background)."""
        counts: dict[tuple, int] = {}
        for px in self.pixels:
            counts[px] = counts.get(px, 0) + 1
        return 1 - max(counts.values()) / len(self.pixels)

    def difference(self, other: "Picture") -> float:
        """The share of pixels that differ between two pictures of the same size."""
        assert (self.width, self.height) == (other.width, other.height)
        return sum(a != b for a, b in zip(self.pixels, other.pixels, strict=True)) / len(self.pixels)


async def _painted(tools: DevTools, what: str) -> "Picture":
    deadline = time.monotonic() + WAIT
    share = 0.0
    while time.monotonic() < deadline:
        picture = await tools.screenshot()
        share = picture.painted_share()
        if share > 0.02:
            return picture
        await asyncio.sleep(0.2)
    raise AssertionError(f"{what}: the page stayed blank ({share:.1%} of pixels painted)")


async def _settled(tools: DevTools) -> "Picture":
    """A screenshot once two in a row agree (the terminal has finished redrawing)."""
    last = await tools.screenshot()
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        await asyncio.sleep(0.3)
        now = await tools.screenshot()
        if now.difference(last) == 0:
            return now
        last = now
    return last


# --- the test ------------------------------------------------------------------------

async def test_overview_renders_in_chromium_and_keys_navigate(served, chromium, tmp_path: Path):
    import aiohttp

    def keep(name: str, picture: Picture) -> Picture:  # for a person to look at when this fails
        (tmp_path / f"{name}.png").write_bytes(picture.png)
        return picture

    url, _log = served
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as session:
        async with session.get(f"http://127.0.0.1:{chromium}/json/list") as answer:
            targets = await answer.json(content_type=None)
        page = next(t for t in targets if t["type"] == "page")
        async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            tools = DevTools(ws)
            await tools.call("Network.enable")
            # textual-serve's page asks Google for a web font: keep the test off the internet.
            await tools.call("Network.setBlockedURLs", urls=["*fonts.googleapis.com*", "*fonts.gstatic.com*"])
            await tools.call("Page.enable")  # without it the script below is not installed
            await tools.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
            await tools.call("Page.navigate", url=url)

            overview = await tools.wait_text(lambda t: "Waiting for a decision" in t, "the overview")
            assert "Regressions" in overview and "ana" in overview
            assert "open cases" in overview
            assert (await _painted(tools, "the overview")).painted_share() > 0.02
            # Click the page so the terminal has focus, as a person would: on the blank line above the
            # overview's intro, where a click does nothing in the console. (Focusing xterm's textarea
            # from script would not tell the console it has focus, so it would stay dimmed.)
            await tools.click(1000, 30)
            first = keep("1-overview", await _settled(tools))
            assert await tools.evaluate("document.activeElement.className") == "xterm-helper-textarea"
            await tools.press("7")
            audit = await tools.wait_text(lambda t: "Waiting for a decision" not in t and "any actor" in t,
                                          "the audit log after pressing 7")
            assert "at (UTC)" in audit
            second = keep("2-audit", await _settled(tools))
            assert second.difference(first) > 0.02, f"pressing 7 did not change the picture (see {tmp_path})"

            await tools.press("1")
            await tools.wait_text(lambda t: "Waiting for a decision" in t, "the overview after pressing 1")
            third = keep("3-overview-again", await _settled(tools))
            assert third.difference(first) < 0.01, f"pressing 1 did not bring back the overview's picture (see {tmp_path})"
