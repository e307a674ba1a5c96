"""CI gates on gatepost: exit codes of skills eval --fail-on, suite run --fail-on-regression, and a quiet
regressions report when nothing changed — each run as a pipeline runs it, in a subprocess."""

from pathlib import Path

import pytest

from gatepost.store.kernel import add_actor
from gatepost.store.skills import acknowledge, acknowledged_until, import_manifest, record_run
from tests.conftest import run_gatepost
from tests.evaluator_helpers import contains_task, executor, write_suite

MANIFEST = "digest:\n  min_words: 3\n  required_patterns: [\"Top\"]\n"
GOOD, BAD = "Top stories of the day", "nothing"


@pytest.fixture
def skill_store(db, store_path):
    add_actor(db, "ci-nightly", "producer", ["evidence.record"])
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    import_manifest(db, "evals.yaml", actor="bruno", text=MANIFEST)
    return db


def gatepost(store_path: Path, *args: str):
    return run_gatepost("--db", str(store_path), *args)


def eval_with(db, store_path: Path, output: str, day: int, fail_on: str = "NEW_FAIL,CHRONIC"):
    record_run(db, "digest", output, actor="ci-nightly", at=f"2026-06-{day:02d}T03:00:00Z")
    return gatepost(store_path, "skills", "eval", "--fail-on", fail_on, "--as", "ci-nightly")


@pytest.mark.slow
def test_skills_eval_fails_the_pipeline_on_new_fail_and_chronic_only(skill_store, store_path):
    green = eval_with(skill_store, store_path, GOOD, 1)
    assert green.returncode == 0, green.stderr
    new_fail = eval_with(skill_store, store_path, BAD, 2)
    assert new_fail.returncode == 1 and "digest" in new_fail.stderr and "NEW_FAIL" in new_fail.stdout
    stable = [eval_with(skill_store, store_path, BAD, day) for day in (3, 4)]  # fail streak 2, 3: STABLE_FAIL
    assert [r.returncode for r in stable] == [0, 0], [r.stdout for r in stable]
    chronic = eval_with(skill_store, store_path, BAD, 5)  # fail streak 4: CHRONIC
    assert chronic.returncode == 1 and "CHRONIC" in chronic.stdout
    again = gatepost(store_path, "skills", "eval", "--fail-on", "STABLE_FAIL", "--as", "ci-nightly")
    assert again.returncode == 0  # the skill is CHRONIC, not STABLE_FAIL
    recovered = eval_with(skill_store, store_path, GOOD, 6)
    assert recovered.returncode == 0 and "NEW_PASS" in recovered.stdout


def test_skills_eval_without_fail_on_never_fails_and_a_bad_state_is_exit_2(skill_store, store_path):
    record_run(skill_store, "digest", BAD, actor="ci-nightly")
    assert gatepost(store_path, "skills", "eval", "--as", "ci-nightly").returncode == 0
    bad = gatepost(store_path, "skills", "eval", "--fail-on", "NEW_FAIL,BROKEN", "--as", "ci-nightly")
    assert bad.returncode == 2 and "BROKEN" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_suite_run_fails_the_pipeline_on_regression_and_a_tie_passes(tmp_path, store_path):
    suite = write_suite(tmp_path / "suite", [contains_task("t1", "name it", ["alpha"]),
                                            contains_task("t2", "name it", ["beta"])])
    skills = {}
    for name, text in {"both": "alpha beta", "one": "alpha", "other": "beta"}.items():
        skills[name] = tmp_path / f"{name}.md"
        skills[name].write_text(text)

    def run(candidate: str, baseline: str):
        return gatepost(store_path, "suite", "run", "--suite", str(suite), "--skill", str(skills[candidate]),
                        "--baseline", str(skills[baseline]), "--executor", executor("follow"),
                        "--output", str(tmp_path / f"{candidate}-{baseline}.json"), "--fail-on-regression")

    worse = run("one", "both")
    assert worse.returncode == 1 and "verdict fail" in worse.stdout
    assert run("both", "one").returncode == 0
    tie = run("one", "other")  # 0.5 against 0.5: a tie passes
    assert tie.returncode == 0 and "verdict pass" in tie.stdout


