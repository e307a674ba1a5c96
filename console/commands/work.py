"""`gatepost assign` and `gatepost team`: work assigned to people and the team's progress."""

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.commands.bulk import read_ids, report
from gatepost.store.batch import assign_each
from gatepost.store.flows import ASSIGNABLE, assign
from gatepost.store.views import assignment_of, progress_line, team_progress


@click.command("assign")
@click.argument("item", type=click.Choice(sorted(ASSIGNABLE)))
@click.argument("item_id", metavar="ID", required=False)
@click.option("--ids", default=None, metavar="ID,ID…",
              help="Many items instead of ID (comma-separated, or - for one a line on standard input), each its own "
                   "act; exit 3 when any was refused.")
@click.option("--to", "assignee", metavar="NAME", help="The reviewer to assign it to.")
@click.option("--clear", is_flag=True, help="Remove the item's assignment.")
@click.option("--note", default=None, help="Why, for the audit log.")
@click.option("--json", "as_json", is_flag=True, help="With --ids: print JSON {done, refused, items}.")
@as_option
@click.pass_context
def assign_cmd(ctx: click.Context, item: str, item_id: str | None, ids: str | None, assignee: str | None,
               clear: bool, note: str | None, as_json: bool, as_name: str | None) -> None:
    """Assign a case, proposal, draft or regression to a reviewer (or --clear it).

    ITEM is case, proposal, draft or skill (a skill's regression); ID names it (--ids names many). Needs the item's capability (case.close, proposal.review, manifest.review, regression.triage);
    the reviewer must hold it too. The act is an event in the audit log; the reviewer's queue
    offers it first.
    """
    if clear == bool(assignee):
        raise click.UsageError("give --to NAME or --clear (one of them)")
    if bool(item_id) == bool(ids):
        raise click.UsageError("give ID or --ids ID,ID… (one of them)")
    db = open_ctx_store(ctx)
    if ids:
        results = assign_each(db, item, read_ids(ids), None if clear else assignee, actor=person(as_name),
                              note=note)
        report(results, "assign" if assignee else "clear", as_json=as_json)
        return
    assert item_id is not None
    seq = assign(db, item, item_id, None if clear else assignee, actor=person(as_name), note=note)
    now = assignment_of(db, item, item_id)
    if now is None:
        output.line(f"{item} {output.field(item_id)}: assignment cleared (event #{seq})")
    else:
        output.line(f"{item} {output.field(item_id)}: assigned to {output.field(now['assignee'])} (event #{seq})")


@click.command("team")
@click.option("--json", "as_json", is_flag=True, help="Print the progress as JSON.")
@click.pass_context
def team_cmd(ctx: click.Context, as_json: bool) -> None:
    """Per person: items assigned, still waiting, and judgments made today.

    Today is the UTC date; a judgment is a decision, a review mark, a draft approved or rejected,
    or a regression acknowledged or flagged.
    """
    rows = team_progress(open_ctx_store(ctx))
    if as_json:
        echo_json(rows)
        return
    if not rows:
        output.line("nobody has assigned work or judgments today")
    for row in rows:
        output.line(progress_line(row))
