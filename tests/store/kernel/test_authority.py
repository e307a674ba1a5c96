"""Authority (issue 12, items 1-9): each attack of the issue, run as a loop would, is refused in one line.

The CLI tests run the real `gatepost` entry point in a subprocess on a store in tmp_path; the property
test drives the store functions with random actors, grants, evidence and decisions.
"""

import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store import cases, flows
from gatepost.store.kernel import (
    GatepostError,
    RefusedError,
    add_actor,
    grant,
    open_store,
    os_user,
)
from tests.conftest import run_gatepost

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
ME = os_user()


def gp(store: Path, *args: str, env: dict | None = None):
    return run_gatepost("--db", str(store), *args, env={"GATEPOST_REVIEWER": "", **(env or {})})


def refused(proc, code: int, *words: str) -> None:
    """One line on stderr, the exit code, the words; never a traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in proc.stderr, proc.stderr


def case_file(folder: Path, case_id: str = "case-0042", *, author: str = "run-41",
              independent=("run-52", "ana"), evidence=(), content: str = "Use the checklist.") -> Path:
    path = folder / f"{case_id}-{len(list(folder.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump({
        "protocol": "eval.gated_change/1", "id": case_id, "title": "Release checklist", "author": author,
        "candidate": {"path": "procedures/release.md", "content": content, "basis": dict(BASIS)},
        "independent": {"different_agent_run": list(independent)},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": "design-2" if k == "design_review"
                      else "current"} for k, r, p in evidence]}, allow_unicode=True))
    return path


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store whose administrator is this OS user; ana reviews, run-41 and run-52 are loops."""
    path = tmp_path / "store.db"
    assert gp(path, "init").returncode == 0
    for args in (["ana", "--capability", "loop_change.keep", "--capability", "case.close",
                  "--capability", "eval_design.review", "--capability", "proposal.review"],
                 ["run-41", "--kind", "producer", "--capability", "evidence.record"],
                 ["run-52", "--kind", "producer", "--capability", "evidence.record"]):
        done = gp(path, "actors", "add", *args, "--as", ME)
        assert done.returncode == 0, done.stderr
    return path


# --- 1. who may grant ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_init_names_the_administrator_and_only_it_grants(store: Path):
    listed = {a["name"]: a["capabilities"] for a in json.loads(gp(store, "actors", "list", "--json").stdout)}
    assert "store.admin" in listed[ME]
    refused(gp(store, "actors", "add", "run-41", "--kind", "producer", "--capability", "evidence.record_for",
               "--as", "run-41"), 3, "refused: capability: run-41 does not hold store.admin")
    refused(gp(store, "actors", "add", "mallory", "--capability", "loop_change.keep", "--as", "mallory"), 3,
            "mallory is not a known actor")
    refused(gp(store, "actors", "grant", "ana", "store.admin", "--as", "ana"), 3, "ana does not hold store.admin")
    assert gp(store, "actors", "grant", "ana", "case.close", "regression.triage", "--as", ME,
              "--note", "triage rota").returncode == 0
    db = open_store(store)
    note = db.execute("SELECT note, actor FROM events WHERE kind = 'capability.granted' AND "
                      "payload LIKE '%regression.triage%'").fetchone()
    assert note == ("triage rota", ME)
    assert gp(store, "actors", "revoke", "ana", "regression.triage", "--as", ME).returncode == 0
    assert "regression.triage" not in json.loads(gp(store, "actors", "list", "--json").stdout)[0]["capabilities"]
    db.close()


@pytest.mark.slow
def test_a_producer_never_holds_admin_or_outside_surface(store: Path):
    for cap in ("store.admin", "loop_change.apply_outside_surface"):
        refused(gp(store, "actors", "grant", "run-41", cap, "--as", ME), 3, "never granted to a loop")


def test_a_store_without_admin_lets_anyone_start_it(tmp_path: Path):
    db = open_store(tmp_path / "s.db")
    add_actor(db, "ana", "person", ["case.close"], by="whoever")  # nobody administers it yet
    add_actor(db, "boss", "person", ["store.admin"], by="whoever")
    with pytest.raises(RefusedError, match="refused: capability: ana does not hold store.admin"):
        add_actor(db, "bruno", "person", ["case.close"], by="ana")
    db.close()


