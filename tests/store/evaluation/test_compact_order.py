"""A run's stored review order in its compact form: a chunk of the list "all" is its tasks' ids, their split once
and a character of flags per task; a list of positions that would hold every task is not stored (the run's counts
say so, and its pages are the run's own). Stores written before are converted when opened, and verify still names
a chunk edited by hand."""

import json
import sqlite3
from pathlib import Path

from gatepost.store.evaluation import import_artifact, run_task_counts, run_task_page, run_tasks
from gatepost.store.evaluation.task_order import TASK_CHUNK, chunk_items
from gatepost.store.kernel import open_store
from gatepost.store.schema import MIGRATIONS
from tests.conftest import run_gatepost


def _artifact(path: Path, day: int, candidate: dict[str, bool], baseline: dict[str, bool],
              splits: dict[str, str] | None = None) -> Path:
    def results(passes: dict[str, bool]) -> list[dict]:
        return [{"task_id": t, "passed": p, "score": 1.0 if p else 0.0, "output": f"{t} out",
                 "split": (splits or {}).get(t, "tuning")} for t, p in passes.items()]
    c = sum(candidate.values()) / len(candidate)
    b = sum(baseline.values()) / len(baseline) if baseline else 0.0
    path.write_text(json.dumps({
        "skill_id": "compact-skill", "execution_pass_rate": c, "baseline_pass_rate": b, "delta": round(c - b, 4),
        "verdict": "pass" if c >= b else "fail", "started_at": f"2026-11-{day:02d}T09:00:00Z",
        "candidate_results": results(candidate), "baseline_results": results(baseline)}), encoding="utf-8")
    return path


def _ids(page) -> list[str]:
    return [row["task_id"] for row in page["rows"]]


def _in_review_order(db, run_id: str, key: str | None = None) -> list[str]:
    return [r["task_id"] for r in run_tasks(db, run_id) if key is None or (r[key] if key != "failing"
                                                                           else not r["candidate"]["passed"])]


IDS = [f"task-{i:04d}" for i in range(600)]


def test_a_list_holding_every_task_is_paged_without_being_stored(db, tmp_path: Path):
    """No baseline: every task differs; every candidate fails: every task is failing. Neither list is stored, and
    their pages are the run's tasks at any offset, as the order lists them."""
    first, _ = import_artifact(db, _artifact(tmp_path / "a.json", 1, dict.fromkeys(IDS, False), {}))
    assert {row[0] for row in db.execute("SELECT DISTINCT list FROM run_task_pages WHERE run_id = ?", [first])} \
        == {"all"}
    counts = run_task_counts(db, first)
    assert counts["tasks"] == counts["differs"] == counts["failing"] == 600
    for name in ("differs", "failing"):
        for offset in (0, 240, 590, 600):
            page = run_task_page(db, first, filter=name, offset=offset, limit=50)
            assert _ids(page) == IDS[offset:offset + 50] and page["total"] == 600
    # the next run passes some: its failing list is stored (not every task), its differs list is not
    second, _ = import_artifact(db, _artifact(tmp_path / "b.json", 2, {t: i % 3 == 0 for i, t in enumerate(IDS)}, {}))
    lists = {row[0] for row in db.execute("SELECT DISTINCT list FROM run_task_pages WHERE run_id = ?", [second])}
    assert lists == {"all", "failing"}
    for name, key in (("differs", "differs"), ("failing", "failing"), ("changed", "changed_vs_previous")):
        wanted = _in_review_order(db, second, key)
        assert [t for o in range(0, 600, 70) for t in _ids(run_task_page(db, second, filter=name, offset=o,
                                                                          limit=70))] == wanted


def test_a_chunk_of_tasks_is_about_the_size_of_their_ids(db, tmp_path: Path):
    """The split once and a character of flags per task beside the ids (a list of [id, split, flags] per task was
    nearly twice the size): half the pages an import writes for its orders."""
    run_id, _ = import_artifact(db, _artifact(tmp_path / "a.json", 1, {t: i % 2 == 0 for i, t in enumerate(IDS)},
                                              {t: i % 3 == 0 for i, t in enumerate(IDS)}))
    chunks, size = db.execute("SELECT COUNT(*), SUM(length(entries)) FROM run_task_pages WHERE run_id = ?"
                              " AND list = 'all'", [run_id]).fetchone()
    assert chunks == 3
    assert size <= sum(len(json.dumps(t)) + 1 for t in IDS) + len(IDS) + 64 * chunks
    assert _ids(run_task_page(db, run_id, limit=600)) == _in_review_order(db, run_id)


