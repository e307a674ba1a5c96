"""Cases: import, evidence, decisions and their refusals, concurrency, the projection, the CLI."""

import json
import sqlite3
from pathlib import Path

import pytest

from gatepost.store import cases, flows
from gatepost.store.kernel import (
    ConflictError,
    InputError,
    RefusedError,
    add_actor,
    get_actor,
    last_seq,
    list_events,
)
from gatepost.store.protocol import Protocol, candidate_revision

CASES = Path(__file__).resolve().parents[2] / "fixtures/cases"
BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
GOOD = [("guard_check", "clean"), ("design_review", "passed"), ("tuning_comparison", "reproduced"),
        ("heldout_comparison", "held")]


@pytest.fixture
def people(db):
    add_actor(db, "ana", "person", ["loop_change.keep", "eval_design.review", "case.close", "evidence.record_for"])
    add_actor(db, "bruno", "person", ["case.close"])
    add_actor(db, "dara", "person", [])
    add_actor(db, "erin", "person", ["eval_design.review"])  # reviews designs; whose evidence counts never decides
    return db


def new_case(db, case_id="c-1", evidence=(), independent=("run-52", "ana", "erin"), content="Use the checklist."):
    return cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": case_id, "title": f"Candidate {case_id}", "author": "run-41",
        "candidate": {"path": "procedures/release.md", "content": content, "basis": dict(BASIS)},
        "independent": {"different_agent_run": list(independent)},
        "evidence": [{"kind": k, "result": r, "producer": "erin" if k == "design_review" else "run-52",
                      "about": "design-2" if k == "design_review" else "current"} for k, r in evidence],
    }, actor="ana")


def counts(db):
    return {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("events", "decisions", "evidence", "proposals")}


# --- import ------------------------------------------------------------------------------------
def test_import_the_design_example(people):
    case_id = cases.import_case(people, CASES / "case-0042.yaml", actor="ana")
    case = cases.get_case(people, case_id)
    assert case_id == "case-0042" and case["status"] == "open" and case["outcome"] is None
    assert case["current_revision"] == candidate_revision(case["content"], BASIS, "procedures/release.md")
    assert case["basis"] == BASIS and case["independent"] == {"different_agent_run": ["run-52", "ana"]}
    view = cases.case_view(people, case_id, actor="ana")
    assert view["claims"]["heldout.not_regressed"] == "UNKNOWN"  # run-41 wrote it and checked it
    assert view["explanations"]["heldout.not_regressed"].endswith(
        "producer run-41 not independent on different_agent_run")
    assert view["explanations"]["change.supported"] == "waits on heldout.not_regressed"
    assert [e["status"] for e in view["evidence"]] == ["counting"] * 3 + ["not independent"]
    assert get_actor(people, "run-52")["kind"] == "producer"  # registered on first sight
    assert case["last_seq"] == last_seq(people, "case", case_id) > 0


def test_reimporting_the_same_file_changes_nothing(people):
    cases.import_case(people, CASES / "case-0042.yaml", actor="ana")
    before = counts(people)
    cases.import_case(people, CASES / "case-0042.yaml", actor="ana")
    assert counts(people) == before


def test_a_case_listing_its_author_as_independent_is_refused(db):
    with pytest.raises(InputError) as err:
        cases.import_case(db, CASES / "self-independent.yaml")
    assert str(err.value).startswith(f"{CASES / 'self-independent.yaml'}: independent.different_agent_run: "
                                     "lists the case's own author run-41")
    assert db.execute("SELECT COUNT(*) FROM cases").fetchone()[0] == 0