# --- 2. no self-dealing, printable names --------------------------------------------------------
@pytest.mark.slow
def test_the_author_never_decides_nor_records_evidence_on_its_own_case(store: Path, tmp_path: Path):
    assert gp(store, "case", "import", str(case_file(tmp_path)), "--as", "run-41").returncode == 0
    refused(gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "clean",
               "--producer", "run-52", "--as", "run-41"), 3, "refused: self-dealing: run-41")
    # a producer never holds a deciding capability; a person who wrote a change never decides it either
    assert gp(store, "case", "import", str(case_file(tmp_path, "case-0043", author="ana", independent=("run-52",))),
              "--as", "ana").returncode == 0
    refused(gp(store, "case", "decide", "case-0043", "kept", "--as", "ana", "--note", "mine"), 3,
            "decide case-0043 kept: refused: self-dealing: ana is the case's author")
    refused(gp(store, "case", "decide", "case-0043", "kept", "--as", "ANA", "--note", "mine"), 3,
            "self-dealing")


@pytest.mark.slow
def test_invisible_characters_in_a_name_are_bad_input(store: Path, tmp_path: Path):
    refused(gp(store, "actors", "add", "reviewer\u200b", "--as", ME), 2, "U+200B")
    refused(gp(store, "case", "import", str(case_file(tmp_path, independent=("run-41\u200b",))), "--as", "ana"),
            2, "U+200B")
    assert gp(store, "case", "import", str(case_file(tmp_path)), "--as", "run-41").returncode == 0
    refused(gp(store, "case", "decide", "case-0042", "kept", "--as", "ana\u202e"), 2, "U+202E")


# --- 3. evidence only as oneself ----------------------------------------------------------------
@pytest.mark.slow
def test_evidence_is_recorded_as_oneself_or_with_record_for(store: Path, tmp_path: Path):
    assert gp(store, "case", "import", str(case_file(tmp_path)), "--as", "run-41").returncode == 0
    refused(gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "clean",
               "--producer", "run-52", "--as", "ana"), 3, "ana does not hold evidence.record_for")
    refused(gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "clean",
               "--as", "ana"), 3, "ana does not hold evidence.record")
    ok = gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "clean", "--as", "run-52")
    assert ok.returncode == 0, ok.stderr
    assert gp(store, "actors", "grant", "ana", "evidence.record_for", "--as", ME).returncode == 0
    pasted = gp(store, "case", "evidence", "case-0042", "--kind", "tuning_comparison", "--result", "reproduced",
                "--producer", "run-52", "--as", "ana")
    assert pasted.returncode == 0, pasted.stderr
    db = open_store(store)
    rows = db.execute("SELECT producer, recorded_by FROM evidence ORDER BY id").fetchall()
    db.close()
    assert rows == [("run-52", "run-52"), ("run-52", "ana")]  # the record names both


# --- 4. who you are -----------------------------------------------------------------------------
@pytest.mark.slow
def test_a_bound_name_needs_its_os_user(store: Path, tmp_path: Path):
    assert gp(store, "case", "import", str(case_file(tmp_path)), "--as", "run-41").returncode == 0
    assert gp(store, "actors", "bind", "ana", "--os-user", "ana-not-" + ME, "--as", ME).returncode == 0
    refused(gp(store, "case", "decide", "case-0042", "inconclusive", "--as", "ana", "--note", "no budget"), 3,
            "refused: identity: ana is bound to OS user ana-not-" + ME)
    refused(gp(store, "case", "decide", "case-0042", "inconclusive", "--note", "no budget",
               env={"GATEPOST_REVIEWER": "ana"}), 3, "refused: identity")
    assert gp(store, "actors", "bind", "ana", "--os-user", ME, "--as", ME).returncode == 0
    assert gp(store, "case", "decide", "case-0042", "inconclusive", "--as", "ana", "--note", "no budget"
              ).returncode == 0


# --- 5. store time ------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_future_at_is_bad_input_and_newest_is_the_store_sequence(store: Path, tmp_path: Path):
    assert gp(store, "case", "import", str(case_file(tmp_path)), "--as", "run-41").returncode == 0
    refused(gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "clean",
               "--at", "2099-01-01T00:00:00Z", "--as", "run-52"), 2, "--at", "future")
    out = tmp_path / "out.md"
    out.write_text("# Report\n" + "word " * 40)
    refused(gp(store, "skills", "record", "s", "--output", str(out), "--at", "2099-01-01T00:00:00Z",
               "--as", "run-52"), 2, "--at")
    db = open_store(store)
    from gatepost.store.skills import latest_run, record_run

    record_run(db, "s", "old", actor="run-52", at="2026-01-01T00:00:00Z", run_id="late")
    record_run(db, "s", "older", actor="run-52", at="2025-01-01T00:00:00Z", run_id="later-recorded")
    assert latest_run(db, "s")["id"] == "later-recorded"  # the store's order, not the caller's date
    db.close()


