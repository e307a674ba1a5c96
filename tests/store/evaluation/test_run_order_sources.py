"""Every review order is built one way (task_order._Order) from a run's tasks, read from the results in hand (a
whole import), from the results read back in id order (a streamed import, the run after one just stored), or, for
a run too large to hold, from a temporary table SQLite fills in order: whatever the artifact's shape (sides
aligned or not, either side first, repeated or missing tasks), the run shows exactly what the same artifact
imported whole shows."""

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import task_order
from tests.store.evaluation.test_streamed_order import _import_all, _seen

SPLITS = ("tuning", "heldout", None)


def _artifact(path: Path, day: int, tasks: list[tuple[str, bool, bool, str | None]], *, baseline_first: bool = False,
              baseline_tasks: list[str] | None = None) -> Path:
    """(task id, candidate passed, baseline passed, split) per task, both sides in this order; `baseline_tasks`
    gives the baseline's task ids in another order (or other ids)."""
    by_id = {t: (c, b, s) for t, c, b, s in tasks}

    def result(task: str, passed: bool, split: str | None) -> dict:
        out = {"task_id": task, "passed": passed, "score": 1.0 if passed else 0.0, "output": f"{task}: out"}
        if split is not None:
            out["split"] = split
        return out

    candidate = [result(t, c, s) for t, c, _, s in tasks]
    baseline = [result(t, *(by_id[t][1:] if t in by_id else (False, None))) for t in
                (baseline_tasks if baseline_tasks is not None else [t for t, *_ in tasks])]
    c = sum(r["passed"] for r in candidate) / len(candidate) if candidate else 0.0
    b = sum(r["passed"] for r in baseline) / len(baseline) if baseline else 0.0
    sides = [("candidate_results", candidate), ("baseline_results", baseline)]
    data = {"skill_id": "aligned-skill", "execution_pass_rate": c, "baseline_pass_rate": b, "delta": round(c - b, 4),
            "verdict": "pass" if round(c - b, 4) >= 0 else "fail", "started_at": f"2026-11-{day:02d}T09:00:00Z",
            **dict(sides[::-1] if baseline_first else sides)}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(params=["columns", "table"])
def read_back(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How a run's results read back are ordered: their columns held in memory, or (as a run over IN_MEMORY_ROWS
    is) the temporary table SQLite fills; a whole import's own run is ordered from the rows in hand either way."""
    if request.param == "table":
        monkeypatch.setattr(task_order, "IN_MEMORY_ROWS", 0)
    return str(request.param)


def _same_both_ways(folder: Path, monkeypatch: pytest.MonkeyPatch, paths: list[Path]) -> None:
    """test_streamed_order's comparison, but for the task results' row order: a whole import stores the candidate's
    results first, a streamed one in the file's order (the same tasks, in the same order on each side)."""
    whole = _import_all(folder / "whole.db", paths, monkeypatch, streamed=False)
    assert _import_all(folder / "streamed.db", paths, monkeypatch, streamed=True) == whole
    for run_id in whole:
        seen = [_seen(folder / name, run_id) for name in ("streamed.db", "whole.db")]
        for one in seen:
            one["results"] = sorted(one["results"], key=lambda row: row[0])  # each side in its order (stable sort)
        assert seen[0] == seen[1], run_id


def _tasks(n: int, seed: int) -> list[tuple[str, bool, bool, str | None]]:
    rng = random.Random(seed)
    ids = [f"t-{i}" for i in range(n)]
    rng.shuffle(ids)  # not in task-id order: the order is the file's
    return [(t, rng.random() < 0.6, rng.random() < 0.5, rng.choice(SPLITS)) for t in ids]


def test_aligned_runs_show_the_same_as_whole_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     read_back: str) -> None:
    """Three runs of one skill (so tasks change since the previous run), 600 tasks (several chunks), either side
    first in the file, the middle run imported last."""
    paths = [_artifact(tmp_path / f"day{day}.json", day, _tasks(600, seed), baseline_first=day == 3)
             for day, seed in ((1, 1), (5, 2), (3, 3))]
    _same_both_ways(tmp_path, monkeypatch, paths)


