"""The baseline cache is trusted only if it is ours (issue 12 item 10): an entry carries a MAC keyed by
a secret the store holds; a foreign, altered, future-dated or malformed entry is a miss (with a
warning), never a traceback and never a baseline someone else chose."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gatepost.store.evaluation import CommandExecutor, RunSettings, evaluate, load_suite
from gatepost.store.kernel import open_store
from tests.evaluator_helpers import contains_task, executor, write_suite


@pytest.fixture
def suite(tmp_path: Path):
    return load_suite(write_suite(tmp_path / "suite", [contains_task("t-a", "word?", ["alpha"]),
                                                       contains_task("t-b", "word?", ["bravo"])]))


def _run(db, suite, cache: Path, **extra):
    return evaluate(db, suite, candidate_text="alpha", baseline_text="alpha bravo",
                    settings=RunSettings(executor=CommandExecutor(executor("follow")), cache_dir=cache), **extra)


def test_an_entry_edited_by_hand_is_not_trusted(db, suite, tmp_path: Path):
    cache = tmp_path / "cache"
    assert _run(db, suite, cache)["baseline_pass_rate"] == 1.0
    entry = next(cache.iterdir())
    data = json.loads(entry.read_text())
    for result in data["results"]:
        result["passed"] = False  # someone makes the baseline look worse, so any candidate "improves"
    entry.write_text(json.dumps(data))
    again = _run(db, suite, cache)
    assert again["baseline_cache"]["hit"] is False and again["baseline_pass_rate"] == 1.0
    assert any("not written by this store" in w for w in again["warnings"])


def test_an_entry_written_by_another_store_is_not_trusted(db, suite, tmp_path: Path):
    cache = tmp_path / "cache"
    other = open_store(tmp_path / "other.db")
    assert _run(other, suite, cache)["baseline_cache"]["hit"] is False
    assert _run(other, suite, cache)["baseline_cache"]["hit"] is True  # its own entry: trusted
    mine = _run(db, suite, cache)
    assert mine["baseline_cache"]["hit"] is False
    assert any("not written by this store" in w for w in mine["warnings"])
    other.close()


def test_an_entry_dated_in_the_future_is_a_miss(db, suite, tmp_path: Path):
    cache = tmp_path / "cache"
    ahead = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    _run(db, suite, cache, at=ahead)
    now = _run(db, suite, cache)
    assert now["baseline_cache"]["hit"] is False
    assert any("dated in the future" in w for w in now["warnings"])


@pytest.mark.slow
@pytest.mark.parametrize("change", [
    {"created_at": []}, {"created_at": None}, {"results": "all passed"}, {"mac": 7}, {"created_at": "yesterday"},
    {"created_at": "2026-01-01T00:00:00"},
])
def test_a_malformed_entry_is_a_miss_with_a_warning(db, suite, tmp_path: Path, change):
    cache = tmp_path / "cache"
    _run(db, suite, cache)
    entry = next(cache.iterdir())
    data = json.loads(entry.read_text())
    data.update(change)
    entry.write_text(json.dumps(data))
    again = _run(db, suite, cache)
    assert again["baseline_cache"]["hit"] is False and again["baseline_pass_rate"] == 1.0
    assert any(entry.name in w for w in again["warnings"])
    data.pop("results", None)
    entry.write_text(json.dumps(data))
    assert _run(db, suite, cache)["baseline_cache"]["hit"] is False
