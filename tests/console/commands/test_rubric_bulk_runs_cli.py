"""As a user runs them: `gatepost decide … --ids … --answer` answers every item's rubric (each item its own act),
`gatepost rubric set/show/clear` gives a queue its own questions, the queue's decisions take `--answer`, and
`gatepost pairwise/prefer --against RUN2` compares a task across two runs of one suite. Refusals exit 3 in the one
wording, bad input 2, nothing a traceback."""

import json

import pytest

from gatepost.store.kernel import add_actor
from gatepost.store.skills import create_draft, evaluate, import_manifest, record_run
from tests.conftest import run_gatepost
from tests.store.preferences.test_rubrics_and_preferences import run_of
from tests.store.preferences.test_rubrics_and_preferences import store as rubric_store  # noqa: F401
from tests.store.rubrics.test_queue_rubrics import MANIFEST, proposal


@pytest.fixture
def here(rubric_store, store_path):  # noqa: F811
    add_actor(rubric_store, "root", "person", ["store.admin"])
    add_actor(rubric_store, "pia", "person", ["proposal.review"])
    return store_path, rubric_store


def gp(path, *args):
    return run_gatepost("--db", str(path), *args)


def test_a_bulk_decision_answers_each_items_rubric(here):
    path, db = here
    unanswered = gp(path, "decide", "case", "inconclusive", "--ids", "case-2,case-1", "--note", "rebuilding",
                    "--as", "ana")
    assert unanswered.returncode == 3, unanswered.stderr
    assert "refused: rubric: eval.gated_change/2 asks every decision its rubric" in unanswered.stderr
    done = gp(path, "decide", "case", "inconclusive", "--ids", "case-2", "--note", "rebuilding", "--as", "ana",
              "--answer", "read_outputs=yes", "--answer", "risk=1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["done"] == 1
    shown = json.loads(gp(path, "case", "show", "case-2", "--json").stdout)
    assert shown["decisions"][0]["rubric"] == {"read_outputs": "yes", "risk": 1}
    bad = gp(path, "decide", "case", "inconclusive", "--ids", "case-2", "--note", "n", "--as", "ana",
             "--answer", "risk")
    assert bad.returncode == 2 and "--answer: expected KEY=VALUE, got 'risk'" in bad.stderr
    assert "Traceback" not in unanswered.stderr + bad.stderr


def test_a_queue_rubric_set_shown_answered_and_cleared(here, tmp_path):
    path, db = here
    pids = [proposal(db, n) for n in range(2)]
    questions = tmp_path / "review.yaml"
    questions.write_text("- {key: read_diff, question: Did you read the whole diff?}\n"
                         "- {key: confidence, question: How sure are you?, scale: 3}\n", encoding="utf-8")
    refused = gp(path, "rubric", "set", "proposal", str(questions), "--as", "pia")
    assert refused.returncode == 3 and "refused: capability: pia does not hold store.admin" in refused.stderr
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("- {key: read_diff, question: Read it?, scale: 1}\n", encoding="utf-8")
    bad = gp(path, "rubric", "set", "proposal", str(wrong), "--as", "root")
    assert bad.returncode == 2 and f"{wrong}: [0].scale: expected a whole number 2..10" in bad.stderr
    made = gp(path, "rubric", "set", "proposal", str(questions), "--as", "root")
    assert made.returncode == 0, made.stderr
    assert "confidence: How sure are you? (1..3)" in gp(path, "rubric", "show", "proposal").stdout
    assert json.loads(gp(path, "rubric", "show", "--json").stdout)["draft"] is None
    missing = gp(path, "proposal", "mark", pids[0], "declined", "--note", "no", "--as", "pia")
    assert missing.returncode == 3
    assert (f"mark {pids[0]} declined: refused: rubric: proposals ask every decision their rubric; unanswered: "
            "read_diff (yes or no), confidence (1..3)") in missing.stderr
    ok = gp(path, "proposal", "mark", pids[0], "declined", "--note", "no", "--as", "pia",
            "--answer", "read_diff=yes", "--answer", "confidence=3")
    assert ok.returncode == 0, ok.stderr
    bulk = gp(path, "decide", "proposal", "declined", "--ids", pids[1], "--note", "no", "--as", "pia",
              "--answer", "read_diff=no", "--answer", "confidence=1")
    assert bulk.returncode == 0, bulk.stderr
    assert gp(path, "rubric", "clear", "proposal", "--as", "root").returncode == 0
    assert "proposal (proposals): no rubric" in gp(path, "rubric", "show").stdout
    assert gp(path, "verify").returncode == 0
    assert "Traceback" not in refused.stderr + bad.stderr + missing.stderr


def test_pairwise_and_prefer_across_two_runs(here):
    path, db = here
    older, newer = run_of(db, "case-1"), run_of(db, None)
    shown = gp(path, "pairwise", newer, "t1", "--against", older)
    assert shown.returncode == 0, shown.stderr
    assert f"run {newer} (candidate side) against run {older} (baseline side)" in shown.stdout
    head = shown.stdout.splitlines()[1]
    assert head.startswith(f"run {newer} ") and f" │ run {older} " in head
    assert "across two runs it is no case's evidence" in shown.stdout
    made = gp(path, "prefer", newer, "t1", "--against", older, "--candidate", "--note", "names it", "--as", "chen")
    assert made.returncode == 0, made.stderr
    assert f"against run {older}" in made.stdout and f"chen prefers run {newer}'s output" in made.stdout
    doc = json.loads(gp(path, "pairwise", newer, "t1", "--against", older, "--json").stdout)
    assert [(p["choice"], p["against_run_id"]) for p in doc["preferences"]] == [("candidate", older)]
    missing = gp(path, "pairwise", newer, "t1", "--against", "ev-none")
    assert missing.returncode == 2 and "--against: no evaluation run ev-none" in missing.stderr
    assert gp(path, "verify").returncode == 0


def test_manifest_show_and_skills_show_list_the_answers_their_decisions_gave(here, tmp_path):
    path, db = here
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    add_actor(db, "run-41", "producer", ["evidence.record"])
    import_manifest(db, "evals.yaml", actor="bruno", text=MANIFEST)
    record_run(db, "digest", "nothing", actor="run-41")
    evaluate(db, actor="run-41")
    draft = create_draft(db, "digest", {"min_words": 1}, author="run-41", origin="bootstrap")["id"]
    questions = tmp_path / "triage.yaml"
    questions.write_text("- {key: reproduced, question: Did you run it again?}\n"
                         "- {key: confidence, question: How sure are you?, scale: 3}\n", encoding="utf-8")
    for queue in ("draft", "skill"):
        assert gp(path, "rubric", "set", queue, str(questions), "--as", "root").returncode == 0
    assert gp(path, "manifest", "approve", draft, "--note", "ok", "--as", "bruno", "--answer", "reproduced=yes",
              "--answer", "confidence=3").returncode == 0
    assert gp(path, "skills", "acknowledge", "digest", "--note", "seen", "--as", "bruno",
              "--answer", "reproduced=no", "--answer", "confidence=1").returncode == 0
    shown = gp(path, "manifest", "show", draft)
    assert shown.returncode == 0, shown.stderr
    assert "rubric (approve by bruno at " in shown.stdout and "): reproduced yes · confidence 3/3" in shown.stdout
    as_json = json.loads(gp(path, "manifest", "show", draft, "--json").stdout)
    assert [(a["decision"], a["person"], a["answers"]) for a in as_json["rubric_answers"]] == [
        ("approve", "bruno", {"reproduced": "yes", "confidence": 3})]
    triaged = gp(path, "skills", "show", "--skill", "digest").stdout
    assert "  rubric (acknowledge by bruno at " in triaged and "reproduced no · confidence 1/3" in triaged
    assert "rubric (" not in gp(path, "skills", "show").stdout  # the whole list stays one line a skill
