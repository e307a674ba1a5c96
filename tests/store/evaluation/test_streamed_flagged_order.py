"""A streamed import whose per-task figures were kept writes its order with the flags computed by SQLite, a
batch of tasks at a time (task_order._write_streamed): the same pages as a whole import, also when a run's
second split first appears in a later batch, at a batch's first task or in its middle."""

from pathlib import Path

import pytest

from tests.store.evaluation.test_streamed_aligned_order import _artifact, _same_both_ways


@pytest.mark.parametrize("second_split_at", [0, 31, 32, 45, 99, None])
def test_a_second_split_in_a_later_batch_shows_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        second_split_at: int | None) -> None:
    monkeypatch.setattr("gatepost.store.evaluation.task_order.TASK_CHUNK", 4)  # batches of 32 tasks
    monkeypatch.setattr("gatepost.store.evaluation.task_pages.TASK_CHUNK", 4)
    paths = []
    for day in (1, 2):  # the second run has a previous run: changed tasks come first
        tasks = [(f"t-{i}", (i * day) % 3 != 0, i % 4 != 0,
                  "tuning" if second_split_at is None or i < second_split_at else ("heldout", None)[i % 2])
                 for i in range(100)]
        paths.append(_artifact(tmp_path / f"day{day}.json", day, tasks))
    _same_both_ways(tmp_path, monkeypatch, paths)
