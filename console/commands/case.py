"""`gatepost case`: import case files, record evidence, show what a case allows, decide it."""

import json

import click

from gatepost import output
from gatepost.cli import LazyGroup
from gatepost.commands._common import SEQ, as_option, echo_json, open_ctx_store, person
from gatepost.store import cases as cases_mod
from gatepost.store import flows, glyphs
from gatepost.store.kernel import InputError
from gatepost.store.protocol import Question, answers_text, parse_answer_options
from gatepost.store.views import OUTCOMES


@click.group(cls=LazyGroup)  # its subcommands from other modules: gatepost.cli.SUBCOMMANDS
def case() -> None:
    """Cases of eval.gated_change/1: a loop's candidate change, its evidence, and the decision on it."""


@case.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@as_option
@click.pass_context
def case_import(ctx: click.Context, files: tuple[str, ...], as_name: str | None) -> None:
    """Import case FILES (YAML, format in docs/protocol-format.md); an id is imported once (then: case revise)."""
    db = open_ctx_store(ctx, create=True)
    who = person(as_name)
    for path in files:
        case_id = cases_mod.import_case(db, path, actor=who)
        row = cases_mod.get_case(db, case_id)
        output.line(f"{case_id}: {row['status']} at revision {cases_mod.short_revision(row['current_revision'])} "
                   f"({cases_mod.claim_strip(row['protocol'], row['claims'])})")


@case.command("revise")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--note", default=None, help="Why the candidate (or its independent: list) changes.")
@as_option
@click.pass_context
def case_revise(ctx: click.Context, file: str, note: str | None, as_name: str | None) -> None:
    """Move an imported case to FILE's candidate (same id, author, protocol): a new revision and its event.

    Changing the independent: list of a case that has evidence needs store.admin.
    """
    db = open_ctx_store(ctx)
    revision = cases_mod.revise_case(db, file, actor=person(as_name), note=note)
    row = cases_mod.get_case(db, cases_mod.read_case_file(file)["id"])
    output.line(f"{row['id']}: {row['status']} at revision {cases_mod.short_revision(revision)} "
         f"({cases_mod.claim_strip(row['protocol'], row['claims'])})")


@case.command("list")
@click.option("--status", type=click.Choice(["open", "closed", "needs_decision", "design_review"]), default=None,
              help="Only open cases, closed ones, open ones a reviewer can decide now, or open ones waiting "
                   "only on a design review.")
@click.option("--outcome", type=click.Choice(OUTCOMES), default=None, help="Only cases closed with this outcome.")
@click.option("--search", default=None, metavar="TEXT", help="Only cases whose id, title, author or path has TEXT.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=100, show_default=True, help="Cases per page.")
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True, help="Skip this many cases.")
@click.option("--contradicted", is_flag=True,
              help="Only closed cases whose decision later evidence contradicts (marked ⚠).")
@click.option("--kept-not-landed", is_flag=True,
              help="Only kept cases never recorded applied (gatepost case applied ID --ref REF).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: {total, cases: [...]}.")
@click.pass_context
def case_list(ctx: click.Context, status: str | None, outcome: str | None, search: str | None, limit: int,
              offset: int, contradicted: bool, kept_not_landed: bool, as_json: bool) -> None:
    """List cases, most recently active first: id, revision, claim strip (✔ ✘ ?), status, title.

    ⚠ after the status marks a decision later evidence contradicts (case show says how).
    """
    db = open_ctx_store(ctx)
    rows, total = cases_mod.list_cases(db, status=status, outcome=outcome, search=search,
                                       limit=limit, offset=offset, contradicted=contradicted,
                                       kept_not_landed=kept_not_landed)
    flagged = set(cases_mod.contradicted_case_ids(db, [r["id"] for r in rows if r["status"] == "closed"]))
    if as_json:
        echo_json({"total": total, "cases": [
            {k: r[k] for k in ("id", "title", "author", "status", "outcome", "claims", "allowed",
                               "needs_decision", "last_seq", "updated_at")} | {"revision": r["current_revision"]}
            | {"contradicted": r["id"] in flagged}
            for r in rows]})
        return
    if not rows:
        output.line("no cases match" if total or status or outcome or search or contradicted or kept_not_landed else
                   "no cases yet: gatepost case import FILE")
        return
    for r in rows:
        state = r["outcome"] or ("open ◆" if r["needs_decision"] else "open")
        state += " ⚠" if r["id"] in flagged else ""
        output.line(f"{r['id']:<14} {cases_mod.short_revision(r['current_revision'])} "
                   f"{cases_mod.claim_strip(r['protocol'], r['claims']):<9} {state:<12} {r['title']}")
    if total > offset + len(rows):
        output.line(f"… showing {offset + 1}–{offset + len(rows)} of {total} (--offset {offset + len(rows)})")


