"""The ai-memory scorer gate on one proposal: `gatepost gate --config FILE --proposal FILE`."""

import sys

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store.proposals import gate_proposal, load_gate_config, read_proposal_file


@click.command()
@click.option("--config", "config_file", required=True, type=click.Path(dir_okay=False),
              help="A TOML file with an [auto_improve.eval] table: enabled (default false), command (run in the "
                   "config file's folder), "
                   "timeout_secs (default 120), targets (default [\"_rules\", \"procedures\"]: a path equal to one or "
                   "under it), min_delta (default 0.0). A missing scorer is exit 2, not a rejection.")
@click.option("--proposal", "proposal_file", required=True, type=click.Path(dir_okay=False),
              help="An ai-memory proposal JSON (path, operation, edit_mode, before_body, after_body, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print the gate result as JSON.")
@as_option
@click.pass_context
def gate(ctx: click.Context, config_file: str, proposal_file: str, as_json: bool, as_name: str | None) -> None:
    """Run the scorer gate on a proposal and record the proposal (if new) and the gate result.

    The scorer is run as ai-memory runs it: the command split on whitespace (no
    shell), the proposal JSON on stdin, {"passed", "score_before",
    "score_after", "reason"} on stdout. Command errors, timeouts, invalid
    JSON, a missing `passed`, passed = false and a score delta below min_delta
    fail closed. Exit 0 when the gate passed or did not apply (not targeted,
    disabled), 1 when it failed closed, 2 on bad input.
    """
    config = load_gate_config(config_file)
    proposal = read_proposal_file(proposal_file)
    if isinstance(proposal, dict) and isinstance(proposal.get("path"), str) and config.targets_path(proposal["path"]):
        config.check_scorer()  # a broken setup is the operator's error (exit 2), never a recorded rejection
    db = open_ctx_store(ctx, create=True)
    result = gate_proposal(db, config, proposal, actor=person(as_name), source=proposal_file)
    if as_json:
        echo_json(result)
    else:
        scores = ""
        if result["score_before"] is not None or result["score_after"] is not None:
            scores = f" (score {result['score_before']} -> {result['score_after']})"
        new = " (new proposal)" if result["new_proposal"] else ""
        output.line(f"{result['proposal_id']}{new}: {result['status']}{scores}: {result['reason']}")
    if result["status"] == "failed":
        sys.exit(1)


COMMANDS = [gate]
