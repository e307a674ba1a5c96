"""Store-wide commands: init, actors, console, demo."""

from collections.abc import Callable
from typing import Any

import click

from gatepost import output
from gatepost.commands._common import (
    SEQ,
    as_option,
    echo_json,
    open_ctx_store,
    person,
    quiet_option,
    store_path,
)
from gatepost.links import parse_link
from gatepost.store.kernel import (
    InputError,
    discard_new_store,
    has_admin,
    os_user,
    read_text,
    resolve_path,
    schema_version,
)
from gatepost.store.kernel import actors as actors_mod


@click.command()
@click.option("--admin", "admin", metavar="NAME", default=None,
              help="The store's first administrator (holds store.admin: adds actors, grants and revokes "
                   "capabilities). Default: your OS user, when the store has no administrator yet.")
@click.pass_context
def init(ctx: click.Context, admin: str | None) -> None:
    """Create an empty store (or migrate an existing one) at the --db location, and name its administrator."""
    new = not store_path(ctx).exists()
    db = open_ctx_store(ctx, create=True)
    try:
        if admin is not None or not has_admin(db):
            actor = actors_mod.make_admin(db, admin or os_user() or "admin", by=person(None) if admin else None)
            output.line(f"administrator: {actor['name']} (store.admin)")
    except BaseException:
        if new:  # an init that failed (a full disk) leaves no half-made store behind
            db.close()
            discard_new_store(store_path(ctx))
        raise
    output.line(f"store ready: {store_path(ctx)} (schema version {schema_version(db)})")


@click.group()
def actors() -> None:
    """People and producers of the store, and their capabilities."""


note_option = click.option("--note", default=None, help="Why (kept with the audited event).")


@actors.command("add")
@click.argument("name")
@click.option("--kind", type=click.Choice(actors_mod.KINDS), default="person", show_default=True,
              help="person: a reviewer; producer: an agent run or CI job that records evidence.")
@click.option("--capability", "caps", multiple=True, metavar="CAP",
              help="Grant a capability (repeat for several). Known: " + ", ".join(actors_mod.CAPABILITIES))
@note_option
@as_option
@click.pass_context
def actors_add(ctx: click.Context, name: str, kind: str, caps: tuple[str, ...], note: str | None,
               as_name: str | None) -> None:
    """Add an actor NAME, or grant more capabilities to an existing one (store.admin)."""
    db = open_ctx_store(ctx, create=True)
    _show_actor(actors_mod.add_actor(db, name, kind, caps, by=person(as_name), note=note))


def _show_actor(actor: dict[str, Any]) -> None:
    output.line(f"{actor['name']} ({actor['kind']}): {', '.join(actor['capabilities']) or 'no capabilities'}")


def _authority_command(verb: str, act: Callable[..., dict[str, Any]], help_text: str) -> click.Command:
    """`actors grant` and `actors revoke`: one capability after another, each an audited act."""

    @actors.command(verb, help=help_text)
    @click.argument("name")
    @click.argument("capabilities", nargs=-1, required=True)
    @note_option
    @as_option
    @click.pass_context
    def command(ctx: click.Context, name: str, capabilities: tuple[str, ...], note: str | None,
                as_name: str | None) -> None:
        db = open_ctx_store(ctx)
        for cap in capabilities:
            actor = act(db, name, cap, by=person(as_name), note=note)
        _show_actor(actor)

    return command


actors_grant = _authority_command("grant", actors_mod.grant,
                                  "Grant CAPABILITIES to actor NAME (store.admin; each an audited event).")
actors_revoke = _authority_command("revoke", actors_mod.revoke,
                                   "Revoke CAPABILITIES from actor NAME (store.admin; each an audited event).")


@actors.command("bind")
@click.argument("name")
@click.option("--os-user", "os_user_name", required=True, metavar="USER",
              help="The OS user NAME must run as from now on ('' to unbind).")
@note_option
@as_option
@click.pass_context
def actors_bind(ctx: click.Context, name: str, os_user_name: str, note: str | None, as_name: str | None) -> None:
    """Bind actor NAME to an OS user: acting as NAME then needs that OS user (store.admin)."""
    db = open_ctx_store(ctx)
    actor = actors_mod.bind(db, name, os_user_name or None, by=person(as_name), note=note)
    output.line(f"{actor['name']}: bound to OS user {actor['os_user']}" if actor["os_user"]
                else f"{actor['name']}: not bound to an OS user")


@actors.command("key")
@click.argument("name")
@click.argument("key_file", metavar="FILE", type=click.Path(dir_okay=False))
@click.option("--rotation", "rotation_file", metavar="SIG", type=click.Path(dir_okay=False), default=None,
              help="Replacing NAME's key: the current key's signature of the new key's fingerprint "
                   "(printf %s SHA256:… | ssh-keygen -Y sign -n gatepost-key-rotation -f CURRENT_KEY).")
