"""An import seals its task results with a digest hashed while inserting them, not read back (issue 19; a
streamed import of a large file and, since it cost a fifth of an import, a whole one too): it must be the
digest `gatepost verify` computes from the stored rows, whatever the values (scores SQLite turns into
floats, -0.0, long integers, text with NUL or any character, results the strict reader reads)."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import import_artifact, runs
from gatepost.store.kernel import open_store, records_digest
from gatepost.store.views import verify_store

texts = st.text(max_size=8).filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t))
results = st.fixed_dictionaries(
    {"task_id": texts.filter(bool), "passed": st.booleans()},
    optional={"score": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.just(-0.0), st.just(0),
                                 st.floats(allow_nan=False, allow_infinity=False)),
              "duration_ms": st.one_of(st.integers(0, 10**9), st.floats(0, 1e9)),
              "output": st.one_of(st.none(), texts), "reason": st.one_of(st.none(), texts),
              "split": st.one_of(st.none(), texts), "mock": st.booleans(), "judged": st.booleans(),
              "details": st.one_of(st.none(), texts), "error": st.one_of(st.none(), texts),
              "extra": st.integers()})  # a key the typed decoder does not name: that window goes the strict way


def _artifact(path: Path, candidate: list[dict], baseline: list[dict]) -> Path:
    path.write_text(json.dumps({"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0,
                                "verdict": "pass", "candidate_results": candidate, "baseline_results": baseline},
                               ensure_ascii=False), encoding="utf-8")
    return path


def _sealed_and_stored(store: Path, run_id: str) -> tuple[str, str | None]:
    db = open_store(store)
    seq, = db.execute("SELECT event_seq FROM evaluation_runs WHERE id = ?", [run_id]).fetchone()
    payload, = db.execute("SELECT payload FROM events WHERE seq = ?", [seq]).fetchone()
    return json.loads(payload)["records_sha256"], records_digest(db, seq)


# the size over which a file is streamed: 0 streams every file; the real limit reads these whole
PATHS = pytest.mark.parametrize("streamed_above", [0, runs.MAX_FILE_BYTES], ids=["streamed", "whole"])


@pytest.mark.slow
@PATHS
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(results, max_size=12), st.lists(results, max_size=6))
def test_the_digest_an_import_seals_is_the_one_verify_reads(tmp_path_factory, monkeypatch, streamed_above,
                                                            candidate, baseline):
    folder = tmp_path_factory.mktemp("seal")
    monkeypatch.setattr(runs, "MAX_FILE_BYTES", streamed_above)
    db = open_store(folder / "s.db")
    import_artifact(db, _artifact(folder / "first.json", [{"task_id": "x", "passed": True}], []), actor="ana")
    run_id, new = import_artifact(db, _artifact(folder / "a.json", candidate, baseline), actor="ana")
    assert new
    sealed, stored = _sealed_and_stored(folder / "s.db", run_id)
    assert sealed == stored or (stored is None and not candidate + baseline)


@PATHS
def test_an_import_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed_above: int):
    monkeypatch.setattr(runs, "MAX_FILE_BYTES", streamed_above)
    db = open_store(tmp_path / "s.db")
    cand = [{"task_id": f"t{i}\u0000é", "passed": i % 2 == 0, "score": [-0.0, 3, 2**62 + 1, 0.5, None][i % 5],
             "output": "a\u2028b"} for i in range(40)]
    run_id, _ = import_artifact(db, _artifact(tmp_path / "a.json", cand, cand[:7]), actor="ana")
    sealed, stored = _sealed_and_stored(tmp_path / "s.db", run_id)
    assert sealed == stored is not None
    report = verify_store(open_store(tmp_path / "s.db"))
    assert report.intact, report.findings
