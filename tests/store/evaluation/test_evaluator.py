"""Runs: pass rates, pass@k, delta and verdict, the weak-baseline warning, the baseline cache, storage."""

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gatepost.store.evaluation import (
    CommandExecutor,
    JudgeSettings,
    MockExecutor,
    RunSettings,
    evaluate,
    get_run,
    import_artifact,
    list_runs,
    load_suite,
    run_tasks,
    task_outputs,
)
from gatepost.store.kernel import InputError
from tests.evaluator_helpers import (
    BASIC,
    GOOD_SKILL,
    WEAK_SKILL,
    contains_task,
    executor,
    judge,
    write_suite,
)

ARTIFACT_FIELDS = {"execution_pass_rate", "baseline_pass_rate", "delta", "verdict", "candidate_results",
                   "baseline_results", "baseline_health", "warnings", "truth_anchor"}


def five_tasks(tmp_path: Path, n: int = 5) -> Path:
    """Tuning tasks passed by a skill naming alpha, bravo, ...; one held-out task (golf)."""
    words = ["alpha", "bravo", "charlie", "delta", "echo"][:n]
    tasks = [contains_task(f"t-{w}", f"what is word {i}?", [w], timeout_seconds=2) for i, w in enumerate(words)]
    tasks.append(contains_task("h-golf", "what is word 6?", ["golf"], split="heldout"))
    return write_suite(tmp_path / "suite", tasks)


def test_a_run_compares_candidate_and_baseline_and_writes_the_seeds_artifact(db, tmp_path: Path):
    suite = load_suite(five_tasks(tmp_path))
    out = tmp_path / "out" / "artifact.json"
    artifact = evaluate(db, suite, candidate_text="alpha bravo charlie delta", baseline_text="alpha",
                        settings=RunSettings(executor=CommandExecutor(executor("follow"))), split="tuning",
                        output=out, actor="ci-pr")
    assert ARTIFACT_FIELDS <= set(artifact)
    assert artifact["execution_pass_rate"] == 0.8 and artifact["baseline_pass_rate"] == 0.2
    assert artifact["delta"] == 0.6 and artifact["verdict"] == "pass"
    assert artifact["truth_anchor"] == str(out.resolve())
    written = json.loads(out.read_text())
    assert written["truth_anchor"] == str(out.resolve()) and written["delta"] == 0.6
    first = artifact["candidate_results"][0]
    assert {"task_id", "passed", "score", "attempts", "duration_ms", "output"} <= set(first)
    assert [r["task_id"] for r in artifact["candidate_results"]] == ["t-alpha", "t-bravo", "t-charlie", "t-delta",
                                                                     "t-echo"]
    assert artifact["baseline_health"]["status"] == "healthy"  # 0.2 is not under 20 %
    stored = get_run(db, artifact["run_id"])
    assert stored["verdict"] == "pass" and stored["execution_pass_rate"] == 0.8
    assert stored["artifact"]["truth_anchor"] == str(out.resolve())
    rows = db.execute("SELECT side, COUNT(*) FROM task_results WHERE run_id = ? GROUP BY side",
                      [artifact["run_id"]]).fetchall()
    assert dict(rows) == {"candidate": 5, "baseline": 5}
    event = db.execute("SELECT actor, kind FROM events WHERE subject_id = ?", [artifact["run_id"]]).fetchone()
    assert event == ("ci-pr", "suite.run")


def test_pass_rates_round_to_four_places_and_a_tie_passes(db, tmp_path: Path):
    tasks = [contains_task(f"t{i}", f"item {i}", [f"w{i}"]) for i in range(3)]
    suite = load_suite(write_suite(tmp_path, tasks))
    artifact = evaluate(db, suite, candidate_text="w0", baseline_text="w1",
                        settings=RunSettings(executor=CommandExecutor(executor("follow"))))
    assert artifact["execution_pass_rate"] == 0.3333 and artifact["baseline_pass_rate"] == 0.3333
    assert artifact["delta"] == 0 and artifact["verdict"] == "pass"