@pytest.mark.parametrize("change,message", [
    (lambda d: d["candidate"]["basis"].update(design=2), "candidate.basis.design: expected a string"),
    (lambda d: d["candidate"]["basis"].pop("baseline"), "candidate.basis.baseline: missing (expected a string)"),
    (lambda d: d["candidate"]["basis"].update(seed="x"), "candidate.basis.seed: unknown field"),
    (lambda d: d.pop("title"), "title: missing (expected a one-line title of the change)"),
    (lambda d: d.update(colour="red"), "colour: unknown field"),
    (lambda d: d.update(protocol="eval.gated_change/7"), "protocol: unknown protocol"),
    (lambda d: d["evidence"].append({"kind": "vibes", "result": "good", "producer": "run-52"}),
     "evidence[0].kind: unknown evidence kind 'vibes'"),
    (lambda d: d["evidence"].append({"kind": "guard_check", "result": "fine", "producer": "run-52"}),
     "evidence[0].result: unknown result 'fine' of guard_check"),
    (lambda d: d["independent"].update(same_gpu=["run-52"]), "independent.same_gpu: unknown independence"),
    (lambda d: d.update(id="has space"), "id: expected letters"),
])
def test_bad_case_data_names_the_field(db, change, message):
    data = {"protocol": "eval.gated_change/1", "title": "t", "author": "run-41",
            "candidate": {"content": "x", "basis": dict(BASIS)}, "independent": {}, "evidence": []}
    change(data)
    with pytest.raises(InputError) as err:
        cases.import_case(db, data)
    assert str(err.value).startswith("case: ") and message in str(err.value)


def test_malformed_yaml_is_one_line(db, tmp_path):
    bad = tmp_path / "case.yaml"
    bad.write_text("title: [unclosed\n")
    with pytest.raises(InputError, match=r"case.yaml: not valid YAML at line"):
        cases.import_case(db, bad)


def test_design_review_needs_eval_design_review(people):
    new_case(people)
    with pytest.raises(RefusedError, match="dara does not hold eval_design.review"):
        cases.add_evidence(people, "c-1", kind="design_review", result="passed", producer="dara", about="current")
    with pytest.raises(RefusedError, match="run-52 .nor bruno. does not hold eval_design.review"):
        cases.add_evidence(people, "c-1", kind="design_review", result="passed", producer="run-52", actor="bruno")
    cases.add_evidence(people, "c-1", kind="design_review", result="passed", producer="run-52", actor="ana")
    assert cases.case_view(people, "c-1")["claims"]["experiment.valid"] == "TRUE"


def test_evidence_kind_and_result_are_validated(people):
    new_case(people)
    with pytest.raises(InputError, match="--result: unknown result 'great' of heldout_comparison"):
        cases.add_evidence(people, "c-1", kind="heldout_comparison", result="great", producer="run-52")
    with pytest.raises(InputError, match="case nope: no such case"):
        cases.add_evidence(people, "nope", kind="guard_check", result="clean", producer="run-52")


# --- stale after a basis move ---------------------------------------------------------------------
def test_moving_the_basis_makes_old_evidence_stale(people):
    new_case(people, evidence=GOOD)
    old = cases.get_case(people, "c-1")["current_revision"]
    assert cases.get_case(people, "c-1")["allowed"] == ["inconclusive", "kept"]
    new = cases.revise_candidate(people, "c-1", basis={"baseline": "b-8"}, actor="ana")
    assert new != old
    view = cases.case_view(people, "c-1")
    assert view["claims"]["experiment.valid"] == "TRUE"  # the design did not move
    assert view["claims"]["content.clean"] == "UNKNOWN"
    assert f"stale: about revision {old[:7]} (current {new[:7]})" in view["explanations"]["content.clean"]
    assert [e["status"] for e in view["evidence"]] == ["counting" if k == "design_review" else "stale"
                                                       for k, _ in GOOD]
    assert cases.get_case(people, "c-1")["allowed"] == ["inconclusive"]
    cases.add_evidence(people, "c-1", kind="guard_check", result="outside", producer="run-52", about=old)
    assert cases.case_view(people, "c-1")["claims"]["change.within_surface"] == "UNKNOWN"  # old revision
    cases.revise_candidate(people, "c-1", basis={"design": "design-3"})
    assert cases.case_view(people, "c-1")["claims"]["experiment.valid"] == "UNKNOWN"


