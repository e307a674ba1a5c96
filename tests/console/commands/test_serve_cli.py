"""`gatepost serve` without a browser: what it refuses before listening, and the page and
websocket it serves (each browser session runs a real console process)."""

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from gatepost.commands.serve import console_command, is_loopback, page_url
from gatepost.store.kernel import open_store
from tests.conftest import ROOT, run_gatepost

WAIT = 30.0
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def empty_db(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    open_store(path).close()
    return path


@pytest.fixture
def demo_db(tmp_path: Path, demo_store: Path) -> Path:
    path = tmp_path / "demo store.db"  # a space, so the console command must be quoted
    shutil.copy(demo_store, path)
    return path


def test_missing_store_is_refused_before_listening(tmp_path: Path):
    port = _free_port()
    result = run_gatepost("--db", str(tmp_path / "none.db"), "serve", "--port", str(port), timeout=20)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "none.db" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "none.db").exists()


def test_bad_store_is_refused(tmp_path: Path):
    bad = tmp_path / "notes.db"
    bad.write_text("these are notes, not a store\n")
    result = run_gatepost("--db", str(bad), "serve", timeout=20)
    assert result.returncode == 2
    assert "not a SQLite database" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10"])
def test_non_loopback_host_needs_public(empty_db: Path, host: str):
    result = run_gatepost("--db", str(empty_db), "serve", "--host", host, "--as", "ana", timeout=20)
    assert result.returncode == 2, result.stdout
    line = result.stderr.strip()
    assert "\n" not in line
    assert "--public" in line and "act as ana" in line and "not a loopback address" in line
    assert result.stdout == ""


def test_busy_port_is_one_line(empty_db: Path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = run_gatepost("--db", str(empty_db), "serve", "--port", str(port), "--as", "zed", timeout=20)
    assert result.returncode == 2
    note, error = result.stderr.splitlines()
    assert "zed is not a person of this store" in note and "browse but not decide" in note
    assert error == f"gatepost: --port {port}: already in use on 127.0.0.1; choose another with --port"
    assert "serving" not in result.stdout  # it never claims to serve what it could not bind


def test_port_out_of_range_is_bad_input(empty_db: Path):
    result = run_gatepost("--db", str(empty_db), "serve", "--port", "70000", timeout=20)
    assert result.returncode == 2 and "--port" in result.stderr


def test_loopback_recognised():
    assert is_loopback("127.0.0.1") and is_loopback("127.8.0.1") and is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.7") and not is_loopback("::")


def test_urls_people_can_open():
    assert page_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert page_url("::1", 8123) == "http://[::1]:8123"
    assert not page_url("0.0.0.0", 8000).startswith("http://0.0.0.0")


def test_console_command_survives_the_shell(tmp_path: Path):
    db = tmp_path / "it's a $(store) `x`.db"
    argv = shlex.split(console_command(db, "ana o'neil"))
    assert argv == [sys.executable, "-m", "gatepost", "--db", str(db), "console", "--as", "ana o'neil"]


def test_help_says_who_acts(cli):
    out = cli("serve", "--help").output
    assert "--host" in out and "--port" in out and "--public" in out and "8000" in out and "127.0.0.1" in out


@pytest.mark.slow
async def test_page_and_websocket_run_the_console(demo_db: Path, tmp_path: Path):
    """Without a browser: the page points at the served websocket, which runs a real console."""
    import aiohttp

    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gatepost", "--db", str(demo_db), "serve",
                                 "--port", str(port), "--as", "ana"], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=ROOT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + WAIT
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                printed = re.search(r"on (http://\S+\?token=(\S+)) as", log.read_text())
                assert printed, "no URL printed yet"  # the page needs this start's token (issue 12)
                address = printed.group(1)
                page = await asyncio.to_thread(
                    lambda: urllib.request.urlopen(address, timeout=2).read().decode())  # noqa: B023
                break
            except AssertionError:
                assert time.monotonic() < deadline, "gatepost serve printed no URL: " + log.read_text()
                await asyncio.sleep(0.1)
            except OSError:
                assert time.monotonic() < deadline, "gatepost serve did not answer: " + log.read_text()
                await asyncio.sleep(0.1)
        assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in page
        assert "gatepost" in page and "ana" in page
        banner = log.read_text()
        assert f"http://127.0.0.1:{port}" in banner and "as ana" in banner and str(demo_db) in banner

        token_cookie = {f"gatepost_token_{port}": printed.group(2)}  # as the page's cookie carries it
        async with aiohttp.ClientSession(cookies=token_cookie) as session:
            async with session.ws_connect(f"ws://127.0.0.1:{port}/ws?width=120&height=40",
                                          origin=f"http://127.0.0.1:{port}") as ws:
                async def screen_until(needle: str, seen: str = "") -> str:
                    async with asyncio.timeout(WAIT):
                        while needle not in ANSI.sub("", seen):
                            message = await ws.receive()
                            if message.type == aiohttp.WSMsgType.BINARY:
                                seen += message.data.decode("utf-8", "replace")
                            elif message.type != aiohttp.WSMsgType.TEXT:
                                raise AssertionError(f"websocket closed: {message!r}\n{log.read_text()}")
                    return seen

                await screen_until("Waiting for a decision")
                await ws.send_str(json.dumps(["stdin", "7"]))
                await screen_until("any actor")
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
