"""`gatepost state`: aeon's evals-state.json in and out of the store."""

import click

from gatepost.commands._common import as_option, open_ctx_store, person
from gatepost.store.skills import evals_state


@click.group("state")
def state_group() -> None:
    """Import or export evals-state.json, aeon's local file of regression states.

    The shape is documented in docs/skill-evals.md; import then export gives
    the same JSON.
    """


@state_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@as_option
@click.pass_context
def import_cmd(ctx: click.Context, file: str, as_name: str | None) -> None:
    """Merge FILE's regression states into the store (needs evidence.record)."""
    skills = evals_state.import_state(open_ctx_store(ctx), file, actor=person(as_name))
    click.echo(f"imported {len(skills)} skill state{'s' if len(skills) != 1 else ''} from {file}")


@state_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_context
def export_cmd(ctx: click.Context, file: str) -> None:
    """Write every skill's regression state to FILE ('-' prints it)."""
    db = open_ctx_store(ctx)
    if file == "-":
        click.echo(evals_state.dumps(evals_state.export_state(db)), nl=False)
        return
    n = evals_state.write_state_file(db, file)
    click.echo(f"wrote {n} skill state{'s' if n != 1 else ''} to {file}")


COMMANDS = [state_group]
