"""`gatepost backup FILE` and `gatepost restore FILE`: a consistent, verified copy of the store, and back."""

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person, quiet_option
from gatepost.store.views import backup_store, restore_store


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema gatepost.backup/1).")
@quiet_option
@click.pass_context
def backup(ctx: click.Context, file: str, force: bool, as_json: bool, quiet: bool) -> None:
    """Write a consistent copy of the store to FILE while others keep writing, then verify the copy.

    The copy is one snapshot (SQLite's backup API), a single file, synced to disk; it is checked
    (integrity, the audit chain, every list against its events) and its head must be an event of the
    store. On a terminal, which step runs (the copy, each part of its check) is shown on stderr.
    Exit 0 written and verified · 2 bad input or a copy that does not check (then do not keep it).
    """
    with output.Progress("backup", None, quiet=quiet, unit="parts") as progress:
        copy = backup_store(open_ctx_store(ctx), file, force=force, steps=progress.begun())
    if as_json:
        echo_json(copy.document())
        return
    output.line(f"backup: {copy.path} ({copy.bytes:,} bytes, {copy.events} events), verified; "
                f"head: event {copy.head_seq} sha256 {copy.head_hash}")


@click.command("restore")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Restore even if the store has events after the backup's head "
                                            "(they are lost).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema gatepost.backup/1).")
@quiet_option
@as_option
@click.pass_context
def restore(ctx: click.Context, file: str, force: bool, as_json: bool, quiet: bool, as_name: str | None) -> None:
    """Replace the store (--db) with the backup FILE, after checking the backup; needs store.admin.

    Checked first: FILE is a gatepost store, passes SQLite's integrity check and verify, and --as holds
    store.admin in it; refused without --force when the store has events the backup does not. The
    store is then replaced in place (other processes see the restored store), verified again, and a
    store.restored event records who restored what. On a terminal, which step runs is shown on stderr.
    Exit 0 · 2 bad input or a backup that does not check · 3 refused.
    """
    with output.Progress("restore", None, quiet=quiet, unit="parts") as progress:
        copy = restore_store(open_ctx_store(ctx, create=True), file, actor=person(as_name), force=force,
                             steps=progress.begun())
    if as_json:
        echo_json(copy.document())
        return
    output.line(f"restore: {copy.path} is the backup {file} ({copy.events} events, verified); "
                f"head: event {copy.head_seq} sha256 {copy.head_hash}")