def test_a_worse_candidate_fails_and_a_weak_baseline_is_a_warning(db, tmp_path: Path):
    suite = load_suite(five_tasks(tmp_path))
    artifact = evaluate(db, suite, candidate_text="", baseline_text="alpha bravo",
                        settings=RunSettings(executor=CommandExecutor(executor("follow"))), split="tuning")
    assert artifact["verdict"] == "fail" and artifact["delta"] == -0.4
    weak = evaluate(db, suite, candidate_text="alpha", baseline_text="",
                    settings=RunSettings(executor=CommandExecutor(executor("follow"))), split="tuning")
    assert weak["baseline_health"]["status"] == "warning"
    assert any("weak baseline" in w for w in weak["warnings"])
    assert weak["verdict"] == "pass"  # a weak baseline warns, it does not stop the run


def test_pass_at_k_passes_when_any_attempt_passes_and_stores_every_attempt(db, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("FLAKY_DIR", str(tmp_path))
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("t1", "say it", ["answer"])]))
    one = evaluate(db, suite, candidate_text="the answer",
                   settings=RunSettings(executor=CommandExecutor(executor("flaky")), pass_k=1))
    assert one["execution_pass_rate"] == 0.0
    for marker in tmp_path.iterdir():
        if marker.is_file() and marker.name == "t1":  # the flaky executor's marker, not the store's files
            marker.unlink()
    three = evaluate(db, suite, candidate_text="the answer",
                     settings=RunSettings(executor=CommandExecutor(executor("flaky")), pass_k=3))
    cand = three["candidate_results"][0]
    assert cand["passed"] and cand["attempts"] == 2  # the second attempt passed; no third was needed
    attempts = db.execute("SELECT attempt, passed FROM task_results WHERE run_id = ? AND side = 'candidate'"
                          " ORDER BY attempt", [three["run_id"]]).fetchall()
    assert attempts == [(1, 0), (2, 1)]
    base = db.execute("SELECT COUNT(*) FROM task_results WHERE run_id = ? AND side = 'baseline'",
                      [three["run_id"]]).fetchone()[0]
    assert base == 3  # the empty baseline failed all three attempts, each stored


def test_failed_attempts_keep_their_reasons(db, tmp_path: Path):
    suite = load_suite(write_suite(tmp_path, [contains_task("t1", "p", ["x"], timeout_seconds=1)]))
    artifact = evaluate(db, suite, candidate_text="x", settings=RunSettings(executor=CommandExecutor(executor("hang"))))
    result = artifact["candidate_results"][0]
    assert not result["passed"] and result["reason"].startswith("timed out after 1 s")
    reason = db.execute("SELECT reason FROM task_results WHERE run_id = ? AND side = 'candidate'",
                        [artifact["run_id"]]).fetchone()[0]
    assert reason.startswith("timed out")


def test_llm_rubric_without_judge_is_not_judged_and_warned_with_mock_marked(db, tmp_path: Path):
    tasks = [{"id": "r1", "prompt": "weigh it", "judge": {"type": "llm-rubric", "rubric": "trade-off"}}]
    suite = load_suite(write_suite(tmp_path, tasks))
    plain = evaluate(db, suite, candidate_text="trade-off", settings=RunSettings(executor=CommandExecutor(executor("follow"))))
    assert plain["execution_pass_rate"] == 0.0 and not plain["candidate_results"][0]["judged"]
    assert any("not judged" in w for w in plain["warnings"]) and not plain["mock"]
    mocked = evaluate(db, suite, candidate_text="trade-off", settings=RunSettings(executor=MockExecutor()))
    assert mocked["execution_pass_rate"] == 1.0 and mocked["mock"] and mocked["candidate_results"][0]["mock"]
    assert any(w.startswith("mock") for w in mocked["warnings"])
    judged = evaluate(db, suite, candidate_text="a trade-off",
                      settings=RunSettings(executor=CommandExecutor(executor("follow")), judges=JudgeSettings(rubric_argv=judge("keyword").split())))
    assert judged["execution_pass_rate"] == 1.0 and judged["baseline_pass_rate"] == 0.0


