"""The ai-memory scorer gate on a batch of proposals: `gatepost gate --config FILE --proposal FILE...`."""

import sys

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store.proposals import gate_proposal, load_gate_config, read_gate_proposals


@click.command()
@click.option("--config", "config_file", required=True, type=click.Path(dir_okay=False),
              help="A TOML file with an [auto_improve.eval] table: enabled (default false), command (run in the "
                   "config file's folder), "
                   "timeout_secs (default 120), targets (default [\"_rules\", \"procedures\"]: a path equal to one or "
                   "under it), min_delta (default 0.0). Unknown keys are ignored with a warning, as ai-memory "
                   "ignores them. A missing scorer is exit 2, not a rejection.")
@click.option("--proposal", "proposal_files", required=True, multiple=True, type=click.Path(dir_okay=False),
              help="An ai-memory proposal JSON (path, operation, edit_mode, before_body, after_body, ...), or a "
                   "JSON Lines file (*.jsonl, *.ndjson) of them, one per line. Repeat for a batch.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the gate result as JSON; with several proposals, one JSON object per line.")
@as_option
@click.pass_context
def gate(ctx: click.Context, config_file: str, proposal_files: tuple[str, ...], as_json: bool,
         as_name: str | None) -> None:
    """Run the scorer gate on each proposal and record the proposal (if new) and its gate result.

    The scorer is run as ai-memory runs it: the command split on whitespace (no
    shell), the proposal JSON on stdin, {"passed", "score_before",
    "score_after", "reason"} on stdout. Command errors, timeouts, invalid
    JSON or UTF-8, a missing `passed`, passed = false and a score delta
    (after - before, unrounded) below min_delta fail closed. Each proposal is
    gated on its own, one result each; every proposal is checked before any is
    gated. Exit 0 when every gate passed or did not apply (not targeted,
    disabled), 1 when any failed closed, 2 on bad input.
    """
    config = load_gate_config(config_file)
    batch = read_gate_proposals(list(proposal_files))
    if any(config.targets_path(proposal["path"]) for _, proposal in batch):
        config.check_scorer()  # a broken setup is the operator's error (exit 2), never a recorded rejection
    for warning in config.warnings:  # after the refusals: a refused gate says one line
        output.line(f"gatepost: warning: {warning}", err=True)
    db = open_ctx_store(ctx, create=True)
    failed = 0
    for source, proposal in batch:
        result = gate_proposal(db, config, proposal, actor=person(as_name), source=source)
        failed += result["status"] == "failed"
        if as_json and len(batch) == 1:
            echo_json(result)
        elif as_json:
            output.json_line(result)
        else:
            scores = ""
            if result["score_before"] is not None or result["score_after"] is not None:
                scores = f" (score {result['score_before']} -> {result['score_after']})"
            new = " (new proposal)" if result["new_proposal"] else ""
            output.line(f"{result['proposal_id']}{new}: {result['status']}{scores}: {result['reason']}")
    if failed:
        sys.exit(1)
