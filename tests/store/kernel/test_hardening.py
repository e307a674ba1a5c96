"""Hardening at the edges (issue 13, items 3, 5, 6, 9): strict parsers, RE2 patterns, stdin as a file,
extreme dates and deep protocols, each refused as one line with exit 2 through the real CLI."""

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from gatepost.store.kernel import (
    MAX_INT_DIGITS,
    InputError,
    add_actor,
    open_store,
    parse_json,
    parse_toml,
    parse_yaml,
    read_stdin,
    read_text,
)
from gatepost.store.proposals import GateConfig, judge_answer
from gatepost.store.skills import parse_manifest, run_checks
from tests.conftest import FIXTURES, run_gatepost

PROTOCOL = Path(__file__).resolve().parents[3] / "store" / "protocol" / "protocols" / "eval-gated-change" / "1.yaml"
SAMPLE = FIXTURES / "reference" / "ai-memory" / "sample-proposal.json"


@pytest.fixture
def people(store_path: Path) -> Path:
    db = open_store(store_path)
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    db.close()
    return store_path


def gatepost(store: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return run_gatepost("--db", str(store), *args, **kw)


def one_line_error(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]


# --- item 6: strict parsers ------------------------------------------------------------------------------


@pytest.mark.parametrize("parse, text, words", [
    (parse_yaml, "a: 1\nb: 2\na: 3\n", "line 3, column 1: duplicate key 'a'"),
    (parse_yaml, "s:\n  forbidden_patterns: [x]\n  forbidden_patterns: [y]\n", "duplicate key 'forbidden_patterns'"),
    (parse_yaml, "x: " + "7" * (MAX_INT_DIGITS + 1) + "\n", "digit limit"),
    (parse_json, '{"passed": false, "reason": "bad", "passed": true}', "duplicate key 'passed'"),
    (parse_json, '{"a": {"b": 1, "b": 2}}', "duplicate key 'b'"),
    (parse_json, "9" * (MAX_INT_DIGITS + 1), "digit limit"),
    (parse_json, '{"n": -' + "9" * 10_000 + "}", "10,000 digits"),
    (parse_toml, "a = 1\na = 2\n", "Cannot overwrite a value"),
    (parse_toml, "[t]\nx = 1\n[t]\ny = 2\n", "Cannot declare"),
    (parse_toml, "n = " + "9" * (MAX_INT_DIGITS + 1) + "\n", "digit limit"),
])
def test_parsers_refuse_duplicate_keys_and_huge_integers_as_one_line(parse, text, words):
    with pytest.raises(InputError) as caught:
        parse(text, source="f.x")
    message = str(caught.value)
    assert message.startswith("f.x: not valid ") and words in message and "\n" not in message


def test_what_stays_valid_stays_valid():
    assert parse_yaml("base: &b {x: 1}\nc:\n  <<: *b\n  x: 2\n", source="f") == {"base": {"x": 1}, "c": {"x": 2}}
    assert parse_json('{"a": [{"k": 1}, {"k": 2}], "n": ' + "9" * MAX_INT_DIGITS + "}", source="f")["a"][1] == {"k": 2}
    assert parse_toml("[a]\nx = 1\n[b]\nx = 2\n", source="f") == {"a": {"x": 1}, "b": {"x": 2}}


def test_a_duplicate_passed_in_the_scorers_answer_fails_closed():
    outcome = judge_answer('{"passed": false, "reason": "bad", "passed": true}', GateConfig(enabled=True))
    assert outcome.status == "failed" and "invalid JSON" in outcome.reason


def test_gate_cli_with_a_scorer_repeating_passed_fails(tmp_path: Path, store_path: Path):
    scorer = tmp_path / "scorer.py"
    scorer.write_text('import sys\nsys.stdin.read()\nprint(\'{"passed": false, "reason": "bad", "passed": true}\')\n')
    config = tmp_path / "gate.toml"
    config.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{sys.executable} {scorer}"\n'
                      'targets = ["procedures"]\ntimeout_secs = 10\n')
    done = gatepost(store_path, "gate", "--config", str(config), "--proposal", str(SAMPLE), "--json")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["status"] == "failed"


