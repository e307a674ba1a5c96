"""Intervals, p-values, pass^k and flaky tasks as a user meets them: `suite run`, `case evaluate`, the stored run."""

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import Static

from gatepost.app import GatepostApp
from gatepost.store.cases import case_view, get_case, import_case
from gatepost.store.evaluation import (
    Attempt,
    CommandExecutor,
    RunSettings,
    evaluate,
    load_suite,
    run_statistics,
)
from gatepost.store.flows import evaluate_case
from gatepost.store.kernel import add_actor, open_store
from gatepost.widgets.line_detail import LineDetail
from gatepost.widgets.paged_list import PagedList
from tests.conftest import run_gatepost
from tests.console.screens.test_results_screen import open_results, rendered
from tests.console_helpers import settle
from tests.evaluator_helpers import contains_task, executor, write_suite

WORDS = [f"answer{i}" for i in range(12)]


def _suite(folder: Path, n: int, **extra) -> Path:
    """n tasks, task i passes when the skill names WORDS[i] (the follow executor prints the skill)."""
    path = write_suite(folder, [contains_task(f"t{i}", f"question {i}?", [WORDS[i]]) for i in range(n)])
    if extra:
        text = path.read_text() + "".join(f"{k}: {v}\n" for k, v in extra.items())
        path.write_text(text)
    return path


def _skill(path: Path, words: list[str]) -> Path:
    path.write_text("\n".join(words) + "\n")
    return path


