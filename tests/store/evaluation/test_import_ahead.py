"""Many artifact files imported with a worker process reading them ahead (issue 19's ingest): what is stored,
in what order, and every error are what importing them one at a time gives; the first bad file stops the
import with the files before it stored; a worker that dies leaves this process to read the rest itself."""

import io
import json
import os
import pickle
import select
import signal
from pathlib import Path

import pytest

from gatepost.store.evaluation import import_artifact, import_artifacts, importing, runs
from gatepost.store.kernel import InputError, open_store
from gatepost.store.views import verify_store


@pytest.fixture
def ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read ahead whatever the files' size (a real import waits for 16 MiB before starting a worker), every
    file by the worker: the import waits for it to start (a real one reads files itself meanwhile)."""
    monkeypatch.setenv("GATEPOST_READ_AHEAD_BYTES", "0")
    monkeypatch.setattr(importing, "_cores", lambda: 2)
    ready = importing._ready

    def wait_until_ready(answers) -> bool:
        select.select([answers], [], [], 60)
        return ready(answers)

    monkeypatch.setattr(importing, "_ready", wait_until_ready)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many files the worker answered for, and how many the import read itself."""
    counts = {"worker": 0, "here": 0}
    answer, read_here = importing._answer, importing.read_artifact_file

    def counted_answer(answers):
        read = answer(answers)  # counted once answered whole
        counts["worker"] += 1
        return read

    def counted_read(path, **kwargs):
        counts["here"] += 1
        return read_here(path, **kwargs)

    monkeypatch.setattr(importing, "_answer", counted_answer)
    monkeypatch.setattr(importing, "read_artifact_file", counted_read)
    return counts


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


def _workers() -> list[int]:
    """The pids of this process's children that are import workers."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid() \
                    and b"serve_reads" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _stored(store: Path) -> tuple[list, list]:
    """The runs (without the import's own time and path) and every task result, in store order."""
    db = open_store(store)
    runs = [(r[0], r[1], r[2], r[3]) for r in db.execute(
        "SELECT id, skill_id, verdict, execution_pass_rate FROM evaluation_runs ORDER BY event_seq")]
    tasks = db.execute("SELECT id, run_id, side, task_id, passed, score, output FROM task_results ORDER BY id").fetchall()
    db.close()
    return runs, tasks


def test_files_read_ahead_store_what_one_at_a_time_stores(tmp_path: Path, ahead: None, counted: dict[str, int]):
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
    assert counted == {"worker": 13, "here": 0}  # the worker read every one


def test_files_are_read_here_until_the_worker_has_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          counted: dict[str, int]):
    monkeypatch.setenv("GATEPOST_READ_AHEAD_BYTES", "0")
    monkeypatch.setattr(importing, "_cores", lambda: 2)
    files = _files(tmp_path, 20, per=500)
    alone = open_store(tmp_path / "alone.db")
    for path in files:
        import_artifact(alone, path, actor="ci")
    alone.close()
    db = open_store(tmp_path / "s.db")
    assert [path for path, _run, _new in import_artifacts(db, files, actor="ci")] == files
    assert counted["here"] >= 1  # the first file at least: a worker takes tens of ms to start
    assert counted["here"] + counted["worker"] == 20  # each file read once, here or by the worker
    assert verify_store(db).findings == []
    db.close()
    assert _stored(tmp_path / "s.db") == _stored(tmp_path / "alone.db")


def test_the_first_bad_file_stops_the_import_with_the_files_before_it_stored(tmp_path: Path, ahead: None):
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
    assert not _workers()  # the worker is gone with the import (killed: it was reading the files after)
    db.close()


@pytest.mark.slow
def test_a_worker_that_dies_leaves_this_process_to_read_the_rest(tmp_path: Path, ahead: None,
                                                                 counted: dict[str, int]):
    files = _files(tmp_path, 8, per=3000)  # a pipe holds two answers: the worker waits, writing the third
    db = open_store(tmp_path / "s.db")
    imports = import_artifacts(db, files, actor="ci")
    stored = [next(imports)[0]]
    workers = _workers()
    assert len(workers) == 1 and counted == {"worker": 1, "here": 0}  # the files are read by a worker
    os.kill(workers[0], signal.SIGKILL)  # killed while it writes an answer
    stored += [path for path, _run, _new in imports]
    assert stored == files
    assert counted["here"] >= 1 and counted["here"] + counted["worker"] == 8  # what it had not answered, read here
    assert db.execute("SELECT COUNT(*) FROM evaluation_runs").fetchone()[0] == 8
    assert verify_store(db).findings == []
    assert not _workers()
    db.close()


def test_a_worker_that_cannot_start_leaves_this_process_to_read_every_file(tmp_path: Path, ahead: None,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          counted: dict[str, int]):
    files = _files(tmp_path, 5)
    monkeypatch.setattr(importing.sys, "executable", str(tmp_path / "no-such-python"))
    db = open_store(tmp_path / "s.db")
    assert [path for path, _run, new in import_artifacts(db, files, actor="ci") if new] == files
    assert counted == {"worker": 0, "here": 5}
    assert verify_store(db).findings == []
    db.close()


def test_read_ahead_is_off_when_asked_and_for_a_few_small_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    files = _files(tmp_path, 3)
    db = open_store(tmp_path / "s.db")
    for setting in ("off", ""):  # off; the default 16 MiB (three small files are read here)
        monkeypatch.setenv("GATEPOST_READ_AHEAD_BYTES", setting)
        for _ in import_artifacts(db, files, actor="ci"):
            assert not _workers()
    db.close()


def _results_by_run(db) -> dict[str, list[tuple]]:
    """Each run's task results in id order, without their ids (what a person reads)."""
    out: dict[str, list[tuple]] = {}
    for row in db.execute("SELECT run_id, side, task_id, passed, score, output FROM task_results ORDER BY id"):
        out.setdefault(row[0], []).append(row[1:])
    return out


def test_files_stored_before_keep_the_ids_dense(tmp_path: Path, ahead: None):
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


def test_the_worker_seals_what_the_store_seals_whatever_ids_the_rows_get(tmp_path: Path):
    """The worker knows nothing of the store: the digest it hashed is the one the run's event seals, in a store
    that already holds other task results (so the rows get other ids than in an empty one)."""
    files = _files(tmp_path, 3, per=10)
    asked = io.BytesIO()
    for path in files:
        pickle.dump(path, asked)
    asked.seek(0)
    answered = io.BytesIO()
    importing.serve_reads(asked, answered)
    answered.seek(0)
    assert pickle.load(answered) == ("ready", None)
    got = [pickle.load(answered) for _ in files]
    assert [kind for kind, _read in got] == ["read"] * 3
    (tmp_path / "other").mkdir()
    db = open_store(tmp_path / "s.db")
    import_artifact(db, _files(tmp_path / "other", 1, per=7)[0], actor="ci")
    for _kind, read in reversed(got):
        run_id, new = runs.store_artifact_file(db, read, actor="ci")
        payload = db.execute("SELECT e.payload FROM events e JOIN evaluation_runs r ON r.event_seq = e.seq"
                             " WHERE r.id = ?", [run_id]).fetchone()[0]
        assert new and json.loads(payload)["records_sha256"] == read.digest
    assert verify_store(db).findings == []
    db.close()


def test_results_another_writer_stores_meanwhile_take_the_ids_first(tmp_path: Path, ahead: None):
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
