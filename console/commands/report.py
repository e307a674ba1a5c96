"""`gatepost report`: decision records, regressions and evaluation runs as Markdown or HTML."""

import click

from gatepost import output
from gatepost.cli import loading
from gatepost.commands._common import (
    force_option,
    open_ctx_store,
    person,
    quiet_option,
    store_path,
    write_file,
)
from gatepost.store.views import reports

format_option = click.option("--format", "fmt", type=click.Choice(reports.FORMATS), default="md", show_default=True,
                             help="md for a pull request or a chat, html for a browser (all data escaped).")
output_option = click.option("--output", "-o", "out_file", type=click.Path(dir_okay=False), default=None,
                             help="Write the report to this file instead of standard output (refuses the store, "
                                  "a SQLite file, or an existing file without --force).")


def _engine_for(fmt: str) -> None:
    """Jinja2, for a report rendered from a template, loaded as the command's own modules are."""
    if fmt in reports.FORMATS:
        with loading():
            reports.load_engine()


def _emit(ctx: click.Context, text: str, out_file: str | None, force: bool) -> None:
    """The report to its file (never over the store or another file), or made inert on standard output."""
    if out_file:
        written = write_file(out_file, text, store=store_path(ctx), force=force)
        output.line(f"report written: {written}")
    else:
        output.block(text, nl=False)


@click.group()
def report() -> None:
    """Reports for people who are not at the console."""


@report.command("case")
@click.argument("case_id")
@format_option
@output_option
@force_option
@click.pass_context
def report_case(ctx: click.Context, case_id: str, fmt: str, out_file: str | None, force: bool) -> None:
    """The decision record of case CASE_ID: candidate, basis, revision, claims and why, evidence, decisions."""
    db = open_ctx_store(ctx)
    _engine_for(fmt)
    _emit(ctx, reports.case_report(db, case_id, fmt), out_file, force)


@report.command("regressions")
@format_option
@output_option
@force_option
@click.option("--no-remember", is_flag=True,
              help="Do not record this report as the one the next report compares against.")
@click.option("--as", "consumer", default=None, metavar="NAME",
              help="Who reads it (ci-nightly, ana): each keeps its own \"since last report\" mark. "
                   "Default: $GATEPOST_REVIEWER, else your OS user name.")
@click.option("--since", type=click.IntRange(min=0), default=None, metavar="SEQ",
              help="Compare with the states as of event SEQ instead of the previous report.")
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON (schema gatepost.regressions/1).")
@click.pass_context
def report_regressions(ctx: click.Context, fmt: str, out_file: str | None, force: bool, no_remember: bool,
                       consumer: str | None, since: int | None, as_json: bool) -> None:
    """Skills by regression state with their failing assertions.

    It leads with what changed since the previous report, and says so in one
    line when nothing did; triage (who acknowledged, their note) is listed.
    """
    db = open_ctx_store(ctx)
    _engine_for("json" if as_json else fmt)
    text = reports.regressions_report(db, "json" if as_json else fmt, remember=not no_remember,
                                      consumer=person(consumer), since=since)
    if as_json and not out_file:
        output.json_block(text, nl=False)
        return
    _emit(ctx, text, out_file, force)


@report.command("suite")
@click.argument("run_id")
@format_option
@output_option
@force_option
@quiet_option
@click.pass_context
def report_suite(ctx: click.Context, run_id: str, fmt: str, out_file: str | None, force: bool, quiet: bool) -> None:
    """One evaluation run RUN_ID: pass rates, delta, verdict, warnings and each task.

    A run of many tasks takes seconds: on a terminal, which step runs is shown on stderr."""
    db = open_ctx_store(ctx)
    _engine_for(fmt)
    with output.Progress(f"report suite {output.field(run_id)}", None, quiet=quiet, unit="parts") as progress:
        text = reports.suite_report(db, run_id, fmt, steps=progress.begun())
    _emit(ctx, text, out_file, force)
