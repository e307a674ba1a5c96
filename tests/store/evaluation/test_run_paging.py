"""A run's tasks paged from the store (issue 19): review order, filters, counts, the previous run's Δ,
runs stored out of order, and the same order as run_tasks() on the demo store."""

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from gatepost.store.evaluation import (
    CommandExecutor,
    RunSettings,
    evaluate,
    import_artifact,
    list_runs,
    load_suite,
    run_task,
    run_task_counts,
    run_task_page,
    run_tasks,
)
from gatepost.store.kernel import open_store
from tests.console_helpers import settle
from tests.evaluator_helpers import contains_task, write_suite

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "reviewer"


def _artifact(tmp_path: Path, name: str, day: int, candidate: dict[str, bool], baseline: dict[str, bool],
              *, splits: dict[str, str] | None = None, skill: str = "paging-skill") -> str:
    """An evaluator artifact on disk, one attempt per task, in the order the dicts give."""
    def results(passes: dict[str, bool]) -> list[dict]:
        return [{"task_id": t, "passed": p, "score": 1.0 if p else 0.0, "output": f"{name} {t}",
                 "split": (splits or {}).get(t, "tuning")} for t, p in passes.items()]
    c, b = sum(candidate.values()) / len(candidate), sum(baseline.values()) / len(baseline)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({
        "skill_id": skill, "execution_pass_rate": c, "baseline_pass_rate": b, "delta": c - b,
        "verdict": "pass" if c >= b else "fail", "started_at": f"2026-11-{day:02d}T09:00:00Z",
        "candidate_results": results(candidate), "baseline_results": results(baseline)}), encoding="utf-8")
    return str(path)


def _store(db, path: str) -> str:
    run_id, new = import_artifact(db, path)
    assert new
    return run_id


def _ids(page) -> list[str]:
    return [r["task_id"] for r in page["rows"]]


# task: (candidate day 1, candidate day 3, baseline day 3)
PLAN = {"t1": (True, True, True), "t2": (True, False, True), "t3": (False, False, True),
        "t4": (False, True, False), "t5": (True, True, True), "t6": (False, False, False)}


def _two_runs(db, tmp_path: Path, *, newer_first: bool = False) -> tuple[str, str]:
    first = _artifact(tmp_path, "day1", 1, {t: p[0] for t, p in PLAN.items()}, {t: p[0] for t, p in PLAN.items()})
    second = _artifact(tmp_path, "day3", 3, {t: p[1] for t, p in PLAN.items()}, {t: p[2] for t, p in PLAN.items()},
                       splits={"t5": "heldout", "t6": "heldout"})
    if newer_first:
        late = _store(db, second)
        return _store(db, first), late
    early = _store(db, first)
    return early, _store(db, second)


def test_order_leads_with_changed_then_differs_then_the_rest_in_import_order(db, tmp_path):
    first, second = _two_runs(db, tmp_path)
    page = run_task_page(db, second)
    # t2 now fails, t4 now passes (changed); t3 fails against a passing baseline (differs); the rest
    assert _ids(page) == ["t2", "t4", "t3", "t1", "t5", "t6"]
    assert [r["position"] for r in page["rows"]] == [0, 1, 2, 3, 4, 5] and page["total"] == 6
    rows = {r["task_id"]: r for r in page["rows"]}
    assert rows["t2"]["changed_vs_previous"] and rows["t2"]["previous_passed"] is True
    assert rows["t4"]["changed_vs_previous"] and rows["t4"]["differs"] and rows["t4"]["previous_passed"] is False
    assert not rows["t3"]["changed_vs_previous"] and rows["t3"]["differs"]
    assert all(r["previous_run"] == first for r in page["rows"])
    assert rows["t4"]["candidate"]["passed"] and not rows["t4"]["baseline"]["passed"]
    assert rows["t4"]["candidate"]["attempts_line"] == "1 attempt: 1 pass"
    assert _ids(run_task_page(db, first)) == ["t1", "t2", "t3", "t4", "t5", "t6"]  # nothing to compare with
    assert _ids(run_task_page(db, second, offset=2, limit=3)) == ["t3", "t1", "t5"]
    assert _ids(run_task_page(db, second, offset=6)) == []


