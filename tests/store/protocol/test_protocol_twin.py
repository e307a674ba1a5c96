"""gatepost's own protocols are read from a JSON twin of their YAML when, and only when, the twin is current."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gatepost.store import protocol
from gatepost.store.kernel import load_yaml_file
from gatepost.store.protocol import PROTOCOLS_DIR, protocol_twin

OWN = sorted(PROTOCOLS_DIR.rglob("*.yaml"))  # protocols and their rubric files
REFRESH = 'python -c "from gatepost.store.protocol import write_protocol_twins; write_protocol_twins()"'


@pytest.mark.parametrize("path", OWN, ids=lambda p: str(p.relative_to(PROTOCOLS_DIR)))
def test_each_protocol_ships_a_current_twin_with_the_yaml_data(path: Path):
    twin = path.with_suffix(".json")
    assert twin.exists(), f"{twin} is missing: run {REFRESH}"
    assert twin.read_text(encoding="utf-8") == protocol_twin(path), f"{twin} is stale: run {REFRESH}"
    assert json.loads(twin.read_text(encoding="utf-8"))["data"] == load_yaml_file(path)


def _protocols_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "protocols"
    shutil.copytree(PROTOCOLS_DIR, folder)
    return folder


def _load(folder: Path, ref: str = "eval.gated_change/1") -> dict[str, object]:
    """Load `ref` in a fresh process from `folder`: its description, and whether PyYAML was imported."""
    code = ("import json, sys\n"
            "from pathlib import Path\n"
            "from gatepost.store.protocol import interpreter\n"
            f"interpreter.PROTOCOLS_DIR = Path({str(folder)!r})\n"
            f"proto = interpreter.protocol_for({ref!r})\n"
            "rubric = [q.key for q in proto.rubric.questions] if proto.rubric else None\n"
            "print(json.dumps({'description': proto.description, 'rubric': rubric, 'yaml': 'yaml' in sys.modules}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_current_twin_is_read_without_the_yaml_parser(tmp_path: Path):
    loaded = _load(_protocols_copy(tmp_path))
    assert loaded["yaml"] is False
    assert loaded["description"] == protocol.protocol_for("eval.gated_change/1").description


def test_a_protocol_with_a_rubric_file_is_read_without_the_yaml_parser():
    """eval.gated_change/2 names its rubric in a file beside it: that file is read from its twin too."""
    loaded = _load(PROTOCOLS_DIR, "eval.gated_change/2")
    assert loaded["yaml"] is False
    assert loaded["rubric"] == [q.key for q in protocol.protocol_for("eval.gated_change/2").rubric.questions]


def test_an_edited_protocol_is_read_from_its_yaml_not_from_the_stale_twin(tmp_path: Path):
    folder = _protocols_copy(tmp_path)
    yaml_file = folder / "eval-gated-change" / "1.yaml"
    text = yaml_file.read_text(encoding="utf-8")
    yaml_file.write_text(text.replace("Decide one change", "Decide an edited change", 1), encoding="utf-8")
    loaded = _load(folder)
    assert loaded["yaml"] is True
    assert str(loaded["description"]).startswith("Decide an edited change")
