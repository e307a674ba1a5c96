"""What is registered is what runs: a loop registers its executor's, suite's and judge's files by hash,
relative to one root; an evaluation with a file changed since is refused until an administrator registers the
new version, and every record says which files it ran with."""

import json

import pytest

from tests.conftest import run_gatepost
from tests.store.loops.test_loop_api import EXECUTOR, PATH, _json, day  # noqa: F401 (the fixture used here)


@pytest.mark.slow
def test_editing_the_registered_executor_is_refused_until_registered_again(day):  # noqa: F811
    gp, tmp = day["gp"], day["tmp"]
    shown = _json(gp("loop", "show", "writer", "--json"))
    assert shown["root"] == str(tmp.resolve()) and shown["suite_path"] == "suite.yaml"
    assert set(shown["executor_files"]) == {"executor.py"} and set(shown["suite_files"]) == {"suite.yaml"}
    case_id = _json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", "better.md", "--json",
                       "--as", "run-41"))["case_id"]
    # the executor's script is edited to do nothing useful: the evaluation is refused, nothing is recorded
    (tmp / "executor.py").write_text(EXECUTOR.replace('print("every change', 'print("nothing'), "utf-8")
    refused = gp("case", "evaluate", case_id, "--producer", "run-52", "--as", "run-52")
    assert refused.returncode == 3
    assert (f"case evaluate {case_id}: refused: registered: executor file executor.py is sha256:" in refused.stderr
            and "but loop writer v1 registered sha256:" in refused.stderr)
    assert _json(gp("case", "show", case_id, "--json"))["evidence"] == []
    # a judge cannot be chosen on the command line either
    (tmp / "executor.py").write_text(EXECUTOR, "utf-8")
    judged = gp("case", "evaluate", case_id, "--producer", "run-52", "--judge-command", "python judge.py",
                "--as", "run-52")
    assert judged.returncode == 3 and "loop-settings: judge_command of loop writer" in judged.stderr
    # evaluated from another working folder, the registered files still resolve against the root
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    ran = _json(run_gatepost("--db", day["db"], "case", "evaluate", case_id, "--producer", "run-52", "--json",
                             "--as", "run-52", cwd=elsewhere, timeout=120))
    ran_with = ran["evidence"][0]["details"]["ran_with"]
    assert ran_with["loop"] == "writer" and ran_with["version"] == 1
    assert ran_with["executor_files"] == shown["executor_files"] and ran_with["suite_files"] == shown["suite_files"]
    # an administrator registers the edited executor: version 2, and it runs
    (tmp / "executor.py").write_text(EXECUTOR + "# v2\n", "utf-8")
    again = json.loads(gp("loop", "add", "writer", "--surface", "skills/*/SKILL.md", "--suite", str(day["suite"]),
                          "--executor", shown["executor"], "--evaluator", "run-52", "--reviewer", "ana",
                          "--design", "design-rn-1", "--json", "--as", "admin").stdout)
    assert again["version"] == 2 and again["executor_files"] != shown["executor_files"]
    second = _json(gp("case", "new", "--loop", "writer", "--path", PATH, "--content-file", "other.md", "--json",
                      "--as", "run-41"))["case_id"]
    assert gp("case", "evaluate", second, "--producer", "run-52", "--as", "run-52").returncode == 0