def contradicted_line(found: cases_mod.Contradiction) -> str:
    """'kept at 08:00; held-out came back regressed at 18:00 (heldout.not_regressed TRUE → FALSE)'."""
    claims = found.get("claims") or {}
    turned = ", ".join(f"{name} {then} → {now}" for name, (then, now) in claims.items())
    return f"{found['line']}" + (f" ({turned})" if turned else "")


def rubric_questions(view: cases_mod.CaseView) -> list[Question]:
    """The case's rubric questions (their scales show beside the answers)."""
    return [Question(q["key"], q["question"], q["scale"]) for q in view["rubric"]]


@case.command("show")
@click.argument("case_id")
@click.option("--json", "as_json", is_flag=True,
              help='Print the case as JSON (schema gatepost.case/1): id, revision, claims, actions, outcomes, '
                   'outcome, status, last_seq, decisions, candidate, evidence, loop, base, applied, '
                   'contradicted (null, or what later evidence changed).')
@as_option
@click.pass_context
def case_show(ctx: click.Context, case_id: str, as_json: bool, as_name: str | None) -> None:
    """Show a case: its candidate, every claim with why, evidence, actions and outcomes (for --as NAME)."""
    view = cases_mod.case_view(open_ctx_store(ctx), case_id, actor=person(as_name))
    if as_json:
        echo_json(cases_mod.show_json(view))
        return
    cand = view["candidate"]
    output.line(f"{view['id']} · {view['title']}  ({view['status']}{' · ' + view['outcome'] if view['outcome'] else ''})")
    if view["contradicted"]:
        output.line(f"⚠ contradicted later: {contradicted_line(view['contradicted'])}")
    output.line(f"author {view['author']} · protocol {view['protocol']} · revision {view['revision']}")
    basis = cand["basis"]
    output.line(f"candidate {cand['path'] or '(no path)'} · basis " +
               " ".join(f"{k}={basis[k]}" for k in sorted(basis)))
    base = view["base"]
    if view["loop"] or base["stale"]:
        output.line(f"loop {view['loop'] or '—'} · base " + (str(base["why"]) if base["stale"] else
                                                           f"current ({(base.get('made_on') or '')[:19]}…)"))
    for a in view.get("applied") or []:
        output.line(f"applied at {a['ref'] or '—'} by {a['actor']} ({a['at']}): {a['path']} is {a['content_hash'][:19]}…")
    content = cand["content"]
    text = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False)
    output.line("content:")
    for content_line in text.splitlines():
        output.line(f"  | {content_line}")
    output.line("claims:")
    for name in view["claim_order"]:
        output.line(f"  {glyphs.CLAIM[view['claims'][name]]} {name:<24} {view['explanations'][name]}")
    counts = view["evidence_counts"]
    output.line(f"evidence ({counts['counting']} counting, {counts['not independent']} not independent, "
               f"{counts['stale']} stale):")
    for e in view["evidence"]:
        output.line(f"  #{e['id']:<4} {e['kind']} {e['result']} · {e['producer']} about "
                   f"{cases_mod.short_revision(e['about'], 7)} — {cases_mod.evidence_note(e)}"
                   + (f"; decides {', '.join(e['decides'])}" if e["decides"] else ""))
    output.line("outcomes:")
    for name, o in view["outcomes"].items():
        output.line(f"  {'allowed' if o['allowed'] else 'refused':<8} {name:<13} {o['why']}")
    output.line(f"actions (for {view['viewer']}):")
    for name, a in view["actions"].items():
        output.line(f"  {a['status']:<18} {name:<28} {a['why']}")
    if view["rubric"] and view["status"] == "open":
        output.line("rubric (every decision answers it: --answer KEY=VALUE):")
        for q in rubric_questions(view):
            output.line(f"  {q.key:<16} {q.question} ({q.expects})")
    for d in view["decisions"]:
        output.line(f"decided {d['outcome']} by {d['actor']} at {d['at']} on revision "
                   f"{cases_mod.short_revision(d['revision'])}" + (f": {d['note']}" if d["note"] else ""))
        if d.get("rubric"):
            output.line(f"  rubric: {answers_text(d['rubric'], rubric_questions(view))}")