def test_filters_and_counts_come_from_the_store(db, tmp_path):
    first, second = _two_runs(db, tmp_path)
    counts = run_task_counts(db, second)
    assert {k: counts[k] for k in ("previous_run", "tasks", "failing", "changed", "changed_now_pass",
                                   "changed_now_fail", "differs", "flaky")} == {
        "previous_run": first, "tasks": 6, "failing": 3, "changed": 2, "changed_now_pass": 1,
        "changed_now_fail": 1, "differs": 3, "flaky": 0}
    assert counts["splits"] == {"heldout": 2, "tuning": 4}
    failing = run_task_page(db, second, filter="failing")
    assert _ids(failing) == ["t2", "t3", "t6"] and failing["total"] == 3
    assert _ids(run_task_page(db, second, filter="changed")) == ["t2", "t4"]
    assert _ids(run_task_page(db, second, filter="changed", offset=1)) == ["t4"]
    assert _ids(run_task_page(db, second, filter="differs")) == ["t2", "t4", "t3"]
    heldout = run_task_page(db, second, split="heldout")
    assert _ids(heldout) == ["t5", "t6"] and heldout["total"] == 2
    assert _ids(run_task_page(db, second, split="heldout", filter="failing")) == ["t6"]
    assert run_task_page(db, second, split="heldout", filter="failing")["total"] == 1
    searched = run_task_page(db, second, search="T4")
    assert _ids(searched) == ["t4"] and searched["total"] == 1
    assert run_task_page(db, second, search="%")["total"] == 0  # a search is a substring, not a pattern
    assert run_task_page(db, second, filter="flaky")["rows"] == []
    assert _ids(run_task_page(db, second, tasks={"t6", "t3", "nope"})) == ["t3", "t6"]  # in review order
    assert _ids(run_task_page(db, first, split="tuning")) == ["t1", "t2", "t3", "t4", "t5", "t6"]  # its one split
    assert run_task_page(db, first, split="heldout") == {"rows": [], "total": 0, "offset": 0, "limit": 50}
    assert _ids(run_task_page(db, first, split="tuning", filter="failing")) == ["t3", "t4", "t6"]
    with pytest.raises(ValueError, match="filter: expected one of"):
        run_task_page(db, second, filter="broken")
    one = run_task(db, second, "t3")
    assert one is not None and one["differs"] and one["position"] == 2
    assert run_task(db, second, "nope") is None


def test_a_run_stored_before_an_older_one_gets_its_changes_when_the_older_arrives(db, tmp_path):
    first, second = _two_runs(db, tmp_path, newer_first=True)
    assert _ids(run_task_page(db, second)) == ["t2", "t4", "t3", "t1", "t5", "t6"]
    assert run_task_counts(db, second)["changed"] == 2 and run_task_counts(db, second)["previous_run"] == first
    assert run_task_counts(db, first)["previous_run"] is None


def test_a_run_stored_in_between_becomes_the_next_runs_previous(db, tmp_path):
    first, last = _two_runs(db, tmp_path)
    assert run_task_counts(db, last)["changed"] == 2
    # day 2 is what day 3 is now compared with: it matches day 3's candidate, so nothing changed
    middle = _store(db, _artifact(tmp_path, "day2", 2, {t: p[1] for t, p in PLAN.items()},
                                  {t: p[2] for t, p in PLAN.items()}))
    counts = run_task_counts(db, last)
    assert counts["previous_run"] == middle and counts["changed"] == 0
    assert _ids(run_task_page(db, last)) == ["t2", "t3", "t4", "t1", "t5", "t6"]  # differs first now
    assert run_task_counts(db, middle)["previous_run"] == first and run_task_counts(db, middle)["changed"] == 2
    assert [r["task_id"] for r in run_tasks(db, last)] == _ids(run_task_page(db, last))


def test_pass_at_k_attempts_collapse_and_flaky_tasks_filter(db, tmp_path, monkeypatch):
    monkeypatch.setenv("SEQUENCE_DIR", str(tmp_path))
    suite = load_suite(write_suite(tmp_path / "s", [contains_task("t", "the word?", ["alpha"])]))
    command = f"{sys.executable} {FIXTURES / 'sequence.py'} wrong,wrong,right"
    run_id = evaluate(db, suite, candidate_text="alpha", baseline_text="nothing",
                      settings=RunSettings(executor=CommandExecutor(command), pass_k=3))["run_id"]
    [row] = run_task_page(db, run_id)["rows"]
    [old] = run_tasks(db, run_id)
    assert row["candidate"]["attempts_line"] == old["candidate"]["attempts_line"] == "3 attempts: 1 pass, 2 fail"
    assert row["candidate"]["outcomes"] == old["candidate"]["outcomes"]
    assert row["baseline"]["attempts_line"] == old["baseline"]["attempts_line"]
    assert row["flaky"] and _ids(run_task_page(db, run_id, filter="flaky")) == ["t"]
    assert run_task_counts(db, run_id)["flaky"] == 1


def _same_as_run_tasks(db, run_id: str) -> None:
    old = run_tasks(db, run_id)
    page = run_task_page(db, run_id, limit=len(old) + 1)
    assert page["total"] == len(old)
    assert [r["task_id"] for r in page["rows"]] == [r["task_id"] for r in old]
    for new, was in zip(page["rows"], old, strict=True):
        for key in ("split", "differs", "changed_vs_previous", "previous_passed", "previous_run"):
            assert new[key] == was[key], (run_id, new["task_id"], key)
        for side in ("candidate", "baseline"):
            if was[side] is None:
                assert new[side] is None
                continue
            for key in ("passed", "judged", "score", "attempts", "mock", "outcomes", "attempts_line"):
                assert new[side][key] == was[side][key], (run_id, new["task_id"], side, key)


@pytest.mark.slow
def test_the_demo_stores_runs_page_in_run_tasks_order(demo_copy: Path):
    db = open_store(demo_copy)
    runs, total = list_runs(db, limit=1000)
    assert total == len(runs) > 10
    for run in runs:
        _same_as_run_tasks(db, run["id"])
    changed = sum(run_task_counts(db, r["id"])["changed"] for r in runs)
    assert changed > 0  # the demo exercises the Δ ordering
    db.close()


