"""A large artifact (streamed, issue 19) stores the same review order, counts and filters as the same artifact
imported whole: what a reviewer sees of a run does not depend on the size of its file."""

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import (
    get_run,
    import_artifact,
    run_task,
    run_task_counts,
    run_task_page,
    runs,
    task_order,
)
from gatepost.store.kernel import open_store

FILTERS = (None, "failing", "changed", "differs", "flaky")


def _write(path: Path, day: int, candidate: list[tuple[str, bool, str | None]],
           baseline: list[tuple[str, bool, str | None]]) -> Path:
    """An evaluator artifact (flat shape) from (task id, passed, split) results in file order; a task id given
    twice is two attempts."""
    def results(side: list[tuple[str, bool, str | None]]) -> list[dict]:
        out = []
        for task, passed, split in side:
            result = {"task_id": task, "passed": passed, "score": 1.0 if passed else 0.0, "output": f"{task} out"}
            if split is not None:
                result["split"] = split
            out.append(result)
        return out
    c = sum(p for _, p, _ in candidate) / len(candidate) if candidate else 0.0
    b = sum(p for _, p, _ in baseline) / len(baseline) if baseline else 0.0
    path.write_text(json.dumps({
        "skill_id": "stream-skill", "execution_pass_rate": c, "baseline_pass_rate": b, "delta": round(c - b, 4),
        "verdict": "pass" if round(c - b, 4) >= 0 else "fail", "started_at": f"2026-11-{day:02d}T09:00:00Z",
        "candidate_results": results(candidate), "baseline_results": results(baseline)}), encoding="utf-8")
    return path


def _import_all(store: Path, paths: list[Path], monkeypatch: pytest.MonkeyPatch, *, streamed: bool) -> list[str]:
    """Import every file into a fresh store, each whole or each streamed (as a file over 64 MiB is)."""
    with monkeypatch.context() as patch:
        if streamed:
            patch.setattr(runs, "MAX_FILE_BYTES", 0)  # every file takes the path of a file over the limit
        db = open_store(store)
        ids = []
        for path in paths:
            run_id, new = import_artifact(db, path, actor="ana")
            assert new
            ids.append(run_id)
        return ids


def _seen(store: Path, run_id: str) -> dict:
    """Everything the Results screen shows of a run: counts, every page of every filter and split, a search,
    one task's detail; and the stored order itself."""
    db = open_store(store)
    counts = run_task_counts(db, run_id)
    splits = [None, *sorted(counts["splits"]), "missing-split"]
    pages = {}
    for split in splits:
        for filter in FILTERS:
            offset, got = 0, []
            while True:
                page = run_task_page(db, run_id, filter=filter, split=split, offset=offset, limit=97)
                got.append(page)
                offset += 97
                if offset >= page["total"]:
                    break
            pages[(split, filter)] = got
    first = pages[(None, None)][0]["rows"]
    run = get_run(db, run_id, with_results=False)
    assert run is not None
    stored = {k: v for k, v in run.items() if k not in ("finished_at", "artifact")}
    artifact = {k: v for k, v in run["artifact"].items() if k != "finished_at"}
    return {"counts": counts, "pages": pages, "search": run_task_page(db, run_id, search="-1"),
            "one": run_task(db, run_id, first[-1]["task_id"]) if first else None, "run": stored,
            "artifact": artifact,
            "stored_pages": db.execute("SELECT list, chunk, entries FROM run_task_pages WHERE run_id = ?"
                                       " ORDER BY list, chunk", [run_id]).fetchall(),
            "stored_counts": db.execute("SELECT * FROM run_task_counts WHERE run_id = ? ORDER BY split",
                                        [run_id]).fetchall(),
            "results": db.execute("SELECT side, task_id, attempt, passed, judged, score, duration_ms, output, reason,"
                                  " mock, split, details, error FROM task_results WHERE run_id = ? ORDER BY id",
                                  [run_id]).fetchall()}


def _same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paths: list[Path]) -> list[str]:
    whole = _import_all(tmp_path / "whole.db", paths, monkeypatch, streamed=False)
    streamed = _import_all(tmp_path / "streamed.db", paths, monkeypatch, streamed=True)
    assert whole == streamed  # the run id is the file's hash either way
    for run_id in whole:
        assert _seen(tmp_path / "streamed.db", run_id) == _seen(tmp_path / "whole.db", run_id), run_id
    return whole


