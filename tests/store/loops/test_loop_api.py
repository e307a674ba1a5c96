"""A loop's working day through the CLI only: the loop, an evaluator, CI and a reviewer as separate processes
over one store (issue 18 items 2, 3 and 7)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_gatepost

PATH = "skills/release-notes/SKILL.md"
BASE_SKILL = "# Release notes\n- Write release notes in plain language.\n"
BETTER_SKILL = BASE_SKILL + "- Cite the pull request of every change.\n"
OTHER_SKILL = BASE_SKILL + "- Keep them short.\n"

EXECUTOR = '''import json, sys
req = json.loads(sys.stdin.read())
print(req["prompt"])
if "cite" in req["skill"].lower():
    print("every change with its pull request cited")
'''


def _suite(folder: Path) -> Path:
    tasks = [
        {"id": "t-cite", "prompt": "List the changes of release 2.4",
         "judge": {"type": "contains", "expected": ["pull request cited"]}},
        {"id": "t-cite-2", "prompt": "List the changes of release 2.5",
         "judge": {"type": "contains", "expected": ["pull request cited"]}},
        {"id": "h-plain", "prompt": "Write release notes in plain words", "split": "heldout",
         "judge": {"type": "contains", "expected": ["plain words"]}},
    ]
    path = folder / "suite.yaml"
    # 2 tuning tasks and 1 held-out decide nothing at alpha 0.05: this loop's suite chooses the strict rule
    path.write_text(yaml.safe_dump({"skill_id": "release-notes", "version": "1.0", "decision_rule": "strict",
                                    "tasks": tasks}), "utf-8")
    return path


@pytest.fixture
def day(tmp_path: Path) -> dict:
    """A store with an admin, a reviewer, a loop run and an evaluator run, the loop registered."""
    db = str(tmp_path / "store.db")
    executor = tmp_path / "executor.py"
    executor.write_text(EXECUTOR, "utf-8")
    suite = _suite(tmp_path)
    (tmp_path / "base.md").write_text(BASE_SKILL, "utf-8")
    (tmp_path / "better.md").write_text(BETTER_SKILL, "utf-8")
    (tmp_path / "other.md").write_text(OTHER_SKILL, "utf-8")

    def gp(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return run_gatepost("--db", db, *args, cwd=tmp_path, timeout=timeout)

    for args in (["init", "--admin", "admin"],
                 # the admin's override below pastes a check for another producer: evidence.record_for
                 ["actors", "grant", "admin", "evidence.record_for", "--as", "admin"],
                 ["actors", "add", "ana", "--capability", "loop_change.keep", "--capability", "case.close",
                  "--capability", "eval_design.review", "--capability", "proposal.review", "--as", "admin"],
                 # erin reviews the design: whose evidence counts on a case never decides it
                 ["actors", "add", "erin", "--capability", "eval_design.review", "--as", "admin"],
                 ["actors", "add", "run-41", "--kind", "producer", "--capability", "evidence.record", "--as", "admin"],
                 ["actors", "add", "run-52", "--kind", "producer", "--capability", "evidence.record", "--as", "admin"],
                 ["current", PATH, "--set", "base.md", "--ref", "v0", "--as", "admin"],
                 ["loop", "add", "writer", "--surface", "skills/*/SKILL.md", "--suite", str(suite),
                  "--executor", f"{sys.executable} {executor}", "--evaluator", "run-52", "--reviewer", "ana", "--reviewer", "erin",
                  "--design", "design-rn-1", "--as", "admin"]):
        done = gp(*args)
        assert done.returncode == 0, (args, done.stderr)
    return {"gp": gp, "db": db, "tmp": tmp_path, "suite": suite}


def _json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _review_and_keep(gp, case_id: str) -> subprocess.CompletedProcess:
    assert gp("case", "evidence", case_id, "--kind", "design_review", "--result", "passed", "--producer", "erin",
              "--about", "design-rn-1", "--as", "erin").returncode == 0
    shown = _json(gp("case", "show", case_id, "--json", "--as", "ana"))
    return gp("case", "decide", case_id, "kept", "--seq", str(shown["last_seq"]), "--note", "good", "--as", "ana")


@pytest.mark.slow
def test_a_loops_day_loop_evaluator_reviewer_and_ci_as_separate_processes(day):
    gp, tmp = day["gp"], day["tmp"]
    # the loop makes a case from a file: the revision and basis computed by gatepost
    made = _json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", "better.md", "--json",
                    "--as", "run-41"))
    assert made["schema"] == "gatepost.case-new/1" and made["within_surface"] is True
    current = _json(gp("current", PATH, "--json"))
    assert made["basis"]["baseline"] == current["content_hash"]
    case_id = made["case_id"]
    # a second loop iteration, made on the same base, before the first lands
    rival = _json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", "other.md", "--json",
                     "--as", "run-41"))["case_id"]
    # the loop waits for the decision in its own process
    waiting = subprocess.Popen([sys.executable, "-m", "gatepost", "--db", day["db"], "case", "wait", case_id,
                                "--timeout", "120", "--json"], cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        # the evaluator: settings from the registry, no --suite, --surface or --executor
        evaluated = _json(gp("case", "evaluate", case_id, "--producer", "run-52", "--json", "--as", "run-52"))
        assert {e["kind"]: e["result"] for e in evaluated["evidence"]} == {
            "guard_check": "clean", "tuning_comparison": "reproduced", "heldout_comparison": "held"}
        assert evaluated["loop"] == "writer" and evaluated["overridden"] == []
        # the reviewer decides on what they saw
        decided = _review_and_keep(gp, case_id)
        assert decided.returncode == 0, decided.stderr
        out, err = waiting.communicate(timeout=60)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert waiting.returncode == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "gatepost.case/1" and doc["status"] == "closed" and doc["outcome"] == "kept"
    assert doc["decisions"][0]["actor"] == "ana" and doc["candidate"]["content"] == BETTER_SKILL
    assert {e["producer"] for e in doc["evidence"]} == {"run-52", "erin"}
    assert any(e["runs"] for e in doc["evidence"] if e["kind"] == "tuning_comparison")
    # the loop applies it and says where: it is now current
    assert gp("case", "applied", case_id, "--ref", "abc123", "--as", "run-41").returncode == 0
    now = _json(gp("current", PATH, "--json"))
    assert now["source"] == {**now["source"], "subject_type": "case", "subject_id": case_id, "ref": "abc123"}
    assert now["content"] == BETTER_SKILL
    # the rival made on the old base is stale: shown, and keep refused until rebased
    stale = _json(gp("case", "show", rival, "--json"))
    assert stale["base"]["stale"] is True and "stale" in stale["base"]["why"]
    refused = gp("case", "decide", rival, "kept", "--note", "x", "--as", "ana")
    assert refused.returncode == 3 and f"decide {rival} kept: refused: stale:" in refused.stderr
    evaluate_stale = gp("case", "evaluate", rival, "--producer", "run-52", "--as", "run-52")
    assert evaluate_stale.returncode == 3 and "stale" in evaluate_stale.stderr
    # CI follows the feed from where it left off
    lines = gp("events", "--since", "0", "--json").stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert all(e["schema"] == "gatepost.event/1" for e in events)
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    kinds = [e["kind"] for e in events]
    assert "case.decided" in kinds and "case.applied" in kinds and "loop.added" in kinds
    paged = [json.loads(x) for x in gp("events", "--since", str(seqs[2]), "--limit", "3", "--json").stdout.splitlines()]
    assert [e["seq"] for e in paged] == seqs[3:6]
    assert gp("events", "--since", str(seqs[-1]), "--json").stdout == ""
    assert "case.decided" in gp("events", "--subject", f"case:{case_id}").stdout


@pytest.mark.slow
def test_case_wait_exit_codes_per_outcome_and_timeout(day):
    gp = day["gp"]
    made = [_json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", name, "--json",
                     "--as", "run-41"))["case_id"] for name in ("better.md", "other.md")]
    timed_out = gp("case", "wait", made[0], "--timeout", "0.3")
    assert timed_out.returncode == 124 and "still open" in timed_out.stderr
    assert gp("case", "decide", made[1], "inconclusive", "--note", "no signal", "--as", "ana").returncode == 0
    assert gp("case", "wait", made[1]).returncode == 12
    assert gp("case", "wait", "case-nope", "--timeout", "1").returncode == 2


@pytest.mark.slow
def test_evaluation_settings_come_from_the_loop_and_overrides_are_refused_or_audited(day):
    gp = day["gp"]
    case_id = _json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", "better.md",
                       "--json", "--as", "run-41"))["case_id"]
    widened = gp("case", "evaluate", case_id, "--producer", "run-52", "--surface", "*", "--as", "run-52")
    assert widened.returncode == 3
    assert f"case evaluate {case_id}: refused: loop-settings: surface of loop writer" in widened.stderr
    mocked = gp("case", "evaluate", case_id, "--producer", "run-52", "--mock", "--as", "run-52")
    assert mocked.returncode == 3 and "loop-settings: mock of loop writer" in mocked.stderr
    for option, value in (("--alpha", "0.5"), ("--pass-k", "3")):
        loosened = gp("case", "evaluate", case_id, "--producer", "run-52", option, value, "--as", "run-52")
        assert loosened.returncode == 3 and f"loop-settings: {option[2:].replace('-', '_')} of loop writer" in \
            loosened.stderr, (option, loosened.stderr)
    other_suite = day["tmp"] / "other-suite"
    other_suite.mkdir()
    text = day["suite"].read_text("utf-8").replace("2.5", "2.6")
    (other_suite / "suite.yaml").write_text(text, "utf-8")
    swapped = gp("case", "evaluate", case_id, "--producer", "run-52", "--suite", str(other_suite / "suite.yaml"),
                 "--as", "run-52")
    assert swapped.returncode == 3 and "suite_hash" in swapped.stderr
    # the admin may override; it is audited on the loop
    allowed = gp("case", "evaluate", case_id, "--producer", "admin-check", "--surface", "skills/**",
                 "--as", "admin", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout)["overridden"] == ["surface"]
    audit = [json.loads(x) for x in gp("events", "--kind", "loop.overridden", "--json").stdout.splitlines()]
    assert audit[0]["actor"] == "admin" and audit[0]["payload"]["settings"] == {"surface": ["skills/**"]}
    # a suite edited after the loop registered it is not what was registered (nor the case's basis)
    day["suite"].write_text(text, "utf-8")
    changed = gp("case", "evaluate", case_id, "--producer", "run-52", "--as", "run-52")
    assert changed.returncode == 3 and "refused: registered: suite file suite.yaml is sha256:" in changed.stderr


@pytest.mark.slow
def test_case_new_checks_the_loops_paths_and_independence(day):
    gp = day["gp"]
    outside = gp("case", "new", "--loop", "writer", "--path", "_rules/x.md", "--content-file", "better.md",
                 "--as", "run-41")
    assert outside.returncode == 3 and "refused: paths: _rules/x.md matches none of loop writer's paths" in \
        outside.stderr
    self_dealing = gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", "better.md",
                      "--as", "run-52")
    assert self_dealing.returncode == 3 and "refused: self-dealing" in self_dealing.stderr
    unknown = gp("case", "new", "--loop", "nope", "--path", PATH, "--content-file", "better.md", "--as", "run-41")
    assert unknown.returncode == 2 and "loop nope: no such loop" in unknown.stderr
    doc = _json(gp("case", "show", _json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file",
                                          "better.md", "--json", "--as", "run-41"))["case_id"], "--json"))
    assert doc["independent"] == {"different_agent_run": ["run-52", "ana", "erin"]} and doc["loop"] == "writer"


@pytest.mark.slow
def test_proposals_on_the_same_base_cannot_both_be_accepted_and_applied_marks_current(day):
    gp, tmp = day["gp"], day["tmp"]
    ids = []
    for i, after in enumerate((BETTER_SKILL, OTHER_SKILL)):
        request = {"path": PATH, "kind": "skill", "operation": "update", "edit_mode": "full_page",
                   "title": f"p{i}", "confidence": 0.5, "rationale": "r", "before_body": BASE_SKILL,
                   "after_body": after, "expected_base_body_sha256": None}
        (tmp / f"p{i}.json").write_text(json.dumps(request), "utf-8")
        done = gp("proposal", "import", f"p{i}.json", "--as", "run-41")
        assert done.returncode == 0, done.stderr
        ids.append(_json(gp("proposal", "list", "--json"))["proposals"][0]["id"])
    assert gp("proposal", "mark", ids[0], "accepted", "--note", "ok", "--as", "ana").returncode == 0
    second = gp("proposal", "mark", ids[1], "accepted", "--note", "ok", "--as", "ana")
    assert second.returncode == 3 and "refused: pending:" in second.stderr
    assert gp("proposal", "applied", ids[0], "--ref", "def456", "--as", "ana").returncode == 0
    assert _json(gp("current", PATH, "--json"))["content"] == BETTER_SKILL
    again = gp("proposal", "mark", ids[1], "accepted", "--note", "ok", "--as", "ana")
    assert again.returncode == 3 and "refused: stale:" in again.stderr
    twice = gp("proposal", "applied", ids[0], "--ref", "def456", "--as", "ana")
    assert twice.returncode == 3 and "already recorded applied" in twice.stderr


@pytest.mark.slow
def test_ci_sees_coverage_staleness_acknowledged_failures_and_its_own_report_mark(tmp_path: Path):
    db = str(tmp_path / "store.db")

    def gp(*args: str) -> subprocess.CompletedProcess:
        return run_gatepost("--db", db, *args, cwd=tmp_path)

    for args in (["init"], ["actors", "add", "ana", "--capability", "manifest.review", "--capability",
                            "regression.triage"],
                 ["actors", "add", "run-52", "--kind", "producer", "--capability", "evidence.record"],
                 ["actors", "add", "ci", "--kind", "producer", "--capability", "evidence.record"]):
        assert gp(*args).returncode == 0
    (tmp_path / "evals.yaml").write_text("digest:\n  min_words: 3\n", "utf-8")
    assert gp("manifest", "import", "evals.yaml", "--as", "ana").returncode == 0
    (tmp_path / "long.md").write_text("one two three four\n", "utf-8")
    (tmp_path / "short.md").write_text("one\n", "utf-8")
    for skill, out, at in (("digest", "long.md", "2026-05-01T08:00:00Z"), ("orphan", "long.md", "2026-05-01T08:00:00Z")):
        assert gp("skills", "record", skill, "--output", out, "--at", at, "--as", "run-52").returncode == 0
    ana_first = gp("report", "regressions", "--as", "ana", "--json")
    assert json.loads(ana_first.stdout)["schema"] == "gatepost.regressions/1"
    listed = json.loads(gp("skills", "eval", "--json", "--as", "ci").stdout)
    by_skill = {r["skill"]: r for r in listed}
    assert by_skill["orphan"]["covered"] is False and by_skill["orphan"]["status"] == "no_manifest"
    assert by_skill["digest"]["state"] == "PASS" and by_skill["digest"]["stale"] is False
    # PASS forever no more: the newest output is older than the cadence
    stale = gp("skills", "eval", "--max-age", "2d", "--fail-on", "STALE", "--as", "ci")
    assert stale.returncode == 1 and "digest: STALE" in stale.stdout
    assert gp("skills", "eval", "--max-age", "2x", "--as", "ci").returncode == 2
    # a new failure fails CI; acknowledged until a later date it does not; an expired one does again
    assert gp("skills", "record", "digest", "--output", "short.md", "--as", "run-52").returncode == 0
    assert gp("skills", "eval", "--fail-on", "NEW_FAIL", "--as", "ci").returncode == 1
    assert gp("skills", "acknowledge", "digest", "--note", "old", "--until", "2026-01-01", "--as", "ana"
              ).returncode == 0
    assert gp("skills", "eval", "--fail-on", "NEW_FAIL", "--as", "ci").returncode == 1
    assert gp("skills", "acknowledge", "digest", "--note", "fixing in #12", "--until", "2099-01-01",
              "--as", "ana").returncode == 0
    quiet = gp("skills", "eval", "--fail-on", "NEW_FAIL", "--as", "ci")
    assert quiet.returncode == 0 and "acknowledged by ana until 2099-01-01" in quiet.stdout
    # CI's daily report does not use up the maintainer's "since last report"
    ci_report = json.loads(gp("report", "regressions", "--as", "ci", "--json").stdout)
    assert [c["skill"] for c in ci_report["changes"]] == ["digest"]
    assert json.loads(gp("report", "regressions", "--as", "ci", "--json").stdout)["changes"] == []
    ana_report = json.loads(gp("report", "regressions", "--as", "ana", "--json").stdout)
    assert [c["skill"] for c in ana_report["changes"]] == ["digest"]
    digest = next(r for r in ana_report["skills"] if r["skill"] == "digest")
    assert digest["triage"]["actor"] == "ana" and digest["triage"]["note"] == "fixing in #12"
    assert "## Triage" in gp("report", "regressions", "--as", "ana").stdout
    reports = [json.loads(x) for x in gp("events", "--kind", "report.regressions", "--json").stdout.splitlines()]
    assert all(e["actor"] for e in reports)


@pytest.mark.slow
def test_the_demo_runs_a_loops_day(tmp_path: Path):
    db = str(tmp_path / "demo.db")
    built = run_gatepost("demo", "--no-console", "--db", db, "-q", "--as", "tester", timeout=180)
    assert built.returncode == 0, built.stderr
    assert ("2 loops (notes-tuner): 1 cases, 0 kept and applied, 1 kept not landed, 0 stale · (skill-writer): 3 cases,"
            " 1 kept and applied, 1 stale") in built.stdout
    kept = json.loads(run_gatepost("--db", db, "case", "show", "case-loop-01", "--json").stdout)
    assert kept["outcome"] == "kept" and kept["loop"] == "skill-writer" and kept["applied"][0]["ref"] == "e4f5a6b"
    now = json.loads(run_gatepost("--db", db, "current", "skills/release-notes/SKILL.md", "--json").stdout)
    assert now["source"]["subject_id"] == "case-loop-01"
    stale = json.loads(run_gatepost("--db", db, "case", "show", "case-loop-02", "--json").stdout)
    assert stale["base"]["stale"] is True and "case case-loop-01, applied at e4f5a6b" in stale["base"]["why"]
    waiting = json.loads(run_gatepost("--db", db, "case", "show", "case-loop-03", "--json").stdout)
    assert waiting["status"] == "open" and waiting["base"]["stale"] is False
    # a second loop on the same path kept its change on that same base first: this one must wait
    rival = json.loads(run_gatepost("--db", db, "case", "show", "case-loop-04", "--json").stdout)
    assert rival["loop"] == "notes-tuner" and rival["outcome"] == "kept" and not rival["applied"]
    assert rival["candidate"]["basis"]["baseline"] == waiting["candidate"]["basis"]["baseline"]
    refused = run_gatepost("--db", db, "case", "decide", "case-loop-03", "kept", "--note", "x", "--as", "ana")
    assert refused.returncode == 3 and "refused: pending: case case-loop-04" in refused.stderr
    assert waiting["claims"]["content.clean"] == "TRUE"
