"""Installed, gatepost is one namespace: the wheel holds `gatepost` at the top and nothing else.

PyPI has packages named `store` and `console`; a gatepost that claimed those names would break a
user's environment. The wheel is built from the tree as `pip` would, then installed into a fresh
virtual environment that borrows this one's dependencies but not its gatepost.
"""

import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # built from a copy of the tree: setuptools writes build/ and *.egg-info into the tree it builds, and two
    # test processes (each with this module's fixture) building the checkout at once trip over each other
    tree = tmp_path_factory.mktemp("tree") / "gatepost"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "*.db"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(out), str(tree)], check=True, capture_output=True, text=True, timeout=300)
    [built] = out.glob("gatepost-*.whl")
    return built


def test_the_wheel_holds_only_gatepost_at_the_top(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"gatepost"}
    packages = {str(Path(n).parent) for n in names if n.endswith("/__init__.py")}
    source = {"gatepost/" + str(p.parent.relative_to(ROOT / "console")) for p in (ROOT / "console").rglob("__init__.py")}
    source |= {"gatepost/store/" + str(p.parent.relative_to(ROOT / "store")) for p in (ROOT / "store").rglob("__init__.py")}
    assert {s.removesuffix("/.") for s in source} <= packages, "a sub-package is missing from the wheel"
    for data in ("gatepost/gatepost.tcss", "gatepost/store/protocol/protocols/eval-gated-change/1.yaml",
                 "gatepost/store/protocol/protocols/eval-gated-change/1.json",
                 "gatepost/store/views/templates/case.md", "gatepost/store/views/templates/case.md.py"):
        assert data in names


def test_the_installed_wheel_runs_help_and_builds_the_demo(wheel: Path, tmp_path: Path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the dependencies of this environment, without its editable gatepost (.pth files there are not read)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    gatepost = [str(python), "-m", "gatepost"]
    where = subprocess.run([str(python), "-c", "import gatepost; print(gatepost.__file__)"], check=True,
                           capture_output=True, text=True, cwd=tmp_path)
    assert where.stdout.startswith(str(site))
    helped = subprocess.run([*gatepost, "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert helped.returncode == 0 and "demo" in helped.stdout
    built = subprocess.run([*gatepost, "--db", str(tmp_path / "demo.db"), "demo", "--no-console"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "demo.db").exists()