@pytest.mark.parametrize("shape", ["swapped", "repeated", "missing", "extra", "one side"])
def test_other_shapes_show_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_back: str,
                                    shape: str) -> None:
    tasks = _tasks(300, 9)
    order = [t for t, *_ in tasks]
    if shape == "swapped":  # the same tasks, two of them in another order
        order[10], order[200] = order[200], order[10]
    elif shape == "repeated":  # one task twice on the baseline side: two attempts
        order = [*order[:-1], order[5]]
    elif shape == "missing":
        order = order[:-1]
    elif shape == "extra":
        order = [*order, "t-extra"]
    else:
        order = []
    _same_both_ways(tmp_path, monkeypatch, [_artifact(tmp_path / "run.json", 1, tasks, baseline_tasks=order)])


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs_=st.lists(st.tuples(st.lists(st.tuples(st.integers(0, 20), st.booleans(), st.booleans(),
                                                   st.sampled_from(["a", "b", "", None])), max_size=25),
                                st.booleans(), st.booleans()),
                      min_size=1, max_size=3))
def test_streamed_and_whole_imports_agree_on_any_aligned_runs(tmp_path_factory: pytest.TempPathFactory,
                                                             monkeypatch: pytest.MonkeyPatch, read_back: str,
                                                             runs_: list) -> None:
    """Small runs of unique tasks (a run's tasks may differ from the previous run's), either side first, or the
    baseline's first two tasks swapped: chunk for chunk the same order as the whole import.

    Not generated: a baseline listed first in another order than the candidate's. A whole import stores the
    candidate's results first and a streamed one the file's first side first, so "import order" differs there."""
    monkeypatch.setattr("gatepost.store.evaluation.task_order.TASK_CHUNK", 4)  # lists of many chunks
    monkeypatch.setattr("gatepost.store.evaluation.task_pages.TASK_CHUNK", 4)
    folder = tmp_path_factory.mktemp("runs")
    paths = []
    for day, (results, baseline_first, swap) in enumerate(runs_):
        tasks = list({f"t{t}": (f"t{t}", c, b, s) for t, c, b, s in results}.values())
        order = [t for t, *_ in tasks]
        if swap and len(order) > 1 and not baseline_first:  # (see the docstring)
            order[0], order[1] = order[1], order[0]
        paths.append(_artifact(folder / f"run{day}.json", day + 1, tasks, baseline_first=baseline_first,
                               baseline_tasks=order))
    if len({p.read_bytes() for p in paths}) < len(paths):
        return  # the same file twice is one run
    _same_both_ways(folder, monkeypatch, paths)


ODD_TEXT = ['q"uote', "back\\slash", "tab\tnew\nline", "\x01\x1f\x7f", "é ü 漢字", "🎉", "co:lon", "\u2028", "a/b"]


def test_task_ids_and_splits_of_any_text_show_the_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 read_back: str) -> None:
    """Task ids and splits with quotes, backslashes, control characters, non-ASCII text and ':' (read back through
    SQLite's temporary table or from the rows in hand): page for page and text for text the same, for a first run
    and for a run with a previous one."""
    monkeypatch.setattr("gatepost.store.evaluation.task_order.TASK_CHUNK", 4)
    monkeypatch.setattr("gatepost.store.evaluation.task_pages.TASK_CHUNK", 4)
    paths = []
    for day in (1, 2):
        tasks = [(f"{ODD_TEXT[i % len(ODD_TEXT)]}-{i}", (i * day) % 3 != 0, i % 4 != 0,
                  (*ODD_TEXT, None)[(i // 7) % (len(ODD_TEXT) + 1)]) for i in range(60)]
        paths.append(_artifact(tmp_path / f"day{day}.json", day, tasks))
    _same_both_ways(tmp_path, monkeypatch, paths)


@pytest.mark.parametrize("second_split_at", [0, 31, 32, 45, 99, None])
def test_a_second_split_in_a_later_batch_shows_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        read_back: str, second_split_at: int | None) -> None:
    """A run's tasks read a batch at a time (32 tasks with chunks of 4): the same pages when its second split first
    appears in a later batch, at a batch's first task or in its middle."""
    monkeypatch.setattr("gatepost.store.evaluation.task_order.TASK_CHUNK", 4)
    monkeypatch.setattr("gatepost.store.evaluation.task_pages.TASK_CHUNK", 4)
    paths = []
    for day in (1, 2):  # the second run has a previous run: changed tasks come first
        tasks = [(f"t-{i}", (i * day) % 3 != 0, i % 4 != 0,
                  "tuning" if second_split_at is None or i < second_split_at else ("heldout", None)[i % 2])
                 for i in range(100)]
        paths.append(_artifact(tmp_path / f"day{day}.json", day, tasks))
    _same_both_ways(tmp_path, monkeypatch, paths)
