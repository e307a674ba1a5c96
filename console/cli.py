"""The `gatepost` command: every command is listed here, and each is imported only when it runs.

COMMANDS names each top-level command's module, attribute and short help, so
`gatepost --help` lists them all without importing any (no Textual, no
sqlite-utils, no store: see benchmarks/cli_startup.py). A command missing from
the table does not exist; a wrong entry fails `tests/console/commands/test_cli_layer.py`, never
silently. SUBCOMMANDS adds commands another module defines to a group (e.g.
`case evaluate`), loaded the same way when it runs.
"""

import gc
import importlib
import io
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from gatepost import output

# name -> (module, attribute, short help shown by `gatepost --help`; a test keeps it equal to the command's own)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "actors": ("gatepost.commands.base", "actors", "People and producers of the store, and their capabilities."),
    "assign": ("gatepost.commands.work", "assign_cmd",
               "Assign a case, proposal, draft or regression to a reviewer (or --clear it)."),
    "backup": ("gatepost.commands.backup", "backup",
               "Write a consistent copy of the store to FILE while others keep writing, then verify the copy."),
    "bootstrap": ("gatepost.commands.bootstrap", "bootstrap",
                  "Store a DRAFT manifest for NAME from its last successful runs; a person must approve it."),
    "case": ("gatepost.commands.case", "case",
             "Cases of eval.gated_change/1: a loop's candidate change, its evidence, and the decision on it."),
    "comment": ("gatepost.commands.discussion", "comment",
                "Comment on an item (KIND:ID --note TEXT), or list its thread (KIND:ID alone)."),
    "compare": ("gatepost.commands.compare", "compare",
                "Line up stored runs against a baseline run: each run's pass rate with its interval, its delta with "
                "the paired interval and p-value, and a task × run matrix with the regressions first."),
    "console": ("gatepost.commands.base", "console", "Open the review console on the store."),
    "current": ("gatepost.commands.loop", "current",
                "What is current at PATH: the content kept or accepted and recorded applied, and where it landed."),
    "decide": ("gatepost.commands.bulk", "decide",
               "Take one DECISION with one note on many items of KIND, each as its own act."),
    "demo": ("gatepost.commands.base", "demo",
             "Build a realistic demo store (replacing that file) and open the console on it."),
    "events": ("gatepost.commands.loop_api", "events",
               "The audit log as a feed: events after --since SEQ, oldest first, one page (--limit)."),
    "gate": ("gatepost.commands.gate", "gate",
             "Run the scorer gate on each proposal and record the proposal (if new) and its gate result."),
    "init": ("gatepost.commands.base", "init",
             "Create an empty store (or migrate an existing one) at the --db location, and name its administrator."),
    "loop": ("gatepost.commands.loop", "loop",
             "Registered loops: their surface, task suite, baseline, executor, evaluators and reviewers."),
    "manifest": ("gatepost.commands.manifest", "manifest_group",
                 "Assertion manifests: import a person's file, review drafts, list versions."),
    "pairwise": ("gatepost.commands.preferences", "pairwise_cmd",
                 "Show a task's candidate and baseline outputs of a run side by side, and the preferences recorded "
                 "on it."),
    "prefer": ("gatepost.commands.preferences", "prefer",
               "Record which of a task's two outputs in a run is better (--candidate, --baseline or --tie)."),
    "proposal": ("gatepost.commands.proposal", "proposal",
                 "Proposals (ai-memory proposals and cases decided `proposed`) waiting for a person."),
    "protocol": ("gatepost.commands.protocol", "protocol",
                 "Protocol files (format protocol/1) and their fixtures (format els-fixture/1)."),
    "report": ("gatepost.commands.report", "report", "Reports for people who are not at the console."),
    "rubric": ("gatepost.commands.rubric", "rubric",
               "The questions a deciding queue asks every decision: proposal, draft (manifest drafts) or skill "
               "(regressions)."),
    "restore": ("gatepost.commands.backup", "restore",
                "Replace the store (--db) with the backup FILE, after checking the backup; needs store.admin."),
    "screenshots": ("gatepost.commands.screenshots", "screenshots",
                    "Build a demo store in a temporary folder and save an SVG of every screen and dialog."),
    "serve": ("gatepost.commands.serve", "serve",
              "Serve the review console to a web browser (each tab runs its own console)."),
    "skills": ("gatepost.commands.skills", "skills_group",
               "Installed skills: their runs, their evals against a manifest, their regression states."),
    "state": ("gatepost.commands.state", "state_group",
              "Import or export evals-state.json, aeon's local file of regression states."),
    "suite": ("gatepost.commands.suite", "suite",
              "Task suites (YAML v1.0): validate them and run a candidate skill against its baseline."),
    "team": ("gatepost.commands.work", "team_cmd",
             "Per person: items assigned, still waiting, and judgments made today."),
    "verify": ("gatepost.commands.verify", "verify",
               "Recompute the audit trail's hash chain and check every record and list against its events."),
}
# group name -> {subcommand: (module, attribute)} of commands added to a group another module owns; each is
# imported only when it runs (`case list` never loads `case evaluate`'s modules), so such a group is a LazyGroup
SUBCOMMANDS: dict[str, dict[str, tuple[str, str]]] = {
    "case": {"evaluate": ("gatepost.commands.case_evaluate", "evaluate"),
             "compare": ("gatepost.commands.case_evaluate", "compare"),
             "new": ("gatepost.commands.loop_api", "case_new"),
             "wait": ("gatepost.commands.loop_api", "case_wait"),
             "applied": ("gatepost.commands.loop_api", "case_applied")},
    "proposal": {"applied": ("gatepost.commands.loop_api", "proposal_applied")},
    "suite": {"add-task": ("gatepost.commands.failures", "add_task")},
}

