"""Canon's rules for every protocol/1 file, and els's fixture harness, on copies of the real upstream files.

The copies live unchanged in tests/fixtures/reference/upstream/els/upstream/<commit>/<path> (see its
SOURCES.txt). A fixture names its protocol relative to an els root, so each replay lays the files it
needs out as an els tree in tmp_path (copied byte for byte) and replays the fixture there.
"""

import random
import shutil
from pathlib import Path

import pytest
import yaml

from gatepost.store.kernel import InputError
from gatepost.store.protocol import (
    FALSE,
    TRUE,
    UNKNOWN,
    Record,
    State,
    load_protocol,
    parse_protocol,
    replay_fixture,
)

UP = Path(__file__).resolve().parents[2] / "fixtures/reference/upstream/els/upstream"
SHARED = Path("/work/shared/reference/upstream/els/upstream")

IR_28F = UP / "28f76507b136d7a12cd1d66d21b4681fb782a4c1/protocols/incident-response/1.yaml"
IR_B95 = UP / "b95e7ff5ca54c300e73e663abddb342c7fc58c0d/protocols/incident-response/1.yaml"
SC_7DF = UP / "7dfb633dd979dbce5b9fca00af4e62916ba70167/protocols/software-change/1.yaml"
SC_E47 = UP / "e4783e0a39a994dcf2c9709098029e6f250d2ff3/protocols/software-change/1.yaml"
SC_SITE = UP / "1978fc0f09e0d26267e645bd7fcb02dfa88060f9/website/examples/protocols/software-change/1.yaml"
BUGFIX = UP / "054f7164cc89508e7e8029d8749b51af1dc05c87/website/examples/protocols/software-change-bugfix/1.yaml"
INVESTIGATION = UP / "3d7a10117ca4f9cd6edf2f4ed1e216e05c142770/crates/els-docs/tests/fixtures/investigation.yaml"
SMOKE_PROTOCOL = UP / "4f6681a1faf80b1c90bd0375d5d1fc4673c30982/fixtures/smoke/protocol.yaml"
VOCABULARY = UP / "8700b1115b1a6dfe14e1138cb0b56a4805ec21c9/protocols/vocabulary.yaml"
PROTOCOLS = [IR_28F, IR_B95, SC_7DF, SC_E47, SC_SITE, BUGFIX, INVESTIGATION, SMOKE_PROTOCOL]

SMOKE = UP / "d4c89709ff8a90b0a75aadfe35a0bc00315d0847/fixtures/smoke/smoke.fixture.yaml"
INC_3BC = UP / "3bc4e6858b8c9f45d7bc88046d8445183788a4d7/fixtures/incident-response/inc-492.fixture.yaml"
INC_EF4 = UP / "ef43d055d3e2e2d613df5b25ddfd2a1cae1ac494/fixtures/incident-response/inc-492.fixture.yaml"
CHG = UP / "debd808fdefa169484c0f15efc207f245420f33a/fixtures/software-change/chg-1842.fixture.yaml"
TRIAGE = sorted(UP.glob("*/fixtures/support-triage/*.fixture.yaml"))


def tree(tmp_path: Path, fixture: Path, protocol: Path, *, rel: str | None = None) -> Path:
    """An els root in tmp_path holding the fixture and the protocol where the fixture's `protocol:` names it."""
    doc = yaml.safe_load(fixture.read_text())
    where = tmp_path / (rel or doc["protocol"])
    where.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(protocol, where)
    target = tmp_path / "fixtures" / fixture.parent.name / fixture.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fixture, target)
    return target


def edited(tmp_path: Path, fixture: Path, protocol: Path, edit) -> Path:
    """The fixture laid out as an els tree, its YAML changed by `edit(doc)`."""
    target = tree(tmp_path, fixture, protocol)
    doc = yaml.safe_load(target.read_text())
    edit(doc)
    target.write_text(yaml.safe_dump(doc, sort_keys=False))
    return target


def rec(rid, kind, result, subject="a", revision="r1", observed_at="", upstream=()):
    return Record(id=rid, kind=kind, result=result, artifact=subject, revision=revision,
                  observed_at=observed_at, order=int("".join(c for c in rid if c.isdigit()) or 0),
                  upstream=tuple(upstream))