@pytest.mark.slow
def test_regressions_report_is_quiet_when_nothing_changed(skill_store, store_path):
    eval_with(skill_store, store_path, GOOD, 1)
    first = gatepost(store_path, "report", "regressions")
    assert first.returncode == 0 and "First regressions report" in first.stdout
    quiet = gatepost(store_path, "report", "regressions")
    assert "Nothing changed since the previous report" in quiet.stdout
    assert "Changed since" not in quiet.stdout
    eval_with(skill_store, store_path, BAD, 2)
    changed = gatepost(store_path, "report", "regressions")
    lines = changed.stdout.splitlines()
    lead = next(i for i, line in enumerate(lines) if line.startswith("## "))
    assert lines[lead].startswith("## Changed since the previous report")  # what changed leads
    assert "digest: PASS → NEW\\_FAIL" in changed.stdout


@pytest.mark.slow
def test_help_documents_the_exit_codes():
    eval_help = run_gatepost("skills", "eval", "--help").stdout
    assert "--fail-on" in eval_help and "1 a skill ended in a --fail-on state" in eval_help
    run_help = run_gatepost("suite", "run", "--help").stdout
    assert "--fail-on-regression" in run_help and "status 1" in run_help
    report_help = run_gatepost("report", "regressions", "--help").stdout
    assert "changed since the previous report" in report_help


@pytest.mark.slow
def test_the_documented_fail_on_catches_stable_fail_and_uncovered_skills(skill_store, store_path):
    documented = "NEW_FAIL,STABLE_FAIL,CHRONIC,STALE,UNCOVERED"
    assert eval_with(skill_store, store_path, GOOD, 1, documented).returncode == 0
    assert eval_with(skill_store, store_path, BAD, 2, documented).returncode == 1  # NEW_FAIL
    stable = [eval_with(skill_store, store_path, BAD, day, documented) for day in (3, 4)]
    assert [r.returncode for r in stable] == [1, 1] and "STABLE_FAIL" in stable[0].stdout
    # a skill with runs but no manifest: nothing checks it, and CI can fail on that
    record_run(skill_store, "unchecked", "some output", actor="ci-nightly", at="2026-06-04T03:00:00Z")
    uncovered = gatepost(store_path, "skills", "eval", "--fail-on", "UNCOVERED", "--as", "ci-nightly")
    assert uncovered.returncode == 1 and "unchecked" in uncovered.stderr and "digest" not in uncovered.stderr


@pytest.mark.slow
def test_an_acknowledgement_quiets_ci_for_the_same_time_from_the_console_and_the_cli(skill_store, store_path):
    for day in (1, 2, 3):
        eval_with(skill_store, store_path, GOOD if day == 1 else BAD, day)
    # the console acknowledges through the store with no date; the CLI with none either: the same default expiry
    acknowledge(skill_store, "digest", actor="bruno", note="seen in the console")
    console = acknowledged_until(skill_store, "digest")
    assert console is not None and console["until"] > "2026-"
    assert gatepost(store_path, "skills", "eval", "--fail-on", "STABLE_FAIL", "--as", "ci-nightly").returncode == 0
    cli = gatepost(store_path, "skills", "acknowledge", "digest", "--note", "seen in the CLI", "--as", "bruno")
    assert cli.returncode == 0, cli.stderr
    from_cli = acknowledged_until(skill_store, "digest")
    assert from_cli is not None and from_cli["until"][:10] == console["until"][:10]
    assert gatepost(store_path, "skills", "eval", "--fail-on", "STABLE_FAIL", "--as", "ci-nightly").returncode == 0
