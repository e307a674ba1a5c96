"""The loop's and CI's side of gatepost: make a case from files, wait for its decision, follow the events,
record where a change landed. Every `--json` document names its schema."""

import json
import time

import click

from gatepost import output
from gatepost.commands._common import TIMEOUT, as_option, echo_json, open_ctx_store, person
from gatepost.store import cases as cases_mod
from gatepost.store import flows, proposals, views
from gatepost.store.kernel import InputError, read_input

# `case wait` exit codes: one per outcome (docs/loops.md).
WAIT_EXIT = {"kept": 0, "rejected": 10, "proposed": 11, "inconclusive": 12}
WAIT_BASE_MOVED = 13  # kept, but the path's current content is no longer what it was made on: do not land it
WAIT_TIMEOUT = 124
POLL_SECONDS = 0.2


@click.command("new")
@click.option("--loop", "loop_name", required=True, metavar="NAME", help="The registered loop making the case.")
@click.option("--path", "path", required=True, metavar="PATH", help="The project path the candidate changes.")
@click.option("--content-file", required=True, type=click.Path(dir_okay=False),
              help="The candidate's full content (UTF-8 text; '-' reads stdin).")
@click.option("--title", default=None, help="A one-line title (default: LOOP: PATH).")
@click.option("--id", "case_id", default=None, metavar="ID", help="The case id (default: derived from the revision).")
@click.option("--data-revision", default=None, metavar="LABEL", help="The data revision (default: the loop's).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema gatepost.case-new/1).")
@as_option
@click.pass_context
def case_new(ctx: click.Context, loop_name: str, path: str, content_file: str, title: str | None,
             case_id: str | None, data_revision: str | None, as_json: bool, as_name: str | None) -> None:
    """Make a case of loop NAME from a file: revision, basis and independence computed from the registry.

    The basis records the hash of PATH's current content (what the candidate is made on) and the loop's
    suite hash; the case's author is --as (the loop's run). Exit 3 when the loop may not touch PATH.
    """
    text = read_input(content_file, what="content file")
    made = flows.new_case(open_ctx_store(ctx), loop_name, path, text, actor=person(as_name), title=title,
                          case_id=case_id, data_revision=data_revision)
    if as_json:
        echo_json(made)
        return
    where = "inside the loop's surface" if made["within_surface"] else "outside the loop's surface: it can only be proposed"
    output.line(f"{made['case_id']}: open at revision {made['revision'][:12]} ({made['path']}, {where})")


@click.command("wait")
@click.argument("case_id", metavar="ID")
@click.option("--timeout", type=TIMEOUT, default=None, metavar="SECONDS",
              help="Give up after this many seconds (0 to 31,536,000; exit 124). Default: wait until decided.")
@click.option("--json", "as_json", is_flag=True, help="Print the decided case (schema gatepost.case/1).")
@as_option
@click.pass_context
def case_wait(ctx: click.Context, case_id: str, timeout: float | None, as_json: bool, as_name: str | None) -> None:
    """Block until case ID is decided; the exit code says the outcome.

    \b
    Exit codes: 0 kept, safe to land on its base (the path's current content)
                13 kept, but the base moved: another change landed first; do not land it, rebase
                10 rejected · 11 proposed · 12 inconclusive
                124 --timeout passed, still open · 2 no such case
    """
    db = open_ctx_store(ctx)
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        row = cases_mod.get_case(db, case_id)  # an unknown id: exit 2 at once
        if row["status"] != "open":
            break
        if deadline is not None and time.monotonic() >= deadline:
            output.line(f"{case_id}: still open after {timeout:g} s (last event #{row['last_seq']})", err=True)
            ctx.exit(WAIT_TIMEOUT)
        time.sleep(POLL_SECONDS if deadline is None else max(0.0, min(POLL_SECONDS, deadline - time.monotonic())))
    view = cases_mod.case_view(db, case_id, actor=person(as_name))
    if as_json:
        echo_json(cases_mod.show_json(view))
    else:
        last = view["decisions"][-1] if view["decisions"] else None
        output.line(f"{case_id}: {row['outcome']}" + (f" by {last['actor']} at {last['at']}" if last else "")
                    + (f": {last['note']}" if last and last["note"] else ""))
    base = view["base"]
    if row["outcome"] == "kept" and base["path"]:
        if base["stale"]:
            output.line(f"{case_id}: kept, but the base moved: {base['why']}", err=True)
            ctx.exit(WAIT_BASE_MOVED)
        if not as_json:
            landed = view["applied"][-1]["ref"] if view["applied"] else None
            output.line(f"{case_id}: already recorded applied at {landed or '—'}" if view["applied"] else
                        f"{case_id}: kept, safe to land on base {base['current']} ({base['path']})")
    ctx.exit(WAIT_EXIT.get(row["outcome"], 1))