# --- the copies are the shared reference files, unchanged ----------------------------------------
@pytest.mark.skipif(not SHARED.exists(), reason="../shared is not on this machine")
def test_copies_are_byte_identical_to_the_shared_reference():
    ours = sorted(p.relative_to(UP) for p in UP.rglob("*") if p.is_file())
    assert ours == sorted(p.relative_to(SHARED) for p in SHARED.rglob("*") if p.is_file())
    assert all((UP / p).read_bytes() == (SHARED / p).read_bytes() for p in ours)


# --- every upstream protocol validates -----------------------------------------------------------
@pytest.mark.parametrize("path", PROTOCOLS, ids=lambda p: f"{p.parts[-5][:8]}:{p.parent.name}")
def test_every_upstream_protocol_loads(path):
    proto = load_protocol(path)
    assert proto.claims or proto.key == "smoke/1"
    assert proto.evaluate(State({a: "r1" for a in proto.artifacts})).claims  # and evaluates


def test_vocabulary_is_not_a_protocol():
    with pytest.raises(InputError, match="format: expected 'protocol/1', got 'vocabulary/1'"):
        load_protocol(VOCABULARY)


def test_any_identifier_is_an_effect_class():
    assert load_protocol(BUGFIX).actions["tests.run"].effect == "execute"
    assert load_protocol(SC_SITE).actions["tests.run"].effect == "execute"
    data = yaml.safe_load(SMOKE_PROTOCOL.read_text())
    data["actions"] = {"look": {"effect": "two words"}}
    with pytest.raises(InputError, match="actions.look.effect: expected an effect class: one identifier"):
        parse_protocol(data, "p.yaml")


# --- every upstream fixture replays as els/Canon would ---------------------------------------------
@pytest.mark.parametrize("fixture,protocol", [
    (SMOKE, SMOKE_PROTOCOL), (INC_3BC, IR_28F), (INC_3BC, IR_B95), (CHG, SC_7DF), (CHG, SC_E47),
], ids=["smoke", "inc-492@3bc4:ir@28f7", "inc-492@3bc4:ir@b95e", "chg-1842:sc@7dfb", "chg-1842:sc@e478"])
def test_upstream_fixture_replays_clean(tmp_path, fixture, protocol):
    assert [str(m) for m in replay_fixture(tree(tmp_path, fixture, protocol))] == []


@pytest.mark.parametrize("protocol", [IR_28F, IR_B95], ids=["ir@28f7", "ir@b95e"])
def test_inc_492_at_ef43_omits_the_release_artifact_and_is_refused(tmp_path, protocol):
    target = tree(tmp_path, INC_EF4, protocol)
    with pytest.raises(InputError) as err:
        replay_fixture(target)
    assert str(err.value) == (f"{target}: case.artifacts: case INC-492 does not give the current revision of "
                              "artifact release, which incident.response/1 declares (Canon refuses it: "
                              "missing-artifact)")


def test_inc_492_at_ef43_replays_against_the_protocol_without_release(tmp_path):
    # The same fixture against incident-response with its (unused) release artifact dropped: every one of
    # its five states, rolled-back (stale observations -> unknown) included, is as it expects.
    data = yaml.safe_load(IR_B95.read_text())
    del data["artifacts"]["release"]
    shrunk = tmp_path / "ir.yaml"
    shrunk.write_text(yaml.safe_dump(data, sort_keys=False))
    assert replay_fixture(tree(tmp_path, INC_EF4, shrunk)) == []


@pytest.mark.parametrize("fixture", TRIAGE, ids=lambda p: p.name)
def test_support_triage_fixtures_are_refused_naming_the_unpublished_protocol(tmp_path, fixture):
    assert len(TRIAGE) == 3
    target = tmp_path / "fixtures/support-triage" / fixture.name
    target.parent.mkdir(parents=True)
    shutil.copyfile(fixture, target)
    with pytest.raises(InputError) as err:
        replay_fixture(target)
    message = str(err.value)
    assert message.startswith(f"{target}: protocol: protocols/support-triage/1.yaml is not there")
    assert "\n" not in message


