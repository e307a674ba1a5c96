"""The CLI's output layer: data never drives the terminal, and -o never writes over what is not ours."""

import gc
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from re import _parser as re_parser
from re._constants import LITERAL

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatepost import output, safe
from gatepost.cli import main
from gatepost.safe import inert
from gatepost.store import cases, skills
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor, open_store
from gatepost.store.proposals import import_proposal
from gatepost.store.skills import manifests
from tests.conftest import run_gatepost

# Every class of character that can drive a terminal or hide text.
PIECES = [
    "\x1b[31m", "\x1b[2J", "\x1b[H", "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]8;;http://evil.example\x1b\\",
    "\x1b]0;owned\x07", "\x1bP+q\x1b\\", "\x1b", "\x9b31m", "\x9b", "\x9d0;t\x9c", "\x85", "\x7f", "\x00",
    "\x07", "\x08", "\r", "\n", "\t", "\x0b", "\x0c", "\x1c",
    "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e",
    "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u2028",
    "a", "Z", "9", " ", "[bold]", "é", "✔", "valid", "{", '"',
]
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
                       "\u200b-\u200d\u2060\ufeff\u2028\u2029]")
hostile_text = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map(lambda p: "T" + "".join(p))


def _hostile_store(folder: Path, text: str) -> dict[str, str]:
    """A store whose every printable field holds `text`; returns ids and files to show."""
    db = open_store(folder / "store.db")
    add_actor(db, "ana", "person", PERSON_CAPABILITIES)
    name = "".join(text.split()) or "x"
    # Names with control, zero-width or bidi characters are refused today; a store written before that rule
    # (or edited by hand) may still hold one, and every command must still show it inert.
    db["actors"].insert({"name": "x" + name[:90], "kind": "producer", "created_at": "2026-11-01T00:00:00Z"})
    case_id = cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": "case-hostile", "title": text, "author": "run-41",
        "candidate": {"path": "procedures/release.md", "content": text,
                      "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12",
                                "design": "design-2"}},
        "independent": {"different_agent_run": ["run-52", "ana"]},
        "evidence": [{"kind": "guard_check", "result": "clean", "producer": "run-52", "about": "current"}],
    }, actor="ana")
    proposal_file = folder / "proposal.json"
    proposal_file.write_text(json.dumps({
        "path": "procedures/release.md", "kind": "procedure", "operation": "update", "edit_mode": "full_page",
        "title": text, "confidence": 0.9, "rationale": text,
        "before_body": "# Release\n", "after_body": f"# Release\n{text}\n"}))
    proposal_id, _ = import_proposal(db, proposal_file, actor="ana")
    manifests.import_manifest(db, "m.yaml", actor="ana", text=yaml.safe_dump(
        {"hostile-skill": {"min_words": 500, "forbidden_patterns": [re.escape(text)]}}))
    skills.record_run(db, "hostile-skill", f"# Report\n{text}\n" + "word " * 30, actor="ana",
                      run_id="h-1", at="2026-11-01T10:00:00Z")
    db.close()
    suite = folder / "suite.yaml"
    suite.write_text(yaml.safe_dump({"skill_id": "s", "version": "1.0", "tasks": [
        {"id": text, "prompt": text, "judge": {"type": "contains", "expected": [text]}},
        {"id": text, "prompt": "p", "judge": {"type": text}}]}), encoding="utf-8")
    return {"case": case_id, "proposal": proposal_id, "suite": str(suite)}


