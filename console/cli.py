"""The `gatepost` command. Each area's commands live in console/commands/<area>.py.

Every module there exposes COMMANDS, a list of click commands or groups,
and may expose SUBCOMMANDS, {group name: [commands]}, to add commands to a
group another module owns (e.g. `case evaluate`); they are registered here,
so adding an area never edits this file.
"""

import importlib
import io
import pkgutil
import sys
from typing import Any

import click

from gatepost import commands, output
from gatepost.store.kernel import GatepostError


class GatepostGroup(click.Group):
    """Turns gatepost's errors into one line and an exit code (2 bad input, 3 refused)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GatepostError as exc:
            output.error(exc)
            sys.exit(exc.exit_code)
        except click.exceptions.Exit:
            raise
        except click.ClickException:
            raise
        except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            output.error(f"{exc.filename}: {exc.strerror}")
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(0)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Click's usage errors quote what was typed (a value with an escape): they go through the output layer."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            result = super().main(*args, standalone_mode=False, **kwargs)
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
@click.version_option(package_name="gatepost")
@click.pass_context
def main(ctx: click.Context, db_path: str | None) -> None:
    """gatepost: the review console and store at the gate of an agent's self-improvement loop.

    Start with `gatepost demo` to build a demo store and open the console on it,
    or `gatepost init` for an empty store. Every command takes --help.
    """
    ctx.ensure_object(dict)
    ctx.obj["db_path"] = db_path


def _register() -> None:
    modules = [importlib.import_module(f"{commands.__name__}.{info.name}")
               for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name)]
    for module in modules:
        for command in getattr(module, "COMMANDS", []):
            main.add_command(command)
    for module in modules:
        for group_name, subcommands in getattr(module, "SUBCOMMANDS", {}).items():
            group = main.commands[group_name]
            for command in subcommands:
                group.add_command(command)


_register()