# --- Canon's evidence matching ----------------------------------------------------------------------
def test_disagreeing_counting_records_give_unknown_and_the_why_names_both():
    proto = load_protocol(SMOKE_PROTOCOL)

    def ev(*records):
        return proto.evaluate(State({"service": "r1"}, list(records)))

    healthy = rec("h1", "operational_observation", "healthy", "service")
    sick = rec("s2", "operational_observation", "unhealthy", "service")
    assert ev().claims["service.healthy"] == UNKNOWN
    assert ev(healthy).claims["service.healthy"] == TRUE
    assert ev(sick).claims["service.healthy"] == FALSE
    both = ev(healthy, sick)
    assert both.claims["service.healthy"] == UNKNOWN
    assert both.claim_why("service.healthy") == ("records disagree: #h1 operational_observation healthy vs "
                                                 "#s2 operational_observation unhealthy")
    assert ev(sick, healthy).claims == both.claims  # the order of the evidence does not matter
    assert ev(healthy, rec("h3", "operational_observation", "healthy", "service")).claims["service.healthy"] == TRUE
    stale = rec("s4", "operational_observation", "unhealthy", "service", "r0")  # excluded: takes no side
    assert ev(healthy, stale).claims["service.healthy"] == TRUE


def test_a_match_without_a_result_needs_only_a_record_and_a_record_without_result_is_not_the_result():
    proto = load_protocol(INVESTIGATION)
    s = State({"explanation": "e1"}, [rec("1", "supporting_observation", None, "explanation", "e1")])
    ev = proto.evaluate(s)
    assert ev.claims["explanation.supported"] == UNKNOWN  # waits on a falsification attempt
    s.records.append(rec("2", "falsification_attempt", None, "explanation", "e1"))
    assert proto.evaluate(s).claims["explanation.supported"] == FALSE  # no result: not `survived`


def test_order_of_evidence_never_changes_a_decision():
    proto = load_protocol(IR_B95)
    rng = random.Random(5)
    kinds = {"impact_assessment": ["bounded", "unbounded"], "operational_observation": ["healthy", "unhealthy"],
             "cause_analysis": ["identified", "unknown"]}
    for _ in range(50):
        records = [rec(f"e{i}", k, rng.choice(kinds[k]), "service", rng.choice(["s1", "s2"]))
                   for i, k in enumerate(rng.choices(sorted(kinds), k=rng.randint(0, 6)))]
        shuffled = rng.sample(records, len(records))
        one = proto.evaluate(State({"service": "s1", "release": "r1"}, records))
        two = proto.evaluate(State({"service": "s1", "release": "r1"}, shuffled))
        assert (one.claims, one.obligations(), one.actions()) == (two.claims, two.obligations(), two.actions())


# --- is: three-valued, any:, all: ----------------------------------------------------------------------
CONNECTIVES = {
    "format": "protocol/1", "protocol": {"id": "p", "revision": 3}, "artifacts": {"a": {}},
    "evidence_kinds": {"k": {}},
    "claims": {
        "base": {"true_when": {"evidence": {"kind": "k", "result": "pass"}}},
        "is_true": {"true_when": {"claim": "base"}},
        "is_false": {"true_when": {"claim": "base", "is": False}},
        "is_unknown": {"true_when": {"claim": "base", "is": "unknown"}},
        "negated": {"true_when": {"not": {"claim": "base", "is": "unknown"}}},
        "either": {"true_when": {"any": [{"claim": "base"}, {"claim": "base", "is": False}]}},
        "none_of": {"true_when": {"any": []}},
        "every_of_none": {"true_when": {"all": []}},
    },
}


@pytest.mark.parametrize("results,expected", [
    ((), dict(base=UNKNOWN, is_false=UNKNOWN, is_true=UNKNOWN, is_unknown=TRUE, negated=FALSE, either=UNKNOWN)),
    (("pass",), dict(base=TRUE, is_false=FALSE, is_true=TRUE, is_unknown=FALSE, negated=TRUE, either=TRUE)),
    (("fail",), dict(base=FALSE, is_false=TRUE, is_true=FALSE, is_unknown=FALSE, negated=TRUE, either=TRUE)),
    (("pass", "fail"), dict(base=UNKNOWN, is_false=UNKNOWN, is_true=UNKNOWN, is_unknown=TRUE, negated=FALSE,
                            either=UNKNOWN)),
], ids=["none", "pass", "fail", "disagree"])
def test_claim_tests_are_three_valued_as_in_canon(results, expected):
    # Canon's eval/mod.rs table: `is: false` of an UNKNOWN claim is UNKNOWN (gatepost used to say FALSE).
    proto = parse_protocol(CONNECTIVES, "p.yaml")
    claims = proto.evaluate(State({"a": "r1"}, [rec(f"e{i}", "k", r) for i, r in enumerate(results)])).claims
    assert claims == {**expected, "none_of": FALSE, "every_of_none": TRUE}


