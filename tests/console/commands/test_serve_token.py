"""The browser needs a key: `gatepost serve` refuses requests without this start's token, from a
foreign Host (DNS rebinding) or a WebSocket from a foreign Origin. Real HTTP and WebSocket requests."""

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from gatepost.commands.serve import refusal, served_hosts, served_origins
from gatepost.store.kernel import open_store
from tests.conftest import ROOT

WAIT = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(db: Path, port: int, log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "gatepost", "--db", str(db), "serve", "--port", str(port),
                                 "--as", "ana"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _stop(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=5)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def _url(proc: subprocess.Popen, log: Path) -> tuple[str, str]:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        found = re.search(r"on (http://\S+/\?token=(\S+)) as", log.read_text())
        if found:
            return found.group(1), found.group(2)
        time.sleep(0.1)
    pytest.fail("gatepost serve printed no URL: " + log.read_text())


@pytest.fixture
def served(tmp_path: Path):
    db = tmp_path / "store.db"
    open_store(db).close()
    port = _free_port()
    proc = _start(db, port, tmp_path / "serve.log")
    try:
        url, token = _url(proc, tmp_path / "serve.log")
        yield port, url, token
    finally:
        _stop(proc)


async def _get(url: str, **kwargs) -> tuple[int, str, aiohttp.ClientResponse]:
    async with aiohttp.ClientSession(cookies=kwargs.pop("cookies", None)) as session:
        async with session.get(url, allow_redirects=False, **kwargs) as response:
            return response.status, await response.text(), response


async def test_the_printed_url_opens_the_page_and_sets_the_key_as_a_strict_cookie(served):
    port, url, token = served
    status, page, response = await _get(url)
    assert status == 200 and "gatepost" in page
    cookie = response.headers["Set-Cookie"]
    assert f"gatepost_token_{port}={token}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie


async def test_without_the_token_every_page_is_refused(served):
    port, url, token = served
    for address in (f"http://127.0.0.1:{port}/", f"http://127.0.0.1:{port}/?token=wrong",
                    f"http://127.0.0.1:{port}/static/css/xterm.css"):
        status, text, _ = await _get(address)
        assert status == 403 and "refused: token" in text, address
    status, _, _ = await _get(f"http://127.0.0.1:{port}/static/css/xterm.css",
                              cookies={f"gatepost_token_{port}": token})
    assert status != 403


async def test_a_foreign_host_is_refused_even_with_the_token(served):
    """DNS rebinding: evil.example resolves to 127.0.0.1, the browser sends Host: rebind.evil.example."""
    port, url, _ = served
    status, text, _ = await _get(url, headers={"Host": f"rebind.evil.example:{port}"})
    assert status == 403 and "refused: host" in text
    status, _, _ = await _get(url, headers={"Host": f"localhost:{port}"})
    assert status == 200


@pytest.mark.slow
@pytest.mark.parametrize("origin", ["https://evil.example", None, "http://127.0.0.1:1"])
async def test_a_websocket_from_a_foreign_origin_is_refused(served, origin):
    port, _, token = served
    async with aiohttp.ClientSession(cookies={f"gatepost_token_{port}": token}) as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24", origin=origin)
    assert refused.value.status == 403


async def test_a_websocket_without_the_token_is_refused_and_with_it_runs(served):
    port, _, token = served
    origin = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24", origin=origin)
    assert refused.value.status == 403
    async with aiohttp.ClientSession(cookies={f"gatepost_token_{port}": token}) as session:
        async with session.ws_connect(f"ws://127.0.0.1:{port}/ws?width=80&height=24", origin=origin) as ws:
            async with asyncio.timeout(WAIT):
                message = await ws.receive()
            assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)


def test_each_start_has_its_own_token(tmp_path: Path):
    db = tmp_path / "store.db"
    open_store(db).close()
    tokens = []
    for n in range(2):
        log = tmp_path / f"serve{n}.log"
        proc = _start(db, _free_port(), log)
        try:
            tokens.append(_url(proc, log)[1])
        finally:
            _stop(proc)
    assert tokens[0] != tokens[1] and all(len(t) >= 32 for t in tokens)


def test_the_rules_in_one_place():
    hosts = served_hosts("127.0.0.1", 8000, "http://127.0.0.1:8000")
    origins = served_origins(hosts, "http://127.0.0.1:8000")
    ok = {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000", "websocket": True,
          "query_token": None, "cookie_token": "k" * 32, "token": "k" * 32, "hosts": hosts, "origins": origins}
    assert refusal(**ok) is None
    assert refusal(**{**ok, "host": "127.0.0.1:8000.evil.example"}).startswith("serve: refused: host")
    assert refusal(**{**ok, "origin": "null"}).startswith("serve: refused: origin")
    assert refusal(**{**ok, "cookie_token": "k" * 31}).startswith("serve: refused: token")
    public = served_hosts("0.0.0.0", 80, "http://review.lan")
    assert "review.lan" in public and "http://review.lan" in served_origins(public, "http://review.lan")


def _raw_request(port: int, target: str, user_agent: bytes) -> bytes:
    """One HTTP request written byte by byte (a client library would refuse these header bytes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.sendall(b"GET " + target.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1:" + str(port).encode()
                     + b"\r\nUser-Agent: " + user_agent + b"\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
        return reply


def test_the_log_is_inert_and_never_shows_the_token(served, tmp_path: Path):
    port, url, token = served
    hostile = "x\u009b[31mred\u202eevil".encode() + b"\x9b[2Jgone"  # what HTTP lets through: C1, bidi, 8-bit
    assert b" 403 " in _raw_request(port, "/?token=wrong", hostile)[:20]
    assert b" 200 " in _raw_request(port, f"/?token={token}", hostile)[:20]
    log = tmp_path / "serve.log"
    deadline = time.monotonic() + WAIT
    while log.read_bytes().count(b"\n") < 3 and time.monotonic() < deadline:  # the banner and two access lines
        time.sleep(0.05)
    lines = log.read_bytes().decode("utf-8", "replace").splitlines()
    assert len(lines) >= 3, lines
    after_banner = [line for line in lines if "serving the console" not in line]
    assert sum("GET /?token=" in line for line in after_banner) == 2, lines
    assert not any(token in line for line in after_banner), after_banner
    raw = log.read_bytes()
    for forbidden in (b"\x1b", b"\x9b", "\u009b".encode(), "\u202e".encode()):
        assert forbidden not in raw, (forbidden, raw)
    assert any("<U+202E>" in line and "<token>" in line for line in after_banner), after_banner
