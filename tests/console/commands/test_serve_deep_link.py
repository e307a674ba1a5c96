"""`gatepost serve` takes a deep link (issue 19 item 3): `serve --open KIND:ID` prints the URL with
`&open=KIND:ID`, the page opened with it starts its console on that item, and a bad link is refused
with 400 and one line, never reaching a shell unquoted. Real HTTP and WebSocket requests."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest

from gatepost.commands.serve import console_command
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import open_store
from tests.conftest import ROOT, run_gatepost
from tests.console.commands.test_serve_token import WAIT, _free_port, _stop, _url


def _start(db: Path, port: int, log: Path, *extra: str) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "gatepost", "--db", str(db), "serve", "--port", str(port),
                                 "--as", "ana", *extra], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=ROOT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _store_with_a_run(tmp_path: Path) -> tuple[Path, str]:
    artifact = tmp_path / "run.json"
    results = [{"task_id": f"linked-task-{i}", "passed": i % 2 == 0, "output": "o"} for i in range(4)]
    artifact.write_text(json.dumps({"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0,
                                    "verdict": "pass", "skill_id": "deep-link-skill", "candidate_results": results,
                                    "baseline_results": results}))
    db_path = tmp_path / "store.db"
    db = open_store(db_path)
    run_id, _ = import_artifact(db, artifact, actor="ci")
    db.close()
    return db_path, run_id


@pytest.fixture
def linked(tmp_path: Path):
    db, run_id = _store_with_a_run(tmp_path)
    port = _free_port()
    log = tmp_path / "serve.log"
    proc = _start(db, port, log, "--open", f"results:{run_id}")
    try:
        url, token = _url(proc, log)
        token = token.split("&")[0]  # the printed URL goes on with &open=…
        yield port, url, token, run_id, log
    finally:
        _stop(proc)


async def _get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session:
        async with session.get(url, allow_redirects=False) as response:
            return response.status, await response.text()


async def _screen_text(ws_url: str, origin: str, token: str, port: int, wanted: str) -> str:
    """What the console of a WebSocket session draws, until `wanted` shows (or WAIT runs out)."""
    seen = b""
    async with aiohttp.ClientSession(cookies={f"gatepost_token_{port}": token}) as session:
        async with session.ws_connect(ws_url, origin=origin) as ws:
            try:
                async with asyncio.timeout(WAIT):
                    while wanted.encode() not in seen:
                        message = await ws.receive()
                        if message.type == aiohttp.WSMsgType.BINARY:
                            seen += message.data
                        elif message.type != aiohttp.WSMsgType.TEXT:
                            break
            except TimeoutError:
                pass
    return seen.decode("utf-8", "replace")


async def test_serve_open_prints_the_url_that_opens_the_console_on_the_run(linked):
    port, url, token, run_id, log = linked
    assert f"&open=results:{run_id}" in log.read_text()
    status, page = await _get(f"http://127.0.0.1:{port}/?token={token}&open=results:{run_id}")
    assert status == 200
    ws_path = f"/ws/open/results:{run_id}"
    assert ws_path in page or f"/ws/open/{quote(f'results:{run_id}', safe='')}" in page
    drawn = await _screen_text(f"ws://127.0.0.1:{port}/ws/open/results:{run_id}?width=160&height=50",
                               f"http://127.0.0.1:{port}", token, port, "linked-task-")
    assert run_id in drawn and "linked-task-" in drawn  # the Results screen, on that run, its tasks listed


@pytest.mark.slow
@pytest.mark.parametrize("link", ["bogus:1", "results", "results:", "case:a\u0007b", "results:" + "x" * 400])
async def test_a_bad_link_in_the_url_is_refused_with_400_and_one_line(linked, link):
    port, _, token, _, _ = linked
    status, text = await _get(f"http://127.0.0.1:{port}/?token={token}&open={quote(link, safe='')}")
    assert status == 400 and text.startswith("serve: refused: open: ") and text.count("\n") == 1
    async with aiohttp.ClientSession(cookies={f"gatepost_token_{port}": token}) as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"ws://127.0.0.1:{port}/ws/open/{quote(link, safe='')}?width=80&height=24",
                                     origin=f"http://127.0.0.1:{port}")
    assert refused.value.status == 400


async def test_a_link_never_reaches_the_shell_unquoted(linked, tmp_path: Path):
    """A valid kind with shell syntax in its ID: the console gets it as one argument, the shell runs nothing."""
    port, _, token, _, _ = linked
    marker = tmp_path / "pwned"
    link = f"case:x$(touch {marker});touch {marker}`touch {marker}`"
    status, _ = await _get(f"http://127.0.0.1:{port}/?token={token}&open={quote(link, safe='')}")
    assert status == 200
    drawn = await _screen_text(f"ws://127.0.0.1:{port}/ws/open/{quote(link, safe='')}?width=120&height=40",
                               f"http://127.0.0.1:{port}", token, port, "Cases")
    assert drawn and not marker.exists()


def test_the_console_command_quotes_the_link_as_one_word(tmp_path: Path):
    command = console_command(tmp_path / "s.db", "ana", "case:a b;rm -rf ~")
    assert command.endswith("'--open=case:a b;rm -rf ~'")
    with pytest.raises(ValueError):
        console_command(tmp_path / "s.db", "ana", "shell:$(id)")


def test_serve_open_with_an_unknown_kind_is_one_line_and_exit_2(tmp_path: Path):
    db = tmp_path / "store.db"
    open_store(db).close()
    done = run_gatepost("--db", str(db), "serve", "--as", "ana", "--open", "bogus:1", "--port", str(_free_port()))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--open: expected KIND:ID" in done.stderr
