"""Read-only views across domains: overview counts, the finder, work queues and reports.

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from typing import TYPE_CHECKING

from gatepost.store.kernel import lazy_exports

if TYPE_CHECKING:
    from .audit import (
        AuditPage,
        AuditRow,
        audit_page,
        fold_leases,
        outcome_of,
    )
    from .backup import Copy, backup_store, check_copy, restore_store
    from .compare import compare_matrix, run_suite, sparkline, suite_trend, trend_svg
    from .contradicted import contradicted_counts, design_review_count
    from .feed import (
        EVENT_SCHEMA,
        events_since,
        newest_seq,
    )
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
        queue_count,
        queue_state,
    )
    from .regressions import (
        RegressionRow,
        worst_first,
    )
    from .reports import (
        FORMATS,
        case_report,
        regression_changes,
        regressions_report,
        suite_report,
    )
    from .verify import (
        VerifyReport,
        verify_store,
    )
    from .version import change_seq, data_version
    from .work import (
        CHANGE_WORDS,
        DONE_KINDS,
        Assignment,
        assigned_ids,
        assignment_of,
        changes_since_seen,
        progress_line,
        team_progress,
    )

__all__ = [
    "queue_count",
    "Assignment",
    "compare_matrix",
    "run_suite",
    "sparkline",
    "suite_trend",
    "trend_svg",
    "Copy",
    "backup_store",
    "check_copy",
    "restore_store",
    "contradicted_counts",
    "design_review_count",
    "AuditPage",
    "AuditRow",
    "audit_page",
    "outcome_of",
    "fold_leases",
    "CHANGE_WORDS",
    "DONE_KINDS",
    "assigned_ids",
    "assignment_of",
    "changes_since_seen",
    "progress_line",
    "team_progress",
    "EVENT_SCHEMA",
    "events_since",
    "newest_seq",
    "CASE_STATUSES",
    "DRAFT_STATUSES",
    "FORMATS",
    "OUTCOMES",
    "PROPOSAL_STATUSES",
    "QUEUES",
    "QueueSpec",
    "QueueState",
    "REGRESSION_STATES",
    "RegressionRow",
    "SOURCES",
    "VerifyReport",
    "case_report",
    "change_seq",
    "counts",
    "data_version",
    "find",
    "queue_state",
    "regression_changes",
    "regressions_report",
    "suite_report",
    "verify_store",
    "worst_first",
]

# at run time, each name's module is imported when the name is first asked for (store/kernel/lazy.py)
if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, {
        ".audit": ("AuditPage", "AuditRow", "audit_page", "fold_leases", "outcome_of"),
        ".backup": ("Copy", "backup_store", "check_copy", "restore_store"),
        ".compare": ("compare_matrix", "run_suite", "sparkline", "suite_trend", "trend_svg"),
        ".contradicted": ("contradicted_counts", "design_review_count"),
        ".feed": ("EVENT_SCHEMA", "events_since", "newest_seq"),
        ".finder": ("SOURCES", "find"),
        ".overview": ("CASE_STATUSES", "DRAFT_STATUSES", "OUTCOMES", "PROPOSAL_STATUSES",
            "REGRESSION_STATES", "counts"),
        ".queues": ("QUEUES", "QueueSpec", "QueueState", "queue_state", "queue_count"),
        ".regressions": ("RegressionRow", "worst_first"),
        ".reports": ("FORMATS", "case_report", "regression_changes", "regressions_report",
            "suite_report"),
        ".verify": ("VerifyReport", "verify_store"),
        ".version": ("change_seq", "data_version"),
        ".work": ("CHANGE_WORDS", "DONE_KINDS", "Assignment", "assigned_ids", "assignment_of",
            "changes_since_seen", "progress_line", "team_progress"),
    })