ERRORS_MODULE = "gatepost.store.kernel.errors"
INTEGRITY_MODULE = "gatepost.store.kernel.integrity"


def _imported(module: str, attribute: str) -> click.Command:
    command: object = getattr(importlib.import_module(module), attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{module}.{attribute} is not a click command")
    return command


def load_command(name: str) -> click.Command:
    """Import the command `name` of COMMANDS; the subcommands other modules add to it load when they run."""
    module, attribute, _ = COMMANDS[name]
    command = _imported(module, attribute)
    if name in SUBCOMMANDS:
        if not isinstance(command, LazyGroup):
            raise TypeError(f"{module}.{attribute} is not a LazyGroup; cannot add {sorted(SUBCOMMANDS[name])}")
        command.lazy.update(SUBCOMMANDS[name])
    return command


class LazyGroup(click.Group):
    """A group whose commands are imported when one is asked for (click's documented LazyGroup pattern).

    `lazy` names each such command's module and attribute; `commands` (every command, loaded) serves code
    that walks the tree, such as `--help` of the group and the tests.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.lazy: dict[str, tuple[str, str]] = {}
        self._loaded: dict[str, click.Command] = {}
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        """Every command, loaded."""
        for name in self.lazy:
            self.get_command(None, name)  # type: ignore[arg-type]
        return self._loaded

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._loaded.update(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Register a command already imported (a decorator beside the group) without loading the lazy ones."""
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._loaded[name] = cmd

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.lazy) | set(self._loaded))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self._loaded and cmd_name in self.lazy:
            self._loaded[cmd_name] = self.load(cmd_name)
        return self._loaded.get(cmd_name)

    def load(self, name: str) -> click.Command:
        return _imported(*self.lazy[name])


def _gatepost_error(exc: BaseException) -> int | None:
    """The exit code of one of gatepost's errors for people, else None.

    The errors module is looked up, not imported: if it was never imported, no
    command raised one, and `gatepost --help` never pays for the store.
    """
    errors = sys.modules.get(ERRORS_MODULE)
    if errors is not None and isinstance(exc, errors.GatepostError):
        return int(exc.exit_code)
    return None