def test_the_baseline_cache_is_reused_within_seven_days_and_keyed(db, tmp_path: Path):
    suite = load_suite(five_tasks(tmp_path, 2))
    cache = tmp_path / "cache"
    follow = CommandExecutor(executor("follow"))
    first = evaluate(db, suite, candidate_text="alpha", baseline_text="alpha bravo",
                     settings=RunSettings(executor=follow, cache_dir=cache), split="tuning")
    assert first["baseline_cache"]["hit"] is False and len(list(cache.iterdir())) == 1
    # the same baseline through an executor that would now fail everything: the cache answers instead
    crash = CommandExecutor(executor("crash"))
    crash.command = follow.command  # same identity, so the same key
    second = evaluate(db, suite, candidate_text="alpha", baseline_text="alpha bravo",
                      settings=RunSettings(executor=crash, cache_dir=cache), split="tuning")
    assert second["baseline_cache"]["hit"] is True and second["baseline_pass_rate"] == 1.0
    assert second["execution_pass_rate"] == 0.0  # the candidate side really ran (and crashed)
    # another baseline content is another key
    other = evaluate(db, suite, candidate_text="alpha", baseline_text="alpha",
                     settings=RunSettings(executor=follow, cache_dir=cache), split="tuning")
    assert other["baseline_cache"]["hit"] is False and len(list(cache.iterdir())) == 2
    # eight days later the entry has expired
    later = (datetime.now(UTC) + timedelta(days=8)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    expired = evaluate(db, suite, candidate_text="alpha", baseline_text="alpha bravo",
                       settings=RunSettings(executor=follow, cache_dir=cache), split="tuning", at=later)
    assert expired["baseline_cache"]["hit"] is False
    # six days after that rewrite, still fresh
    soon = (datetime.now(UTC) + timedelta(days=14)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    fresh = evaluate(db, suite, candidate_text="alpha", baseline_text="alpha bravo",
                     settings=RunSettings(executor=follow, cache_dir=cache), split="tuning", at=soon)
    assert fresh["baseline_cache"]["hit"] is True


def test_a_corrupt_cache_file_is_recomputed_with_a_warning(db, tmp_path: Path):
    suite = load_suite(five_tasks(tmp_path, 2))
    cache = tmp_path / "cache"
    follow = CommandExecutor(executor("follow"))
    evaluate(db, suite, candidate_text="alpha", baseline_text="",
             settings=RunSettings(executor=follow, cache_dir=cache), split="tuning")
    entry = next(cache.iterdir())
    entry.write_text("{not json")
    again = evaluate(db, suite, candidate_text="alpha", baseline_text="",
                     settings=RunSettings(executor=follow, cache_dir=cache), split="tuning")
    assert again["baseline_cache"]["hit"] is False
    assert any("unreadable" in w for w in again["warnings"])
    assert json.loads(entry.read_text())["results"]


def test_splits_and_bad_arguments(db, tmp_path: Path):
    suite = load_suite(five_tasks(tmp_path))
    held = evaluate(db, suite, candidate_text="golf", settings=RunSettings(executor=MockExecutor()), split="heldout")
    assert [r["task_id"] for r in held["candidate_results"]] == ["h-golf"]
    only_tuning = load_suite(write_suite(tmp_path / "t", [contains_task("a", "p", ["x"])]))
    with pytest.raises(InputError, match="no heldout tasks"):
        evaluate(db, only_tuning, candidate_text="", settings=RunSettings(executor=MockExecutor()), split="heldout")
    with pytest.raises(InputError, match="--pass-k"):
        evaluate(db, only_tuning, candidate_text="", settings=RunSettings(executor=MockExecutor(), pass_k=0))


def test_console_queries_page_and_put_differing_tasks_first(db, tmp_path: Path):
    suite = load_suite(five_tasks(tmp_path, 3))
    follow = CommandExecutor(executor("follow"))
    ids = []
    for i in range(3):
        at = f"2026-11-0{i + 1}T10:00:00.000000Z"
        ids.append(evaluate(db, suite, candidate_text="alpha charlie [bold]x[/bold]", baseline_text="alpha bravo",
                            settings=RunSettings(executor=follow), split="tuning", at=at)["run_id"])
    rows, total = list_runs(db, limit=2)
    assert total == 3 and [r["id"] for r in rows] == [ids[2], ids[1]]
    rows, _ = list_runs(db, limit=2, offset=2)
    assert [r["id"] for r in rows] == [ids[0]]
    assert list_runs(db, search="nothing-like-this")[1] == 0
    assert list_runs(db, search=suite.skill_id)[1] == 3
    tasks = run_tasks(db, ids[0])
    assert [t["task_id"] for t in tasks][:2] == ["t-bravo", "t-charlie"]  # the two whose pass/fail differ
    assert all(t["differs"] for t in tasks[:2]) and not any(t["differs"] for t in tasks[2:])
    charlie = next(t for t in tasks if t["task_id"] == "t-charlie")
    assert charlie["candidate"]["passed"] and not charlie["baseline"]["passed"]
    outputs = task_outputs(db, ids[0], "t-charlie")
    assert "[bold]x[/bold]" in outputs["candidate"]["output"] and "bravo" in outputs["baseline"]["output"]


def test_the_basic_suite_end_to_end_with_every_judge(db):
    suite = load_suite(BASIC)
    artifact = evaluate(db, suite, candidate_text=GOOD_SKILL.read_text(), baseline_text=WEAK_SKILL.read_text(),
                        settings=RunSettings(executor=CommandExecutor(executor("follow")), judges=JudgeSettings(rubric_argv=judge("keyword").split())))
    passed = {r["task_id"]: r["passed"] for r in artifact["candidate_results"]}
    assert passed == {"tier-keyword": True, "tier-reason": True, "json-format": True, "trade-off": True,
                      "heldout-tier": True}
    assert artifact["execution_pass_rate"] == 1.0 and artifact["baseline_pass_rate"] == 0.2


def test_an_upstream_artifact_can_be_imported_once(db, tmp_path: Path):
    path = tmp_path / "eval-result.json"
    path.write_text(json.dumps({
        "execution_pass_rate": 0.8, "baseline_pass_rate": 0.7, "delta": 0.1, "verdict": "pass",
        "candidate_results": [{"task_id": "a", "passed": True, "score": 1.0, "duration_ms": 120}],
        "baseline_results": [{"task_id": "a", "passed": False, "score": 0.5, "duration_ms": 90}],
        "baseline_health": {"status": "healthy"}, "warnings": [], "truth_anchor": "/tmp/eval-result.json"}))
    run_id, created = import_artifact(db, path, actor="ana")
    assert created and get_run(db, run_id)["verdict"] == "pass"
    assert run_tasks(db, run_id)[0]["differs"]
    assert import_artifact(db, path, actor="ana") == (run_id, False)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"execution_pass_rate": "high"}))
    with pytest.raises(InputError, match="bad.json: execution_pass_rate: expected a pass rate"):
        import_artifact(db, bad)
    bad.write_text(json.dumps({"execution_pass_rate": 1, "baseline_pass_rate": 0, "delta": 1, "verdict": "pass",
                               "candidate_results": [{"task_id": "a", "passed": "yes"}]}))
    with pytest.raises(InputError, match=r"candidate_results\[0\].passed"):
        import_artifact(db, bad)
    assert os.path.exists(path)
