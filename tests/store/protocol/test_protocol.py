"""The generic interpreter: loading and validating protocol files, Kleene logic, evidence matching."""

import copy
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.kernel import InputError
from gatepost.store.protocol import (
    FALSE,
    TRUE,
    UNKNOWN,
    Record,
    State,
    kleene_and,
    kleene_not,
    load_protocol,
    parse_protocol,
    protocol_for,
)

ELS = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "els"
EGC = Path(__file__).resolve().parents[3] / "store/protocol/protocols/eval-gated-change/1.yaml"
KEEP_CLAIMS = ["change.within_surface", "content.clean", "experiment.valid", "heldout.not_regressed",
               "result.reproducible", "tuning.improved"]
GOOD = {"guard_check": "clean", "design_review": "passed", "tuning_comparison": "reproduced",
        "heldout_comparison": "held"}
ARTIFACT = {"design_review": "eval_design"}


@pytest.fixture(scope="module")
def egc():
    return protocol_for("eval.gated_change/1")


def raw():
    return yaml.safe_load(EGC.read_text())


def state(records=(), independent=("run-52",), authority=()):
    recs = [Record(id=str(i), kind=k, result=r, artifact=ARTIFACT.get(k, "candidate"),
                   revision=rev if rev else ("design-2" if k == "design_review" else "c1"), producer=p,
                   observed_at=f"2026-11-20T10:{i:02d}:00Z", order=i)
            for i, (k, r, p, rev) in enumerate(records)]
    return State({"candidate": "c1", "eval_design": "design-2"}, recs,
                 {"different_agent_run": list(independent)}, set(authority))


def good(producer="run-52", **override):
    results = {**GOOD, **override}
    return [(k, r, producer, None) for k, r in results.items()]


# --- the seed's protocol as data ------------------------------------------------------------
def test_protocol_file_holds_every_part_of_the_seed(egc):
    assert egc.key == "eval.gated_change/1"
    assert set(egc.artifacts) == {"candidate", "eval_design"}
    assert set(egc.independence_dimensions) == {"different_agent_run"}
    assert {k: v["results"] for k, v in egc.evidence_kinds.items()} == {
        "design_review": ("passed", "failed"), "guard_check": ("outside", "leaked", "clean"),
        "heldout_comparison": ("held", "regressed"),
        "tuning_comparison": ("reproduced", "not_reproduced", "not_better")}
    assert set(egc.claims) == {*KEEP_CLAIMS, "change.supported"}
    assert set(egc.actions) == {"candidate.evaluate", "change.apply_outside_surface", "change.keep",
                                "change.propose", "change.reject", "design.review"}
    assert set(egc.outcomes) == {"inconclusive", "kept", "proposed", "rejected"}
    assert egc.actions["change.keep"].requires == ("loop_change.keep",)
    assert egc.actions["candidate.evaluate"].may_produce == ("guard_check", "heldout_comparison",
                                                             "tuning_comparison")


def test_every_keep_claim_true_on_independent_current_evidence(egc):
    ev = egc.evaluate(state(good()))
    assert all(ev.claims[c] == TRUE for c in KEEP_CLAIMS)
    assert ev.claims["change.supported"] == TRUE
    assert ev.outcomes()["kept"]["allowed"]
    assert ev.claim_why("content.clean") == "guard_check clean · run-52"


@pytest.mark.parametrize("kind,result,claims_false", [
    ("guard_check", "outside", ["change.within_surface", "content.clean"]),
    ("guard_check", "leaked", ["content.clean"]),
    ("design_review", "failed", ["experiment.valid"]),
    ("heldout_comparison", "regressed", ["heldout.not_regressed"]),
    ("tuning_comparison", "not_reproduced", ["result.reproducible"]),
    ("tuning_comparison", "not_better", ["result.reproducible", "tuning.improved"]),
])
def test_each_result_falsifies_exactly_its_claims(egc, kind, result, claims_false):
    ev = egc.evaluate(state(good(**{kind: result})))
    assert sorted(c for c in KEEP_CLAIMS if ev.claims[c] == FALSE) == sorted(claims_false)
    assert ev.claims["change.supported"] == FALSE
    outcomes = ev.outcomes()
    within = "change.within_surface" not in claims_false
    assert outcomes["rejected"]["allowed"] is within
    assert outcomes["proposed"]["allowed"] is (not within)
    assert ev.actions()["change.reject"]["status"] == "admissible"  # every keep claim decided, one false
    assert ev.actions()["change.propose"]["status"] == ("blocked" if within else "admissible")


