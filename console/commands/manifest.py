"""`gatepost manifest`: assertion manifests per skill, their versions, and the drafts people review."""

from typing import Any

import click

from gatepost import output
from gatepost.commands._common import (
    answer_option,
    answers_given,
    as_option,
    echo_json,
    open_ctx_store,
    person,
    person_acts,
    rubric_answer_lines,
    rubric_answers,
)
from gatepost.store.kernel import InputError, read_text
from gatepost.store.skills import (
    draft_review_lines,
    failure_lines,
    manifests,
    review_notes,
    sample_failures,
)


@click.group("manifest")
def manifest_group() -> None:
    """Assertion manifests: import a person's file, review drafts, list versions.

    A manifest is YAML mapping a skill name to its assertions (min_words,
    max_words, required_patterns, forbidden_patterns, required_sections,
    must_cite_source, min_distinct_items, output_pattern, custom checks).
    Versions are never edited: each import or approval adds one.
    """


@manifest_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False, exists=False))
@as_option
@click.pass_context
def import_cmd(ctx: click.Context, file: str, as_name: str | None) -> None:
    """Record FILE's assertions as the active manifest version of each skill in it (manifest.review)."""
    db = open_ctx_store(ctx)
    results = manifests.import_manifest(db, file, actor=person(as_name))
    for v in results:
        if v["unchanged"]:
            output.line(f"{v['skill']}: unchanged (v{v['version']} already has these assertions)")
        else:
            output.line(f"{v['skill']}: v{v['version']} active ({len(v['assertions'])} assertions)")
        for note in review_notes(db, v["skill"], v["assertions"], hand_written=True):
            output.line(f"  warning: {note}")


@manifest_group.command("approve")
@click.argument("draft_id")
@click.option("--note", default=None, help="Why you approve it (optional, kept with the decision).")
@answer_option("the manifest drafts' rubric")
@as_option
@click.pass_context
def approve(ctx: click.Context, draft_id: str, note: str | None, answers: tuple[str, ...], as_name: str | None) -> None:
    """Make draft DRAFT_ID the skill's active manifest version (manifest.review)."""
    db = open_ctx_store(ctx)
    version = manifests.approve_draft(db, draft_id, actor=person(as_name), note=note, answers=answers_given(answers))
    output.line(f"approved {draft_id}: {version['skill']} v{version['version']} is active")
    draft = manifests.get_draft(db, draft_id)
    for text in failure_lines(sample_failures(db, draft) if draft else []):
        output.line(f"warning: {text}", err=True)


@manifest_group.command("reject")
@click.argument("draft_id")
@answer_option("the manifest drafts' rubric")
@person_acts("What is wrong with the draft (required).")
def reject(ctx: click.Context, draft_id: str, note: str, answers: tuple[str, ...], as_name: str | None) -> None:
    """Reject draft DRAFT_ID with a note (manifest.review); the active version stays."""
    draft = manifests.reject_draft(open_ctx_store(ctx), draft_id, actor=person(as_name), note=note,
                                   answers=answers_given(answers))
    output.line(f"rejected {draft_id} ({draft['skill']})")


@manifest_group.command("edit")
@click.argument("draft_id")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--note", default=None, help="What you changed (optional).")
@as_option
@click.pass_context
def edit(ctx: click.Context, draft_id: str, file: str, note: str | None, as_name: str | None) -> None:
    """Save FILE (the draft's YAML, edited) as a new draft by you; DRAFT_ID becomes superseded."""
    text = read_text(file, what="draft YAML")
    new = manifests.edit_draft(open_ctx_store(ctx), draft_id, text, actor=person(as_name), note=note)
    output.line(f"saved {new['id']} (edit of {draft_id}), pending review")


@manifest_group.command("drafts")
@click.option("--status", type=click.Choice(manifests.DRAFT_STATUSES), default="pending", show_default=True,
              help="Which drafts to list.")
@click.option("--all", "all_statuses", is_flag=True, help="List drafts of every status.")
@click.option("--skill", default=None, metavar="NAME", help="Only drafts of this skill.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True, help="At most this many.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def drafts(ctx: click.Context, status: str, all_statuses: bool, skill: str | None, limit: int,
           as_json: bool) -> None:
    """List manifest drafts, newest first (pending ones by default)."""
    rows, total = manifests.list_drafts(open_ctx_store(ctx), status=None if all_statuses else status,
                                        skill=skill, limit=limit)
    if as_json:
        echo_json({"total": total, "drafts": rows})
        return
    if not rows:
        output.line("no drafts" + ("" if all_statuses else f" {status}"))
    for r in rows:
        parent = f" edit of {r['parent_id']}" if r["parent_id"] else ""
        output.line(f"{r['id']}  {r['skill']:<26} {r['status']:<10} {r['origin']:<9} by {r['author']}"
                   f"{parent}  {r['created_at'][:19]}")
    if total > len(rows):
        output.line(f"… {total - len(rows)} more (--limit)")


@manifest_group.command("show")
@click.argument("target")
@click.option("--raw", is_flag=True,
              help="A draft's YAML as its author wrote it, instead of the assertions approval makes active.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def show(ctx: click.Context, target: str, raw: bool, as_json: bool) -> None:
    """Show a draft (TARGET = DRAFT_ID) or a skill's active manifest (TARGET = SKILL).

    A draft is shown as approval would make it active: its parsed values, in the manifest's
    order (`min_words: 0200` as written shows as 128, its YAML value). --raw shows the text as written.
    """
    db = open_ctx_store(ctx)
    draft = manifests.get_draft(db, target)
    if draft:
        failures = sample_failures(db, draft)
        doc: dict[str, Any] = dict(draft)
        raw_yaml = doc.pop("raw_yaml")
        if as_json:
            echo_json({**doc, **({"raw_yaml": raw_yaml} if raw else {}),
                       "history": manifests.draft_history(db, target), "would_fail": failures,
                       "review": draft_review_lines(db, draft), "rubric_answers": rubric_answers(db, "draft", target)})
            return
        output.line(f"{draft['id']} · {draft['skill']} · {draft['status']} · {draft['origin']} by {draft['author']}"
                    + (" · as written (--raw), not as it would be active" if raw else ""))
        output.block((raw_yaml if raw else draft["yaml"]).rstrip())
        for text in draft_review_lines(db, draft):
            output.line(f"warning: {text}")
        for text in rubric_answer_lines(db, "draft", target):
            output.line(text)
        return
    version = manifests.active_version(db, target)
    if version is None:
        raise InputError(f"{target}: neither a draft id nor a skill with an active manifest")
    notes = review_notes(db, target, version["assertions"], hand_written=version["source"] == "import")
    if as_json:
        echo_json({**version, "review": notes})
        return
    output.line(f"{target} v{version['version']} · {version['source']} by {version['author']} · {version['created_at']}")
    output.block(version["yaml"].rstrip())
    for note in notes:
        output.line(f"warning: {note}")


@manifest_group.command("versions")
@click.argument("skill")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def versions(ctx: click.Context, skill: str, as_json: bool) -> None:
    """List every manifest version of SKILL, oldest first; * marks the active one."""
    rows = manifests.list_versions(open_ctx_store(ctx), skill)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        raise InputError(f"{skill}: no manifest versions (gatepost manifest import FILE)")
    for v in rows:
        origin = f" from {v['draft_id']}" if v["draft_id"] else ""
        output.line(f"{'*' if v['active'] else ' '} v{v['version']}  {v['source']}{origin} by {v['author']}  "
                   f"{v['created_at'][:19]}  {', '.join(v['assertions'])}")
