"""The CLI as one layer: an explicit command table, loaded lazily, and shared options defined once."""

import importlib
import json
import pkgutil
import subprocess
import sys

import click

from gatepost import cli as cli_module
from gatepost import commands

HEAVY = ("textual", "sqlite_utils", "jinja2", "gatepost.store", "rich")


def test_help_imports_no_heavy_module_and_lists_every_command():
    probe = ("import json, sys\n"
             "from gatepost.cli import main\n"
             "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    modules = json.loads(proc.stderr.strip().splitlines()[-1])
    assert [m for m in modules if m.startswith(HEAVY)] == []
    assert not [m for m in modules if m.startswith("gatepost.commands.")]
    listed = proc.stdout.split("Commands:")[1]
    for name, (_module, _attr, short) in cli_module.COMMANDS.items():
        assert f"  {name} " in listed
        assert short.split()[0] in listed


def test_the_table_matches_each_command():
    for name, (_module, _attr, short) in cli_module.COMMANDS.items():
        command = cli_module.load_command(name)
        assert command.name == name
        assert command.get_short_help_str(10_000) == short, name


def test_every_command_module_is_registered():
    """A module that declares commands is in the table: none is dropped by a typo or a forgotten line."""
    registered = {(m, a) for m, a, _ in cli_module.COMMANDS.values()}
    registered |= {pair for subs in cli_module.SUBCOMMANDS.values() for pair in subs.values()}
    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        groups = [v for v in vars(module).values() if isinstance(v, click.Group)]
        for attr, value in vars(module).items():
            if not (isinstance(value, click.Command) and value.callback
                    and value.callback.__module__ == module.__name__):
                continue
            if any(value in group.commands.values() for group in groups if group is not value):
                continue  # a subcommand of a group defined beside it
            assert (module.__name__, attr) in registered, f"{module.__name__}.{attr} is not in gatepost.cli"

def test_unknown_command_is_a_usage_error(cli):
    result = cli("cases")
    assert result.exit_code == 2 and "No such command 'cases'" in result.stderr


def test_shared_options_have_one_help_text():
    suite_run = cli_module.load_command("suite").commands["run"]
    evaluate = cli_module.load_command("case").commands["evaluate"]
    for option in ("--suite", "--executor", "--mock", "--judge-command", "--pass-k", "--cache-dir", "--baseline"):
        helps = [next(p.help for p in cmd.params if option in getattr(p, "opts", ())) for cmd in (suite_run, evaluate)]
        assert helps[0] == helps[1], option


def _collector_after(tmp_path, call: str, args: tuple[str, ...] = ("case", "list")) -> dict:
    store = tmp_path / "s.db"
    code = ("import gc, json, runpy, sys\n"
            f"sys.argv = ['gatepost', '--db', {str(store)!r}, *{list(args)!r}]\n"
            f"try:\n    {call}\nexcept SystemExit:\n    pass\n"
            "print(json.dumps({'enabled': gc.isenabled(), 'frozen': gc.get_freeze_count(),"
            " 'store': 'gatepost.store' in sys.modules, 'jinja2': 'jinja2' in sys.modules}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_program_freezes_what_loading_its_command_built_and_runs_it_with_the_collector_on(tmp_path):
    state = _collector_after(tmp_path, "runpy.run_module('gatepost', run_name='__main__')")
    assert state["store"] and state["enabled"]
    assert state["frozen"] > 10_000  # the store's modules and sqlite-utils, never walked by a collection again


def test_main_as_other_programs_call_it_leaves_the_collector_alone(tmp_path):
    state = _collector_after(tmp_path, "from gatepost.cli import main; main()")
    assert state == {"enabled": True, "frozen": 0, "store": True, "jinja2": False}


def _empty_store(tmp_path) -> None:
    subprocess.run([sys.executable, "-m", "gatepost", "--db", str(tmp_path / "s.db"), "init", "--admin", "ana"],
                   check=True, capture_output=True, timeout=60)


def test_the_program_freezes_jinja2_as_it_loads_it_for_a_report_from_a_template(tmp_path):
    _empty_store(tmp_path)
    program = "runpy.run_module('gatepost', run_name='__main__')"
    as_json = _collector_after(tmp_path, program, ("report", "regressions", "--no-remember", "--json"))
    as_markdown = _collector_after(tmp_path, program, ("report", "regressions", "--no-remember"))
    assert not as_json["jinja2"] and as_markdown["jinja2"] and as_markdown["enabled"]
    assert as_markdown["frozen"] > as_json["frozen"] + 5_000  # Jinja2's modules, never walked by a collection


def test_a_report_called_from_another_program_leaves_the_collector_alone(tmp_path):
    _empty_store(tmp_path)
    state = _collector_after(tmp_path, "from gatepost.cli import main; main()", ("report", "regressions", "--no-remember"))
    assert state == {"enabled": True, "frozen": 0, "store": True, "jinja2": True}
