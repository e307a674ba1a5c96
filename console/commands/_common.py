"""What every command module shares: the store of this invocation, the person, JSON output."""

import json
from pathlib import Path

import click
from sqlite_utils import Database

from gatepost.identity import resolve_person
from gatepost.store.kernel import open_store, resolve_path

as_option = click.option(
    "--as", "as_name", metavar="NAME", default=None,
    help="Who acts. Default: $GATEPOST_REVIEWER, else your OS user name.",
)


def store_path(ctx: click.Context) -> Path:
    """The store path of this invocation (--db, else $GATEPOST_DB, else ./gatepost.db)."""
    return resolve_path(ctx.find_root().obj.get("db_path"))


def open_ctx_store(ctx: click.Context, *, create: bool = False) -> Database:
    """Open this invocation's store; a missing one is an error unless the command creates it."""
    return open_store(store_path(ctx), create=create)


def person(as_name: str | None) -> str:
    return resolve_person(as_name)


def echo_json(value) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))
