"""`gatepost bootstrap`: a starter manifest for a skill, drawn from its recent successful runs."""

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store.skills import bootstrapping as bootstrap_mod

MAX_SAMPLE = 10_000  # runs sampled for one draft; more would only slow the proposal down


@click.command("bootstrap")
@click.option("--skill", required=True, metavar="NAME", help="The skill to draft a manifest for.")
@click.option("--sample", type=click.IntRange(bootstrap_mod.MIN_SAMPLE, MAX_SAMPLE), default=bootstrap_mod.SAMPLE_SIZE,
              show_default=True, help=f"How many of the newest successful runs to sample "
                                      f"({bootstrap_mod.MIN_SAMPLE} to {MAX_SAMPLE:,}).")
@click.option("--json", "as_json", is_flag=True, help="Print the draft and its evidence as JSON.")
@as_option
@click.pass_context
def bootstrap(ctx: click.Context, skill: str, sample: int, as_json: bool, as_name: str | None) -> None:
    """Store a DRAFT manifest for NAME from its last successful runs; a person must approve it.

    \b
    min_words          p25 of the sampled word counts (linear interpolation, rounded down)
    required_patterns  headings present in at least 80% of the sampled runs
    forbidden_patterns the default refusal markers and the skill family's own
                       (always), and hedging filler the sample does not hold
    A successful run is recorded ok, is no refusal (holds no refusal marker)
    and passes the active manifest, if any; each newer run left out is
    listed with why. Fewer than --sample: refused (exit 3), nothing stored.
    Review it with `gatepost manifest show DRAFT_ID`, then approve or reject it.
    """
    db = open_ctx_store(ctx)
    draft = bootstrap_mod.bootstrap(db, skill, actor=person(as_name), sample=sample)
    failures = bootstrap_mod.sample_failures(db, draft)
    if as_json:
        echo_json({"id": draft["id"], "skill": draft["skill"], "status": draft["status"],
                   "assertions": draft["assertions"], "evidence": draft["evidence"], "would_fail": failures})
        return
    ev = draft["evidence"]
    output.line(f"draft {draft['id']} for {skill} (pending review; never active until approved)")
    output.line(f"sampled {', '.join(r['id'] for r in ev['runs'])}")
    for text in bootstrap_mod.left_out_words(ev.get("left_out") or []):
        output.line(f"left out {text}")
    output.line(f"word counts {ev['word_counts']} -> p25 {ev['min_words']['value']:g} -> min_words "
               f"{draft['assertions']['min_words']}")
    output.block(draft["yaml"].rstrip())
    for text in bootstrap_mod.failure_lines(failures):
        output.line(f"warning: {text}")
    for text in bootstrap_mod.review_notes(db, skill, draft["assertions"], hand_written=False):
        output.line(f"warning: {text}")
    output.line(f"next: gatepost manifest approve {draft['id']} --as NAME  |  "
               f"gatepost manifest reject {draft['id']} --as NAME --note …")
