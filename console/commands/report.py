"""`gatepost report`: decision records, regressions and evaluation runs as Markdown or HTML."""

from pathlib import Path

import click

from gatepost.commands._common import open_ctx_store
from gatepost.store.views import reports

format_option = click.option("--format", "fmt", type=click.Choice(reports.FORMATS), default="md", show_default=True,
                             help="md for a pull request or a chat, html for a browser (all data escaped).")
output_option = click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
                             help="Write the report to this file instead of standard output.")


def _emit(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
        click.echo(f"report written: {output}")
    else:
        click.echo(text, nl=False)


@click.group()
def report() -> None:
    """Reports for people who are not at the console."""


@report.command("case")
@click.argument("case_id")
@format_option
@output_option
@click.pass_context
def report_case(ctx: click.Context, case_id: str, fmt: str, output: str | None) -> None:
    """The decision record of case CASE_ID: candidate, basis, revision, claims and why, evidence, decisions."""
    _emit(reports.case_report(open_ctx_store(ctx), case_id, fmt), output)


@report.command("regressions")
@format_option
@output_option
@click.option("--no-remember", is_flag=True,
              help="Do not record this report as the one the next report compares against.")
@click.pass_context
def report_regressions(ctx: click.Context, fmt: str, output: str | None, no_remember: bool) -> None:
    """Skills by regression state with their failing assertions.

    It leads with what changed since the previous report, and says so in one
    line when nothing did.
    """
    _emit(reports.regressions_report(open_ctx_store(ctx), fmt, remember=not no_remember), output)


@report.command("suite")
@click.argument("run_id")
@format_option
@output_option
@click.pass_context
def report_suite(ctx: click.Context, run_id: str, fmt: str, output: str | None) -> None:
    """One evaluation run RUN_ID: pass rates, delta, verdict, warnings and each task."""
    _emit(reports.suite_report(open_ctx_store(ctx), run_id, fmt), output)


COMMANDS = [report]