@click.command("applied")
@click.argument("case_id", metavar="ID")
@click.option("--ref", required=True, metavar="REF", help="Where it landed: a commit, a tag, a deploy id.")
@click.option("--json", "as_json", is_flag=True, help="Print the path's current content (schema gatepost.current/1).")
@as_option
@click.pass_context
def case_applied(ctx: click.Context, case_id: str, ref: str, as_json: bool, as_name: str | None) -> None:
    """Record that kept case ID's content landed at --ref: it becomes the current content of its path."""
    doc = flows.record_case_applied(open_ctx_store(ctx), case_id, ref=ref, actor=person(as_name))
    if as_json:
        echo_json(doc)
        return
    output.line(f"{case_id}: applied at {ref}; {doc['path']} is now {doc['content_hash'][:19]}…")


@click.command("applied")
@click.argument("proposal_id", metavar="ID")
@click.option("--ref", required=True, metavar="REF", help="Where it landed: a commit, a tag, a deploy id.")
@click.option("--content-file", default=None, type=click.Path(dir_okay=False),
              help="The content that resulted (required for a patch proposal; default: its after_body).")
@click.option("--json", "as_json", is_flag=True, help="Print the path's current content (schema gatepost.current/1).")
@as_option
@click.pass_context
def proposal_applied(ctx: click.Context, proposal_id: str, ref: str, content_file: str | None, as_json: bool,
                     as_name: str | None) -> None:
    """Record that accepted proposal ID landed at --ref: it becomes the current content of its path."""
    content = read_input(content_file, what="content file") if content_file else None
    doc = proposals.record_applied(open_ctx_store(ctx), proposal_id, ref=ref, actor=person(as_name), content=content)
    if as_json:
        echo_json(doc)
        return
    output.line(f"{proposal_id}: applied at {ref}; {doc['path']} is now {doc['content_hash'][:19]}…")


@click.command("events")
@click.option("--since", type=click.IntRange(min=0), default=None, metavar="SEQ",
              help="Events after this seq (default: 0, the beginning). Keep the last seq you read.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True,
              help="At most this many events (a page); ask again --since the last seq for more.")
@click.option("--kind", default=None, metavar="KIND", help="Only this kind (e.g. case.decided; `case.*` a prefix).")
@click.option("--subject", default=None, metavar="TYPE[:ID]", help="Only events about this subject (case:case-0042).")
@click.option("--last", "last", type=click.IntRange(1, 10_000), default=None, metavar="N",
              help="The newest N events (after --since, if given), oldest first.")
@click.option("--no-leases", "no_leases", is_flag=True,
              help="Leave out lease events (taken, renewed, released as people open items).")
@click.option("--follow", is_flag=True, help="Keep waiting for new events (until --timeout).")
@click.option("--timeout", type=TIMEOUT, default=None, metavar="SECONDS",
              help="With --follow: stop after this many seconds (0 to 31,536,000).")
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines: one event a line (schema gatepost.event/1), canonical JSON.")
@click.pass_context
def events(ctx: click.Context, since: int | None, limit: int, kind: str | None, subject: str | None,
           last: int | None, no_leases: bool, follow: bool, timeout: float | None, as_json: bool) -> None:
    """The audit log as a feed: events after --since SEQ, oldest first, one page (--limit).

    --last N gives the newest N; a text line says what each decision was (kept, accepted, approved …)."""
    subject_type = subject_id = None
    if subject:
        subject_type, _, subject_id = subject.partition(":")
        if not subject_type:
            raise InputError(f"--subject: expected TYPE or TYPE:ID (e.g. case:case-0042), got {subject!r}")
    db = open_ctx_store(ctx)
    cursor = since or 0
    deadline = None if timeout is None else time.monotonic() + timeout
    newest = last is not None
    while True:
        page = views.events_since(db, cursor, limit=last if newest and last else limit, kind=kind,
                                  subject_type=subject_type, subject_id=subject_id or None, last=newest,
                                  leases=not no_leases)
        newest = False  # following on from the newest: what comes after, in order
        for event in page:
            if as_json:
                output.json_line(event)
            else:
                outcome = views.outcome_of(json.dumps(event["payload"]) if event["payload"] else None, event["kind"])
                output.line(f"#{event['seq']} {event['at']} {event['kind']}"
                            + (f" → {outcome}" if outcome else "")
                            + f" {event['subject_type']}:{event['subject_id']} by {event['actor'] or '—'}"
                            + (f": {event['note']}" if event["note"] else ""))
            cursor = event["seq"]
        if not follow:
            return
        if deadline is not None and time.monotonic() >= deadline:
            return
        if not page:
            time.sleep(POLL_SECONDS)