def test_missing_evidence_leaves_every_claim_unknown_and_says_so(egc):
    ev = egc.evaluate(state())
    assert set(ev.claims.values()) == {UNKNOWN}
    assert ev.claim_why("heldout.not_regressed") == "none counts: missing heldout_comparison"
    assert ev.claim_why("tuning.improved") == "none counts: missing tuning_comparison"  # not(...) of nothing
    assert ev.claim_why("change.supported").startswith("waits on change.within_surface")
    outcomes = ev.outcomes()
    assert [n for n, o in outcomes.items() if o["allowed"]] == ["inconclusive"]


def test_stale_evidence_is_unknown_and_names_the_old_revision(egc):
    records = [(k, r, "run-52", "c0ffee0" if k != "design_review" else None) for k, r in GOOD.items()]
    ev = egc.evaluate(state(records))
    assert ev.claims["experiment.valid"] == TRUE
    assert ev.claims["heldout.not_regressed"] == UNKNOWN
    assert "stale: about revision c0ffee0 (current c1)" in ev.claim_why("heldout.not_regressed")
    assert [r["status"] for r in ev.records()] == ["stale", "counting", "stale", "stale"]


def test_not_independent_evidence_is_unknown_and_names_producer_and_dimension(egc):
    ev = egc.evaluate(state(good(producer="run-41")))
    assert set(ev.claims.values()) == {UNKNOWN}
    assert "producer run-41 not independent on different_agent_run" in ev.claim_why("content.clean")
    assert {r["status"] for r in ev.records()} == {"not independent"}


def test_disagreeing_counting_records_leave_the_claim_unknown_and_non_counting_ones_are_ignored(egc):
    # Canon's rule (was: the newest counting record decides, giving FALSE here).
    records = [("guard_check", "clean", "run-52", None), ("guard_check", "outside", "run-41", None)]
    assert egc.evaluate(state(records)).claims["change.within_surface"] == TRUE
    records.append(("guard_check", "outside", "run-52", None))
    ev = egc.evaluate(state(records))
    assert ev.claims["change.within_surface"] == UNKNOWN
    assert ev.claim_why("change.within_surface") == ("records disagree: #2 guard_check outside · run-52 vs "
                                                     "#0 guard_check clean · run-52")
    assert ev.records()[2]["decides"] == []
    records.append(("guard_check", "outside", "run-52", "c0"))  # a stale record does not take sides
    assert egc.evaluate(state(records)).claims["change.within_surface"] == UNKNOWN


def test_one_false_with_unknowns_never_rejects(egc):
    ev = egc.evaluate(state([("heldout_comparison", "regressed", "run-52", None)]))
    assert ev.claims["change.supported"] == FALSE
    assert not ev.outcomes()["rejected"]["allowed"]
    assert ev.actions()["change.reject"]["status"] == "blocked"
    assert "change.within_surface is UNKNOWN" in ev.actions()["change.reject"]["why"]


def test_actions_need_authority(egc):
    ev = egc.evaluate(state(good()))
    assert ev.actions()["change.keep"]["status"] == "approval-required"
    assert "loop_change.keep" in ev.actions()["change.keep"]["why"]
    ev = egc.evaluate(state(good(), authority=["loop_change.keep"]))
    assert ev.actions()["change.keep"]["status"] == "admissible"
    assert ev.actions()["design.review"]["status"] == "approval-required"


def test_claim_tree_shows_what_a_claim_rests_on(egc):
    tree = egc.evaluate(state(good(heldout_comparison="held") + [("heldout_comparison", "held", "run-41", None)])
                        ).claim_tree("change.supported")
    assert tree["value"] == TRUE and tree["label"] == "change.supported"
    held = next(c for c in tree["children"][0]["children"] if c["label"] == "heldout.not_regressed")
    evidence = held["children"][0]
    assert evidence["label"].startswith("evidence heldout_comparison = held")
    assert [c["why"] for c in evidence["children"]] == [
        "counting", "producer run-41 not independent on different_agent_run"]


# --- Kleene logic -------------------------------------------------------------------------------
def test_kleene_tables():
    assert kleene_and([TRUE, UNKNOWN]) == UNKNOWN
    assert kleene_and([FALSE, UNKNOWN]) == FALSE
    assert kleene_and([TRUE, TRUE]) == TRUE
    assert kleene_not(UNKNOWN) == UNKNOWN and kleene_not(TRUE) == FALSE


# --- properties -----------------------------------------------------------------------------------
RESULTS = {"guard_check": ["outside", "leaked", "clean"], "design_review": ["passed", "failed"],
           "heldout_comparison": ["held", "regressed"],
           "tuning_comparison": ["reproduced", "not_reproduced", "not_better"]}
record = st.sampled_from(list(RESULTS)).flatmap(lambda k: st.tuples(
    st.just(k), st.sampled_from(RESULTS[k]), st.sampled_from(["run-52", "run-41", "ana"]),
    st.sampled_from([None, None, "c0"])))


