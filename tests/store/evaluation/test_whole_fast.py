"""A file read whole has its results arrays decoded by the typed decoder a window at a time and must come out
exactly as reading every result value by value makes it: the same shape, numbers, rows and mock flag, every
refusal in the same words, whatever the shape, the key order, a '}]' inside a string or a result it cannot
vouch for."""

import json
from dataclasses import asdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import artifacts, import_artifact, parse_artifact, runs
from gatepost.store.kernel import InputError, open_store, records_digest
from tests.store.evaluation.test_fast_results import result_texts, valid

FLAT = {"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0, "verdict": "pass"}
PIPELINE = {"evaluation": {"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0, "verdict": "pass"}}
# mostly results any reading accepts, some it may refuse or the typed decoder cannot vouch for
ANY_RESULT = st.one_of(valid.map(json.dumps), valid.map(lambda item: json.dumps(item, ensure_ascii=False)),
                       result_texts())
STANDALONE = {"evaluation": {"pass_rate": 0.0, "total_tasks": 0, "passed": 0, "failed": 0, "verdict": "fail"}}


def _outcome(text: str) -> tuple[str, object]:
    try:
        parsed = parse_artifact(text, name="a.json")
    except InputError as exc:
        return "refused", str(exc)
    record = asdict(parsed)
    record["data"] = {k: v for k, v in parsed.data.items() if k not in artifacts.RESULT_KEYS}
    return "read", record


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple[str, object], tuple[str, object]]:
    fast = _outcome(text)
    with monkeypatch.context() as patched:
        patched.setattr(artifacts, "decode_window", lambda *args: None)  # every result value by value
        strict = _outcome(text)
    return fast, strict


@st.composite
def artifact_texts(draw) -> str:
    head = dict(draw(st.sampled_from([FLAT, PIPELINE, STANDALONE])))
    # the arrays its shape reads, now and then one it does not (refused)
    keys = ["task_results"] if head is STANDALONE or "pass_rate" in head.get("evaluation", {}) else \
        ["candidate_results", "baseline_results"]
    if draw(st.integers(0, 9)) == 0:
        keys.append(draw(st.sampled_from(artifacts.RESULT_KEYS)))
    arrays = {key: draw(st.lists(ANY_RESULT, max_size=8))
              for key in draw(st.lists(st.sampled_from(keys), unique=True, max_size=3))}
    if "evaluation" in head and "task_results" in arrays and "pass_rate" in head["evaluation"]:
        items = [json.loads(t) for t in arrays["task_results"] if _plain(t)]
        if len(items) == len(arrays["task_results"]):  # counts that agree, so the file is read
            passed = sum(1 for i in items if i.get("passed") is True)
            head["evaluation"] = {**head["evaluation"], "total_tasks": len(items), "passed": passed,
                                  "failed": len(items) - passed, "pass_rate": passed / len(items) if items else 0.0,
                                  "verdict": "pass" if items and passed / len(items) >= artifacts.STANDALONE_PASS
                                  else "fail"}
    members = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    members += [f'{json.dumps(k)}: [{", ".join(v)}]' for k, v in arrays.items()]
    if draw(st.booleans()):
        members.append('"note": "a }] and a } ] inside a string"')
    if draw(st.booleans()):
        members.append('"baseline_results": null' if "baseline_results" not in arrays else '"mock": true')
    order = draw(st.permutations(members))
    return "{" + draw(st.sampled_from([",", ", ", ",\n  "])).join(order) + "}"


def _plain(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(artifact_texts())
def test_a_whole_file_reads_as_the_strict_reading_reads_it(text: str):
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, strict = _both(text, monkeypatch)
    assert fast == strict


def test_a_closing_bracket_inside_an_output_does_not_end_the_results(monkeypatch: pytest.MonkeyPatch):
    results = [{"task_id": f"t{i}", "passed": True, "output": "x = [{'a': 1}]" if i % 2 else "}]"}
               for i in range(6)]
    text = json.dumps({**FLAT, "candidate_results": results, "baseline_results": []})
    fast, strict = _both(text, monkeypatch)
    assert fast == strict and fast[0] == "read"
    assert [row[6] for row in fast[1]["rows"]] == [r["output"] for r in results]  # type: ignore[index]


@pytest.mark.parametrize("streamed_above", [0, None], ids=["streamed", "whole"])
@pytest.mark.parametrize("stray, head", [("task_results", FLAT), ("candidate_results", STANDALONE)])
def test_results_the_shape_does_not_read_are_refused_from_a_large_file_and_a_small_one(
        tmp_path, monkeypatch: pytest.MonkeyPatch, streamed_above: int | None, stray: str, head: dict):
    """A large file's results are stored as they stream, before its shape is known: an array its shape
    does not read was stored from a large file and dropped from a small one. Now both refuse it."""
    if streamed_above is not None:
        monkeypatch.setattr(runs, "MAX_FILE_BYTES", streamed_above)
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({**head, stray: [{"task_id": "stray", "passed": False}]}))
    db = open_store(tmp_path / "s.db")
    with pytest.raises(InputError, match=f"{stray}: not read in a .* artifact, whose results are"):
        import_artifact(db, path, actor="ana")
    assert db.execute("SELECT COUNT(*) FROM task_results").fetchone()[0] == 0


def test_plain_results_are_read_by_the_typed_decoder():
    """The common case goes the fast way (else the ingest figures would measure the strict reading)."""
    results = [{"task_id": f"t{i}", "passed": i % 2 == 0, "score": 1.0, "duration_ms": 3, "output": "a: b"}
               for i in range(50)]
    text = json.dumps({**FLAT, "candidate_results": results, "baseline_results": results[:3]})
    decoded: list[int] = []
    decode = artifacts.decode_window

    def counted(*args):
        window = decode(*args)
        decoded.append(len(window[0]) if window is not None else 0)
        return window

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(artifacts, "decode_window", counted)
        parsed = parse_artifact(text, name="a.json")
    assert decoded == [50, 3]  # each array whole, in one window
    assert len(parsed.rows) == 53 and parsed.rows[50][0] == "baseline"


def _stored(path, db) -> tuple[str, object]:
    try:
        run_id, _ = import_artifact(db, path, actor="ana")
    except InputError as exc:
        return "refused", str(exc)
    rows = db.execute("SELECT side, task_id, attempt, passed, judged, score, duration_ms, output, reason, mock, split,"
                      " details, error FROM task_results WHERE run_id = ? ORDER BY id", [run_id]).fetchall()
    seq, payload = db.execute("SELECT seq, payload FROM events WHERE kind = 'suite.run' AND subject_id = ?",
                              [run_id]).fetchone()
    return "stored", (rows, json.loads(payload)["records_sha256"], records_digest(db, seq))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(artifact_texts())
def test_a_file_stores_the_rows_it_reads_as_and_seals_them_as_stored(tmp_path_factory, text: str):
    """An import stores a file's rows as parse_artifact reads them (attempt 1; scores as REAL), both when the typed
    decoder reads its results and value by value, and its event seals what a read of the store hashes."""
    folder = tmp_path_factory.mktemp("whole")
    path = folder / "a.json"
    path.write_text(text, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patched:
        stored = [_stored(path, open_store(folder / "fast.db"))]
        patched.setattr(artifacts, "decode_window", lambda *args: None)
        stored.append(_stored(path, open_store(folder / "strict.db")))
    assert stored[0] == stored[1]
    try:
        parsed = parse_artifact(text, name="a.json")
    except InputError:
        assert stored[0][0] == "refused"
        return
    rows, sealed, digest = stored[0][1]  # type: ignore[misc]
    assert rows == [(side, task, 1, passed, judged, None if score is None else float(score), *rest)
                    for side, task, passed, judged, score, *rest in parsed.rows]
    assert sealed == digest


@pytest.mark.parametrize("score", [10**400, -(10**309)])
def test_a_score_no_real_can_hold_is_refused_naming_it(tmp_path, score: int):
    """A whole number past the largest REAL was read and then failed to be stored (a traceback); it is bad input."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps({**FLAT, "candidate_results": [{"task_id": "t", "passed": True, "score": 1},
                                                              {"task_id": "u", "passed": False, "score": score}]}))
    db = open_store(tmp_path / "s.db")
    with pytest.raises(InputError, match=r"big.json: candidate_results\[1\].score: expected a number or null"):
        import_artifact(db, path, actor="ana")
    assert db.execute("SELECT COUNT(*) FROM task_results").fetchone()[0] == 0
