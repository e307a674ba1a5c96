"""The CLI as a user meets it: help, init, actors, exit codes."""

import json
import subprocess

from gatepost.store.kernel import os_user
from tests.conftest import run_gatepost


def test_every_command_has_help(cli):
    from gatepost.cli import main

    def walk(group, path):
        for name, command in group.commands.items():
            result = cli(*path, name, "--help")
            assert result.exit_code == 0, (path, name, result.output)
            assert len(result.output.splitlines()) >= 3
            if hasattr(command, "commands"):
                walk(command, [*path, name])

    walk(main, [])


def test_init_then_actors(cli, store_path):
    assert cli("init").exit_code == 0
    assert store_path.exists()
    result = cli("actors", "add", "ana", "--capability", "loop_change.keep", "--capability", "case.close")
    assert result.exit_code == 0, result.output
    cli("actors", "add", "run-52", "--kind", "producer")
    listed = json.loads(cli("actors", "list", "--json").output)
    admin = os_user()  # issue 12: `gatepost init` names the OS user the store's administrator
    assert {a["name"]: a["capabilities"] for a in listed} == {
        "ana": ["case.close", "loop_change.keep"], "run-52": [], admin: ["store.admin"]}
    assert {a["name"]: a["kind"] for a in listed}["run-52"] == "producer"


def test_unknown_capability_is_bad_input(cli):
    cli("init")
    result = cli("actors", "add", "ana", "--capability", "root")
    assert result.exit_code == 2
    assert "unknown capability 'root'" in result.output


def test_a_loop_never_gets_apply_outside_surface(cli):
    cli("init")
    result = cli("actors", "add", "run-41", "--kind", "producer", "--capability", "loop_change.apply_outside_surface")
    assert result.exit_code == 3
    assert "never granted to a loop" in result.output


def test_foreign_file_gives_exit_2_and_one_line_no_traceback(tmp_path):
    bogus = tmp_path / "gatepost.db"
    bogus.write_bytes(b"\x89PNG\r\n\x1a\n not a store")
    proc = run_gatepost("--db", str(bogus), "actors", "list")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    assert "not a SQLite database" in proc.stderr


def test_missing_store_gives_exit_2(tmp_path):
    proc = run_gatepost("--db", str(tmp_path / "none.db"), "actors", "list")
    assert proc.returncode == 2
    assert "gatepost init" in proc.stderr


def test_env_var_names_the_store(tmp_path):
    target = tmp_path / "from-env.db"
    proc = run_gatepost("init", env={"GATEPOST_DB": str(target)})
    assert proc.returncode == 0, proc.stderr
    assert target.exists()


def test_demo_refuses_to_replace_a_real_store(cli, store_path):
    cli("init")
    cli("actors", "add", "ana")
    result = cli("demo", "--no-console")
    assert result.exit_code == 2
    assert "not a demo store" in result.output
    assert json.loads(cli("actors", "list", "--json").output)[0]["name"] == "ana"


def test_the_console_without_a_terminal_says_so_instead_of_spinning(tmp_path):
    """A console whose stdin is not a terminal gets no key, and Textual's driver read its empty stdin in a busy
    loop until killed: the command refuses with one line instead (a timeout here is that loop)."""
    store = tmp_path / "store.db"
    assert run_gatepost("--db", str(store), "init").returncode == 0
    proc = run_gatepost("--db", str(store), "console", stdin=subprocess.DEVNULL, timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == ("gatepost: console: stdin: not a terminal; the console reads its keys from one "
                                   "(open it in a terminal, or in a browser with `gatepost serve`)")


def test_the_demo_without_a_terminal_is_built_and_says_how_to_open_it(tmp_path):
    """In a script (no terminal) `gatepost demo` builds the store and exits, naming the command that opens it."""
    store = tmp_path / "demo.db"
    proc = run_gatepost("--db", str(store), "demo", "-q", "--as", "ana", stdin=subprocess.DEVNULL, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (f"demo: the console is not opened: stdin: not a terminal; the console reads its "
                                   f"keys from one (open it in a terminal, or in a browser with `gatepost serve`); "
                                   f"open it with `gatepost --db {store} console`")
    listed = run_gatepost("--db", str(store), "case", "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)
