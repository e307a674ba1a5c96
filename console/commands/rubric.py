"""`gatepost rubric`: the questions a deciding queue asks every decision (proposals, manifest drafts,
regressions), set by the store's administrator; a case's rubric is its protocol's (`case show`)."""

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store import rubrics
from gatepost.store.rubrics import QUEUES

QUEUE = click.Choice(sorted(QUEUES))


def _questions(rubric: rubrics.QueueRubric) -> None:
    for q in rubric.rubric.questions:
        output.line(f"  {output.field(q.key)}: {output.field(q.question)} ({q.expects})")


@click.group("rubric")
def rubric() -> None:
    """The questions a deciding queue asks every decision: proposal, draft (manifest drafts) or skill
    (regressions). A case's questions are its protocol's rubric (gatepost case show)."""


@rubric.command("show")
@click.argument("queue", type=QUEUE, required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON: each queue's rubric (null: none).")
@click.pass_context
def show(ctx: click.Context, queue: str | None, as_json: bool) -> None:
    """The rubric QUEUE asks (every queue's without QUEUE), and who set it when."""
    db = open_ctx_store(ctx)
    found = {q: rubrics.queue_rubric(db, q) for q in ([queue] if queue else list(QUEUES))}
    if as_json:
        echo_json({q: r.as_dict() if r else None for q, r in found.items()})
        return
    for q, r in found.items():
        if r is None:
            output.line(f"{q} ({QUEUES[q]}): no rubric")
            continue
        output.line(f"{q} ({QUEUES[q]}): {len(r.rubric.questions)} questions, set by {output.field(r.set_by or '—')} "
                    f"at {r.at[:16].replace('T', ' ')} (event #{r.seq}):")
        _questions(r)


@rubric.command("set")
@click.argument("queue", type=QUEUE)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--note", default=None, help="Why (kept with the event).")
@as_option
@click.pass_context
def set_cmd(ctx: click.Context, queue: str, file: str, note: str | None, as_name: str | None) -> None:
    """Make FILE's questions (a YAML list of {key, question, scale?}) the rubric every decision on QUEUE answers
    from now on (needs store.admin). Decisions already taken keep the answers they gave."""
    rubric_read = rubrics.read_rubric_file(file)
    made = rubrics.set_queue_rubric(open_ctx_store(ctx), queue, rubric_read, actor=person(as_name), note=note)
    output.line(f"{queue} ({QUEUES[queue]}): every decision answers {len(made.rubric.questions)} questions "
                f"(event #{made.seq}):")
    _questions(made)


@rubric.command("clear")
@click.argument("queue", type=QUEUE)
@click.option("--note", default=None, help="Why (kept with the event).")
@as_option
@click.pass_context
def clear(ctx: click.Context, queue: str, note: str | None, as_name: str | None) -> None:
    """QUEUE asks no rubric from now on (needs store.admin); answers already given stay with their decisions."""
    seq = rubrics.clear_queue_rubric(open_ctx_store(ctx), queue, actor=person(as_name), note=note)
    output.line(f"{queue} ({QUEUES[queue]}): no rubric (event #{seq})")


COMMANDS = [rubric]
