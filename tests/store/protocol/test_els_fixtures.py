"""els-fixture/1 files run as a test suite: els's two reference fixtures and gatepost's own."""

from pathlib import Path

import pytest
import yaml

from gatepost.store.kernel import InputError
from gatepost.store.protocol import els_root, replay_fixture
from tests.conftest import run_gatepost

ELS = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "els"
OWN = Path(__file__).resolve().parents[2] / "fixtures/protocols/eval-gated-change"
REFERENCE = sorted((ELS / "fixtures").glob("*/*.fixture.yaml"))
GATEPOST = sorted(OWN.glob("*.fixture.yaml"))


@pytest.mark.parametrize("fixture", REFERENCE + GATEPOST, ids=lambda p: p.name)
def test_fixture_passes(fixture):
    assert [str(m) for m in replay_fixture(fixture)] == []


def test_both_reference_fixtures_are_there():
    assert {p.name for p in REFERENCE} == {"chg-1842.fixture.yaml", "inc-492.fixture.yaml"}


def test_own_fixtures_cover_every_claim_action_and_outcome_in_every_value():
    seen: dict[str, set] = {"claims": set(), "actions": set(), "outcomes": set()}
    for path in GATEPOST:
        for state in yaml.safe_load(path.read_text())["states"]:
            for section in seen:
                seen[section] |= {(name, str(value)) for name, value in state["expect"][section].items()}
    claims = {"change.within_surface", "content.clean", "experiment.valid", "heldout.not_regressed",
              "result.reproducible", "tuning.improved", "change.supported"}
    assert {(c, v) for c in claims for v in ("True", "False", "unknown")} <= seen["claims"]
    for action, statuses in {"change.keep": {"blocked", "approval-required", "admissible"},
                             "change.apply_outside_surface": {"blocked", "approval-required", "admissible"},
                             "change.propose": {"blocked", "admissible"}, "change.reject": {"blocked", "admissible"},
                             "design.review": {"approval-required", "admissible"},
                             "candidate.evaluate": {"admissible"}}.items():
        assert {(action, s) for s in statuses} <= seen["actions"]
    for outcome in ("kept", "proposed", "rejected"):
        assert {(outcome, "allowed"), (outcome, "not-allowed")} <= seen["outcomes"]


def test_els_root_is_the_parent_of_the_fixtures_folder():
    assert els_root(REFERENCE[0]) == ELS
    assert els_root(GATEPOST[0]) == Path(__file__).resolve().parents[2]


def _broken_copy(tmp_path: Path) -> Path:
    """els's incident fixture with one wrong expectation, laid out as an els tree."""
    (tmp_path / "protocols/incident-response").mkdir(parents=True)
    (tmp_path / "fixtures/incident-response").mkdir(parents=True)
    (tmp_path / "protocols/incident-response/1.yaml").write_text(
        (ELS / "protocols/incident-response/1.yaml").read_text())
    doc = yaml.safe_load((ELS / "fixtures/incident-response/inc-492.fixture.yaml").read_text())
    doc["states"][0]["expect"]["claims"]["service.healthy"] = True
    doc["states"][2]["expect"]["actions"]["emergency.leave"] = "blocked"
    target = tmp_path / "fixtures/incident-response/inc-492.fixture.yaml"
    target.write_text(yaml.safe_dump(doc, sort_keys=False))
    return target


def test_a_wrong_expectation_is_a_mismatch(tmp_path):
    mismatches = [str(m) for m in replay_fixture(_broken_copy(tmp_path))]
    assert len(mismatches) == 2
    assert mismatches[0].endswith("state initial: claims.service.healthy: expected true, got false")
    assert mismatches[1].endswith("state service-restored: actions.emergency.leave: expected blocked, got admissible")


def test_protocol_check_cli_exits_1_printing_each_mismatch(tmp_path):
    broken = _broken_copy(tmp_path)
    result = run_gatepost("protocol", "check", str(broken), str(REFERENCE[0]))
    assert result.returncode == 1
    assert "claims.service.healthy: expected true, got false" in result.stdout
    assert "actions.emergency.leave: expected blocked, got admissible" in result.stdout
    assert f"{REFERENCE[0]}: ok" in result.stdout
    ok = run_gatepost("protocol", "check", *map(str, REFERENCE + GATEPOST))
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_a_fixture_naming_an_unknown_claim_is_an_input_error(tmp_path):
    target = _broken_copy(tmp_path)
    doc = yaml.safe_load(target.read_text())
    doc["states"][1]["expect"]["claims"]["moon.phase"] = "unknown"
    target.write_text(yaml.safe_dump(doc))
    with pytest.raises(InputError, match=r"states\[1\]\.expect\.claims\.moon\.phase: incident.response/1 has no"):
        replay_fixture(target)
    result = run_gatepost("protocol", "check", str(target))
    assert result.returncode == 2 and "moon.phase" in result.stderr