def test_is_false_of_an_unknown_claim_blocks_and_never_discharges():
    proto = load_protocol(SC_E47)  # repository.merge: precondition {claim: implementation.verified, is: true}
    data = yaml.safe_load(SC_E47.read_text())
    data["actions"]["repository.merge"]["precondition"]["is"] = False
    flipped = parse_protocol(data, "sc.yaml")
    revs = {"intent": "i1", "system_specification": "s1", "plan": "p1", "implementation": "R2",
            "release": "v0", "deployment": "d0"}
    for p in (proto, flipped):
        assert p.evaluate(State(revs, [], authority={"repository.merge"})).actions()["repository.merge"][
            "status"] == "blocked"  # UNKNOWN either way: neither `is: true` nor `is: false` holds


def test_is_beside_anything_but_claim_is_refused():
    data = yaml.safe_load(SMOKE_PROTOCOL.read_text())
    data["claims"]["service.healthy"]["true_when"]["is"] = True
    with pytest.raises(InputError, match="claims.service.healthy.true_when.is: is is allowed only beside claim"):
        parse_protocol(data, "p.yaml")


# --- authority: denied blocks -------------------------------------------------------------------------
def test_a_denied_capability_blocks_the_action(tmp_path):
    target = edited(tmp_path, INC_3BC, IR_B95, lambda d: d["states"][1].update(
        add_authority=[{"capability": "release.rollback", "decision": "denied"}]))
    got = [str(m) for m in replay_fixture(target)]
    assert got == [f"{target}: state {s}: actions.release.rollback: expected admissible, got blocked"
                   for s in ("rollback-approved", "service-restored")]
    proto = load_protocol(IR_B95)
    ev = proto.evaluate(State({"service": "s1", "release": "r1"}, denied={"release.rollback"}))
    assert ev.actions()["release.rollback"] == {"allowed": False, "status": "blocked",
                                                "why": "blocked: release.rollback denied (no precondition)"}
    assert ev.actions()["traffic.shift"]["status"] == "approval-required"


# --- max_age: stale by age against the case's time ------------------------------------------------------
def fresh_protocol(max_age="1h"):
    return {"format": "protocol/1", "protocol": {"id": "p", "revision": 1}, "artifacts": {"a": {}},
            "evidence_kinds": {"fresh": {"max_age": max_age}, "lasting": {}},
            "claims": {"fresh.seen": {"true_when": {"evidence": {"kind": "fresh"}}},
                       "lasting.seen": {"true_when": {"evidence": {"kind": "lasting"}}},
                       "either": {"true_when": {"any": [{"claim": "fresh.seen"}, {"claim": "lasting.seen"}]}}}}


@pytest.mark.parametrize("observed,counts", [
    ("2026-10-04T10:59:59Z", False), ("2026-10-04T11:00:00Z", True), ("2026-10-04T11:30:00Z", True),
    ("2026-10-04T13:00:00Z", True), ("", True),
], ids=["older", "exactly-max-age", "younger", "later", "unstamped"])
def test_a_record_older_than_its_kinds_max_age_at_the_case_time_is_expired(observed, counts):
    proto = parse_protocol(fresh_protocol(), "p.yaml")
    state = State({"a": "r1"}, [rec("1", "fresh", None, observed_at=observed)], at="2026-10-04T12:00:00Z")
    ev = proto.evaluate(state)
    assert ev.claims["fresh.seen"] == (TRUE if counts else UNKNOWN)
    assert ev.records()[0]["status"] == ("counting" if counts else "expired")
    if not counts:
        assert ev.claim_why("fresh.seen") == ("none counts: fresh: expired: observed 2026-10-04T10:59:59Z, older "
                                              "than max_age 1h at 2026-10-04T12:00:00Z")
    assert proto.evaluate(State({"a": "r1"}, state.records)).claims["fresh.seen"] == TRUE  # no time: none expires


def test_an_expired_record_takes_no_side_and_a_lasting_kind_never_expires():
    proto = parse_protocol(fresh_protocol("15m"), "p.yaml")
    records = [rec("1", "lasting", None, observed_at="2000-01-01T00:00:00Z"),
               rec("2", "fresh", None, observed_at="2026-10-05T09:00:00Z")]
    ev = proto.evaluate(State({"a": "r1"}, records, at="2026-10-05T09:30:00Z"))
    assert (ev.claims["lasting.seen"], ev.claims["fresh.seen"], ev.claims["either"]) == (TRUE, UNKNOWN, TRUE)