def _machine_error(exc: BaseException, ctx: click.Context) -> BaseException | None:
    """One line for a failure of the machine (disk full, read-only, busy, damaged, gone), else None.

    Looked up like the errors module: only a command that opened a store can meet one.
    """
    integrity = sys.modules.get(INTEGRITY_MODULE)
    kernel = sys.modules.get("gatepost.store.kernel")
    if integrity is None or kernel is None:
        return None
    path = str(kernel.resolve_path((ctx.obj or {}).get("db_path")))
    return integrity.machine_error(exc, path)  # type: ignore[no-any-return]


_paused_until_loaded = False  # set by run(): the collector is off until the command's modules are loaded
_run_as_program = False  # set by run(): this process is the `gatepost` program, not a test or a host program


@contextmanager
def loading() -> Iterator[None]:
    """Modules a command loads once it knows it needs them (Jinja2 for a report rendered from a template): in
    the `gatepost` program (run()), with the collector paused and what they built frozen, as the command's own
    modules were loaded; where main() is called by a test or another program, the collector is left alone."""
    pause = _run_as_program and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.freeze()
            gc.enable()


class GatepostGroup(LazyGroup):
    """The top-level group: commands loaded on first use, and gatepost's errors as one line and an exit code."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                            list[str]]:
        """The command, loaded; in a process started by run(), what loading it built frozen and the collector
        resumed before the command runs."""
        found = super().resolve_command(ctx, args)
        global _paused_until_loaded
        if _paused_until_loaded:
            _paused_until_loaded = False
            gc.freeze()  # modules, classes, functions: they live as long as the process; no collection walks them
            gc.enable()
        return found

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy.update({name: (module, attribute) for name, (module, attribute, _) in COMMANDS.items()})

    def load(self, name: str) -> click.Command:
        return load_command(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the static table: `--help` imports no command module."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in COMMANDS:
                short = click.Command(name, help=COMMANDS[name][2]).get_short_help_str(limit)  # as click shortens
            else:
                short = self._loaded[name].get_short_help_str(limit)
            rows.append((name, short))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException):
            raise
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            output.error(f"{exc.filename}: {exc.strerror}")
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(0)
        except Exception as exc:
            code = _gatepost_error(exc)
            if code is None:
                translated = _machine_error(exc, ctx)
                if translated is None:
                    raise
                output.error(translated)
                sys.exit(2)
            output.error(exc)
            sys.exit(code)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """Click's usage errors quote what was typed (a value with an escape): they go through the output layer."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:
            shown = io.StringIO()
            exc.show(file=shown)
            output.block(shown.getvalue().rstrip("\n"), err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            output.line("Aborted!", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=GatepostGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="The store file. Default: $GATEPOST_DB, else ./gatepost.db.",
)
@click.option(
    "--key",
    "signing_key",
    type=click.Path(dir_okay=False),
    default=None,
    help="The SSH key that signs your decisions once your name has a registered key (actors key): a private "
         "key file, or a public key whose private half ssh-agent holds. Default: $GATEPOST_SIGNING_KEY, "
         "else ssh-agent.",
)
@click.version_option(package_name="gatepost")
@click.pass_context
def main(ctx: click.Context, db_path: str | None, signing_key: str | None) -> None:
    """gatepost: the review console and store at the gate of an agent's self-improvement loop.

    Start with `gatepost demo` to build a demo store and open the console on it,
    or `gatepost init` for an empty store. Every command takes --help.
    """
    ctx.ensure_object(dict)
    ctx.obj["db_path"] = db_path
    ctx.obj["signing_key"] = signing_key


def run() -> None:
    """The `gatepost` program (its console script, `python -m gatepost`): main(), with Python's cyclic garbage
    collector paused while the command's modules load, then what they built frozen (GatepostGroup.resolve_command).
    Collections that walked those objects, during the loading and at the process's exit, were about a sixth of a
    read-only command's CPU (benchmarks/cli_startup.py); the command runs with the collector on. `main` itself, as
    tests and other programs call it, leaves the collector alone."""
    global _paused_until_loaded, _run_as_program
    _run_as_program = True
    _paused_until_loaded = gc.isenabled()
    if _paused_until_loaded:
        gc.disable()
    main()