def test_a_manifest_with_a_key_twice_is_refused_at_import(people: Path, tmp_path: Path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text("token-movers:\n  min_words: 10\n  forbidden_patterns: [a]\n  forbidden_patterns: [b]\n")
    one_line_error(gatepost(people, "manifest", "import", str(manifest), "--as", "bruno"),
                   "m.yaml", "line 4", "duplicate key 'forbidden_patterns'")


def test_a_proposal_with_a_key_twice_or_a_huge_integer_is_refused(tmp_path: Path, store_path: Path):
    text = SAMPLE.read_text()
    twice = tmp_path / "twice.json"
    twice.write_text(text.replace('"title":', '"title": "other", "title":', 1))
    one_line_error(gatepost(store_path, "proposal", "import", str(twice)), "twice.json", "duplicate key 'title'")
    huge = tmp_path / "huge.json"
    huge.write_text(text.replace('"confidence": 0.91', '"confidence": ' + "1" * 5000, 1))
    assert '"confidence": 111' in huge.read_text()
    one_line_error(gatepost(store_path, "proposal", "import", str(huge)), "huge.json", "digit limit")


def test_a_gate_config_with_a_huge_integer_is_one_line(tmp_path: Path, store_path: Path):
    config = tmp_path / "gate.toml"
    config.write_text('[auto_improve.eval]\nenabled = true\ncommand = "true"\ntimeout_secs = ' + "9" * 5000 + "\n")
    one_line_error(gatepost(store_path, "gate", "--config", str(config), "--proposal", str(SAMPLE)),
                   "gate.toml", "digit limit")


# --- item 3 (parse level): extreme dates, deep protocols ---------------------------------------------------


@pytest.mark.parametrize("at", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"])
def test_an_out_of_range_time_is_one_line(people: Path, tmp_path: Path, at: str):
    output = tmp_path / "out.md"
    output.write_text("some output\n")
    one_line_error(gatepost(people, "skills", "record", "token-movers", "--output", str(output), "--at", at,
                            "--as", "run-52"), "--at", "out of range")


def chained_protocol(path: Path, length: int) -> Path:
    doc = yaml.safe_load(PROTOCOL.read_text())
    first = next(iter(doc["claims"]))
    for i in range(length):
        nxt = f"chain.c{i + 1}" if i + 1 < length else first
        doc["claims"][f"chain.c{i}"] = {"description": "a link", "true_when": {"claim": nxt}}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_a_protocol_with_a_claim_chain_3000_long_is_one_line(tmp_path: Path):
    done = run_gatepost("protocol", "validate", str(chained_protocol(tmp_path / "deep.yaml", 3000)))
    one_line_error(done, "deep.yaml", "claims.chain.c0.true_when", "more than 200 deep")


def test_a_protocol_whose_explanation_explodes_is_refused(tmp_path: Path):
    doc = yaml.safe_load(PROTOCOL.read_text())
    first = next(iter(doc["claims"]))
    for i in range(40):  # each claim rests twice on the next: 2^40 nodes once expanded
        nxt = f"d.c{i + 1}" if i + 1 < 40 else first
        doc["claims"][f"d.c{i}"] = {"description": "d", "true_when": {"all": [{"claim": nxt}, {"claim": nxt}]}}
    path = tmp_path / "wide.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    one_line_error(run_gatepost("protocol", "validate", str(path)), "wide.yaml", "true_when", "at most 20,000")


def test_a_short_chain_still_loads(tmp_path: Path):
    done = run_gatepost("protocol", "validate", str(chained_protocol(tmp_path / "ok.yaml", 50)))
    assert done.returncode == 0, done.stderr


# --- item 5: linear-time user regexes --------------------------------------------------------------------


def test_a_catastrophic_pattern_evaluates_instantly_through_the_cli(people: Path, tmp_path: Path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text("token-movers:\n  output_pattern: '^(a+)+$'\n")
    assert gatepost(people, "manifest", "import", str(manifest), "--as", "bruno").returncode == 0
    output = tmp_path / "out.md"
    output.write_text("a" * 40 + "b")
    assert gatepost(people, "skills", "record", "token-movers", "--output", str(output), "--as", "run-52").returncode == 0
    started = time.monotonic()
    done = gatepost(people, "skills", "eval", "--json", "--as", "bruno", timeout=30)
    assert time.monotonic() - started < 10
    assert done.returncode == 0, done.stderr
    assert "no match for /^(a+)+$/" in done.stdout


def test_the_pattern_is_linear_time_in_process():
    started = time.monotonic()
    [result] = run_checks({"output_pattern": "^(a+)+$"}, "a" * 5000 + "b")
    assert not result.passed and time.monotonic() - started < 1


@pytest.mark.parametrize("pattern", [r"(a)\1", r"foo(?=bar)", r"(?<!x)y"])
def test_a_pattern_re2_cannot_run_is_refused_at_import_naming_the_field(people: Path, tmp_path: Path, pattern):
    manifest = tmp_path / "m.yaml"
    manifest.write_text(yaml.safe_dump({"token-movers": {"output_pattern": pattern}}))
    done = gatepost(people, "manifest", "import", str(manifest), "--as", "bruno")
    one_line_error(done, "m.yaml: token-movers: output_pattern: invalid regular expression", "RE2")
    assert "re2.cc" not in done.stderr  # RE2's own log line does not leak


def test_multiline_semantics_are_kept():
    manifest = parse_manifest("s:\n  output_pattern: '^# Title$'\n", source="m.yaml")
    [ok] = run_checks(manifest["s"], "intro\n# Title\nbody")
    assert ok.passed and "line 2" in ok.message


def test_a_stored_pattern_re2_refuses_fails_its_check_instead_of_crashing():
    [result] = run_checks({"output_pattern": r"(a)\1"}, "aa")
    assert not result.passed and "invalid regular expression" in result.message


# --- item 9: stdin is a file like any other --------------------------------------------------------------


class Endless(io.RawIOBase):
    """A stream that never ends, counting what was read from it."""

    def __init__(self, byte: bytes) -> None:
        self.byte, self.served = byte, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = 65536 if n is None or n < 0 else n
        self.served += n
        return self.byte * n


def test_stdin_is_streamed_and_stops_past_the_limit():
    endless = Endless(b"a")
    with pytest.raises(InputError, match=r"stdin: more than the 1,000-byte limit"):
        read_stdin(what="run output", max_bytes=1000, stream=endless)
    assert endless.served <= 1001
    with pytest.raises(InputError, match="NUL"):
        read_stdin(stream=Endless(b"\x00"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_stdin(stream=io.BytesIO(b"ok \xff"))
    assert read_stdin(stream=io.BytesIO("\ufeffhé".encode())) == "hé"


def test_a_file_and_stdin_give_the_same_answers(tmp_path: Path):
    path = tmp_path / "x.md"
    path.write_bytes(b"a\x00b")
    with pytest.raises(InputError, match="NUL"):
        read_text(path)
    path.write_bytes(b"x" * 2000)
    with pytest.raises(InputError, match="limit"):
        read_text(path, max_bytes=1000)


@pytest.mark.parametrize("source, words", [
    ("/dev/zero", "NUL"),
    ("yes", "64 MiB"),
])
def test_skills_record_from_endless_stdin_is_refused_quickly(people: Path, source: str, words: str):
    feeder = None
    if source == "yes":
        feeder = subprocess.Popen(["yes", "a long line of words"], stdout=subprocess.PIPE)
        stdin = feeder.stdout
    else:
        stdin = open(source, "rb")  # noqa: SIM115 - closed below
    try:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(people), "skills", "record",
                               "token-movers", "--output", "-", "--as", "run-52"], stdin=stdin,
                              capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - started
    finally:
        if feeder:
            feeder.kill()
            feeder.wait()
        stdin.close()
    words = "67,108,864-byte limit" if words == "64 MiB" else words
    one_line_error(done, "stdin", words)
    assert elapsed < 60
    db = open_store(people)
    assert db["skill_runs"].count == 0
    db.close()


def test_skills_record_reads_ordinary_stdin(people: Path):
    text = "Top movers in the last 24h\n- one\n"
    done = subprocess.run([sys.executable, "-m", "gatepost", "--db", str(people), "skills", "record", "token-movers",
                           "--output", "-", "--as", "run-52", "--run-id", "tm-stdin"], input=text,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    db = open_store(people)
    assert db["skill_runs"].get("tm-stdin")["output"] == text
    db.close()


def test_an_empty_manifest_is_refused(people: Path, tmp_path: Path):
    manifest = tmp_path / "m.yaml"
    manifest.write_text("{}\n")
    one_line_error(gatepost(people, "manifest", "import", str(manifest), "--as", "bruno"), "m.yaml", "empty manifest")


def test_a_case_file_with_a_key_twice_is_refused(store_path: Path, tmp_path: Path):
    text = (FIXTURES / "cases" / "case-0042.yaml").read_text()
    twice = tmp_path / "case.yaml"
    twice.write_text(text.replace("title: Release procedure adds smoke checks\n",
                                  "title: Release procedure adds smoke checks\ntitle: something else\n", 1))
    one_line_error(gatepost(store_path, "case", "import", str(twice)), "case.yaml", "duplicate key 'title'")


@pytest.mark.slow
@pytest.mark.parametrize("command", [["suite", "import-artifact"], ["state", "import"]])
def test_artifact_and_state_files_refuse_duplicates_and_huge_integers(people: Path, tmp_path: Path, command):
    twice = tmp_path / "twice.json"
    twice.write_text('{"format": "x", "format": "y"}')
    one_line_error(gatepost(people, *command, str(twice), "--as", "bruno"), "twice.json", "duplicate key 'format'")
    huge = tmp_path / "huge.json"
    huge.write_text('{"n": ' + "1" * 5000 + "}")
    one_line_error(gatepost(people, *command, str(huge), "--as", "bruno"), "huge.json", "digit limit")