@case.command("evidence")
@click.argument("case_id")
@click.option("--kind", required=True, help="Evidence kind: guard_check, tuning_comparison, heldout_comparison, "
                                            "design_review.")
@click.option("--result", required=True, help="Its result, one the kind lists (e.g. clean, reproduced, held, passed).")
@click.option("--producer", default=None,
              help="The run or person that produced it (independence is judged on it). Default: you (--as); "
                   "recording for another producer needs evidence.record_for, and the record names both.")
@click.option("--about", default="current", show_default=True,
              help="current, or the revision it is about (for design_review, the design name).")
@click.option("--at", default=None, metavar="TIME", help="When it was observed (ISO 8601, UTC). Default: now.")
@as_option
@click.pass_context
def case_evidence(ctx: click.Context, case_id: str, kind: str, result: str, producer: str | None, about: str,
                  at: str | None, as_name: str | None) -> None:
    """Record one piece of evidence on a case and show the claims it leaves."""
    db = open_ctx_store(ctx)
    evidence_id = cases_mod.add_evidence(db, case_id, kind=kind, result=result, producer=producer, about=about,
                                         at=at, actor=person(as_name))
    row = cases_mod.get_case(db, case_id)
    output.line(f"evidence #{evidence_id} on {case_id}: {cases_mod.claim_strip(row['protocol'], row['claims'])}"
               f" · outcomes allowed now: {', '.join(row['allowed']) or 'none (closed)'}")


@case.command("decide")
@click.argument("case_id")
@click.argument("outcome", type=click.Choice(OUTCOMES))
@click.option("--note", default=None, help="Why (required for inconclusive: the reason).")
@click.option("--seq", "based_on_seq", type=SEQ, default=None,
              help="The case's event seq you decided on (from case show); refused if it changed since.")
@click.option("--answer", "answers", multiple=True, metavar="KEY=VALUE",
              help="An answer to the protocol's rubric (case show lists its questions): yes/no, or 1..N on a "
                   "scale; repeat for each. Every question is answered, or the decision is refused.")
@as_option
@click.pass_context
def case_decide(ctx: click.Context, case_id: str, outcome: str, note: str | None, based_on_seq: int | None,
                answers: tuple[str, ...], as_name: str | None) -> None:
    """Close a case as kept, rejected, proposed or inconclusive; refused (exit 3) unless the protocol allows it
    (and, where it carries a rubric, unless every question is answered)."""
    if outcome == "inconclusive" and not (note or "").strip():
        raise InputError("a reason is required to close a case inconclusive (--note TEXT)")
    given = parse_answer_options(answers)
    db = open_ctx_store(ctx)
    who = person(as_name)
    decision_id = flows.decide(db, case_id, outcome, actor=who, note=note, based_on_seq=based_on_seq,
                               answers=given)
    suffix = f"; proposal case:{case_id} waits for a person" if outcome == "proposed" else ""
    output.line(f"{case_id}: {outcome} by {who} (decision #{decision_id}){suffix}")