def _run_json(tmp_path: Path, *args: str) -> dict:
    done = run_gatepost("suite", "run", *args, "--json", "-q", env={"GATEPOST_DB": str(tmp_path / "s.db"),
                                                                   "GATEPOST_REVIEWER": "ci"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_suite_run_json_carries_intervals_and_says_a_small_delta_is_noise(tmp_path: Path):
    suite = _suite(tmp_path / "suite", 7)
    cand = _skill(tmp_path / "cand.md", WORDS[:4])
    base = _skill(tmp_path / "base.md", WORDS[:3])
    artifact = _run_json(tmp_path, "--suite", str(suite), "--skill", str(cand), "--baseline", str(base),
                         "--executor", executor("follow"))
    figures = artifact["statistics"]
    assert artifact["execution_pass_rate"] == 0.5714 and artifact["verdict"] == "pass"  # the seed's fields stay
    assert figures["candidate"]["passed"] == 4 and figures["candidate"]["tasks"] == 7
    assert (figures["candidate"]["low"], figures["candidate"]["high"]) == (0.2505, 0.8418)
    comparison = figures["comparison"]
    assert comparison["pairs"] == {"both_pass": 3, "only_candidate": 1, "only_baseline": 0, "both_fail": 3}
    assert comparison["p_value"] == 1.0 and comparison["decided"] is None and figures["inside_noise"] is True
    assert comparison["low"] < 0 < comparison["high"]
    assert "too few tasks to tell; 7 tasks detect only ±86 pp" in comparison["words"]
    # the summary a person reads says the same
    plain = run_gatepost("suite", "run", "--suite", str(suite), "--skill", str(cand), "--baseline", str(base),
                         "--executor", executor("follow"), "-q",
                         env={"GATEPOST_DB": str(tmp_path / "s.db")}, cwd=tmp_path)
    assert "candidate 57 % (95 % CI 25 to 84, 4 of 7)" in plain.stdout
    assert "delta     +14 pp (95 % CI " in plain.stdout and "too few tasks to tell" in plain.stdout


def test_a_large_delta_on_enough_tasks_is_decided(tmp_path: Path):
    suite = _suite(tmp_path / "suite", 10)
    cand = _skill(tmp_path / "cand.md", WORDS[:10])
    base = _skill(tmp_path / "base.md", WORDS[:2])
    figures = _run_json(tmp_path, "--suite", str(suite), "--skill", str(cand), "--baseline", str(base),
                        "--executor", executor("follow"))["statistics"]
    comparison = figures["comparison"]
    assert comparison["decided"] == "better" and comparison["p_value"] == 0.0078
    assert comparison["low"] > 0 and figures["inside_noise"] is False
    assert "better beyond the noise at α = 0.05" in comparison["words"]


@pytest.mark.slow
def test_flaky_tasks_within_pass_at_k_and_across_runs(tmp_path: Path):
    suite = _suite(tmp_path / "suite", 3)
    cand = _skill(tmp_path / "cand.md", WORDS[:3])
    flaky_dir = tmp_path / "flaky"
    flaky_dir.mkdir()
    env = {"GATEPOST_DB": str(tmp_path / "s.db"), "FLAKY_DIR": str(flaky_dir)}
    args = ["suite", "run", "--suite", str(suite), "--skill", str(cand), "--executor", executor("flaky"),
            "--pass-k", "3", "--json", "-q"]
    first = run_gatepost(*args, env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    figures = json.loads(first.stdout)["statistics"]
    # each task failed its first attempt and passed its second: flaky, with its counts
    flaky = {(f["task_id"], f["side"]): f for f in figures["flaky"]}
    assert set(flaky) == {("t0", "candidate"), ("t1", "candidate"), ("t2", "candidate")}
    assert flaky[("t0", "candidate")]["passes"] == 1 and flaky[("t0", "candidate")]["attempts"] == 2
    assert figures["candidate"]["pass_at_k"] == 1.0 and figures["candidate"]["pass_hat_k"] is None
    # a second run of the same suite, skill text and executor: attempts pooled across the runs
    second = run_gatepost(*args, "--all-attempts", env=env, cwd=tmp_path)
    figures = json.loads(second.stdout)["statistics"]
    t0 = next(f for f in figures["flaky"] if f["task_id"] == "t0" and f["side"] == "candidate")
    assert (t0["passes"], t0["attempts"], t0["runs"]) == (4, 5, 2) and t0["in_this_run"] == "3 of 3"
    assert figures["candidate"]["pass_hat_k"] == 1.0  # every attempt of this run passed, all k ran
    # a different skill text is a different input: nothing pooled with it
    other = _skill(tmp_path / "other.md", WORDS[:3] + ["more"])
    third = run_gatepost("suite", "run", "--suite", str(suite), "--skill", str(other), "--executor",
                         executor("flaky"), "--pass-k", "3", "--json", "-q", env=env, cwd=tmp_path)
    assert [f for f in json.loads(third.stdout)["statistics"]["flaky"] if f["side"] == "candidate"] == []
    # the stored run reads the same figures back
    db = open_store(tmp_path / "s.db")
    stored = run_statistics(db, json.loads(second.stdout)["run_id"])
    db.close()
    assert stored is not None and any(f["task_id"] == "t0" and f["attempts"] == 5 for f in stored["flaky"])


# --- the decision rule -----------------------------------------------------------------------
def _case(db, content: str, case_id: str = "case-20") -> str:
    if db.execute("SELECT 1 FROM actors WHERE name = 'run-52'").fetchone() is None:
        add_actor(db, "run-52", "producer", ("evidence.record",))  # it records its evidence as itself (--as run-52)
    return import_case(db, {
        "protocol": "eval.gated_change/1", "id": case_id, "title": "Names the answers", "author": "run-41",
        "candidate": {"path": "skills/a/SKILL.md", "content": content,
                      "basis": {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1",
                                "design": "design-1"}},
        "independent": {"different_agent_run": ["run-52"]},
    }, actor="ana")


@pytest.mark.slow
def test_significant_rule_records_nothing_for_a_noisy_tuning_delta_and_says_why(cli, store_path: Path,
                                                                                 tmp_path: Path):
    db = open_store(store_path)
    _case(db, "\n".join(WORDS[:4]))
    db.close()
    # the candidate names the answers (the follow executor prints it): the suite allows them (guard_allow)
    suite = _suite(tmp_path / "suite", 7, decision_rule="significant", guard_allow=json.dumps(WORDS[:7]))
    base = _skill(tmp_path / "base.md", WORDS[:3])
    result = cli("case", "evaluate", "case-20", "--suite", str(suite), "--executor", executor("follow"),
                 "--producer", "run-52", "--surface", "skills/*", "--baseline", str(base), "--json", "--as", "run-52",
                 "--as", "run-52")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["decision_rule"] == "significant"
    assert [e["kind"] for e in report["evidence"]] == ["guard_check"]
    assert "run 1" in report["undecided"][0] and "too few tasks to tell" in report["undecided"][0]
    db = open_store(store_path)
    view = case_view(db, "case-20")
    assert view["claims"]["tuning.improved"] == "UNKNOWN"
    assert "the evaluation settled nothing" in view["explanations"]["tuning.improved"]
    assert "+14 pp" in view["explanations"]["tuning.improved"]
    db.close()
    # under the default rule the same delta is recorded as reproduced, its noise carried in the details
    db = open_store(store_path)
    _case(db, "\n".join(WORDS[:4]), case_id="case-21")
    db.close()
    strict = cli("case", "evaluate", "case-21", "--suite", str(suite), "--executor", executor("follow"),
                 "--producer", "run-52", "--surface", "skills/*", "--baseline", str(base), "--json", "--as", "run-52",
                 "--decision-rule", "strict")
    kinds = {e["kind"]: e for e in json.loads(strict.output)["evidence"]}
    assert kinds["tuning_comparison"]["result"] == "reproduced"
    assert kinds["tuning_comparison"]["details"]["inside_noise"] == [True, True]


@pytest.mark.slow
def test_significant_rule_records_a_decided_improvement(cli, store_path: Path, tmp_path: Path):
    db = open_store(store_path)
    _case(db, "\n".join(WORDS[:10]))
    db.close()
    suite = _suite(tmp_path / "suite", 10, guard_allow=json.dumps(WORDS[:10]))  # the candidate names the answers
    base = _skill(tmp_path / "base.md", WORDS[:2])
    result = cli("case", "evaluate", "case-20", "--suite", str(suite), "--executor", executor("follow"),
                 "--producer", "run-52", "--surface", "skills/*", "--baseline", str(base), "--as", "run-52",
                 "--decision-rule", "significant")
    assert result.exit_code == 0, result.output
    assert "tuning_comparison: reproduced" in result.output and "better beyond the noise" in result.output
    db = open_store(store_path)
    assert get_case(db, "case-20")["claims"]["tuning.improved"] == "TRUE"
    db.close()


def test_a_bad_rule_in_a_suite_is_one_line(cli, tmp_path: Path):
    suite = _suite(tmp_path / "suite", 2, decision_rule="lenient", alpha=2)
    result = cli("suite", "validate", str(suite))
    assert result.exit_code == 2
    assert "decision_rule: expected one of strict, significant, got 'lenient'" in result.output
    assert "alpha: expected a number between 0 and 1" in result.output


class SeededExecutor:
    """A stand-in AI whose answers depend only on a seed, the task and the attempt, never on the skill:
    a candidate identical to its baseline gets the same outputs on both sides."""

    mock = True
    command = "seeded"

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.identity = f"seeded-{seed}"

    def run(self, task_id: str, prompt: str, skill: str, *, timeout: float, attempt: int = 1) -> Attempt:
        digest = hashlib.sha256(f"{self.seed}/{task_id}/{attempt}".encode()).digest()
        word = WORDS[int(task_id[1:])] if digest[0] % 2 else "nothing"
        return Attempt(output=word, reason=None, duration_ms=0, mock=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32), tasks=st.integers(min_value=1, max_value=12),
       pass_k=st.integers(min_value=1, max_value=3))
def test_an_identical_candidate_never_reproduces_under_significant(tmp_path_factory, seed, tasks, pass_k):
    folder = tmp_path_factory.mktemp("same")
    suite = load_suite(_suite(folder / "suite", tasks, decision_rule="significant"))
    db = open_store(folder / "s.db")
    _case(db, "the same skill")
    report = evaluate_case(db, "case-20", suite, settings=RunSettings(executor=SeededExecutor(seed), pass_k=pass_k),
                           producer="run-52", surface=["skills/*"], baseline_text="the same skill")
    results = {e["kind"]: e["result"] for e in report["evidence"]}
    assert results.get("tuning_comparison") != "reproduced"
    assert get_case(db, "case-20")["claims"]["tuning.improved"] != "TRUE"
    db.close()



# --- the console and the reports -------------------------------------------------------------
@pytest.mark.slow
async def test_results_screen_shows_intervals_and_filters_to_flaky_tasks(tmp_path: Path):
    db = open_store(tmp_path / "s.db")
    add_actor(db, "ana", "person", [])
    suite = load_suite(_suite(tmp_path / "suite", 7))
    flaky_dir = tmp_path / "flaky"
    flaky_dir.mkdir()
    (flaky_dir / "t0").write_text("")  # t0 answers rightly at once; the others fail first, then pass
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FLAKY_DIR", str(flaky_dir))
        run_id = evaluate(db, suite, candidate_text="\n".join(WORDS[:4]), baseline_text="\n".join(WORDS[:3]),
                          settings=RunSettings(executor=CommandExecutor(executor("flaky")), pass_k=2))["run_id"]
    db.close()
    app = GatepostApp(tmp_path / "s.db", person="ana")
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_results(pilot)
        screen.open_item(run_id)
        await settle(pilot)
        head = rendered(app, "#run-head")
        assert "candidate 57 % (95 % CI 25 to 84, 4 of 7)" in head
        assert "too few tasks to tell; 7 tasks detect only ±86 pp" in head
        assert "~ flaky" in head
        tasks = screen.query_one("#run-tasks", PagedList)
        assert tasks.total == 7
        assert "~" in str(tasks.table.get_row("t1")[0]) and "~" not in str(tasks.table.get_row("t0")[0])
        await pilot.press("t", "f")
        await settle(pilot)
        assert sorted(tasks.keys) == ["t1", "t2", "t3"]  # failed once, then passed; t4-t6 never pass
        await pilot.press("f")
        await settle(pilot)
        assert tasks.total == 7


@pytest.mark.slow
def test_report_suite_md_and_html_show_intervals_p_values_and_flaky_tasks(tmp_path: Path):
    suite = _suite(tmp_path / "suite", 3)
    cand = _skill(tmp_path / "cand.md", WORDS[:3])
    flaky_dir = tmp_path / "flaky"
    flaky_dir.mkdir()
    env = {"GATEPOST_DB": str(tmp_path / "s.db"), "FLAKY_DIR": str(flaky_dir)}
    done = run_gatepost("suite", "run", "--suite", str(suite), "--skill", str(cand), "--executor",
                        executor("flaky"), "--pass-k", "2", "--json", "-q", env=env, cwd=tmp_path)
    run_id = json.loads(done.stdout)["run_id"]
    md = run_gatepost("report", "suite", run_id, env=env, cwd=tmp_path).stdout
    assert "- candidate: 100 % (95 % CI 44 to 100, 3 of 3)" in md
    assert "p = 0.25" in md and "3 tasks cannot decide any change" in md
    assert "t0 (candidate): passed 1 of 2 attempts over 1 run" in md
    html = run_gatepost("report", "suite", run_id, "--format", "html", env=env, cwd=tmp_path).stdout
    assert "95 % CI 44 to 100" in html and "<li>t1 (candidate): passed 1 of 2 attempts over 1 run</li>" in html


def _pane_text(screen) -> str:
    """What the screen shows in text: its Statics and its line-drawn detail (the Cases detail is one widget)."""
    return " ".join([*(str(w.render()) for w in screen.query(Static)), *(d.plain() for d in screen.query(LineDetail))])


@pytest.mark.slow
async def test_cases_screen_warns_when_a_claim_rests_on_noise_and_says_what_settled_nothing(
        cli, store_path: Path, tmp_path: Path):
    db = open_store(store_path)
    add_actor(db, "ana", "person", [])
    _case(db, "\n".join(WORDS[:4]), case_id="case-30")
    _case(db, "\n".join(WORDS[:4]), case_id="case-31")
    db.close()
    suite = _suite(tmp_path / "suite", 7, guard_allow=json.dumps(WORDS[:7]))  # the candidate names the answers
    base = _skill(tmp_path / "base.md", WORDS[:3])
    common = ["--suite", str(suite), "--executor", executor("follow"), "--producer", "run-52",
              "--surface", "skills/*", "--baseline", str(base), "--as", "run-52"]
    assert cli("case", "evaluate", "case-30", *common, "--decision-rule", "strict").exit_code == 0
    assert cli("case", "evaluate", "case-31", *common).exit_code == 0  # the default rule: significant
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.press("2")
        await settle(pilot)
        screen = app.screen
        screen.open_item("case-30")
        await settle(pilot)
        shown = _pane_text(screen)
        assert "tuning_comparison reproduced (" in shown
        assert "rests on a delta inside the noise (strict: noise may pass): run 1 +14 pp (95 % CI" in shown
        assert "(strict: noise may pass)" in shown  # beside the record: which rule decided it
        screen.open_item("case-31")
        await settle(pilot)
        shown = _pane_text(screen)
        assert "∅ tuning_comparison not recorded: decision rule significant" in shown
    md = cli("report", "case", "case-30").output
    assert "rests on a delta inside the noise" in md
