"""Read-only views across domains: overview counts, the finder, work queues and reports.

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from .finder import (
    SOURCES,
    find,
)
from .overview import (
    CASE_STATUSES,
    DRAFT_STATUSES,
    OUTCOMES,
    PROPOSAL_STATUSES,
    REGRESSION_STATES,
    counts,
)
from .queues import (
    QUEUES,
    QueueSpec,
    QueueState,
    queue_state,
)
from .reports import (
    FORMATS,
    STATE_SYMBOLS,
    SYMBOLS,
    case_report,
    regression_changes,
    regressions_report,
    suite_report,
)
from .verify import (
    VerifyReport,
    verify_store,
)

__all__ = [
    "CASE_STATUSES",
    "DRAFT_STATUSES",
    "FORMATS",
    "OUTCOMES",
    "PROPOSAL_STATUSES",
    "QUEUES",
    "QueueSpec",
    "QueueState",
    "REGRESSION_STATES",
    "SOURCES",
    "STATE_SYMBOLS",
    "SYMBOLS",
    "VerifyReport",
    "case_report",
    "counts",
    "find",
    "queue_state",
    "regression_changes",
    "regressions_report",
    "suite_report",
    "verify_store",
]
