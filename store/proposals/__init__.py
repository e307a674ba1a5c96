"""Proposals a loop may not apply itself, and the scorer gate (ai-memory contract).

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from typing import TYPE_CHECKING

from gatepost.store.kernel import lazy_exports

if TYPE_CHECKING:
    from .contradicted import contradicted_proposal_ids, proposal_contradiction
    from .gate import (
        DEFAULT_TIMEOUT_SECS,
        REASON_CAP,
        STDOUT_CAP,
        GateConfig,
        GateOutcome,
        gate_proposal,
        gate_status,
        judge_answer,
        load_gate_config,
        read_gate_proposals,
        run_gate,
    )
    from .proposal import (
        EDIT_MODES,
        FINAL,
        LIST_COLUMNS,
        MARKS,
        OPERATIONS,
        REQUEST_FIELDS,
        STATUSES,
        add_proposal,
        case_proposal,
        count_by_status,
        failed_gate,
        get_proposal,
        import_proposal,
        import_proposals,
        list_proposals,
        mark_proposal,
        proposal_id,
        proposal_request,
        proposal_subject,
        read_proposal_file,
        record_applied,
        staleness,
        validate_proposal,
    )
    from .records import PROPOSALS_APPEND_ONLY
    from .types import GateResult, Mark, ProposalRow, ProposalView

__all__ = [
    "PROPOSALS_APPEND_ONLY",
    "GateResult",
    "Mark",
    "ProposalRow",
    "ProposalView",
    "contradicted_proposal_ids",
    "proposal_contradiction",
    "proposal_subject",
    "failed_gate",
    "DEFAULT_TIMEOUT_SECS",
    "EDIT_MODES",
    "FINAL",
    "GateConfig",
    "GateOutcome",
    "LIST_COLUMNS",
    "MARKS",
    "OPERATIONS",
    "REASON_CAP",
    "REQUEST_FIELDS",
    "STATUSES",
    "STDOUT_CAP",
    "add_proposal",
    "case_proposal",
    "count_by_status",
    "gate_proposal",
    "gate_status",
    "get_proposal",
    "import_proposal",
    "import_proposals",
    "judge_answer",
    "list_proposals",
    "load_gate_config",
    "read_gate_proposals",
    "mark_proposal",
    "proposal_id",
    "proposal_request",
    "read_proposal_file",
    "record_applied",
    "staleness",
    "run_gate",
    "validate_proposal",
]

# at run time, each name's module is imported when the name is first asked for (store/kernel/lazy.py)
if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, {
        ".records": ("PROPOSALS_APPEND_ONLY",),
        ".contradicted": ("contradicted_proposal_ids", "proposal_contradiction"),
        ".gate": ("DEFAULT_TIMEOUT_SECS", "REASON_CAP", "STDOUT_CAP", "GateConfig", "GateOutcome",
            "gate_proposal", "gate_status", "judge_answer", "load_gate_config", "read_gate_proposals",
            "run_gate"),
        ".proposal": ("EDIT_MODES", "FINAL", "LIST_COLUMNS", "MARKS", "OPERATIONS", "REQUEST_FIELDS",
            "STATUSES", "add_proposal", "case_proposal", "count_by_status", "failed_gate",
            "get_proposal", "import_proposal", "import_proposals", "list_proposals", "mark_proposal",
            "proposal_id", "proposal_request", "proposal_subject", "read_proposal_file",
            "record_applied", "staleness", "validate_proposal"),
        ".types": ("GateResult", "Mark", "ProposalRow", "ProposalView"),
    })