@pytest.mark.parametrize("age", ["05m", "1H", "1 h", "-1h", "1.5h", "1w", "", "h", 15])
def test_a_max_age_canon_cannot_read_is_refused(age):
    with pytest.raises(InputError, match="evidence_kinds.fresh.max_age: expected an age such as 15m"):
        parse_protocol(fresh_protocol(age), "p.yaml")


def test_the_fixtures_at_is_the_instant_max_age_is_judged_against(tmp_path):
    data = yaml.safe_load(SMOKE_PROTOCOL.read_text())
    data["evidence_kinds"]["operational_observation"]["max_age"] = "30m"
    protocol = tmp_path / "smoke.yaml"
    protocol.write_text(yaml.safe_dump(data))
    target = tree(tmp_path, SMOKE, protocol)  # observed 23:00, at 00:00: an hour old
    assert [str(m) for m in replay_fixture(target)] == [
        f"{target}: state healthy-observed: claims.service.healthy: expected true, got unknown"]


# --- invalidation: ----------------------------------------------------------------------------------------
INVALIDATION = {
    "format": "protocol/1", "protocol": {"id": "p", "revision": 1}, "artifacts": {"a": {}, "up": {}},
    "evidence_kinds": {"k": {}},
    "claims": {"named": {"true_when": {"evidence": {"kind": "k"}}},
               "on": {"true_when": {"claim": "named"}},
               "on_on": {"true_when": {"not": {"claim": "on"}}},
               "other": {"true_when": {"evidence": {"kind": "k"}}}},
    "invalidation": {"r": {"upstream": "up", "invalidates": ["named"]}},
}


def test_invalidation_keeps_a_record_from_the_named_claims_and_those_built_on_them_only():
    proto = parse_protocol(INVALIDATION, "p.yaml")
    revs = {"a": "r1", "up": "u2"}
    moved = rec("1", "k", None, upstream=[("up", "u1")])
    ev = proto.evaluate(State(revs, [moved]))
    assert ev.claims == {"named": UNKNOWN, "on": UNKNOWN, "on_on": UNKNOWN, "other": TRUE}
    assert ev.claim_why("named") == "none counts: k: invalidated: recorded upstream up u1 (current u2)"
    assert ev.records()[0]["status"] == "invalidated"
    for same in (rec("2", "k", None, upstream=[("up", "u2")]), rec("3", "k", None)):  # unmoved, or none recorded
        assert proto.evaluate(State(revs, [moved, same])).claims == {
            "named": TRUE, "on": TRUE, "on_on": FALSE, "other": TRUE}


def test_invalidation_names_only_declared_artifacts_and_claims():
    for rule, where in [({"upstream": "nowhere", "invalidates": ["named"]}, "invalidation.r.upstream"),
                        ({"upstream": "up", "invalidates": ["nope"]}, r"invalidation.r.invalidates\[0\]"),
                        ({"upstream": "up", "invalidates": ["named"], "why": "x"}, "invalidation.r.why")]:
        data = {**INVALIDATION, "invalidation": {"r": rule}}
        with pytest.raises(InputError, match=where):
            parse_protocol(data, "p.yaml")


def test_a_fixture_record_carries_its_upstream_revisions(tmp_path):
    data = yaml.safe_load(SMOKE_PROTOCOL.read_text())
    data["artifacts"]["release"] = {"description": "the release the service runs"}
    data["invalidation"] = {"on-release": {"upstream": "release", "invalidates": ["service.healthy"]}}
    protocol = tmp_path / "smoke.yaml"
    protocol.write_text(yaml.safe_dump(data))

    def edit(doc):
        doc["case"]["artifacts"]["release"] = {"revision": "v2"}
        doc["states"][1]["add_evidence"][0]["record"]["upstream_revisions"] = {"release": "v1"}
    target = edited(tmp_path, SMOKE, protocol, edit)
    assert [str(m) for m in replay_fixture(target)] == [
        f"{target}: state healthy-observed: claims.service.healthy: expected true, got unknown"]


