"""Proposals waiting for a person: import, list, show, mark accepted / declined / needs changes."""

import difflib
from typing import Any

import click

from gatepost import output
from gatepost.cli import LazyGroup
from gatepost.commands._common import (
    answer_option,
    answers_given,
    as_option,
    echo_json,
    open_ctx_store,
    person,
)
from gatepost.store import proposals
from gatepost.store.kernel import InputError
from gatepost.store.proposals import (
    MARKS,
    STATUSES,
    ProposalRow,
    get_proposal,
    import_proposals,
    list_proposals,
    mark_proposal,
)
from gatepost.store.protocol import answers_text


@click.group(cls=LazyGroup)  # its subcommands from other modules: gatepost.cli.SUBCOMMANDS
def proposal() -> None:
    """Proposals (ai-memory proposals and cases decided `proposed`) waiting for a person."""


@proposal.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@as_option
@click.pass_context
def proposal_import(ctx: click.Context, file: str, as_name: str | None) -> None:
    """Import an ai-memory proposal JSON FILE (one object, or a list of them) into the queue.

    Every proposal is checked before any is stored; the same proposal is stored once.
    """
    db = open_ctx_store(ctx, create=True)
    for pid, created in import_proposals(db, file, actor=person(as_name)):
        output.line(f"{'imported' if created else 'already imported'}: {pid}")


def _brief(row: ProposalRow) -> dict[str, Any]:
    return {k: row.get(k) for k in ("id", "status", "path", "title", "kind", "operation", "edit_mode",
                                    "confidence", "case_id", "gate", "created_at", "updated_at")}


@proposal.command("list")
@click.option("--status", type=click.Choice(STATUSES), default=None, help="Only proposals in this status.")
@click.option("--search", default=None, help="Only proposals whose id, path, title or case contains this text.")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True, help="Rows per page.")
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True, help="Rows to skip.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {total, proposals: [...]}.")
@click.pass_context
def proposal_list(ctx: click.Context, status: str | None, search: str | None, limit: int, offset: int,
                  as_json: bool) -> None:
    """List proposals, waiting ones first, with their latest gate result."""
    rows, total = list_proposals(open_ctx_store(ctx), status=status, search=search, limit=limit, offset=offset)
    if as_json:
        echo_json({"total": total, "offset": offset, "proposals": [_brief(r) for r in rows]})
        return
    if not rows:
        output.line("no proposals" + (f" with status {status}" if status else "")
                   + " (gatepost proposal import FILE)")
        return
    for r in rows:
        title = " ".join((r["title"] or "").split())[:40]
        output.line(f"{r['id']:<24} {r['status']:<14} gate {r['gate'] or '—':<13} {r['path'] or '—':<32} {title}")
    if total > offset + len(rows):
        output.line(f"… {total - offset - len(rows)} more (--offset {offset + len(rows)})")


@proposal.command("show")
@click.argument("proposal_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True,
              help="Print the proposal (with before_body and after_body), its gate results and marks as JSON.")
@click.pass_context
def proposal_show(ctx: click.Context, proposal_id: str, as_json: bool) -> None:
    """Show one proposal: its fields, content, before/after diff, gate results, marks and a case's claims."""
    found = get_proposal(open_ctx_store(ctx), proposal_id)
    if not found:
        raise InputError(f"proposal {proposal_id}: no such proposal (gatepost proposal list)")
    if as_json:
        doc: dict[str, Any] = dict(found)
        case = doc.pop("case")
        doc["case_claims"] = case["claims"] if case else None
        echo_json(doc)
        return
    output.line(f"{found['id']}  {found['status']}  {found['operation']} {found['edit_mode']}  {found['path']}")
    for key in ("title", "kind", "confidence", "rationale", "case_id"):
        if found.get(key) is not None:
            output.line(f"{key}: {found[key]}")
    before, after = found.get("before_body"), found.get("after_body")
    if after is not None:
        output.line("content:")
        for text in after.splitlines():
            output.line(f"  | {text}")
        output.line("diff:")
        diff = list(difflib.unified_diff((before or "").splitlines(), after.splitlines(), "before", "after",
                                         lineterm=""))
        for text in diff or ["  (no difference)"]:
            output.line(text)
    for g in found["gate_results"]:
        # the gate's module (and the evaluator's process runner it imports) loads only for a proposal that has
        # gate results: `proposal list` starts without it
        output.line(f"gate {g['at']}: {proposals.gate_status(g)}: {g['reason']}")
    for m in found["marks"]:
        output.line(f"marked {m['status']} by {m['actor']} at {m['at']}: {m['note']}")
        if m.get("override_gate"):
            output.line(f"  gate overridden: {m['override_gate']}")
        if m.get("rubric"):
            output.line(f"  rubric: {output.field(answers_text(m['rubric']))}")
    if found["case"]:
        for name, value in found["case"]["claims"].items():
            output.line(f"claim {name}: {value}")


@proposal.command("mark")
@click.argument("proposal_id", metavar="ID")
@click.argument("status", type=click.Choice(MARKS))
@click.option("--note", required=True, help="Why (kept with the decision; required).")
@click.option("--override-gate", "override_gate", default=None, metavar="REASON",
              help="Accept although the proposal's latest gate result failed; the reason is kept in its history.")
@answer_option("the proposals' rubric")
@as_option
@click.pass_context
def proposal_mark(ctx: click.Context, proposal_id: str, status: str, note: str, override_gate: str | None,
                  answers: tuple[str, ...], as_name: str | None) -> None:
    """Mark proposal ID accepted, declined or needs_changes (needs proposal.review).

    Accepted and declined are final; needs_changes can be followed by another
    mark. A refusal exits 3 and writes nothing.
    """
    who = person(as_name)
    updated = mark_proposal(open_ctx_store(ctx), proposal_id, status, actor=who, note=note,
                            override_gate=override_gate, answers=answers_given(answers))
    output.line(f"{updated['id']}: {updated['status']} by {who}")