# --- 6. a case is what it was imported as -------------------------------------------------------
@pytest.mark.slow
def test_reimport_is_a_no_op_when_identical_and_refused_otherwise(store: Path, tmp_path: Path):
    first = case_file(tmp_path, independent=("run-52", "ana"))
    assert gp(store, "case", "import", str(first), "--as", "run-41").returncode == 0
    assert gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "outside",
              "--as", "run-52").returncode == 0
    db = open_store(store)
    before = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    db.close()
    assert gp(store, "case", "import", str(first), "--as", "run-41").returncode == 0
    db = open_store(store)
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == before
    db.close()
    shorter = case_file(tmp_path, independent=("ana",))
    refused(gp(store, "case", "import", str(shorter), "--as", "run-41"), 2, "independent list", "case revise")
    refused(gp(store, "case", "revise", str(shorter), "--as", "run-41"), 3, "does not hold store.admin")
    show = json.loads(gp(store, "case", "show", "case-0042", "--json", "--as", "ana").stdout)
    assert show["claims"]["change.within_surface"] == "FALSE"
    moved = gp(store, "case", "revise", str(case_file(tmp_path, content="Use the new checklist.")),
               "--as", "run-41")
    assert moved.returncode == 0, moved.stderr
    assert gp(store, "case", "revise", str(shorter), "--as", ME, "--note", "ana left the team").returncode == 0
    db = open_store(store)
    kinds = [r[0] for r in db.execute("SELECT kind FROM events WHERE subject_id = 'case-0042' ORDER BY seq")]
    db.close()
    assert kinds[-2:] == ["case.independence_changed", "case.revised"]


# --- 7. state comes from runs -------------------------------------------------------------------
@pytest.mark.slow
def test_state_import_never_overrides_runs(store: Path, tmp_path: Path):
    manifest = tmp_path / "evals.yaml"
    manifest.write_text("s:\n  min_words: 100\n")
    assert gp(store, "actors", "grant", "ana", "manifest.review", "--as", ME).returncode == 0
    assert gp(store, "manifest", "import", str(manifest), "--as", "ana").returncode == 0
    out = tmp_path / "out.md"
    out.write_text("too short")
    assert gp(store, "skills", "record", "s", "--output", str(out), "--as", "run-52").returncode == 0
    assert gp(store, "skills", "eval", "--fail-on", "NEW_FAIL").returncode == 1
    state = tmp_path / "evals-state.json"
    state.write_text(json.dumps({"version": 1, "skills": {"s": {
        "state": "PASS", "severity": None, "fail_streak": 0, "pass_streak": 3, "broken_pass_streak": None,
        "last_run": "2026-11-01T00:00:00Z", "last_run_id": "x", "failing": []}}}))
    refused(gp(store, "state", "import", str(state), "--as", "run-52"), 3, "state comes from runs")
    assert gp(store, "skills", "eval", "--fail-on", "NEW_FAIL").returncode == 1


# --- 8. mock never counts -----------------------------------------------------------------------
def test_mock_evidence_is_shown_and_never_counts(tmp_path: Path):
    db = open_store(tmp_path / "s.db")
    cases.import_case(db, {"id": "c-1", "title": "t", "author": "run-41",
                           "candidate": {"path": "p.md", "content": "x", "basis": dict(BASIS)},
                           "independent": {"different_agent_run": ["run-52"]}}, actor="run-41")
    cases.add_evidence(db, "c-1", kind="guard_check", result="clean", producer="run-52", details={"mock": True})
    view = cases.case_view(db, "c-1")
    assert view["claims"]["content.clean"] == "UNKNOWN"
    assert [(e["status"], e["why"].split(":")[0]) for e in view["evidence"]] == [("mock", "mock")]
    db.close()


# --- 9. outside the surface -----------------------------------------------------------------------
@pytest.mark.slow
def test_accepting_a_change_outside_the_surface_needs_its_capability(store: Path, tmp_path: Path):
    assert gp(store, "case", "import", str(case_file(tmp_path)), "--as", "run-41").returncode == 0
    assert gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "outside",
              "--as", "run-52").returncode == 0
    assert gp(store, "case", "decide", "case-0042", "proposed", "--as", "ana", "--note", "leaves it").returncode == 0
    refused(gp(store, "proposal", "mark", "case:case-0042", "accepted", "--as", "ana", "--note", "ok"), 3,
            "ana does not hold loop_change.apply_outside_surface")
    assert gp(store, "actors", "grant", "ana", "loop_change.apply_outside_surface", "--as", ME).returncode == 0
    assert gp(store, "proposal", "mark", "case:case-0042", "accepted", "--as", "ana", "--note", "ok"
              ).returncode == 0


