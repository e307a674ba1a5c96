"""`gatepost pairwise` and `gatepost prefer`: a task's candidate and baseline outputs side by side, and a
person's preference between them (evidence where the run's case's protocol lists `preference`); with
`--against RUN2`, the task's output in two runs of one suite (RUN the candidate side, RUN2 the baseline)."""

import shutil
import textwrap
from typing import Any

import click

from gatepost import output
from gatepost.commands._common import SEQ, as_option, echo_json, open_ctx_store, person
from gatepost.store.preferences import (
    counting_words,
    pairwise,
    preferred,
    record_preference,
    side_name,
)

MAX_LINES = 40  # per output: the whole text is in --json


def _column(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for raw in (text or "").splitlines() or [""]:
        lines += textwrap.wrap(raw, width, replace_whitespace=False, drop_whitespace=False) or [""]
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES - 1], f"… {len(lines) - MAX_LINES + 1} more lines (--json has all)"]
    return lines


def _side_head(view: dict[str, Any], side: str) -> str:
    out = view["outputs"][side]
    name = side_name(view, side)
    if out is None:
        return f"{name}: no output"
    return f"{name} {'pass' if out['passed'] else 'fail'}" + (f" · {out['reason']}" if out["reason"] else "")


def _preference_line(p: dict[str, Any]) -> str:
    counted = "counts as evidence" if p["counted"] else "recorded, not counted"
    return (f"#{p['event_seq']} {p['person']} prefers {preferred(p)} ({counted}) at "
            f"{p['at'][:16].replace('T', ' ')}" + (f": {' '.join(p['note'].split())}" if p["note"] else ""))


def show_pairwise(view: dict[str, Any]) -> None:
    """Both outputs in two columns, then the preferences recorded; every cell through the inert output."""
    width = max(20, (min(shutil.get_terminal_size((120, 24)).columns, 160) - 3) // 2)
    if view.get("against"):
        output.line(f"task {view['task_id']} · suite {view['skill_id']} · run {view['run_id']} (candidate side) "
                    f"against run {view['against']} (baseline side)")
    else:
        output.line(f"run {view['run_id']} · task {view['task_id']} · suite {view['skill_id']}"
                    + (f" · case {view['case_id']}" if view["case_id"] else " · no case"))
    output.line(f"{_side_head(view, 'candidate')[:width]:<{width}} │ {_side_head(view, 'baseline')[:width]}")
    output.line(f"{'─' * width}─┼─{'─' * width}")
    left = _column((view["outputs"]["candidate"] or {}).get("output", ""), width)
    right = _column((view["outputs"]["baseline"] or {}).get("output", ""), width)
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ""
        b = right[i] if i < len(right) else ""
        output.line(f"{output.field(a):<{width}} │ {output.field(b)}")
    output.line(f"a preference here {counting_words(view)}")
    for p in view["preferences"]:
        output.line(_preference_line(p))
    if not view["preferences"]:
        against = f" --against {view['against']}" if view.get("against") else ""
        output.line(f"no preference yet (gatepost prefer RUN TASK{against} --candidate|--baseline|--tie --note TEXT)")


@click.command("pairwise")
@click.argument("run_id", metavar="RUN")
@click.argument("task_id", metavar="TASK")
@click.option("--against", "against", default=None, metavar="RUN2",
              help="Another run of the same suite: the task's output in RUN beside its output in RUN2.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: both outputs in full and the preferences.")
@click.pass_context
def pairwise_cmd(ctx: click.Context, run_id: str, task_id: str, against: str | None, as_json: bool) -> None:
    """Show a task's candidate and baseline outputs of a run side by side, and the preferences recorded on it.

    With --against RUN2 (a run of the same suite): the task's candidate output in RUN beside its candidate output
    in RUN2."""
    view = pairwise(open_ctx_store(ctx), run_id, task_id, against=against)
    if as_json:
        echo_json(view)
        return
    show_pairwise(view)


@click.command("prefer")
@click.argument("run_id", metavar="RUN")
@click.argument("task_id", metavar="TASK")
@click.option("--candidate", "choice", flag_value="candidate",
              help="The candidate's output is better (with --against: RUN's).")
@click.option("--baseline", "choice", flag_value="baseline",
              help="The baseline's output is better (with --against: RUN2's).")
@click.option("--tie", "choice", flag_value="tie", help="Neither is better.")
@click.option("--against", "against", default=None, metavar="RUN2",
              help="Compare the task's output in RUN with its output in RUN2, a run of the same suite (counts as no "
                   "case's evidence).")
@click.option("--note", default=None, help="Why (optional).")
@click.option("--seq", "based_on_seq", type=SEQ, default=None,
              help="The run's event seq you judged on; refused if it changed since.")
@click.option("--json", "as_json", is_flag=True, help="Print the preference as stored, as JSON.")
@as_option
@click.pass_context
def prefer(ctx: click.Context, run_id: str, task_id: str, choice: str | None, against: str | None,
           note: str | None, based_on_seq: int | None, as_json: bool, as_name: str | None) -> None:
    """Record which of a task's two outputs in a run is better (--candidate, --baseline or --tie).

    It counts as evidence only where the run's case's protocol lists the preference kind; elsewhere it is
    recorded and counts for nothing. Needs a person holding case.close, eval_design.review,
    loop_change.keep or proposal.review; the case's author never records one. With --against RUN2, the task's
    output in RUN (--candidate) against its output in RUN2 (--baseline), two runs of the same suite.
    """
    if choice is None:
        raise click.UsageError("say which output is better: --candidate, --baseline or --tie "
                               "(gatepost pairwise RUN TASK shows both)")
    made = record_preference(open_ctx_store(ctx), run_id, task_id, choice, actor=person(as_name), note=note,
                             based_on_seq=based_on_seq, against=against)
    if as_json:
        echo_json(made)
        return
    across = f" against run {output.field(against)}" if against else ""
    output.line(f"run {output.field(run_id)} task {output.field(task_id)}{across}: {_preference_line(made)}"
                + (f" on case {made['case_id']}" if made["counted"] else ""))
