"""Many artifact files imported at once: what is stored, in what order, and every error are what importing
them one at a time gives; the first bad file stops the import with the files before it stored; the digest a
file's rows were hashed to when it was read is the one its event seals, whatever ids the rows get."""

import json
from pathlib import Path

import pytest

from gatepost.store.evaluation import import_artifact, import_artifacts, runs, task_order
from gatepost.store.kernel import InputError, open_store
from gatepost.store.views import verify_store


def _files(folder: Path, n: int, per: int = 50) -> list[Path]:
    paths = []
    for f in range(n):
        results = [{"task_id": f"t{i}", "passed": (f + i) % 3 != 0, "score": i / per, "duration_ms": i,
                    "output": f"file {f} task {i}: ok", "split": "tuning"} for i in range(per)]
        rate = round(sum(r["passed"] for r in results) / per, 4)
        path = folder / f"a{f:03d}.json"
        path.write_text(json.dumps({"skill_id": f"skill-{f % 3}", "execution_pass_rate": rate,
                                    "baseline_pass_rate": 0.5, "delta": round(rate - 0.5, 4),
                                    "verdict": "pass" if rate >= 0.5 else "fail", "candidate_results": results,
                                    "baseline_results": results[: per // 2]}), encoding="utf-8")
        paths.append(path)
    return paths


def _stored(store: Path) -> tuple[list, list]:
    """The runs (without the import's own time and path) and every task result, in store order."""
    db = open_store(store)
    runs = [(r[0], r[1], r[2], r[3]) for r in db.execute(
        "SELECT id, skill_id, verdict, execution_pass_rate FROM evaluation_runs ORDER BY event_seq")]
    tasks = db.execute("SELECT id, run_id, side, task_id, passed, score, output FROM task_results ORDER BY id").fetchall()
    db.close()
    return runs, tasks


def test_many_files_store_what_one_at_a_time_stores(tmp_path: Path):
    files = _files(tmp_path, 12)
    one = open_store(tmp_path / "one.db")
    for path in files:
        import_artifact(one, path, actor="ci")
    one.close()
    many = open_store(tmp_path / "many.db")
    done = list(import_artifacts(many, [*files, files[0]], actor="ci"))
    assert [d[0] for d in done] == [*files, files[0]]  # in the order given
    assert [d[2] for d in done] == [True] * 12 + [False]  # the same bytes twice: stored once
    assert verify_store(many).findings == []
    many.close()
    assert _stored(tmp_path / "many.db") == _stored(tmp_path / "one.db")


def test_the_first_bad_file_stops_the_import_with_the_files_before_it_stored(tmp_path: Path):
    files = _files(tmp_path, 8)
    bad = tmp_path / "bad.json"
    bad.write_text('{"execution_pass_rate": 1.0, "candidate_results": [}', encoding="utf-8")
    db = open_store(tmp_path / "s.db")
    stored = []
    with pytest.raises(InputError, match=r"^bad\.json: not valid JSON"):
        for path, _run, _new in import_artifacts(db, [*files[:5], bad, *files[5:]], actor="ci"):
            stored.append(path)
    assert stored == files[:5]
    assert db.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0] == 5
    db.close()


def _results_by_run(db) -> dict[str, list[tuple]]:
    """Each run's task results in id order, without their ids (what a person reads)."""
    out: dict[str, list[tuple]] = {}
    for row in db.execute("SELECT run_id, side, task_id, passed, score, output FROM task_results ORDER BY id"):
        out.setdefault(row[0], []).append(row[1:])
    return out


def test_files_stored_before_keep_the_ids_dense(tmp_path: Path):
    files = _files(tmp_path, 40)
    alone = open_store(tmp_path / "alone.db")
    for path in files:
        import_artifact(alone, path, actor="ci")
    db = open_store(tmp_path / "s.db")
    for path in files[3:6]:
        import_artifact(db, path, actor="ci")
    done = list(import_artifacts(db, files, actor="ci"))
    assert [new for _path, _run, new in done] == [True] * 3 + [False] * 3 + [True] * 34
    assert verify_store(db).findings == []  # every seal holds
    assert _results_by_run(db) == _results_by_run(alone)
    ids = [r[0] for r in db.execute("SELECT id FROM task_results ORDER BY id")]
    assert ids == list(range(1, len(ids) + 1))  # no gap where the files stored before were
    db.close()
    alone.close()


def test_a_file_read_before_it_is_stored_seals_what_the_store_seals_whatever_ids_its_rows_get(tmp_path: Path):
    """Reading a file needs no store: the digest its rows were hashed to is the one the run's event seals, in a
    store that already holds other task results (so the rows get other ids than in an empty one)."""
    read = [runs.read_artifact_file(path) for path in _files(tmp_path, 3, per=10)]
    (tmp_path / "other").mkdir()
    db = open_store(tmp_path / "s.db")
    import_artifact(db, _files(tmp_path / "other", 1, per=7)[0], actor="ci")
    for one in reversed(read):
        run_id, new = runs.store_artifact_file(db, one, actor="ci")
        payload = db.execute("SELECT e.payload FROM events e JOIN evaluation_runs r ON r.event_seq = e.seq"
                             " WHERE r.id = ?", [run_id]).fetchone()[0]
        assert new and one.digest is not None and json.loads(payload)["records_sha256"] == one.digest
    assert verify_store(db).findings == []
    db.close()


def test_results_another_writer_stores_meanwhile_take_the_ids_first(tmp_path: Path):
    files = _files(tmp_path, 8)
    (tmp_path / "other").mkdir()
    other_file = _files(tmp_path / "other", 1, per=30)[0]
    db = open_store(tmp_path / "s.db")
    imports = import_artifacts(db, files, actor="ci")
    first = next(imports)
    other = open_store(tmp_path / "s.db")  # another process's connection: its run takes the next ids
    import_artifact(other, other_file, actor="ci")
    other.close()
    done = [first, *imports]
    assert [path for path, _run, _new in done] == files
    assert verify_store(db).findings == []
    counted = db.execute("SELECT run_id, COUNT(*), MIN(id), MAX(id) FROM task_results GROUP BY run_id").fetchall()
    assert len(counted) == 9 and all(high - low + 1 == n for _run, n, low, high in counted)  # each run's ids in a row
    db.close()


def _dated_files(folder: Path, days: list[int], per: int = 30) -> list[Path]:
    """Files of one skill started on these days (out of order: a run lands before one already stored), each with a
    baseline side, two splits and its own passes, so each run's order differs from its neighbours'."""
    paths = []
    for f, day in enumerate(days):
        results = [{"task_id": f"t{i}", "passed": (f * 7 + i) % (3 + f % 2) != 0, "split": "a" if i % 4 else "b"}
                   for i in range(per)]
        baseline = [{"task_id": f"t{i}", "passed": i % 2 == 0} for i in range(0, per, 2)]
        rate = round(sum(r["passed"] for r in results) / per, 4)
        brate = round(sum(r["passed"] for r in baseline) / len(baseline), 4)
        path = folder / f"d{f:03d}.json"
        path.write_text(json.dumps({"skill_id": "skill", "execution_pass_rate": rate, "baseline_pass_rate": brate,
                                    "delta": round(rate - brate, 4), "verdict": "pass" if rate >= brate else "fail",
                                    "candidate_results": results, "baseline_results": baseline,
                                    "started_at": f"2026-05-{day:02d}T08:00:00Z"}), encoding="utf-8")
        paths.append(path)
    return paths


def _orders(store: Path) -> list[list[tuple]]:
    """Every run's stored review order, counts per split and statistics counts."""
    db = open_store(store)
    tables = [db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
              for table in ("run_task_pages", "run_task_counts", "run_task_figures")]
    db.close()
    return tables


DAYS = [9, 3, 12, 1, 7, 7, 15, 2, 11, 5]


@pytest.mark.parametrize("held_tasks", [None, 70])  # every run held, or at most two (the rest read back)
def test_many_files_store_the_orders_one_at_a_time_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          held_tasks: int | None):
    files = _dated_files(tmp_path, DAYS)
    one = open_store(tmp_path / "one.db")
    for path in files:
        import_artifact(one, path, actor="ci")
    one.close()
    if held_tasks is not None:
        monkeypatch.setattr(task_order, "HELD_TASKS", held_tasks)
    many = open_store(tmp_path / "many.db")
    assert all(new for _path, _run, new in import_artifacts(many, files, actor="ci"))
    assert verify_store(many).findings == []  # verify builds every order again from the stored results
    many.close()
    assert _orders(tmp_path / "many.db") == _orders(tmp_path / "one.db")


def test_an_import_of_many_files_orders_their_runs_without_reading_results_back(tmp_path: Path):
    """The runs an import stored are held: a run landing before one of them, and each run's previous run, are
    ordered from what the import read, not from task results read back."""
    files = _dated_files(tmp_path, DAYS)
    db = open_store(tmp_path / "s.db")
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    list(import_artifacts(db, files, actor="ci"))
    db.conn.set_trace_callback(None)
    assert any(s.lstrip().startswith("DELETE FROM run_task_pages") for s in statements)  # a following run rebuilt
    assert [s for s in statements if "FROM task_results" in s] == []
    assert verify_store(db).findings == []
    db.close()


def _plain_files(folder: Path, days: list[int], baseline: str, per: int = 40) -> list[Path]:
    """Files of one skill, out of date order, in an import's commonest shape: one split, each task once a side, a
    baseline side listing every task (`same`), none (`none`, an empty list) or some of them (`some`)."""
    paths = []
    for f, day in enumerate(days):
        results = [{"task_id": f"t{i}", "passed": (f * 5 + i) % (2 + f % 3) != 0, "split": "tuning"}
                   for i in range(per)]
        base = {"same": [{"task_id": f"t{i}", "passed": (i + f) % 3 == 0} for i in range(per)], "none": [],
                "some": [{"task_id": f"t{i}", "passed": True} for i in range(0, per, 3)]}[baseline]
        rate = round(sum(r["passed"] for r in results) / per, 4)
        brate = round(sum(r["passed"] for r in base) / len(base), 4) if base else 0.0
        path = folder / f"p{f:03d}.json"
        path.write_text(json.dumps({"skill_id": "skill", "execution_pass_rate": rate, "baseline_pass_rate": brate,
                                    "delta": round(rate - brate, 4), "verdict": "pass" if rate >= brate else "fail",
                                    "candidate_results": results, "baseline_results": base,
                                    "started_at": f"2026-05-{day:02d}T08:00:00Z"}), encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize("held_tasks", [None, 90])
@pytest.mark.parametrize("baseline", ["same", "none", "some"])
def test_orders_of_an_imports_commonest_shape_are_the_orders_every_shape_gets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, baseline: str, held_tasks: int | None):
    """A run of one split with each task once a side is ordered by each task's passes as one byte (task_order
    `_coded`); it stores what the order every other run gets (`_Held`) stores, for itself and for the run after it
    rebuilt when an older run lands later."""
    files = _plain_files(tmp_path, DAYS, baseline)
    if held_tasks is not None:
        monkeypatch.setattr(task_order, "HELD_TASKS", held_tasks)
    coded = open_store(tmp_path / "coded.db")
    calls: list[object] = []
    real = task_order._coded
    monkeypatch.setattr(task_order, "_coded", lambda *args: calls.append(args) or real(*args))
    list(import_artifacts(coded, files, actor="ci"))
    # every run of this shape (its own order and its following run's) went that way; the others none
    assert len(calls) >= len(files) if baseline != "some" else calls == []
    assert verify_store(coded).findings == []
    coded.close()
    monkeypatch.setattr(task_order, "_coded", lambda *args: None)
    general = open_store(tmp_path / "general.db")
    list(import_artifacts(general, files, actor="ci"))
    general.close()
    assert _orders(tmp_path / "coded.db") == _orders(tmp_path / "general.db")


def test_a_run_without_results_is_ordered_again_when_an_older_run_lands(tmp_path: Path):
    """A run of no task results is held like any other; when an older run of its skill is imported after it, its
    (empty) order is written again from what is held, and verify finds every order what its results give."""
    def artifact(name: str, day: int, results: list[dict]) -> Path:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"skill_id": "s", "execution_pass_rate": 0.0, "baseline_pass_rate": 0.0,
                                    "delta": 0.0, "verdict": "pass", "started_at": f"2026-05-{day:02d}T08:00:00Z",
                                    "candidate_results": results, "baseline_results": []}), encoding="utf-8")
        return path
    older = artifact("older", 1, [{"task_id": "t1", "passed": False}])
    db = open_store(tmp_path / "s.db")
    done = list(import_artifacts(db, [artifact("empty", 2, []), older], actor="ci"))
    assert [stored for _, _, stored in done] == [True, True]
    assert verify_store(db).findings == []
    db.close()
