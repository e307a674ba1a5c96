"""The typed fast decoder of large artifacts' results (issue 19 item 2) accepts exactly what the strict
value-by-value reader accepts, stores the same rows, and leaves every refusal and its one-line wording to
the strict reader: a key given twice, a wrong type, a non-finite number, nested values, extra keys."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import artifacts, parse_artifact, stream_artifact
from gatepost.store.evaluation.fast_results import decode_window
from gatepost.store.kernel import InputError

HEAD = '{"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0, "verdict": "pass", '

texts = st.text(alphabet=st.sampled_from(list('ab:},{[]" \\é\n\u2028')), max_size=12)
valid = st.fixed_dictionaries(
    {"task_id": texts.filter(bool), "passed": st.booleans()},
    optional={"score": st.one_of(st.none(), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False)),
              "duration_ms": st.one_of(st.integers(0, 10**6), st.floats(0, 1e6)),
              "output": st.one_of(st.none(), texts), "reason": st.one_of(st.none(), texts, st.integers(0, 3)),
              "split": st.one_of(st.none(), texts), "mock": st.one_of(st.booleans(), st.none(), st.just("yes")),
              "judged": st.booleans(), "details": st.one_of(st.none(), texts), "error": st.one_of(st.none(), texts)})


def _twice(item: dict, key: str, value: object) -> str:
    """The item's JSON text with `key` given a second time (a dict cannot hold that)."""
    text = json.dumps(item)
    return text[:-1] + f', {json.dumps(key)}: {json.dumps(value)}' + "}"


@st.composite
def result_texts(draw) -> str:
    item = draw(valid)
    kind = draw(st.sampled_from(["ok", "ok", "ok", "twice", "extra", "nested", "bad-type", "huge", "inf",
                                      "escaped"]))
    if kind == "twice":
        key = draw(st.sampled_from(["task_id", "passed", "score", "output", "mock", "judged", "other"]))
        return _twice(item, key, draw(st.sampled_from([True, False, "x:y", 1, None])))
    if kind == "extra":
        item[draw(st.sampled_from(["other", "attempt", "x:y"]))] = draw(st.sampled_from([1, "a:b", None]))
    elif kind == "nested":
        item[draw(st.sampled_from(["reason", "split", "mock", "judged"]))] = draw(
            st.sampled_from([{"a": 1}, [1, "b:c"], {"k": {"k": 2}}, []]))
    elif kind == "bad-type":
        field = draw(st.sampled_from(["task_id", "passed", "score", "duration_ms", "output", "details"]))
        item[field] = draw(st.sampled_from(["", "yes", 1, None, True, [1], {"a": 1}]))
    elif kind == "huge":
        return json.dumps(item)[:-1] + ', "score": ' + "9" * draw(st.sampled_from([19, 20, 400, 5000])) + "}"
    elif kind == "escaped":  # a ':' written as an escape, maybe as a key given twice
        key = draw(st.sampled_from(["details", "passed", "other"]))
        return json.dumps(item)[:-1] + f', "{key}": "a\\u003ab"' + "}"
    elif kind == "inf":
        return json.dumps(item)[:-1] + ', "duration_ms": 1e999}'
    return json.dumps(item, ensure_ascii=draw(st.booleans()))


def _read(path: Path, *, fast: bool, monkeypatch, chunk: int) -> tuple[str, object]:
    monkeypatch.setattr(artifacts, "STREAM_CHUNK", chunk)
    if not fast:
        monkeypatch.setattr(artifacts, "decode_window", lambda *args: None)
    rows: list = []
    try:
        parsed = stream_artifact(path, name=path.name, on_rows=rows.extend, batch=7)
    except InputError as exc:
        return "refused", str(exc)
    finally:
        monkeypatch.undo()
    return "read", (rows, parsed.mock)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(result_texts(), max_size=30), st.lists(result_texts(), max_size=5),
       st.sampled_from([16, 100, 1000, 1 << 20]), st.sampled_from([",", ", ", " ,\n "]))
def test_the_fast_decoder_reads_and_refuses_exactly_as_the_strict_reader(tmp_path_factory, monkeypatch, candidate,
                                                                       baseline, chunk, comma):
    path = tmp_path_factory.mktemp("fast") / "a.json"
    path.write_text(HEAD + f'"candidate_results": [{comma.join(candidate)}], '
                    f'"baseline_results": [{comma.join(baseline)}]}}', encoding="utf-8")
    fast = _read(path, fast=True, monkeypatch=monkeypatch, chunk=chunk)
    strict = _read(path, fast=False, monkeypatch=monkeypatch, chunk=chunk)
    assert fast == strict
    if fast[0] == "read":  # and what a small file's parser makes of the same text
        assert fast[1][0] == parse_artifact(path.read_text(encoding="utf-8"), name=path.name).rows


def test_a_key_given_twice_in_a_result_is_still_refused_in_one_line(tmp_path: Path):
    good = [{"task_id": f"t{i}", "passed": True, "output": "o:k"} for i in range(50)]
    items = [json.dumps(r) for r in good]
    items[31] = _twice(good[31], "passed", False)  # {"passed": true, ..., "passed": false}
    path = tmp_path / "twice.json"
    path.write_text(HEAD + f'"candidate_results": [{", ".join(items)}], "baseline_results": []}}')
    assert decode_window(", ".join(items), (), "candidate") is None  # the typed decoder leaves it to the strict one
    with pytest.raises(InputError, match="duplicate key 'passed'") as caught:
        stream_artifact(path, name=path.name, on_rows=lambda rows: None)
    assert "\n" not in str(caught.value)


def test_the_fast_decoder_reads_plain_results_itself():
    """The common case goes the fast way (else the speed figures would measure the strict reader)."""
    items = [json.dumps({"task_id": f"t{i}", "passed": i % 2 == 0, "score": 1.0, "duration_ms": 3,
                         "output": "answer: 42"}) for i in range(100)]
    decoded = decode_window(",".join(items), ("run-1",), "baseline")
    assert decoded is not None
    rows, passes, mock = decoded
    assert passes == 50 and not mock and len(rows) == 100
    assert rows[0] == ("run-1", "baseline", "t0", 1, 1, 1, 1.0, 3, "answer: 42", None, 0, None, None, None)
