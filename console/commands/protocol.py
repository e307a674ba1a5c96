"""`gatepost protocol`: validate protocol files and replay els fixtures against the interpreter."""

import click

from gatepost import output
from gatepost.store.protocol import load_protocol, replay_fixture


@click.group()
def protocol() -> None:
    """Protocol files (format protocol/1) and their fixtures (format els-fixture/1)."""


@protocol.command("check")
@click.argument("fixtures", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.pass_context
def protocol_check(ctx: click.Context, fixtures: tuple[str, ...]) -> None:
    """Replay each els-fixture/1 FIXTURE state by state; print every mismatch and exit 1 if any.

    A fixture's protocol path is relative to its els root, the parent of the
    `fixtures/` folder it sits in.
    """
    failed = 0
    for path in fixtures:
        mismatches = replay_fixture(path)
        for mismatch in mismatches:
            output.line(str(mismatch))
        if mismatches:
            failed += 1
        else:
            output.line(f"{path}: ok")
    if failed:
        output.line(f"{failed} of {len(fixtures)} fixture(s) failed", err=True)
        ctx.exit(1)


@protocol.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def protocol_validate(files: tuple[str, ...]) -> None:
    """Load protocol FILES and report the first error of each, naming its path inside the file."""
    for path in files:
        proto = load_protocol(path)
        output.line(f"{path}: {proto.key}: {len(proto.claims)} claims, {len(proto.actions)} actions, "
                   f"{len(proto.outcomes)} outcomes, {len(proto.obligations)} obligations"
                   + (f", a rubric of {len(proto.rubric.questions)} questions" if proto.rubric else ""))
