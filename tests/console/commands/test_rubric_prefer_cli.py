"""`case decide --answer`, `gatepost pairwise` and `gatepost prefer` as a user runs them: refusals exit 3 in the
one wording, bad input 2, nothing a traceback."""

import json

import pytest

from gatepost.store.protocol import protocol_path
from tests.conftest import run_gatepost
from tests.store.preferences.test_rubrics_and_preferences import run_of
from tests.store.preferences.test_rubrics_and_preferences import store as rubric_store  # noqa: F401


@pytest.fixture
def here(rubric_store, store_path):  # noqa: F811
    return store_path, rubric_store


def gp(path, *args):
    return run_gatepost("--db", str(path), *args)


def test_case_show_lists_the_rubric_and_decide_needs_every_answer(here):
    path, _db = here
    shown = gp(path, "case", "show", "case-2")
    assert "rubric (every decision answers it: --answer KEY=VALUE):" in shown.stdout
    assert "risk             How risky is landing this change (1 none, 5 high)? (1..5)" in shown.stdout
    missing = gp(path, "case", "decide", "case-2", "inconclusive", "--note", "n", "--as", "ana",
                 "--answer", "risk=2")
    assert missing.returncode == 3, missing.stderr
    assert "decide case-2 inconclusive: refused: rubric: eval.gated_change/2 asks every decision its rubric; " \
           "unanswered: read_outputs (yes or no)" in missing.stderr
    bad = gp(path, "case", "decide", "case-2", "inconclusive", "--note", "n", "--as", "ana", "--answer", "risk")
    assert bad.returncode == 2 and "--answer: expected KEY=VALUE, got 'risk'" in bad.stderr
    assert "Traceback" not in bad.stderr + missing.stderr
    done = gp(path, "case", "decide", "case-2", "inconclusive", "--note", "n", "--as", "ana",
              "--answer", "risk=2", "--answer", "read_outputs=no")
    assert done.returncode == 0, done.stderr
    assert "  rubric: read_outputs no · risk 2/5" in gp(path, "case", "show", "case-2").stdout
    doc = json.loads(gp(path, "case", "show", "case-2", "--json").stdout)
    assert doc["decisions"][0]["rubric"] == {"read_outputs": "no", "risk": 2}
    assert [q["key"] for q in doc["rubric"]] == ["read_outputs", "risk"]
    assert gp(path, "verify").returncode == 0


def test_pairwise_shows_both_sides_and_prefer_records(here):
    path, db = here
    run = run_of(db, "case-2")
    shown = gp(path, "pairwise", run, "t1")
    assert shown.returncode == 0, shown.stderr
    head = shown.stdout.splitlines()[1]
    assert head.startswith("candidate ") and " │ baseline " in head
    assert "a preference here counts as preference evidence on case case-2" in shown.stdout
    made = gp(path, "prefer", run, "t1", "--candidate", "--note", "names it", "--as", "chen")
    assert made.returncode == 0, made.stderr
    assert "chen prefers candidate (counts as evidence)" in made.stdout
    again = json.loads(gp(path, "pairwise", run, "t1", "--json").stdout)
    assert [(p["person"], p["choice"], p["counted"]) for p in again["preferences"]] == [("chen", "candidate", True)]
    assert "✔ people.prefer_candidate" in gp(path, "case", "show", "case-2").stdout
    other = run_of(db, None)
    tie = gp(path, "prefer", other, "t1", "--tie", "--as", "ana", "--json")
    assert tie.returncode == 0 and json.loads(tie.stdout)["counted"] is False
    assert gp(path, "verify").returncode == 0


def test_prefer_refusals_and_bad_input(here):
    path, db = here
    run = run_of(db, "case-2")
    refused = gp(path, "prefer", run, "t1", "--baseline", "--as", "dara")
    assert refused.returncode == 3
    assert f"record a preference on {run} t1: refused: capability: dara holds none of" in refused.stderr
    no_choice = gp(path, "prefer", run, "t1", "--as", "chen")
    assert no_choice.returncode == 2 and "--candidate, --baseline or --tie" in no_choice.stderr
    no_task = gp(path, "prefer", run, "nope", "--tie", "--as", "chen")
    assert no_task.returncode == 2 and "has no task nope" in no_task.stderr
    assert "Traceback" not in refused.stderr + no_choice.stderr + no_task.stderr


def test_protocol_validate_names_the_rubric(tmp_path):
    checked = run_gatepost("protocol", "validate", str(protocol_path("eval.gated_change/2")))
    assert checked.returncode == 0, checked.stderr
    assert "eval.gated_change/2: 8 claims, 6 actions, 4 outcomes, 0 obligations, a rubric of 2 questions" in \
        checked.stdout
    broken = tmp_path / "2.yaml"
    broken.write_text(protocol_path("eval.gated_change/2").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "case-decision.yaml").write_text("- {key: risk, question: Risky?, scale: 1}\n",
                                                             encoding="utf-8")
    refused = run_gatepost("protocol", "validate", str(broken))
    assert refused.returncode == 2
    assert "case-decision.yaml: [0].scale: expected a whole number 2..10 (answers 1..scale), got 1" in refused.stderr
