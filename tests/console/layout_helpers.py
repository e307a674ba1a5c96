"""The demo store as `gatepost screenshots` builds it (seed 7, clock frozen at DEMO_NOW), for layout tests."""

import shutil
from pathlib import Path

import pytest

from gatepost.store.demo import DEMO_NOW, build_demo
from gatepost.store.kernel import freeze


@pytest.fixture(scope="module")
def built_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    with freeze(DEMO_NOW):
        build_demo(path, seed=7, person="ana")
    return path


@pytest.fixture
def demo_here(built_demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh copy named `demo.db` in the working folder (the header names it so on every run), the clock frozen."""
    shutil.copy(built_demo, tmp_path / "demo.db")
    monkeypatch.chdir(tmp_path)
    with freeze(DEMO_NOW):
        yield Path("demo.db")