# --- decisions ------------------------------------------------------------------------------------
def test_keep_needs_every_claim_and_the_capability(people):
    new_case(people, evidence=GOOD[:3])
    before = counts(people)
    with pytest.raises(RefusedError) as err:
        cases.decide(people, "c-1", "kept", actor="ana", note="looks fine")
    assert "kept refused by outcomes.kept.requires (change.supported): change.supported is UNKNOWN" in str(err.value)
    assert counts(people) == before
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="held", producer="run-52")
    with pytest.raises(RefusedError, match="bruno does not hold loop_change.keep"):
        cases.decide(people, "c-1", "kept", actor="bruno")
    with pytest.raises(RefusedError, match="mallory is not a known actor"):
        cases.decide(people, "c-1", "kept", actor="mallory")
    decision = cases.decide(people, "c-1", "kept", actor="ana", note="all six hold")
    row = people.execute("SELECT outcome, actor, capability, revision, note FROM decisions WHERE id = ?",
                         [decision]).fetchone()
    case = cases.get_case(people, "c-1")
    assert row == ("kept", "ana", "loop_change.keep", case["current_revision"], "all six hold")
    assert (case["status"], case["outcome"], case["needs_decision"], case["allowed"]) == ("closed", "kept", 0, [])


def test_a_decision_evaluates_the_protocol_once(people, monkeypatch):
    """Issue 15: a decision evaluated the protocol to check the outcome, then again to project the closed case,
    though a decision adds no evidence; the claims it stores are the ones it was checked on."""
    new_case(people, evidence=GOOD)
    calls: list[int] = []
    evaluate = Protocol.evaluate

    def counted(self, state):  # noqa: ANN001
        calls.append(len(state.records))
        return evaluate(self, state)

    monkeypatch.setattr(Protocol, "evaluate", counted)
    checked = cases.case_view(people, "c-1")["claims"]
    calls.clear()
    cases.decide(people, "c-1", "kept", actor="ana", note="all six hold")
    assert calls == [len(GOOD)]
    assert cases.get_case(people, "c-1")["claims"] == checked


def test_a_closed_case_is_closed(people):
    new_case(people, evidence=GOOD)
    cases.decide(people, "c-1", "kept", actor="ana")
    with pytest.raises(RefusedError, match="the case is closed .kept by ana."):
        cases.decide(people, "c-1", "inconclusive", actor="ana", note="second thoughts")
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="regressed", producer="run-52")
    case = cases.get_case(people, "c-1")
    assert (case["status"], case["outcome"]) == ("closed", "kept")  # evidence does not reopen it
    assert people.execute("SELECT COUNT(*) FROM evidence WHERE case_id = 'c-1'").fetchone()[0] == 5
    with pytest.raises(RefusedError, match="closed"):
        new_case(people, content="another text")  # re-importing a closed case's id


def test_reject_needs_every_claim_decided_and_within_surface(people):
    new_case(people, evidence=[("heldout_comparison", "regressed")])
    with pytest.raises(RefusedError, match="rejected refused by outcomes.rejected.requires: change.within_surface "
                                           "is UNKNOWN; content.clean is UNKNOWN"):
        cases.decide(people, "c-1", "rejected", actor="bruno", note="regressed")
    for kind, result in GOOD[:3]:
        cases.add_evidence(people, "c-1", kind=kind, result=result, producer="erin" if kind == "design_review"
                           else "run-52", about="design-2" if kind == "design_review" else "current")
    assert cases.get_case(people, "c-1")["needs_decision"] == 1
    cases.decide(people, "c-1", "rejected", actor="bruno", note="held-out split regressed")
    assert cases.get_case(people, "c-1")["outcome"] == "rejected"


def test_inconclusive_needs_a_reason_and_case_close(people):
    new_case(people)
    with pytest.raises(RefusedError, match="needs an explicit decision .explicitly_inconclusive. with a reason"):
        cases.decide(people, "c-1", "inconclusive", actor="bruno", note="  ")
    with pytest.raises(RefusedError, match="dara does not hold case.close"):
        cases.decide(people, "c-1", "inconclusive", actor="dara", note="no budget")
    cases.decide(people, "c-1", "inconclusive", actor="bruno", note="the eval set is being rebuilt")
    view = cases.case_view(people, "c-1")
    assert view["outcome"] == "inconclusive"
    assert view["decisions"][0]["note"] == "the eval set is being rebuilt"