# --- the fixture harness, as strict as els's ----------------------------------------------------------
def test_a_declared_claim_the_state_does_not_expect_is_reported(tmp_path):
    def edit(doc):  # els's own test: service.healthy renamed to service.unlisted in the initial state
        del doc["states"][0]["expect"]["claims"]["service.healthy"]
    target = edited(tmp_path, SMOKE, SMOKE_PROTOCOL, edit)
    assert [str(m) for m in replay_fixture(target)] == [
        f"{target}: state initial: claims.service.healthy: expected nothing, got unknown"]


def test_a_declared_action_missing_from_an_expected_actions_section_is_reported(tmp_path):
    target = edited(tmp_path, INC_3BC, IR_B95, lambda d: d["states"][2]["expect"]["actions"].pop("logs.search"))
    assert [str(m) for m in replay_fixture(target)] == [
        f"{target}: state service-restored: actions.logs.search: expected nothing, got admissible"]


def test_a_wrong_value_is_reported(tmp_path):
    target = edited(tmp_path, SMOKE, SMOKE_PROTOCOL,
                    lambda d: d["states"][0]["expect"]["claims"].update({"service.healthy": False}))
    assert [str(m) for m in replay_fixture(target)] == [
        f"{target}: state initial: claims.service.healthy: expected false, got unknown"]


def test_a_fixture_file_not_named_after_its_id_is_refused(tmp_path):
    target = tree(tmp_path, SMOKE, SMOKE_PROTOCOL)
    renamed = target.with_name("smoke-copy.fixture.yaml")
    target.rename(renamed)
    with pytest.raises(InputError, match="id: fixture file smoke-copy.fixture.yaml declares id smoke; it must "
                                         "be named smoke.fixture.yaml"):
        replay_fixture(renamed)


def test_evidence_observed_after_the_fixtures_at_is_refused(tmp_path):
    target = edited(tmp_path, SMOKE, SMOKE_PROTOCOL, lambda d: d["states"][1]["add_evidence"][0].update(
        observed_at="2026-10-04T00:00:01Z"))
    with pytest.raises(InputError, match=r"states\[1\]\.add_evidence\[0\]\.observed_at: evidence observation-1 "
                                         "is observed at 2026-10-04T00:00:01Z, after the evaluation instant "
                                         "2026-10-04T00:00:00Z"):
        replay_fixture(target)


