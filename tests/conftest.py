"""Shared test helpers: a fresh store file per test, and the gatepost CLI as a user runs it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatepost.cli import main
from gatepost.store.demo import DEMO_NOW, build_demo
from gatepost.store.kernel import freeze, open_store

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def db(store_path: Path):
    database = open_store(store_path)
    yield database
    database.close()


@pytest.fixture
def cli(store_path: Path):
    """Invoke `gatepost --db <store> ARGS...` in-process; returns click's Result."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict | None = None):
        return runner.invoke(main, ["--db", str(store_path), *args], input=input, env=env,
                             catch_exceptions=False)

    return invoke


def run_gatepost(*args: str, cwd: Path | None = None, env: dict | None = None,
                 timeout: float = 60, stdin: int | None = None) -> subprocess.CompletedProcess:
    """Run the real `gatepost` entry point in a subprocess, as a user would (stdin: e.g. subprocess.DEVNULL)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "gatepost", *args], cwd=cwd, env=full_env, stdin=stdin,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store built through the real CLI (`gatepost demo --no-console` as ana), once per test process
    (a build takes seconds; the suite would build it a dozen times): never written to — a test that opens,
    decides or damages a store takes its own copy (`demo_copy`)."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    done = run_gatepost("--db", str(path), "demo", "--no-console", "-q", "--as", "ana", timeout=180)
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture
def demo_copy(demo_store: Path, tmp_path: Path) -> Path:
    """A fresh copy of the CLI-built demo store, `review.db` in the test's own folder."""
    copy = tmp_path / "review.db"
    shutil.copy(demo_store, copy)
    return copy


@pytest.fixture(scope="session")
def built_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store as `gatepost screenshots` builds it (seed 7, clock frozen at DEMO_NOW), once per test
    process; tests use copies of it (`demo_here`)."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    with freeze(DEMO_NOW):
        build_demo(path, seed=7, person="ana")
    return path


@pytest.fixture
def demo_here(built_demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh copy of it named `demo.db` in the working folder (the header names it so on every run), the clock
    frozen for the test: the same screens, byte for byte, on every run."""
    shutil.copy(built_demo, tmp_path / "demo.db")
    monkeypatch.chdir(tmp_path)
    with freeze(DEMO_NOW):
        yield Path("demo.db")
