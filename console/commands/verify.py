"""`gatepost verify`: is the store's history intact, and do its lists say what its history says?"""

import re

import click

from gatepost import output
from gatepost.commands._common import echo_json, open_ctx_store
from gatepost.store.kernel import InputError, restore_triggers
from gatepost.store.views import verify_store

_HEAD_HASH = re.compile(r"[0-9a-fA-F]{64}")


@click.command()
@click.option("--expect", metavar="HASH", default=None,
              help="A head hash printed by an earlier verify and kept elsewhere (e.g. a CI log): it must still "
                   "be in the chain, which catches a cut tail or a history rewritten whole.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the report as one JSON object (intact, head, events, findings, first_broken_seq), for CI.")
@click.option("--as", "as_name", metavar="NAME", default=None,
              help="Who restores missing append-only triggers (recorded in the event). Default: nobody named.")
@click.option("-q", "--quiet", is_flag=True,
              help="No progress display on stderr (shown only when stdout and stderr are a terminal).")
@click.pass_context
def verify(ctx: click.Context, expect: str | None, as_json: bool, as_name: str | None, quiet: bool) -> None:
    """Recompute the audit trail's hash chain and check every record and list against its events.

    Prints one line per finding, naming the first broken event, then the head hash
    (keep it: `--expect HASH` later proves nothing was cut or rewritten since). Every table the
    rules read is rebuilt from the events alone and compared: a finding names the table, the row,
    the column, what the events say and what the table holds.
    Exit 0 intact, 1 a finding, 2 not a gatepost store.

    \b
    Examples:
      gatepost --db review.db verify
      gatepost --db review.db verify --expect 3f1c…e9a0
      gatepost --db review.db verify --json
    """
    if expect is not None and not _HEAD_HASH.fullmatch(expect.strip()):
        raise InputError(f"--expect: expected a head hash (64 hex digits, as verify printed it), got {expect!r}")
    db = open_ctx_store(ctx)
    try:
        # a large store takes seconds: on a terminal, say which part runs
        with output.Progress("verify", None, quiet=quiet, unit="parts") as progress:

            def begun(part: str, done: int, parts: int) -> None:
                progress.reach(done, current=f"{part}, part {done + 1} of {parts}")

            report = verify_store(db, expect=expect, parts=begun)
        if as_json:
            restored = restore_triggers(db, actor=as_name) if report.findings else []
            echo_json({"schema": "gatepost.verify/1", "intact": report.intact, "events": report.events,
                       "signatures": report.signatures, "head_seq": report.head_seq, "head_hash": report.head_hash,
                       "findings": report.findings, "first_broken_seq": report.first_broken_seq,
                       "key_replacements": report.key_replacements, "triggers_restored": restored})
            ctx.exit(0 if report.intact else 1)
        for finding in report.findings:
            output.line(finding)
        for line in report.key_replacements:
            output.line(line)
        restored = restore_triggers(db, actor=as_name) if report.findings else []
        if restored:
            output.line(f"triggers: recreated {len(restored)} append-only triggers; writes are accepted again")
        output.line(f"head: event {report.head_seq} sha256 {report.head_hash}")
        if report.intact:
            signed = f", {report.signatures} signed decisions" if report.signatures else ""
            output.line(f"verify: intact ({report.events} events{signed}, chain and records agree)")
        else:
            first = (f"first broken at event {report.first_broken_seq}" if report.first_broken_seq is not None
                     else f"no single event is broken (head: event {report.head_seq})")
            output.line(f"verify: {len(report.findings)} finding(s); {first}")
    finally:
        db.close()
    ctx.exit(0 if report.intact else 1)