# --- one wording whatever the subject -------------------------------------------------------------
def test_the_same_situation_reads_the_same_for_every_subject(tmp_path: Path):
    db = open_store(tmp_path / "s.db")
    add_actor(db, "dara", "person", [])
    cases.import_case(db, {"id": "c-1", "title": "t", "author": "run-41",
                           "candidate": {"path": "p.md", "content": "x", "basis": dict(BASIS)}}, actor="run-41")
    from gatepost.store.proposals import mark_proposal

    with pytest.raises(RefusedError) as one:
        cases.decide(db, "c-1", "inconclusive", actor="dara", note="n")
    db.execute("INSERT INTO proposals (id, path, operation, edit_mode, after_body, before_body, status, "
               "created_at, updated_at) VALUES ('p-1', 'a.md', 'create', 'full_page', 'x', '', 'waiting', 'x', 'x')")
    with pytest.raises(RefusedError) as two:
        mark_proposal(db, "p-1", "declined", actor="dara", note="n")
    assert str(one.value) == "decide c-1 inconclusive: refused: capability: dara does not hold case.close"
    assert str(two.value) == "mark p-1 declined: refused: capability: dara does not hold proposal.review"
    db.close()


# --- the property: no sequence of acts lets an author keep its own change -------------------------
NAMES = ["run-41", "RUN-41", "run-41\u200b", "ana", "run-52", "bruno"]
CAPS = ["loop_change.keep", "case.close", "evidence.record", "evidence.record_for", "eval_design.review",
        "store.admin"]
ACT = st.one_of(
    st.tuples(st.just("grant"), st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(CAPS)),
    st.tuples(st.just("evidence"), st.sampled_from(NAMES), st.sampled_from(NAMES),
              st.sampled_from(["guard_check:clean", "tuning_comparison:reproduced", "heldout_comparison:held",
                               "design_review:passed"])),
    st.tuples(st.just("decide"), st.sampled_from(NAMES), st.just(""), st.sampled_from(["kept", "rejected"])),
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(acts=st.lists(ACT, min_size=1, max_size=25))
def test_no_sequence_of_acts_lets_an_author_or_an_alias_or_a_non_holder_decide(tmp_path_factory, acts):
    db = open_store(tmp_path_factory.mktemp("prop") / "s.db")
    add_actor(db, "boss", "person", ["store.admin"])
    add_actor(db, "run-41", "producer", ["evidence.record"], by="boss")
    cases.import_case(db, {"id": "c-1", "title": "t", "author": "run-41",
                           "candidate": {"path": "p.md", "content": "x", "basis": dict(BASIS)},
                           "independent": {"different_agent_run": ["run-52", "ana", "bruno"]}}, actor="run-41")
    for kind, who, other, what in acts:
        try:
            if kind == "grant":
                known = {r[0] for r in db.execute("SELECT name FROM actors")}
                if other not in known and "\u200b" not in other:
                    add_actor(db, other, "person" if not other.lower().startswith("run") else "producer",
                              by=who)
                grant(db, other, what, by=who)
            elif kind == "evidence":
                ev_kind, result = what.split(":")
                cases.add_evidence(db, "c-1", kind=ev_kind, result=result, producer=other, actor=who,
                                   about="design-2" if ev_kind == "design_review" else "current")
            else:
                flows.decide(db, "c-1", what, actor=who, note="n")
        except (GatepostError, sqlite3.IntegrityError):
            continue
    for actor, capability, outcome in db.execute("SELECT actor, capability, outcome FROM decisions").fetchall():
        assert actor.casefold().replace("\u200b", "") != "run-41", actor
        held = {r[0] for r in db.execute("SELECT capability FROM capabilities WHERE actor = ?", [actor])}
        granted_ever = {json.loads(r[0])["capability"] for r in db.execute(
            "SELECT payload FROM events WHERE kind = 'capability.granted' AND subject_id = ?", [actor])}
        assert capability in held | granted_ever
        assert (outcome == "kept") == (capability == "loop_change.keep")
    stored = [r[0] for r in db.execute("SELECT recorded_by FROM evidence")]
    assert not [r for r in stored if r and r.casefold() == "run-41"]
    db.close()


@pytest.mark.slow
def test_the_demo_builds_with_its_authority_granted(tmp_path: Path):
    built = run_gatepost("--db", str(tmp_path / "demo.db"), "demo", "--no-console", "--as", "pat",
                         env={"GATEPOST_REVIEWER": ""})
    assert built.returncode == 0, built.stderr
    db = open_store(tmp_path / "demo.db")
    admins = [r[0] for r in db.execute("SELECT actor FROM capabilities WHERE capability = 'store.admin'")]
    assert admins == ["pat"]
    assert not db.execute("SELECT 1 FROM decisions d JOIN cases c ON c.id = d.case_id "
                          "WHERE lower(d.actor) = lower(c.author)").fetchone()
    db.close()