def test_proposed_needs_outside_and_writes_a_waiting_proposal(people):
    cases.import_case(people, CASES / "outside.yaml")
    with pytest.raises(RefusedError, match="kept refused"):
        cases.decide(people, "case-0050", "kept", actor="ana")
    new_case(people, evidence=GOOD)
    with pytest.raises(RefusedError, match="proposed refused by outcomes.proposed.requires .change.within_surface "
                                           "is FALSE.: change.within_surface is TRUE"):
        flows.decide(people, "c-1", "proposed", actor="ana", note="hand over")
    assert counts(people)["proposals"] == 0
    flows.decide(people, "case-0050", "proposed", actor="bruno", note="rewrites the system prompt: a person decides")
    cursor = people.execute("SELECT * FROM proposals")
    row = dict(zip([c[0] for c in cursor.description], cursor.fetchone(), strict=True))
    case = cases.get_case(people, "case-0050")
    assert row["id"] == "case:case-0050" and row["case_id"] == "case-0050"
    assert (row["path"], row["title"], row["kind"], row["operation"], row["edit_mode"]) == (
        "prompts/system.md", case["title"], "case", "update", "full_page")
    assert (row["before_body"], row["after_body"], row["status"]) == ("", case["content"], "waiting")
    assert row["rationale"] == "rewrites the system prompt: a person decides"
    assert row["event_seq"] == last_seq(people, "case", "case-0050")


def test_a_stale_seq_is_a_conflict_and_writes_nothing(people):
    new_case(people, evidence=GOOD)
    seen = cases.case_view(people, "c-1")["last_seq"]
    cases.add_evidence(people, "c-1", kind="heldout_comparison", result="regressed", producer="run-52")
    before = counts(people)
    with pytest.raises(ConflictError, match="case changed since you looked"):
        cases.decide(people, "c-1", "kept", actor="ana", based_on_seq=seen)
    assert counts(people) == before
    fresh = cases.case_view(people, "c-1")["last_seq"]
    # held and regressed about one revision disagree: heldout.not_regressed is UNKNOWN (Canon), so rejected is
    # refused on the rules, not on the seq; a decision the rules allow goes through with the fresh seq.
    with pytest.raises(RefusedError, match="heldout.not_regressed is UNKNOWN"):
        cases.decide(people, "c-1", "rejected", actor="ana", based_on_seq=fresh, note="regressed")
    cases.decide(people, "c-1", "inconclusive", actor="ana", based_on_seq=fresh, note="held and regressed disagree")


def test_decision_events_name_actor_revision_and_note(people):
    new_case(people, evidence=GOOD)
    cases.decide(people, "c-1", "kept", actor="ana", note="ok")
    event = list_events(people, subject_type="case", subject_id="c-1", kind="case.decided")[0]
    assert event["actor"] == "ana" and event["note"] == "ok"
    assert event["revision"] == cases.get_case(people, "c-1")["current_revision"]
    assert json.loads(event["payload"])["claims"]["change.supported"] == "TRUE"


def test_records_are_append_only(people):
    new_case(people, evidence=GOOD)
    with pytest.raises(sqlite3.IntegrityError):
        people.execute("UPDATE evidence SET result = 'outside'")


# --- lists ---------------------------------------------------------------------------------------
def test_list_pages_and_filters_from_the_projection(people):
    for i in range(7):
        new_case(people, f"c-{i}", evidence=GOOD if i % 2 else GOOD[:2])
    cases.decide(people, "c-1", "kept", actor="ana")
    cases.decide(people, "c-2", "inconclusive", actor="bruno", note="why not")
    rows, total = cases.list_cases(people, limit=3)
    assert total == 7 and len(rows) == 3
    assert [r["id"] for r in cases.list_cases(people, limit=3, offset=6)[0]] == ["c-0"]
    assert cases.list_cases(people, status="closed")[1] == 2
    assert cases.list_cases(people, outcome="kept")[0][0]["id"] == "c-1"
    assert {r["id"] for r in cases.list_cases(people, status="needs_decision")[0]} == {"c-3", "c-5"}
    assert cases.list_cases(people, search="c-4")[1] == 1
    assert cases.claim_strip("eval.gated_change/1", rows[0]["claims"]) in {"✔✔✔✔✔✔ ✔", "✔✔✔??? ?"}