def _sides(n: int, seed: int, *, splits: tuple[str | None, ...]) -> tuple[list, list]:
    rng = random.Random(seed)
    candidate, baseline = [], []
    for i in range(n):
        split = splits[0] if i < n // 2 else rng.choice(splits)  # a second split appears half way, past a chunk
        for _ in range(1 + (i % 17 == 0)):  # some tasks have two attempts (flaky when they disagree)
            candidate.append((f"t-{i}", rng.random() < 0.6, split))
        baseline.append((f"t-{i}", rng.random() < 0.5, split))
    return candidate, baseline


@pytest.mark.slow
@pytest.mark.parametrize("in_memory_rows", [100_000, 0])
def test_a_streamed_import_shows_the_same_run_as_a_whole_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             in_memory_rows: int):
    """Three runs of one suite and skill (so tasks change since the previous run), 700 tasks each (several
    chunks of 256), tasks of several splits and none, the middle run imported last; a run read back held in
    memory, or (0) through SQLite's temporary table, as a run too large to hold is."""
    monkeypatch.setattr(task_order, "IN_MEMORY_ROWS", in_memory_rows)
    paths = []
    for day, seed in ((1, 1), (5, 2), (3, 3)):
        candidate, baseline = _sides(700, seed, splits=("tuning", "heldout", None))
        paths.append(_write(tmp_path / f"day{day}.json", day, candidate, baseline))
    ids = _same_both_ways(tmp_path, monkeypatch, paths)
    counts = run_task_counts(open_store(tmp_path / "streamed.db"), ids[1])
    assert counts["previous_run"] == ids[2] and counts["changed"] > 0 and counts["flaky"] > 0
    assert set(counts["splits"]) == {"tuning", "heldout", ""}
    lists = {row[0] for row in _seen(tmp_path / "streamed.db", ids[1])["stored_pages"]}
    assert {"all", "failing", "differs", "flaky", "split:tuning", "split:heldout", "split:"} <= lists


def test_a_streamed_run_of_one_split_stores_no_list_per_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    candidate, baseline = _sides(600, 7, splits=("tuning",))
    ids = _same_both_ways(tmp_path, monkeypatch, [_write(tmp_path / "one.json", 1, candidate, baseline)])
    lists = {row[0] for row in _seen(tmp_path / "streamed.db", ids[0])["stored_pages"]}
    assert lists == {"all", "failing", "differs", "flaky"}


@pytest.mark.slow
@pytest.mark.parametrize("in_memory_rows", [100_000, 0])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs_=st.lists(st.tuples(st.lists(st.tuples(st.integers(0, 12), st.booleans(),
                                                   st.sampled_from(["a", "b", "", None])), max_size=30),
                                st.lists(st.tuples(st.integers(0, 12), st.booleans(),
                                                   st.sampled_from(["a", "b", "", None])), max_size=30)),
                      min_size=1, max_size=3))
def test_streamed_and_whole_imports_agree_on_any_small_runs(tmp_path_factory: pytest.TempPathFactory,
                                                           monkeypatch: pytest.MonkeyPatch, in_memory_rows: int,
                                                           runs_: list) -> None:
    """Tasks on one side only, attempts disagreeing, tasks whose attempts name different splits, empty sides:
    the order built from the results read back (held, or through SQLite's temporary table) is the one built
    from the rows in hand, chunk for chunk."""
    monkeypatch.setattr(task_order, "IN_MEMORY_ROWS", in_memory_rows)
    monkeypatch.setattr("gatepost.store.evaluation.task_order.TASK_CHUNK", 4)  # lists of many chunks
    monkeypatch.setattr("gatepost.store.evaluation.task_pages.TASK_CHUNK", 4)
    folder = tmp_path_factory.mktemp("runs")
    paths = [_write(folder / f"run{day}.json", day + 1, [(f"t{t}", p, s) for t, p, s in candidate],
                    [(f"t{t}", p, s) for t, p, s in baseline])
             for day, (candidate, baseline) in enumerate(runs_)]
    if len({p.read_bytes() for p in paths}) < len(paths):
        return  # the same file twice is one run
    _same_both_ways(folder, monkeypatch, paths)