COMMANDS = [
    ("case", "list"), ("case", "list", "--json"), ("case", "show", "{case}"), ("case", "show", "{case}", "--json"),
    ("proposal", "list"), ("proposal", "list", "--json"), ("proposal", "show", "{proposal}"),
    ("proposal", "show", "{proposal}", "--json"), ("actors", "list"), ("actors", "list", "--json"),
    ("skills", "eval"), ("skills", "show"), ("skills", "show", "--json"),
    ("report", "case", "{case}"), ("report", "case", "{case}", "--format", "html"),
    ("report", "regressions"), ("report", "regressions", "--format", "html"), ("suite", "validate", "{suite}"),
    ("case", "show", "{case}\x1b]52;c;eA==\x07\u202e"), ("case", "decide", "{case}", "bogus\x9b2J"),
]


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile_text)
def test_no_raw_control_reaches_the_terminal(text):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        keys = _hostile_store(folder, text)
        runner = CliRunner()
        for command in COMMANDS:
            args = [part.format(**keys) for part in command]
            result = runner.invoke(main, ["--db", str(folder / "store.db"), *args], catch_exceptions=False)
            for stream, shown in (("stdout", result.stdout), ("stderr", result.stderr)):
                bad = FORBIDDEN.search(shown)
                assert bad is None, (command, stream, repr(bad.group()), shown[:400])
            if "--json" in command:
                json.loads(result.stdout)


def test_hostile_data_is_shown_visibly(tmp_path, store_path):
    text = "A\x1b]52;c;eA==\x07B\u202eC\u200bD\x9b2J\x1bc\x85Z"
    _hostile_store(tmp_path, text)
    runner = CliRunner()
    shown = runner.invoke(main, ["--db", str(tmp_path / "store.db"), "case", "list"]).stdout
    assert "AB<U+202E>C<U+200B>D\\x1bc\\x85Z" in shown
    data = runner.invoke(main, ["--db", str(tmp_path / "store.db"), "case", "list", "--json"]).stdout
    assert "\\u009b2J" in data and "\\u202e" in data and "\\u0085" in data
    assert json.loads(data)["cases"][0]["title"] == text


def test_a_newline_in_a_task_id_cannot_forge_a_valid_line(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"skill_id": "s", "version": "1.0", "tasks": [
        {"id": "x\nsuite.yaml: valid (skill s, 9 tasks)", "prompt": "p", "judge": {"type": "nope"}}]}))
    result = CliRunner().invoke(main, ["suite", "validate", str(suite)])
    assert result.exit_code == 2
    assert not any(line.startswith("suite.yaml: valid") for line in result.stderr.splitlines())
    assert "x\\nsuite.yaml: valid" in result.stderr


def test_inert_core_and_json():
    assert inert("a\x1b[2Jb\x9b31mc") == "abc" and inert("a\x1bc\x1b") == "a\\x1bc\\x1b"
    assert inert("a\x1b]52;c;eA==") == "a\\x1b]52;c;eA=="  # unterminated: shown, not swallowed
    assert inert("a\nb") == "a\nb" and inert("a\nb", one_line=True) == "a\\nb"
    assert inert("a\r\nb") == "a\nb" and inert("a\rb") == "a\\rb"
    assert inert("\u202eevil") == "<U+202E>evil" and inert("x\ufeff") == "x<U+FEFF>"
    assert output.json_text({"k": "\x9b\u2066"}) == '{\n  "k": "\\u009b\\u2066"\n}'