def _old_form(store: Path) -> None:
    """The store as gatepost wrote it before the compact form: a chunk of "all" a list of [task_id, split, flags],
    every list of positions stored, the compact form's migration not yet run."""
    conn = sqlite3.connect(store)
    for run_id, chunk, entries in conn.execute("SELECT run_id, chunk, entries FROM run_task_pages WHERE list = 'all'"
                                               ).fetchall():
        old = json.dumps([list(item) for item in chunk_items("all", entries)], ensure_ascii=False,
                         separators=(",", ":"))
        conn.execute("UPDATE run_task_pages SET entries = ? WHERE run_id = ? AND list = 'all' AND chunk = ?",
                     [old, run_id, chunk])
    for run_id, tasks, *listed in conn.execute("SELECT run_id, SUM(tasks), SUM(failing), SUM(differs), SUM(flaky)"
                                               " FROM run_task_counts GROUP BY run_id").fetchall():
        for name, count in zip(("failing", "differs", "flaky"), listed, strict=True):
            if count == tasks:
                for number, start in enumerate(range(0, tasks, TASK_CHUNK)):
                    conn.execute("INSERT INTO run_task_pages VALUES (?, ?, ?, ?)", [
                        run_id, name, number, json.dumps(list(range(start, min(start + TASK_CHUNK, tasks))),
                                                         separators=(",", ":"))])
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm021_evaluation_compact_task_order'")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    conn.commit()
    conn.close()


def test_orders_stored_before_the_compact_form_are_written_in_it_when_the_store_is_opened(tmp_path: Path):
    store = tmp_path / "s.db"
    db = open_store(store)
    splits = {t: "heldout" for t in IDS[::7]}
    runs = [import_artifact(db, _artifact(tmp_path / f"{day}.json", day, {t: (i + day) % 3 != 0
                                                                          for i, t in enumerate(IDS)}, base, splits),
                            actor="ana")[0]
            for day, base in ((3, {t: i % 4 != 0 for i, t in enumerate(IDS)}), (1, {}), (2, {}))]
    pages = db.execute("SELECT * FROM run_task_pages ORDER BY 1, 2, 3").fetchall()
    shown = [run_task_page(db, run_id, filter=name, offset=offset, limit=100) for run_id in runs
             for name in (None, "failing", "differs", "changed") for offset in (0, 250)]
    assert {row[1] for row in pages} >= {"all", "failing", "differs", "split:heldout", "split:tuning"}
    db.close()
    _old_form(store)
    edited = runs[1]  # a chunk of the old form edited by hand: a task's flags changed
    with sqlite3.connect(store) as conn:
        text = conn.execute("SELECT entries FROM run_task_pages WHERE run_id = ? AND list = 'all' AND chunk = 1",
                            [edited]).fetchone()[0]
        items = json.loads(text)
        items[5][2] ^= 8
        conn.execute("UPDATE run_task_pages SET entries = ? WHERE run_id = ? AND list = 'all' AND chunk = 1",
                     [json.dumps(items, separators=(",", ":")), edited])
    db = open_store(store)
    after = db.execute("SELECT * FROM run_task_pages ORDER BY 1, 2, 3").fetchall()
    assert [row for row in after if row[0] != edited] == [row for row in pages if row[0] != edited]
    assert [(row[1], row[2]) for row in after] == [(row[1], row[2]) for row in pages]
    assert [run_task_page(db, run_id, filter=name, offset=offset, limit=100) for run_id in runs
            for name in (None, "failing", "differs", "changed") for offset in (0, 250)
            if run_id != edited] == [page for page, (run_id, _, _) in zip(shown, [
                (r, n, o) for r in runs for n in (None, "failing", "differs", "changed") for o in (0, 250)],
                strict=True) if run_id != edited]
    db.close()
    found = run_gatepost("--db", str(store), "verify")
    assert found.returncode == 1 and "Traceback" not in found.stderr
    findings = [line for line in found.stdout.splitlines() if "review order" in line]
    assert findings == [f"run {edited}: its stored review order is not what its task results give (run_task_pages);"
                        " rows were edited by hand"]
