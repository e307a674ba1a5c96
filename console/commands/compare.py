"""`gatepost compare RUN… --baseline RUN`: runs lined up against one baseline, task by task."""

import sys

import click

from gatepost import output
from gatepost.commands._common import echo_json, open_ctx_store, quiet_option
from gatepost.store.evaluation import rate_words
from gatepost.store.views import compare_matrix, run_suite, sparkline, suite_trend
from gatepost.widgets.compare_view import matrix_lines

EXIT_WORSE = 1


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, metavar="RUN…")
@click.option("--baseline", required=True, metavar="RUN", help="The run every RUN is compared with.")
@click.option("--all-tasks", is_flag=True, help="List every task, not only those that differ from the baseline.")
@click.option("--trend", is_flag=True,
              help="Also show the baseline's suite's pass rate over its runs (newest 30, with intervals).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema gatepost.compare/1).")
@click.option("--fail-on-regression", is_flag=True,
              help="Exit 1 when a RUN is worse than the baseline beyond the noise (the paired exact test decides "
                   "it at alpha); a drop the test cannot tell from noise does not fail. For CI.")
@quiet_option
@click.pass_context
def compare(ctx: click.Context, runs: tuple[str, ...], baseline: str, all_tasks: bool, trend: bool, as_json: bool,
            fail_on_regression: bool, quiet: bool) -> None:
    """Line up stored runs against a baseline run: each run's pass rate with its interval, its delta with the
    paired interval and p-value, and a task × run matrix with the regressions first.

    The runs must hold the baseline's tasks (a paired comparison compares the same tasks), in any stored
    format (gatepost's own runs, upstream artifacts, JUnit, Inspect). Runs of many tasks take seconds:
    on a terminal, which run is being read is shown on stderr.
    """
    db = open_ctx_store(ctx)
    with output.Progress("compare", None, quiet=quiet, unit="parts") as progress:
        result = compare_matrix(db, list(runs), baseline, all_tasks=all_tasks, steps=progress.begun())
        if trend:
            progress.show("the suite's trend")
            suite = run_suite(db, baseline)
            result["trend"] = suite_trend(db, suite[0], skill=suite[1]) if suite else []
    if as_json:
        echo_json(result)
    else:
        for line in matrix_lines(result):
            output.line(line)
        if trend:
            points = result["trend"]
            output.line("")
            output.line(f"trend of the baseline's suite ({len(points)} runs, oldest first): {sparkline(points)}")
            for p in points:
                output.line(f"  {p['run']}  {p['started_at'][:16].replace('T', ' ')}  {rate_words(p['rate'])}")
    if fail_on_regression and result["worse"]:
        if not as_json:
            output.line(f"worse than the baseline beyond the noise: {', '.join(result['worse'])}", err=True)
        sys.exit(EXIT_WORSE)


COMMANDS = [compare]
