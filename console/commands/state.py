"""`gatepost state`: aeon's evals-state.json in and out of the store."""

import click

from gatepost import output
from gatepost.commands._common import (
    as_option,
    force_option,
    open_ctx_store,
    person,
    store_path,
    write_file,
)
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
    output.line(f"imported {len(skills)} skill state{'s' if len(skills) != 1 else ''} from {file}")


@state_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False))
@force_option
@click.pass_context
def export_cmd(ctx: click.Context, file: str, force: bool) -> None:
    """Write every skill's regression state to FILE ('-' prints it); an existing FILE needs --force."""
    db = open_ctx_store(ctx)
    state = evals_state.export_state(db)
    if file == "-":
        output.json_block(evals_state.dumps(state), nl=False)
        return
    write_file(file, evals_state.dumps(state), store=store_path(ctx), force=force, option="FILE")
    n = len(state["skills"])
    output.line(f"wrote {n} skill state{'s' if n != 1 else ''} to {file}")