def _patterns_compiled(*argv: str) -> list[str]:
    """Which of the output layer's patterns a `gatepost` program compiled by its end."""
    code = ("import contextlib, io, sys\nfrom gatepost import cli, output, safe\n"
            f"sys.argv = ['gatepost', *{list(argv)!r}]\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        cli.run()\n    except SystemExit:\n        pass\n"
            "layer = {'_ESCAPES': safe._ESCAPES, '_UNSAFE': safe._UNSAFE, '_UNSAFE_ONE_LINE': safe._UNSAFE_ONE_LINE,\n"
            "         '_JSON_UNSAFE': output._JSON_UNSAFE}\n"
            "print(sorted(name for name, later in layer.items() if later._compiled is not None))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.replace("'", '"'))


def test_each_output_pattern_is_compiled_when_first_printed_through(tmp_path):
    """Each costs about 0.3 ms to compile: `--help` (click's own formatter) and printable text (`printable`) need
    none; a line with a control character the two a line goes through."""
    store = tmp_path / "s.db"
    assert run_gatepost("--db", str(store), "init").returncode == 0
    assert _patterns_compiled("--help") == []
    assert _patterns_compiled("--db", str(store), "case", "list") == []
    assert _patterns_compiled("--db", str(store), "case", "list", "--json") == []
    assert _patterns_compiled("--db", str(tmp_path / "x\x01y.db"), "case", "list") == ["_ESCAPES",
                                                                                      "_UNSAFE_ONE_LINE"]


def test_every_character_the_output_patterns_change_is_one_isprintable_refuses():
    """What lets printable text skip the patterns (`gatepost.safe.printable`): each character a pattern matches,
    over all of Unicode, is not printable, and every escape sequence removed whole starts with ESC or 8-bit CSI."""
    layer = {"_UNSAFE": safe._UNSAFE, "_UNSAFE_ONE_LINE": safe._UNSAFE_ONE_LINE, "_JSON_UNSAFE": output._JSON_UNSAFE}
    for name, later in layer.items():
        pattern = later.compiled()
        matched = [code for code in range(0x110000) if pattern.fullmatch(chr(code))]
        assert len(matched) > 60, name  # the class was read (a broken pattern would pass vacuously)
        assert not [hex(code) for code in matched if chr(code).isprintable()], name
    branches = re_parser.parse(safe._ESCAPES.source).data[0][1][1]  # as the compiler reads the pattern
    assert [branch.data[0] for branch in branches] == [(LITERAL, 0x1B)] * 4 + [(LITERAL, 0x9B)]
    assert not "\x1b".isprintable() and not "\x9b".isprintable()
    assert safe.printable("a\nb\tc ✔ é", keep="\n\t") and not safe.printable("a\nb")
    assert inert("ok ✔\nnext\tline") == "ok ✔\nnext\tline" and inert("a\u00a0b") == "a\u00a0b"


# -o / --output never writes over the store or a file that is not ours.

def _init(cli, store_path: Path) -> int:
    assert cli("init").exit_code == 0
    # init's connection, if a reference cycle holds it, is closed by the collector, and closing the last connection
    # checkpoints the WAL into the file: closed now, not in the middle of a test comparing the file's bytes
    gc.collect()
    return store_path.stat().st_size


def test_report_refuses_the_store_itself(cli, store_path):
    _init(cli, store_path)
    before = store_path.read_bytes()
    result = cli("report", "regressions", "-o", str(store_path))
    assert result.exit_code == 2 and "is the store itself" in result.stderr
    assert store_path.read_bytes() == before
    link = store_path.parent / "link.db"
    link.symlink_to(store_path)
    result = cli("report", "regressions", "-o", str(link), "--force")
    assert result.exit_code == 2 and "is the store itself" in result.stderr
    assert store_path.read_bytes() == before


def test_report_refuses_any_sqlite_file_even_with_force(cli, store_path, tmp_path):
    _init(cli, store_path)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    before = other.read_bytes()
    result = cli("report", "regressions", "--output", str(other), "--force")
    assert result.exit_code == 2 and "is a SQLite database" in result.stderr
    assert other.read_bytes() == before


def test_existing_file_needs_force_and_the_write_is_atomic(cli, store_path, tmp_path):
    _init(cli, store_path)
    target = tmp_path / "report.md"
    target.write_text("mine")
    result = cli("report", "regressions", "-o", str(target))
    assert result.exit_code == 2 and "already exists; add --force" in result.stderr
    assert target.read_text() == "mine"
    result = cli("report", "regressions", "-o", str(target), "--force")
    assert result.exit_code == 0, result.output
    assert target.read_text() != "mine"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp file left
    fresh = tmp_path / "new.md"
    assert cli("report", "regressions", "-o", str(fresh)).exit_code == 0 and fresh.exists()


def test_state_export_refuses_the_store_and_existing_files(cli, store_path, tmp_path):
    _init(cli, store_path)
    before = store_path.read_bytes()
    assert cli("state", "export", str(store_path), "--force").exit_code == 2
    assert store_path.read_bytes() == before
    target = tmp_path / "evals-state.json"
    target.write_text("{}")
    result = cli("state", "export", str(target))
    assert result.exit_code == 2 and "add --force" in result.stderr and target.read_text() == "{}"
    assert cli("state", "export", str(target), "--force").exit_code == 0
    assert "skills" in json.loads(target.read_text())


def test_suite_run_output_refuses_the_store_before_running(cli, store_path, tmp_path):
    from tests.evaluator_helpers import BASIC, GOOD_SKILL

    _init(cli, store_path)
    before = store_path.read_bytes()
    result = cli("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--mock",
                 "--output", str(store_path))
    assert result.exit_code == 2 and "is the store itself" in result.stderr
    assert store_path.read_bytes() == before
    existing = tmp_path / "artifact.json"
    existing.write_text("keep")
    result = cli("suite", "run", "--suite", str(BASIC), "--skill", str(GOOD_SKILL), "--mock",
                 "--output", str(existing))
    assert result.exit_code == 2 and existing.read_text() == "keep"


def test_stdin_is_a_file_like_any_other(cli, store_path):
    """NUL refused, text accepted; the size limit on an endless stdin is tests/store/kernel/test_hardening.py's."""
    _init(cli, store_path)
    cli("actors", "add", "run-52", "--kind", "producer", "--capability", "evidence.record")
    result = cli("skills", "record", "s", "--output", "-", "--as", "run-52", input="a\x00b")
    assert result.exit_code == 2 and "stdin: binary data (a NUL byte)" in result.stderr
    result = cli("skills", "record", "s", "--output", "-", "--as", "run-52", input="word " * 10)
    assert result.exit_code == 0, result.output


def test_report_to_a_real_terminal_pipe_is_inert(tmp_path):
    """Through a real subprocess: a report printed to stdout carries no raw escape."""
    _hostile_store(tmp_path, "T\x1b]0;owned\x07\u202eX")
    proc = run_gatepost("--db", str(tmp_path / "store.db"), "report", "case", "case-hostile")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout and "<U+202E>" in proc.stdout
    assert os.path.exists(tmp_path / "store.db")


HOSTILE = "T\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202eX\x9b31m\u200bY\x1bc\nforged line"


def test_foreign_programs_cannot_drive_the_terminal(cli, tmp_path):
    """The gate's scorer reason and an executor's output reach the terminal inert."""
    import sys

    from tests.evaluator_helpers import contains_task, write_suite
    from tests.store.proposals.test_gate import SAMPLE

    scorer = tmp_path / "scorer.py"
    scorer.write_text(f"import json, sys\nsys.stdin.read()\nprint(json.dumps({{'passed': False, 'reason': {HOSTILE!r}}}))\n")
    config = tmp_path / "gate.toml"
    config.write_text(f'[auto_improve.eval]\nenabled = true\ncommand = "{sys.executable} {scorer}"\n'
                      'targets = ["procedures"]\ntimeout_secs = 20\n')
    executor = tmp_path / "executor.py"
    executor.write_text(f"import sys\nsys.stdin.read()\nprint({HOSTILE!r})\nprint({HOSTILE!r}, file=sys.stderr)\n")
    suite = write_suite(tmp_path / "s", [contains_task("t1", "p", ["never"])])
    skill = tmp_path / "SKILL.md"
    skill.write_text("skill")
    runs = [
        cli("gate", "--config", str(config), "--proposal", str(SAMPLE)),
        cli("gate", "--config", str(config), "--proposal", str(SAMPLE), "--json"),
        cli("suite", "run", "--suite", str(suite), "--skill", str(skill), "--executor",
            f"{sys.executable} {executor}"),
        cli("proposal", "list"),
    ]
    for result in runs:
        for shown in (result.stdout, result.stderr):
            bad = FORBIDDEN.search(shown)
            assert bad is None, (repr(bad.group()), shown[:400])
    assert runs[0].exit_code == 1 and "<U+202E>X<U+200B>Y\\x1bc" in runs[0].stdout
    assert "\\u009b31m" in runs[1].stdout