@settings(max_examples=100, deadline=None)
@given(st.lists(record, max_size=8))
def test_unknown_keep_claim_never_allows_rejected(records):
    ev = protocol_for("eval.gated_change/1").evaluate(state(records, independent=("run-52", "ana")))
    if any(ev.claims[c] == UNKNOWN for c in KEEP_CLAIMS):
        assert not ev.outcomes()["rejected"]["allowed"]
        assert ev.actions()["change.reject"]["status"] == "blocked"


@settings(max_examples=100, deadline=None)
@given(st.lists(record, max_size=8))
def test_kept_allowed_exactly_when_all_six_keep_claims_true(records):
    ev = protocol_for("eval.gated_change/1").evaluate(state(records, independent=("run-52", "ana")))
    assert ev.outcomes()["kept"]["allowed"] == all(ev.claims[c] == TRUE for c in KEEP_CLAIMS)


@settings(max_examples=100, deadline=None)
@given(st.lists(record, max_size=6), st.lists(record, min_size=1, max_size=4))
def test_evidence_about_another_revision_never_changes_a_claim(records, others):
    proto = protocol_for("eval.gated_change/1")
    before = proto.evaluate(state(records)).claims
    stale = [(k, r, p, "design-1" if k == "design_review" else "c-other") for k, r, p, _rev in others]
    s = state(records)
    s.records += [
        Record(id=f"x{i}", kind=k, result=r, artifact=ARTIFACT.get(k, "candidate"), revision=rev, producer=p,
               observed_at="2099-01-01T00:00:00Z", order=100 + i) for i, (k, r, p, rev) in enumerate(stale)]
    assert proto.evaluate(s).claims == before


# --- els's own files ----------------------------------------------------------------------------
def test_loads_and_evaluates_els_software_change():
    proto = load_protocol(ELS / "protocols/software-change/1.yaml")
    revs = {"implementation": "R2", "release": "v1", "deployment": "d1", "intent": "i1"}

    def rec(kind, subject, rev, result="x", i=0):
        return Record(id=str(i), kind=kind, result=result, artifact=subject, revision=rev, order=i)

    ev = proto.evaluate(State(revs, [rec("test_result", "implementation", "R2", "pass")]))
    assert ev.claims["implementation.verified"] == TRUE
    assert ev.claims["release.proven"] == UNKNOWN
    ev = proto.evaluate(State(revs, [rec("test_result", "implementation", "R2", "pass"),
                                     rec("build_provenance", "release", "v1", "built", 1),
                                     rec("operational_observation", "deployment", "d1", "healthy", 2),
                                     rec("objective_observation", "intent", "i1", "satisfied", 3)],
                              authority={"repository.merge"}))
    assert ev.claims["release.proven"] == TRUE  # any counting record when the match names no result
    assert ev.outcomes()["accepted"]["allowed"]
    assert ev.actions()["repository.merge"]["status"] == "admissible"
    ev = proto.evaluate(State(revs, [rec("test_result", "implementation", "R2", "fail")]))
    assert ev.claims["tests.pass"] == FALSE
    assert ev.actions()["repository.merge"]["status"] == "blocked"


def test_loads_and_evaluates_els_incident_response_obligations():
    proto = load_protocol(ELS / "protocols/incident-response/1.yaml")
    s = State({"service": "s1"}, [Record("1", "operational_observation", "unhealthy", "service", "s1", order=1)])
    ev = proto.evaluate(s)
    assert ev.obligations()["restore_service"]["status"] == "open"
    assert ev.actions()["emergency.leave"]["status"] == "blocked"
    s.records.append(Record("2", "operational_observation", "healthy", "service", "s1", order=2))
    assert proto.evaluate(s).obligations()["restore_service"]["status"] == "open"  # s1's two records disagree
    s.revisions["service"] = "s2"
    s.records.append(Record("3", "operational_observation", "healthy", "service", "s2", order=3))
    assert proto.evaluate(s).obligations()["restore_service"]["status"] == "discharged"
    s.revisions["service"] = "s3"  # the healthy observation is about the old service revision
    assert proto.evaluate(s).obligations()["restore_service"]["status"] == "open"


