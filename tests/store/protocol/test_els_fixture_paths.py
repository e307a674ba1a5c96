"""A fixture's `protocol:` stays inside its els tree, as els's harness demands ("absolute or leaves the
repository"): els's own incident fixture, pointed at its real protocol by an absolute path, a `../` path or a link
leading out of the tree, is refused before the protocol is read; the same file named inside the tree replays ok."""

import os
from pathlib import Path

import pytest
import yaml

from gatepost.store.kernel import InputError
from gatepost.store.protocol import replay_fixture
from tests.conftest import run_gatepost

ELS = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "els"
FIXTURE = ELS / "fixtures/incident-response/inc-492.fixture.yaml"
PROTOCOL = ELS / "protocols/incident-response/1.yaml"


def _tree(tmp_path: Path, protocol: str) -> Path:
    """els's incident fixture in a fresh els tree under tmp_path/repo, naming its protocol as given; the real
    protocol is laid beside the tree (tmp_path/outside), and inside it."""
    for where in ("repo/protocols/incident-response", "outside/protocols/incident-response",
                  "repo/fixtures/incident-response"):
        (tmp_path / where).mkdir(parents=True, exist_ok=True)
    (tmp_path / "repo/protocols/incident-response/1.yaml").write_text(PROTOCOL.read_text())
    (tmp_path / "outside/protocols/incident-response/1.yaml").write_text(PROTOCOL.read_text())
    doc = yaml.safe_load(FIXTURE.read_text())
    assert doc["protocol"] == "protocols/incident-response/1.yaml"
    doc["protocol"] = protocol
    target = tmp_path / "repo/fixtures/incident-response/inc-492.fixture.yaml"
    target.write_text(yaml.safe_dump(doc, sort_keys=False))
    return target


@pytest.mark.parametrize("protocol", ["{outside}/protocols/incident-response/1.yaml",
                                      "../outside/protocols/incident-response/1.yaml",
                                      "protocols/../../outside/protocols/incident-response/1.yaml"])
def test_an_absolute_or_escaping_protocol_path_is_refused_before_reading(tmp_path: Path, protocol: str):
    protocol = protocol.format(outside=tmp_path / "outside")
    target = _tree(tmp_path, protocol)
    with pytest.raises(InputError, match=r"protocol: .*absolute or leaves the repository"):
        replay_fixture(target)
    done = run_gatepost("protocol", "check", str(target))
    assert done.returncode == 2, done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and "absolute or leaves the repository" in done.stderr


def test_a_link_out_of_the_tree_is_refused(tmp_path: Path):
    target = _tree(tmp_path, "protocols/elsewhere/1.yaml")
    os.symlink(tmp_path / "outside/protocols/incident-response", tmp_path / "repo/protocols/elsewhere")
    with pytest.raises(InputError, match=r"absolute or leaves the repository .*: a link to"):
        replay_fixture(target)


def test_a_path_that_stays_inside_replays(tmp_path: Path):
    assert replay_fixture(_tree(tmp_path, "protocols/incident-response/1.yaml")) == []
    assert replay_fixture(_tree(tmp_path, "fixtures/../protocols/incident-response/1.yaml")) == []
