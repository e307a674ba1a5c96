"""An import says how far it has read to whoever listens (`reporting_import`): a file read whole its rows once
stored; a large file, streamed, the bytes and rows read batch by batch, up to the whole file."""

import json
from pathlib import Path

from gatepost.store.evaluation import artifacts, import_artifact, reporting_import, stream_artifact


def write_artifact(path: Path, n: int) -> None:
    results = [{"task_id": f"t-{i}", "passed": i % 2 == 0, "score": 1.0, "duration_ms": 3, "output": "x" * 100}
               for i in range(n)]
    path.write_text(json.dumps({"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0,
                                "verdict": "pass", "candidate_results": results,
                                "baseline_results": [dict(r) for r in results]}), encoding="utf-8")


def test_a_file_read_whole_reports_its_rows(db, tmp_path: Path):
    path = tmp_path / "a.json"
    write_artifact(path, 300)
    heard: list[tuple[int | None, int]] = []
    with reporting_import(lambda read, rows: heard.append((read, rows))):
        import_artifact(db, path, actor="ana")
        import_artifact(db, path, actor="ana")  # stored before: its rows are still all read
    assert heard == [(None, 600), (None, 600)]
    import_artifact(db, tmp_path / "a.json", actor="ana")  # no one listening: nothing called, nothing fails
    assert len(heard) == 2


def test_a_streamed_file_reports_bytes_and_rows_as_it_reads(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(artifacts, "STREAM_CHUNK", 64 * 1024)  # read in windows of 64 KiB: a report for each
    path = tmp_path / "large.json"
    write_artifact(path, 2000)
    heard: list[tuple[int | None, int]] = []
    with reporting_import(lambda read, rows: heard.append((read, rows))):
        stream_artifact(path, name=path.name, on_rows=lambda rows: None, batch=250)
    assert len(heard) > 4
    assert [rows for _b, rows in heard] == sorted(rows for _b, rows in heard)  # rows only go up
    assert heard[-1] == (path.stat().st_size, 4000)  # the whole file, every row of both sides
    assert all(read is not None and 0 < read <= path.stat().st_size for read, _r in heard)