# --- validation: errors name the path inside the file ---------------------------------------------
@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["claims"]["change.supported"]["true_when"]["all"].append({"claim": "nope"}),
     "claims.change.supported.true_when.all[6].claim: unknown claim 'nope'"),
    (lambda d: d["claims"]["content.clean"]["true_when"]["evidence"].update(kind="vibe_check"),
     "claims.content.clean.true_when.evidence.kind: unknown evidence kind 'vibe_check'"),
    (lambda d: d["claims"]["content.clean"]["true_when"]["evidence"].update(result="spotless"),
     "claims.content.clean.true_when.evidence.result: unknown result 'spotless' of guard_check"),
    (lambda d: d["claims"]["content.clean"]["true_when"]["evidence"].update(about="weights"),
     "claims.content.clean.true_when.evidence.about: unknown artifact 'weights'"),
    (lambda d: d["claims"]["content.clean"]["true_when"]["evidence"].update(independent_on="same_gpu"),
     "claims.content.clean.true_when.evidence.independent_on: unknown independence dimension 'same_gpu'"),
    (lambda d: d["outcomes"]["rejected"]["requires"]["all"][1].update(claim="change.inside"),
     "outcomes.rejected.requires.all[1].claim: unknown claim 'change.inside'"),
    (lambda d: d["actions"]["change.keep"]["precondition"].update({"is": "maybe"}),
     "actions.change.keep.precondition.is: expected true, false or unknown"),
    (lambda d: d["actions"]["design.review"]["may_produce"].append({"evidence": "poll"}),
     "actions.design.review.may_produce[1].evidence: unknown evidence kind 'poll'"),
    (lambda d: d["claims"]["content.clean"].update(true_when={"claim": "change.supported"}),
     "claims rest on each other in a cycle"),
    (lambda d: d.update(format="protocol/2"), "format: expected 'protocol/1'"),
    (lambda d: d["actions"]["change.keep"].update(effect="two words"),
     "actions.change.keep.effect: expected an effect class: one identifier"),
    (lambda d: d["claims"]["content.clean"].update(true_when={"claim": "x", "all": []}),
     "claims.content.clean.true_when: expected exactly one of"),
])
def test_load_errors_name_the_path_inside_the_file(mutate, message):
    data = copy.deepcopy(raw())
    mutate(data)
    with pytest.raises(InputError) as err:
        parse_protocol(data, "1.yaml")
    assert str(err.value).startswith("1.yaml: ")
    assert message in str(err.value)


def test_malformed_yaml_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: protocol/1\nclaims: [\n")
    with pytest.raises(InputError) as err:
        load_protocol(bad)
    assert str(err.value).startswith(f"{bad}: not valid YAML at line")


def test_unknown_protocol_reference():
    with pytest.raises(InputError, match="unknown protocol 'eval.gated_change/9'"):
        protocol_for("eval.gated_change/9")


def test_protocol_validate_cli(tmp_path, cli):
    ok = cli("protocol", "validate", str(EGC), str(ELS / "protocols/software-change/1.yaml"))
    assert ok.exit_code == 0
    assert "eval.gated_change/1: 7 claims, 6 actions, 4 outcomes, 0 obligations" in ok.output
    data = raw()
    data["outcomes"]["kept"]["requires"]["claim"] = "change.supportd"
    broken = tmp_path / "1.yaml"
    broken.write_text(yaml.safe_dump(data))
    bad = cli("protocol", "validate", str(broken))
    assert bad.exit_code == 2
    assert bad.output.strip() == f"gatepost: {broken}: outcomes.kept.requires.claim: unknown claim 'change.supportd'"


@settings(max_examples=60, deadline=None)
@given(st.lists(record, max_size=8))
def test_an_evaluation_asked_everything_in_turn_answers_as_one_asked_each_thing_alone(records):
    """An evaluation keeps each condition's value (by the condition and its context): every claim's tree, why,
    the actions and the outcomes asked of one evaluation, in turn, are what a fresh evaluation says for each."""
    proto = protocol_for("eval.gated_change/1")
    s = state(records, independent=("run-52", "ana"))
    shared = proto.evaluate(s)
    asked = [shared.claim_tree(n) for n in proto.claims] + [shared.claim_why(n) for n in proto.claims]
    asked += [shared.actions(), shared.outcomes()]
    alone = [proto.evaluate(s).claim_tree(n) for n in proto.claims] + [proto.evaluate(s).claim_why(n)
                                                                      for n in proto.claims]
    alone += [proto.evaluate(s).actions(), proto.evaluate(s).outcomes()]
    assert asked == alone


def test_a_claims_tree_works_out_each_conditions_value_once(egc, monkeypatch):
    """A claim's tree and its whys asked the same conditions' values again and again (a third of a case's view)."""
    from gatepost.store.protocol.interpreter import Evaluation
    worked: list[tuple[int, frozenset[str]]] = []
    work = Evaluation._value

    def counted(self, cond, ctx):  # noqa: ANN001, ANN202
        worked.append((id(cond), ctx))
        return work(self, cond, ctx)

    monkeypatch.setattr(Evaluation, "_value", counted)
    ev = egc.evaluate(state(good()))
    for name in egc.claims:
        ev.claim_tree(name)
    assert worked and len(worked) == len(set(worked))