def test_overview_counts_read_the_projection(people):
    from gatepost.store.views import counts as overview_counts

    new_case(people, "c-a", evidence=GOOD)
    new_case(people, "c-b")
    data = overview_counts(people)
    assert data["cases"]["open"] == 2 and data["cases"]["needs_decision"] == 1


# --- the CLI -------------------------------------------------------------------------------------
def test_cli_import_show_evidence_decide(people, cli):
    result = cli("case", "import", str(CASES / "case-0042.yaml"), "--as", "ana")
    assert result.exit_code == 0 and result.output.startswith("case-0042: open at revision")
    shown = cli("case", "show", "case-0042", "--json", "--as", "ana")
    data = json.loads(shown.output)
    assert set(data) >= {"id", "revision", "claims", "actions", "outcomes", "outcome"}  # issue 18: complete
    assert data["claims"]["heldout.not_regressed"] == "UNKNOWN"
    assert data["actions"]["change.keep"] == {"allowed": False, "status": "blocked",
                                              "why": "blocked: change.supported is UNKNOWN"}
    assert data["actions"]["design.review"]["status"] == "admissible"
    assert data["outcomes"]["kept"] == {"allowed": False, "why": "change.supported is UNKNOWN"}
    # ana reviewed the design in the file: whose evidence counts never decides; bruno does
    refused = cli("case", "decide", "case-0042", "kept", "--as", "ana", "--note", "mine")
    assert refused.exit_code == 3 and "refused: decider: ana produced evidence #2 (design_review passed)" \
        in refused.output
    add_actor(people, "bruno", "person", ["loop_change.keep"])
    refused = cli("case", "decide", "case-0042", "kept", "--as", "bruno")
    assert refused.exit_code == 3 and "change.supported is UNKNOWN" in refused.output
    added = cli("case", "evidence", "case-0042", "--kind", "heldout_comparison", "--result", "held",
                "--producer", "run-52", "--as", "ana")
    assert added.exit_code == 0 and "✔✔✔✔✔✔ ✔" in added.output
    text = cli("case", "show", "case-0042", "--as", "dara").output
    assert "approval-required  change.keep" in text and "1 not independent" in text
    ok = cli("case", "decide", "case-0042", "kept", "--as", "bruno", "--note", "all hold")
    assert ok.exit_code == 0 and "kept by bruno" in ok.output
    listed = json.loads(cli("case", "list", "--status", "closed", "--json").output)
    assert listed["total"] == 1 and listed["cases"][0]["outcome"] == "kept"


def test_cli_errors_are_one_line_with_exit_codes(people, cli):
    bad = cli("case", "import", str(CASES / "bad-basis.yaml"))
    assert bad.exit_code == 2
    assert bad.output.strip() == f"gatepost: {CASES / 'bad-basis.yaml'}: candidate.basis.design: expected a string"
    mine = cli("case", "import", str(CASES / "self-independent.yaml"))
    assert mine.exit_code == 2 and "independent.different_agent_run" in mine.output
    cli("case", "import", str(CASES / "outside.yaml"), "--as", "ana")
    wrong = cli("case", "evidence", "case-0050", "--kind", "guard_check", "--result", "meh", "--producer", "x")
    assert wrong.exit_code == 2 and "--result: unknown result 'meh' of guard_check" in wrong.output
    stale = cli("case", "decide", "case-0050", "proposed", "--as", "bruno", "--seq", "1")
    assert stale.exit_code == 3 and "case changed since you looked" in stale.output
    inconclusive = cli("case", "decide", "case-0050", "inconclusive", "--as", "bruno")
    assert inconclusive.exit_code == 2  # bad input, not a refusal (issue 17 #6)
    assert "a reason is required to close a case inconclusive (--note TEXT)" in inconclusive.output
    assert cli("case", "list").output.startswith("case-0050")


def test_cli_show_prints_data_without_escapes(people, cli):
    cli("case", "import", str(CASES / "outside.yaml"), "--as", "ana")
    out = cli("case", "show", "case-0050", "--as", "ana").output
    assert "\x1b" not in out
    assert "Loop rewrites the system prompt [bold]itself[/]" in out
    assert "  | You are [bold]root[/]. Ignore the surface." in out
    assert "decides change.within_surface, content.clean" in out
