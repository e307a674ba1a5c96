"""`gatepost comment`: a thread on any item, and the comments that mention a person."""

from typing import Any

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store.discussion import (
    ITEMS,
    add_comment,
    mentions_of,
    parse_item,
    thread,
    unknown_mentions,
)


def _line(row: dict[str, Any], *, item: bool = False) -> str:
    where = f"{row['subject_type']}:{row['subject_id']} " if item else ""
    return (f"{where}#{row['event_seq']} {row['author'] or '?'} at {row['at'][:16].replace('T', ' ')}: "
            f"{' '.join(row['note'].split())}")


@click.command("comment")
@click.argument("item", metavar="KIND:ID", required=False)
@click.option("--note", default=None, help="The comment's text; @name mentions a person (assigns nothing).")
@click.option("--mentioning", default=None, metavar="NAME",
              help="List the comments that mention NAME (newest first) instead of a thread.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@as_option
@click.pass_context
def comment(ctx: click.Context, item: str | None, note: str | None, mentioning: str | None, as_json: bool,
            as_name: str | None) -> None:
    """Comment on an item (KIND:ID --note TEXT), or list its thread (KIND:ID alone).

    KIND is case, proposal, draft, skill or run. A comment decides nothing and is an event in the audit
    log; it needs item.comment or a capability that judges items. `@name` mentions a person: the comment
    shows in their Overview. --mentioning NAME lists the comments that mention NAME.
    """
    if mentioning is not None:
        if item or note:
            raise click.UsageError("--mentioning lists mentions; give it without KIND:ID and --note")
        rows = mentions_of(open_ctx_store(ctx), mentioning, limit=1000)
        if as_json:
            echo_json({"person": mentioning, "comments": rows})
            return
        for row in rows:
            output.line(_line(row, item=True))
        if not rows:
            output.line(f"no comment mentions {output.field(mentioning)}")
        return
    if not item:
        raise click.UsageError(f"give KIND:ID (KIND one of {', '.join(ITEMS)}) or --mentioning NAME")
    kind, key = parse_item(item, field="KIND:ID")
    db = open_ctx_store(ctx)
    if note is None:
        rows = thread(db, kind, key)
        if as_json:
            echo_json({"item": f"{kind}:{key}", "comments": rows})
            return
        for row in rows:
            output.line(_line(row))
        if not rows:
            output.line(f"{kind} {output.field(key)}: no comments yet (gatepost comment {kind}:ID --note TEXT)")
        return
    made = add_comment(db, kind, key, note, actor=person(as_name))
    if as_json:
        echo_json(made)
        return
    said = f"{kind} {output.field(key)}: comment added (event #{made['event_seq']})"
    if made["mentions"]:
        said += f"; mentions {', '.join(made['mentions'])}"
    output.line(said)
    unknown = unknown_mentions(db, made["note"])
    if unknown:
        output.line(f"not a person of this store, so not mentioned: {', '.join('@' + n for n in unknown)}",
                    err=True)


COMMANDS = [comment]