def test_an_older_store_is_backfilled_when_opened(demo_copy: Path):
    """A store from before the projection: the migration stores the order of every run."""
    conn = sqlite3.connect(demo_copy)
    before = conn.execute("SELECT * FROM run_task_pages ORDER BY run_id, list, chunk").fetchall()
    counts = conn.execute("SELECT * FROM run_task_counts ORDER BY run_id, split").fetchall()
    assert before and counts
    conn.execute("DROP TABLE run_task_pages")
    conn.execute("DROP TABLE run_task_counts")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_scale_run_task_order'")
    conn.commit()
    conn.close()
    db = open_store(demo_copy)
    assert db.execute("SELECT * FROM run_task_pages ORDER BY run_id, list, chunk").fetchall() == before
    assert db.execute("SELECT * FROM run_task_counts ORDER BY run_id, split").fetchall() == counts
    for run in list_runs(db, limit=1000)[0]:
        _same_as_run_tasks(db, run["id"])
    db.close()


def test_pages_across_stored_chunks_match_run_tasks_and_search_is_literal(db, tmp_path):
    """600 tasks: pages that straddle the stored chunks of 256, filtered lists, a search with odd characters."""
    ids = [f"task-{i:03d}" for i in range(599)] + ['odd "quote" \\ 50%_Ünï']
    cand = {t: i % 3 != 0 for i, t in enumerate(ids)}
    base = {t: i % 4 != 0 for i, t in enumerate(ids)}
    first = _store(db, _artifact(tmp_path, "big1", 1, {t: i % 7 != 0 for i, t in enumerate(ids)}, base))
    second = _store(db, _artifact(tmp_path, "big2", 2, cand, base,
                                  splits={t: "heldout" for t in ids[::10]}))
    old = run_tasks(db, second)
    pages = [run_task_page(db, second, offset=o, limit=50) for o in range(0, 650, 50)]
    assert [t for p in pages for t in _ids(p)] == [r["task_id"] for r in old]
    assert _ids(run_task_page(db, second, offset=230, limit=60)) == [r["task_id"] for r in old[230:290]]
    for name, key in (("changed", "changed_vs_previous"), ("differs", "differs")):
        wanted = [r["task_id"] for r in old if r[key]]
        page = run_task_page(db, second, filter=name, offset=20, limit=300)
        assert _ids(page) == wanted[20:320] and page["total"] == len(wanted)
    failing = [r["task_id"] for r in old if not r["candidate"]["passed"]]
    assert run_task_page(db, second, filter="failing", limit=1000)["total"] == len(failing)
    assert _ids(run_task_page(db, second, filter="failing", limit=1000)) == failing
    heldout = [r["task_id"] for r in old if r["split"] == "heldout"]
    assert _ids(run_task_page(db, second, split="heldout", limit=100)) == heldout
    both = run_task_page(db, second, split="heldout", filter="failing", limit=100)
    assert _ids(both) == [t for t in failing if t in heldout] and both["total"] == len(both["rows"])
    for needle in ('"QUOTE" \\', "50%_", "ünï"):
        assert _ids(run_task_page(db, second, search=needle)) == [ids[-1]]
    assert run_task_page(db, second, search="TASK-12")["total"] == 10
    assert run_task(db, second, ids[-1])["task_id"] == ids[-1]
    assert run_task_counts(db, second)["previous_run"] == first


async def test_the_results_screen_pages_a_run_from_the_store(db, store_path, tmp_path):
    """The Results screen shows 50 tasks of a 120-task run at a time, Δ tasks first, and the counts in its head."""
    from gatepost.app import GatepostApp
    from gatepost.widgets.paged_list import PagedList

    ids = [f"task-{i:03d}" for i in range(120)]
    first = _store(db, _artifact(tmp_path, "r1", 1, {t: True for t in ids}, {t: True for t in ids}))
    second = _store(db, _artifact(tmp_path, "r2", 2, {t: i % 40 != 7 for i, t in enumerate(ids)},
                                  {t: True for t in ids}))
    expected = [r["task_id"] for r in run_tasks(db, second)]
    app = GatepostApp(store_path, person="dara")
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("3")
        await settle(pilot)
        app.screen.open_item(second)
        await settle(pilot)
        tasks = app.screen.query_one("#run-tasks", PagedList)
        assert tasks.keys == expected[:50] and tasks.keys[:3] == ["task-007", "task-047", "task-087"]
        assert "Showing 1–50 of 120" in str(tasks.query_one(".paged-status").render())
        head = str(app.screen.query_one("#run-head").render())
        assert f"vs previous run {first}" in head and "Δ 3 tasks changed (0 now pass, 3 now fail)" in head
        tasks.action_next_page()
        await settle(pilot)
        assert tasks.keys == expected[50:100]
        tasks.set_search("task-11")
        await settle(pilot)
        assert tasks.keys == [f"task-11{i}" for i in range(10)]
