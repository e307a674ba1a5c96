"""Long commands show progress on a terminal (stderr), and nothing when their output is piped: an import its bytes,
rows and time left; `suite run` which side runs which task of how many, with the time left; the demo's build, verify,
backup and restore which of their parts they are at; `skills eval` which skill of how many. Run under a
pseudo-terminal, as a person at a terminal runs them."""

import errno
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_gatepost

EVALUATOR = Path(__file__).resolve().parents[2] / "fixtures" / "evaluator"
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


def run_in_terminal(*args: str, cwd: Path, timeout: float = 120) -> tuple[int, str]:
    """`gatepost ARGS` with stdin, stdout and stderr on a pseudo-terminal 160 columns wide: its exit code and
    everything it wrote there, escape sequences left out."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "160", "LINES": "40", "TERM": "xterm-256color"}
    process = subprocess.Popen([sys.executable, "-m", "gatepost", *args], cwd=cwd, env=env, stdin=slave,
                               stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError as exc:  # the terminal's other end closed: the command is done
            if exc.errno != errno.EIO:
                raise
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = process.wait(timeout=timeout)
    return code, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))


def write_artifact(path: Path, n: int) -> None:
    results = [{"task_id": f"t-{i}", "passed": i % 2 == 0, "score": 1.0, "duration_ms": 3, "output": "x" * 100}
               for i in range(n)]
    path.write_text(json.dumps({"execution_pass_rate": 0.5, "baseline_pass_rate": 0.5, "delta": 0.0,
                                "verdict": "pass", "candidate_results": results,
                                "baseline_results": [dict(r) for r in results]}), encoding="utf-8")


def test_an_import_shows_bytes_rows_and_the_time_left_on_a_terminal(tmp_path: Path):
    write_artifact(tmp_path / "a.json", 3000)
    write_artifact(tmp_path / "b.json", 1000)
    code, shown = run_in_terminal("--db", "s.db", "suite", "import-artifact", "a.json", "b.json", "--as", "ana",
                                  cwd=tmp_path)
    assert code == 0, shown
    assert "suite import-artifact" in shown and "ETA" in shown
    assert re.search(r"\d+(\.\d+)?/\d+(\.\d+)? [kM]B", shown), shown  # bytes read of the bytes in all
    assert "8,000 rows" in shown  # both files' candidate and baseline results
    assert shown.count("imported: ") == 2


def test_an_import_piped_shows_no_progress(tmp_path: Path):
    write_artifact(tmp_path / "a.json", 3000)
    done = run_gatepost("--db", "s.db", "suite", "import-artifact", "a.json", "--as", "ana", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.startswith("imported: ") and done.stdout.count("\n") == 1


def test_suite_run_says_which_side_runs_which_task_of_how_many(tmp_path: Path):
    args = ("--db", "r.db", "suite", "run", "--suite", str(EVALUATOR / "suites" / "basic" / "suite.yaml"),
            "--skill", str(EVALUATOR / "skill_good.md"), "--baseline", str(EVALUATOR / "skill_weak.md"),
            "--mock", "--as", "ana")
    code, shown = run_in_terminal(*args, cwd=tmp_path)
    assert code == 0, shown
    assert re.search(r"suite run · candidate · task \d of 5 · \S+", shown), shown
    assert re.search(r"suite run · baseline · task \d of 5 · \S+", shown), shown
    assert "ETA" in shown and "/10" in shown
    piped = run_gatepost(*args, cwd=tmp_path)
    assert piped.returncode == 0 and "suite run ·" not in piped.stderr + piped.stdout


@pytest.mark.slow
def test_the_demo_build_says_which_part_it_is_at(tmp_path: Path):
    code, shown = run_in_terminal("--db", "d.db", "demo", "--no-console", "--as", "ana", cwd=tmp_path, timeout=300)
    assert code == 0, shown
    parts = re.findall(r"building the demo store · (\w+), part (\d+) of (\d+)", shown)
    numbers = [int(n) for _part, n, _of in parts]  # a quick part may come and go between two refreshes
    total = int(parts[0][2]) if parts else 0
    # in order, of one total; the last quick parts may all fall between two refreshes before "done"
    assert parts and numbers == sorted(numbers) and numbers[-1] <= total and total > 1, shown
    assert {of for _part, _n, of in parts} == {str(total)} and "building the demo store · done" in shown, shown
    assert "0 done" not in shown and "demo store built" in shown


def test_verify_says_which_part_it_is_at_on_a_terminal(demo_copy: Path):
    code, shown = run_in_terminal("--db", str(demo_copy), "verify", cwd=demo_copy.parent)
    assert code == 0, shown
    assert re.search(r"verify · [a-z ,]+, part [1-4] of 4", shown), shown  # the parts as the display caught them
    assert "verify: intact" in shown


def test_verify_piped_or_quiet_shows_no_progress(demo_copy: Path):
    piped = run_gatepost("--db", str(demo_copy), "verify", cwd=demo_copy.parent)
    assert piped.returncode == 0 and piped.stderr == "" and "verify: intact" in piped.stdout
    code, shown = run_in_terminal("--db", str(demo_copy), "verify", "--quiet", cwd=demo_copy.parent)
    assert code == 0 and " of 4" not in shown and "verify: intact" in shown, shown


def test_skills_eval_says_which_skill_of_how_many_on_a_terminal(demo_copy: Path):
    code, shown = run_in_terminal("--db", str(demo_copy), "skills", "eval", "--as", "ana", cwd=demo_copy.parent)
    assert code == 0, shown
    seen = re.findall(r"skills eval · (\S+), skill (\d+) of (\d+)", shown)
    assert seen and all(int(of) == 50 for _skill, _n, of in seen), shown  # every skill of the demo
    piped = run_gatepost("--db", str(demo_copy), "skills", "eval", "--as", "ana", cwd=demo_copy.parent)
    assert piped.returncode == 0 and piped.stderr == "" and "skills eval ·" not in piped.stdout
    code, quiet = run_in_terminal("--db", str(demo_copy), "skills", "eval", "-q", "--as", "ana", cwd=demo_copy.parent)
    assert code == 0 and "skills eval ·" not in quiet


def test_backup_and_restore_say_which_step_they_are_at_on_a_terminal(demo_copy: Path):
    folder = demo_copy.parent
    code, shown = run_in_terminal("--db", str(demo_copy), "backup", "copy.db", cwd=folder)
    assert code == 0, shown
    steps = [int(n) for n in re.findall(r"backup · [a-z :,']+, step (\d+) of 6", shown)]
    assert steps and steps == sorted(steps), shown
    assert "backup: " in shown and "verified" in shown
    code, shown = run_in_terminal("--db", str(demo_copy), "restore", "copy.db", "--as", "ana", cwd=folder)
    assert code == 0, shown
    assert re.search(r"restore · [a-z :,']+, step \d+ of 10", shown), shown
    piped = run_gatepost("--db", str(demo_copy), "backup", "again.db", cwd=folder)
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.startswith("backup: ")
    assert piped.stdout.count("\n") == 1
    code, quiet = run_in_terminal("--db", str(demo_copy), "backup", "quiet.db", "--quiet", cwd=folder)
    assert code == 0 and "step" not in quiet and "backup: " in quiet


def _imported(tmp_path: Path, name: str, n: int, flip: int) -> str:
    """Import an artifact of `n` tasks (every `flip`-th candidate outcome turned over): its run id."""
    write_artifact(tmp_path / name, n)
    document = json.loads((tmp_path / name).read_text(encoding="utf-8"))
    for i, row in enumerate(document["candidate_results"]):
        row["passed"] = row["passed"] != (i % flip == 0)
    (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    done = run_gatepost("--db", "s.db", "suite", "import-artifact", name, "--as", "ana", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout.split("imported: ", 1)[1].split()[0]


def test_compare_the_suite_report_and_an_export_say_what_they_are_at_on_a_terminal(tmp_path: Path):
    baseline, candidate = _imported(tmp_path, "a.json", 2000, 5), _imported(tmp_path, "b.json", 2000, 3)
    code, shown = run_in_terminal("--db", "s.db", "compare", candidate, "--baseline", baseline, cwd=tmp_path)
    assert code == 0, shown
    assert re.search(rf"compare · the (baseline {baseline}, step 1|run {candidate}, step 2|task matrix, step 3) of 3",
                     shown), shown
    code, shown = run_in_terminal("--db", "s.db", "report", "suite", candidate, cwd=tmp_path)
    assert code == 0, shown
    assert re.search(rf"report suite {candidate} · [a-z' ]+, step [1-4] of 4", shown), shown
    code, shown = run_in_terminal("--db", "s.db", "suite", "export-artifact", candidate, "-o", "out.json",
                                  cwd=tmp_path)
    assert code == 0 and (tmp_path / "out.json").is_file(), shown
    assert re.search(rf"suite export-artifact {candidate} · (reading the run|writing \S+out.json)", shown), shown
    for args in (("compare", candidate, "--baseline", baseline), ("report", "suite", candidate),
                 ("suite", "export-artifact", candidate, "-o", "again.json", "--force")):
        piped = run_gatepost("--db", "s.db", *args, cwd=tmp_path)
        assert piped.returncode == 0 and piped.stderr == "" and " of 3" not in piped.stdout
        assert ", step " not in piped.stdout and "export-artifact ·" not in piped.stdout
        code, quiet = run_in_terminal("--db", "s.db", *args, "--quiet", cwd=tmp_path)
        assert code == 0 and ", step " not in quiet and "export-artifact ·" not in quiet