@note_option
@as_option
@click.pass_context
def actors_key(ctx: click.Context, name: str, key_file: str, rotation_file: str | None, note: str | None,
               as_name: str | None) -> None:
    """Register NAME's SSH public key (FILE, e.g. ~/.ssh/id_ed25519.pub): NAME's decisions are then signed.

    Who may: a holder of store.admin, or NAME themselves when bound to an OS user (actors bind) and
    holding no key yet. Replacing a key takes the key it replaces (--rotation SIG, signed with it) or
    another holder of store.admin; `gatepost verify` lists every replacement. From then on each decision
    NAME makes is signed with `ssh-keygen -Y sign` (gatepost --key FILE, $GATEPOST_SIGNING_KEY or
    ssh-agent) and refused when it cannot be; `gatepost verify` checks every signature.
    """
    text = read_text(key_file, what="public key file")
    rotation = read_text(rotation_file, what="rotation statement") if rotation_file else None
    db = open_ctx_store(ctx)
    actor = actors_mod.register_key(db, name, text, by=person(as_name), where=key_file, note=note,
                                    rotation=rotation)
    replaced = actor.get("replaced")
    output.line(f"{actor['name']}: key {actor['key']['fingerprint']} ({actor['key']['key_type']}) registered"
                + (f", replacing {replaced['fingerprint']} ({actor['rotation']})" if replaced else "")
                + "; their decisions are signed from now on")


@actors.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.pass_context
def actors_list(ctx: click.Context, as_json: bool) -> None:
    """List actors with their kind and capabilities."""
    rows = actors_mod.list_actors(open_ctx_store(ctx))
    if as_json:
        echo_json([{"name": r["name"], "kind": r["kind"], "capabilities": r["capabilities"],
                    "created_at": r["created_at"]} for r in rows])
        return
    if not rows:
        output.line("no actors yet: gatepost actors add NAME --capability CAP")
    for r in rows:
        output.line(f"{r['name']:<20} {r['kind']:<9} {' '.join(r['capabilities'])}")


@click.command()
@as_option
@click.option("--open", "open_at", metavar="KIND:ID", default=None,
              help="Open straight on one item: results:RUN_ID, case:ID, skill:NAME, draft:ID or proposal:ID.")
@click.pass_context
def console(ctx: click.Context, as_name: str | None, open_at: str | None) -> None:
    """Open the review console on the store."""
    if open_at:
        try:
            parse_link(open_at)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    open_ctx_store(ctx).close()  # refuse a bad store with one line before the screen opens
    from gatepost.terminal import without_terminal  # loads Textual: only where the console opens

    if missing := without_terminal():
        raise InputError(f"console: {missing}")
    from gatepost.app import GatepostApp  # the console's modules: loaded only to open it

    GatepostApp(store_path(ctx), person=person(as_name), open_at=open_at).run()


@click.command()
@click.option("--db", "db_opt", type=click.Path(dir_okay=False), default=None,
              help="Where to build the demo store (default: the global --db rule).")
@click.option("--no-console", is_flag=True, help="Build the store and exit without opening the console.")
@click.option("--seed", type=SEQ, default=7, show_default=True, help="Seed of the deterministic generator.")
@click.option("--force", is_flag=True,
              help="Replace the demo store even if it holds decisions made after it was built.")
@quiet_option
@as_option
@click.pass_context
def demo(ctx: click.Context, db_opt: str | None, no_console: bool, seed: int, force: bool, quiet: bool,
         as_name: str | None) -> None:
    """Build a realistic demo store (replacing that file) and open the console on it.

    A demo store that holds decisions made after it was built is not replaced
    without --force (exit 3).

    The person running it becomes a reviewer holding every capability a person
    may hold, so every decision of the demo can be taken.
    """
    from gatepost.store.demo import (
        build_demo,  # the demo builder: only `demo` pays for importing it
    )

    path = resolve_path(db_opt) if db_opt else store_path(ctx)
    who = person(as_name)
    with output.Progress("building the demo store", None, quiet=quiet, unit="parts") as progress:

        def built(part: str, done: int, parts: int) -> None:  # a part of the demo begins: say which, and how far
            progress.reach(done, current=f"{part}, part {done + 1} of {parts}" if part != "done" else "done")

        summary = build_demo(path, seed=seed, person=who, force=force, progress=built)
    output.line(f"demo store built: {path} ({summary})")
    if not no_console:
        from gatepost.terminal import without_terminal

        if missing := without_terminal():  # the store is built, which is what a script asked for
            output.line(f"demo: the console is not opened: {missing}; open it with `gatepost --db {path} console`",
                        err=True)
            return
        from gatepost.app import GatepostApp

        GatepostApp(path, person=who).run()
