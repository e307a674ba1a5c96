"""`gatepost decide KIND DECISION --ids …`: one decision with one note on many items, each its own act."""

import sys

import click

from gatepost import output
from gatepost.commands._common import (
    answer_option,
    answers_given,
    as_option,
    echo_json,
    open_ctx_store,
    person,
)
from gatepost.store.batch import ItemResult, decide_each, summary
from gatepost.store.flows import DECISIONS

EXIT_REFUSED = 3


def read_ids(ids: str) -> list[str]:
    """`a,b,c`, or `-`: one id a line from standard input (`case list --json | jq -r …`)."""
    if ids.strip() == "-":
        return [line.strip() for line in sys.stdin.read().splitlines() if line.strip()]
    return [part.strip() for part in ids.split(",") if part.strip()]


def report(results: list[ItemResult], doing: str, *, as_json: bool) -> None:
    """Each item's outcome (the refused with their refusal), then the count; exit 3 when any was refused."""
    if as_json:
        echo_json({"done": sum(r.done for r in results), "refused": sum(not r.done for r in results),
                   "items": [r.as_dict() for r in results]})
    else:
        for r in results:
            output.line(f"{'done' if r.done else 'refused'}  {r.message}", err=not r.done)
        output.line(summary(results, doing))
    if not all(r.done for r in results):
        sys.exit(EXIT_REFUSED)


@click.command("decide")
@click.argument("kind", type=click.Choice(sorted(DECISIONS)))
@click.argument("decision")
@click.option("--ids", required=True, metavar="ID,ID…",
              help="The items, comma-separated, or - to read one id a line from standard input.")
@click.option("--note", default=None, help="Why: one note, kept with each item's decision.")
@answer_option("each item's rubric (its case's protocol's, or its queue's), the same answers for every item")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {done, refused, items: [{id, done, message}]}.")
@as_option
@click.pass_context
def decide(ctx: click.Context, kind: str, decision: str, ids: str, note: str | None, answers: tuple[str, ...],
           as_json: bool, as_name: str | None) -> None:
    """Take one DECISION with one note on many items of KIND, each as its own act.

    KIND is case, proposal, draft or skill; DECISION is one the console offers on it (case: kept, rejected,
    proposed, inconclusive, design_passed, design_failed; proposal: accepted, declined, needs_changes; draft:
    approve, reject; skill: acknowledge, mismatch). Each item goes through its own checks and is its own
    event; the refused are listed with their refusal (and wrote nothing), the others are done. Exit 3 when
    any was refused. Where the decision asks a rubric, --answer answers it on every item, checked by each
    item's act against its own rubric; an item asking none is decided without the answers (its line says so).
    """
    given = answers_given(answers)
    results = decide_each(open_ctx_store(ctx), kind, decision, read_ids(ids), actor=person(as_name), note=note,
                          answers=given)
    report(results, decision, as_json=as_json)


COMMANDS = [decide]