@pytest.mark.parametrize("edit,where", [
    (lambda d: d.update(authority=[]), "authority: unknown key"),
    (lambda d: d["states"][0].update(note="x"), r"states\[0\]\.note: unknown key"),
    (lambda d: d["states"][1]["add_evidence"][0]["record"].update(confidence=1), "record.confidence: unknown key"),
    (lambda d: d["states"][1]["add_evidence"][0].update(source="x"), r"add_evidence\[0\]\.source: unknown key"),
    (lambda d: d["states"][0]["expect"].update(verdict="ok"), "expect.verdict: unknown key"),
    (lambda d: d["case"].update(owner="x"), "case.owner: unknown key"),
    (lambda d: d["case"]["artifacts"]["service"].update(pinned=True), "case.artifacts.service.pinned: unknown"),
    (lambda d: d["states"][0].update(add_evidence=None), r"states\[0\]\.add_evidence: a key is written with no"),
    (lambda d: d["states"][0].pop("expect"), r"states\[0\]\.expect: required"),
    (lambda d: d["states"][0]["expect"].pop("claims"), r"states\[0\]\.expect\.claims: required"),
    (lambda d: d.update(at="2026-10-04"), "at: '2026-10-04' is not an instant"),
    (lambda d: d.update(format="els-fixture/2"), "format: expected 'els-fixture/1'"),
    (lambda d: d.update(states=[]), "states: the fixture lists no states"),
    (lambda d: d["states"][1].update(id="initial"), r"states\[1\]\.id: state initial is given more than once"),
    (lambda d: d["states"][1].update(set_revisions={"release": "v2"}),
     r"set_revisions\.release: sets the revision of artifact release, which the case does not list"),
    (lambda d: d["states"][1]["add_evidence"][0]["record"].update(kind="vibe"),
     "record.kind: evidence observation-1 is of kind vibe, which smoke/1 does not declare"),
    (lambda d: d["states"][1]["add_evidence"][0]["record"].update(subject="moon"),
     "record.subject: evidence observation-1 is about artifact moon"),
    (lambda d: d["states"][1]["add_evidence"][0]["record"].update(subject_revision=1),
     "record.subject_revision: expected a string"),
    (lambda d: d["states"][1]["add_evidence"][0]["record"].update(observed_at="2026-10-03T22:00:00Z"),
     "record.observed_at: evidence observation-1 record is observed at 2026-10-03T22:00:00Z, its entry at"),
    (lambda d: d["states"][0]["add_evidence"].append(d["states"][1]["add_evidence"][0]),
     r"states\[1\]\.add_evidence\[0\]\.record\.id: evidence observation-1 is given more than once"),
    (lambda d: d["case"].update(protocol="smoker"), "case.protocol: case SMOKE-1 is governed by protocol 'smoker'"),
    (lambda d: d["case"]["artifacts"].update(extra={"revision": "x"}),
     "case.artifacts.extra: case SMOKE-1 lists artifact extra, which smoke/1 does not declare"),
    (lambda d: d["states"][0]["expect"]["claims"].update({"service.healthy": "Unknown"}),
     "claims.service.healthy: expected one of true, false, unknown"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_the_harness_refuses_what_els_refuses(tmp_path, edit, where):
    target = edited(tmp_path, SMOKE, SMOKE_PROTOCOL, edit)
    with pytest.raises(InputError, match=where) as err:
        replay_fixture(target)
    assert str(err.value).startswith(f"{target}: ") and "\n" not in str(err.value)


def test_a_capability_decided_twice_is_refused(tmp_path):
    target = edited(tmp_path, INC_3BC, IR_B95, lambda d: d["states"][2].update(
        add_authority=[{"capability": "release.rollback", "decision": "denied"}]))
    with pytest.raises(InputError, match=r"states\[2\]\.add_authority\[0\]\.capability: capability "
                                         "release.rollback is decided a second time"):
        replay_fixture(target)
    target = edited(tmp_path, INC_3BC, IR_B95, lambda d: d["states"][1]["add_authority"][0].update(
        decision="revoked"))
    with pytest.raises(InputError, match="decision: expected granted or denied, got 'revoked'"):
        replay_fixture(target)


def test_the_protocol_check_cli_reports_unexpected_declared_claims_and_refusals(tmp_path, cli):
    def edit(doc):
        del doc["states"][0]["expect"]["claims"]["service.healthy"]
    target = edited(tmp_path, SMOKE, SMOKE_PROTOCOL, edit)
    result = cli("protocol", "check", str(target))
    assert result.exit_code == 1
    assert "state initial: claims.service.healthy: expected nothing, got unknown" in result.output
    triage = tmp_path / "fixtures/support-triage" / TRIAGE[0].name
    triage.parent.mkdir(parents=True)
    shutil.copyfile(TRIAGE[0], triage)
    refused = cli("protocol", "check", str(triage))
    assert refused.exit_code == 2
    assert "protocols/support-triage/1.yaml is not there" in refused.output


# --- support.triage/1, reconstructed from els's generated page: any: and max_age: 15m on real fixtures --
RECONSTRUCTED = Path(__file__).resolve().parents[2] / "fixtures/canon/support-triage-1.reconstructed.yaml"


@pytest.mark.parametrize("fixture", TRIAGE, ids=lambda p: p.name)
def test_support_triage_fixtures_replay_against_the_reconstructed_protocol(tmp_path, fixture):
    # els has not published protocols/support-triage/1.yaml; gatepost's reconstruction from its generated
    # page (any: in escalate_sla_breach and needs_human, max_age: 15m on ticket_snapshot) agrees with every
    # expectation of the three real fixtures.
    assert [str(m) for m in replay_fixture(tree(tmp_path, fixture, RECONSTRUCTED))] == []


def test_a_shorter_max_age_expires_the_triage_reads_at_the_fixtures_at(tmp_path):
    shorter = tmp_path / "st.yaml"
    shorter.write_text(RECONSTRUCTED.read_text().replace("max_age: 15m", "max_age: 5m"))
    tri_48213 = next(p for p in TRIAGE if p.name == "tri-48213.fixture.yaml")
    got = [str(m) for m in replay_fixture(tree(tmp_path, tri_48213, shorter))]
    assert any(m.endswith("state ticket-read: claims.ticket.current: expected true, got unknown") for m in got)
    assert any(m.endswith("state ticket-read: obligations.escalate_sla_breach: expected discharged, got open")
               for m in got)
