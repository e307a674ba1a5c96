"""The store's schema: every domain's migrations in the one order they run, set into the kernel on import.

Each domain keeps its own migrations (the kernel's in kernel/migrations.py, evaluation's in
evaluation/schema.py); the first schema and the few that span domains are here. `MIGRATIONS` is the
order: a store records each by name as it is applied, so a name is never changed or reused and a new
migration goes at the end. Tables named in the docstring of each group are either append-only records
(events, evidence, decisions, assertion results, task results, gate results, manifest versions) or
projections of those records kept in the same transaction as the event that changes them (cases.status,
regression_states, manifest_drafts.status, proposals.status) so that lists can page from SQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import cases, discussion, evaluation, kernel, loops, preferences, proposals, rubrics, skills
from .kernel import (
    MIGRATION_SET,
    append_only_triggers,
    known_migration_names,
    latest_version,
    store_migrations,
    use_append_only,
    use_migrations,
    use_record_sources,
)

if TYPE_CHECKING:
    from sqlite_utils import Database
    from sqlite_utils.migrations import Migrations

    from .kernel import RecordSource

# m001's record tables, as it made their triggers (a migration runs as it was written: the lists each domain
# declares say what is a record now, and may grow)
M001_APPEND_ONLY = ("events", "decisions", "evidence", "candidate_revisions", "manifest_versions", "skill_runs",
                    "skill_evals", "assertion_results", "task_results", "gate_results")


def m001_initial(db: Database) -> None:
    # --- identities and authority -------------------------------------------------
    db.table("actors").create(
        {"name": str, "kind": str, "created_at": str},
        pk="name",
        not_null={"kind", "created_at"},
    )
    db.table("capabilities").create(
        {"actor": str, "capability": str, "granted_by": str, "granted_at": str},
        pk=("actor", "capability"),
        foreign_keys=[("actor", "actors", "name")],
    )
    # --- the audit trail: every act of a person or a producer ----------------------
    db.table("events").create(
        {
            "seq": int,
            "at": str,
            "actor": str,
            "kind": str,  # e.g. case.imported, evidence.added, case.decided, manifest.approved
            "subject_type": str,  # case | skill | draft | proposal | run | actor | suite | state
            "subject_id": str,
            "revision": str,
            "note": str,
            "payload": str,  # JSON
        },
        pk="seq",
        not_null={"at", "kind"},
    )
    db.table("events").create_index(["subject_type", "subject_id", "seq"])
    db.table("events").create_index(["actor", "seq"])
    db.table("events").create_index(["kind", "seq"])
    # --- eval.gated_change/1 cases -----------------------------------------------------
    db.table("cases").create(
        {
            "id": str,
            "protocol": str,
            "title": str,
            "author": str,  # the agent run that wrote the candidate
            "candidate_path": str,
            "current_revision": str,
            "independent": str,  # JSON {dimension: [producer, ...]}
            "status": str,  # open | closed  (projection of decisions)
            "outcome": str,  # null | kept | rejected | proposed | inconclusive
            "claims": str,  # JSON {claim: TRUE|FALSE|UNKNOWN} cache for lists
            "allowed": str,  # JSON [outcome, ...] the protocol allows now (cache for lists)
            "needs_decision": int,  # 1 when open and an outcome other than inconclusive is allowed
            "last_seq": int,  # seq of the newest event about this case
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"protocol", "title", "status", "created_at"},
    )
    db.table("cases").create_index(["status", "updated_at"])
    db.table("cases").create_index(["outcome", "updated_at"])
    db.table("cases").create_index(["updated_at"])
    db.table("cases").create_index(["needs_decision", "updated_at"])
    db.table("candidate_revisions").create(
        {
            "case_id": str,
            "revision": str,
            "content": str,
            "basis": str,  # JSON {baseline, question_set, data_revision, design}
            "created_at": str,
            "event_seq": int,
        },
        pk=("case_id", "revision"),
        foreign_keys=[("case_id", "cases", "id")],
    )
    db.table("evidence").create(
        {
            "id": int,
            "case_id": str,
            "kind": str,
            "result": str,
            "producer": str,
            "artifact": str,  # candidate | eval_design | ...
            "about": str,  # the artifact revision the record is about
            "observed_at": str,
            "details": str,  # JSON: what produced it (run ids, suite, ...)
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("case_id", "cases", "id")],
        not_null={"case_id", "kind", "result", "artifact", "about", "observed_at"},
    )
    db.table("evidence").create_index(["case_id", "kind", "observed_at"])
    db.table("decisions").create(
        {
            "id": int,
            "case_id": str,
            "outcome": str,
            "actor": str,
            "capability": str,
            "revision": str,
            "note": str,
            "at": str,
            "based_on_seq": int,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("case_id", "cases", "id")],
        not_null={"case_id", "outcome", "actor", "revision", "at"},
    )
    db.table("decisions").create_index(["case_id", "at"])
    # --- skill evals (aeon) ----------------------------------------------------------
    db.table("skills").create(
        {"name": str, "family": str, "created_at": str},
        pk="name",
    )
    db.table("skill_runs").create(
        {
            "id": str,
            "skill": str,
            "at": str,
            "status": str,  # ok | error
            "output": str,
            "word_count": int,
            "producer": str,  # the producer or person who recorded the run
            "recorded_at": str,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("skill", "skills", "name")],
        not_null={"skill", "at", "status"},
    )
    db.table("skill_runs").create_index(["skill", "at"])
    db.table("skill_runs").create_index(["skill", "status", "at"])
    db.table("manifest_versions").create(
        {
            "id": int,
            "skill": str,
            "version": int,
            "assertions": str,  # JSON {key: value}
            "source": str,  # import | draft
            "draft_id": str,
            "author": str,
            "created_at": str,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("skill", "skills", "name")],
        not_null={"skill", "version", "assertions", "created_at"},
    )
    db.table("manifest_versions").create_index(["skill", "version"], unique=True)
    db.table("manifests").create(  # projection: the active version per skill
        {"skill": str, "active_version_id": int, "updated_at": str},
        pk="skill",
        foreign_keys=[("skill", "skills", "name"), ("active_version_id", "manifest_versions", "id")],
    )
    db.table("manifest_drafts").create(
        {
            "id": str,
            "skill": str,
            "assertions": str,  # JSON
            "yaml": str,  # the draft as a person reads it
            "evidence": str,  # JSON: runs sampled, word counts, headings found where
            "author": str,
            "origin": str,  # bootstrap | edit | mismatch
            "parent_id": str,  # the draft an edit was made from
            "based_on_version_id": int,  # the active version when drafted
            "status": str,  # pending | approved | rejected | superseded (projection)
            "created_at": str,
            "decided_at": str,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("skill", "skills", "name")],
        not_null={"skill", "assertions", "status", "created_at"},
    )
    db.table("manifest_drafts").create_index(["status", "created_at"])
    db.table("manifest_drafts").create_index(["skill", "created_at"])
    db.table("skill_evals").create(
        {
            "id": int,
            "skill": str,
            "run_id": str,
            "manifest_version_id": int,
            "passed": int,
            "state": str,  # the regression state this eval led to
            "severity": str,
            "fail_streak": int,
            "pass_streak": int,
            "broken_streak": int,  # the pass streak a NEW_FAIL broke
            "base_fail_streak": int,  # the streaks this eval started from (a re-evaluation of
            "base_pass_streak": int,  # the same run under a new manifest starts from them again)
            "at": str,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[
            ("skill", "skills", "name"),
            ("run_id", "skill_runs", "id"),
            ("manifest_version_id", "manifest_versions", "id"),
        ],
        not_null={"skill", "passed", "at"},
    )
    db.table("skill_evals").create_index(["skill", "id"])
    db.table("assertion_results").create(
        {
            "id": int,
            "eval_id": int,
            "skill": str,
            "run_id": str,
            "assertion": str,
            "passed": int,
            "message": str,
        },
        pk="id",
        foreign_keys=[("eval_id", "skill_evals", "id")],
        not_null={"eval_id", "skill", "assertion", "passed"},
    )
    db.table("assertion_results").create_index(["eval_id"])
    db.table("assertion_results").create_index(["skill", "assertion", "eval_id"])
    db.table("regression_states").create(  # projection of skill_evals, one row per skill
        {
            "skill": str,
            "state": str,  # PASS | NEW_PASS | NEW_FAIL | STABLE_FAIL | CHRONIC
            "severity": str,  # low | medium | high for NEW_FAIL, else null
            "fail_streak": int,
            "pass_streak": int,
            "broken_streak": int,  # the pass streak a NEW_FAIL broke (severity comes from it)
            "last_run": str,  # the time of the run last evaluated
            "last_run_id": str,
            "last_eval_id": int,
            "acknowledged_eval_id": int,  # the eval a person acknowledged (triage)
            "failing": str,  # JSON [assertion, ...]
            "urgency": int,  # sort key: lower is more urgent
            "updated_at": str,
        },
        pk="skill",
        foreign_keys=[("skill", "skills", "name")],
    )
    db.table("regression_states").create_index(["urgency", "skill"])
    db.table("regression_states").create_index(["state", "skill"])
    # --- task suites and evaluation runs ---------------------------------------------
    db.table("task_suites").create(
        {
            "id": str,  # sha256 of the suite file's content
            "skill_id": str,
            "version": str,
            "path": str,
            "yaml": str,
            "task_count": int,
            "loaded_at": str,
        },
        pk="id",
    )
    db.table("evaluation_runs").create(
        {
            "id": str,
            "suite_id": str,
            "skill_id": str,
            "candidate_path": str,
            "candidate_hash": str,
            "baseline_path": str,
            "baseline_hash": str,
            "executor": str,
            "mock": int,
            "pass_k": int,
            "split": str,
            "execution_pass_rate": float,
            "baseline_pass_rate": float,
            "delta": float,
            "verdict": str,
            "warnings": str,  # JSON
            "baseline_health": str,  # JSON
            "artifact": str,  # JSON: the seed's artifact, as written
            "case_id": str,
            "purpose": str,  # standalone | tuning-1 | tuning-2 | heldout
            "started_at": str,
            "finished_at": str,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("suite_id", "task_suites", "id")],
    )
    db.table("evaluation_runs").create_index(["started_at"])
    db.table("evaluation_runs").create_index(["suite_id", "skill_id", "started_at"])
    db.table("evaluation_runs").create_index(["case_id"])
    db.table("task_results").create(
        {
            "id": int,
            "run_id": str,
            "side": str,  # candidate | baseline
            "task_id": str,
            "attempt": int,
            "passed": int,
            "judged": int,  # 0 when no judge could judge it (llm-rubric without a command)
            "score": float,
            "duration_ms": int,
            "output": str,
            "reason": str,  # why an attempt failed: timeout, crash, exit code, ...
            "mock": int,
            "split": str,
        },
        pk="id",
        foreign_keys=[("run_id", "evaluation_runs", "id")],
        not_null={"run_id", "side", "task_id"},
    )
    db.table("task_results").create_index(["run_id", "side", "task_id", "attempt"])
    # --- proposals and the scorer gate --------------------------------------------------
    db.table("proposals").create(
        {
            "id": str,
            "path": str,
            "kind": str,
            "operation": str,  # create | update
            "edit_mode": str,  # full_page | patch
            "title": str,
            "confidence": float,
            "rationale": str,
            "before_body": str,
            "after_body": str,
            "expected_base_body_sha256": str,
            "case_id": str,  # set when the proposal is a case whose outcome is proposed
            "status": str,  # waiting | accepted | declined | needs_changes (projection)
            "created_at": str,
            "updated_at": str,
            "event_seq": int,
        },
        pk="id",
        not_null={"status", "created_at"},
    )
    db.table("proposals").create_index(["status", "created_at"])
    db.table("proposals").create_index(["case_id"])
    db.table("gate_results").create(
        {
            "id": int,
            "proposal_id": str,
            "passed": int,
            "score_before": float,
            "score_after": float,
            "reason": str,
            "command": str,
            "targeted": int,  # 0 when the proposal's path is outside the gate's targets
            "duration_ms": int,
            "at": str,
            "event_seq": int,
        },
        pk="id",
        foreign_keys=[("proposal_id", "proposals", "id")],
        not_null={"proposal_id", "passed", "at"},
    )
    db.table("gate_results").create_index(["proposal_id", "at"])
    for table in M001_APPEND_ONLY:
        append_only_triggers(db, table)


def m003_pipeline_authority(db: Database) -> None:
    """Authority: an actor may be bound to an OS user; evidence names who recorded it."""
    db.table("actors").add_column("os_user", str)
    db.table("evidence").add_column("recorded_by", str)


def m004_loops_registry(db: Database) -> None:
    """Registered loops, what is current per path, and where changes landed.

    `loop_versions`, `loop_cases` and `applications` are records; `loops` and `current_content` are
    their projections (the newest version of each loop; the newest applied content of each path).
    """
    db.table("loop_versions").create(
        {"name": str, "version": int, "settings": str, "actor": str, "at": str, "event_seq": int},
        pk=("name", "version"),
        not_null={"settings", "at"},
    )
    db.table("loops").create(
        {"name": str, "version": int, "settings": str, "created_at": str, "updated_at": str, "event_seq": int},
        pk="name",
        not_null={"version", "settings"},
    )
    db.table("loop_cases").create(  # which loop made a case (case new --loop), with the base it was made on
        {"case_id": str, "loop": str, "path": str, "base_hash": str, "loop_version": int, "event_seq": int},
        pk="case_id",
        foreign_keys=[("loop", "loops", "name")],
        not_null={"loop", "path", "base_hash"},
    )
    db.table("loop_cases").create_index(["loop"])
    db.table("applications").create(
        {"id": int, "subject_type": str, "subject_id": str, "path": str, "content_hash": str, "content": str,
         "ref": str, "actor": str, "at": str, "event_seq": int},
        pk="id",
        not_null={"subject_type", "subject_id", "path", "content_hash", "at"},
    )
    db.table("applications").create_index(["path", "id"])
    db.table("applications").create_index(["subject_type", "subject_id"])
    db.table("current_content").create(
        {"path": str, "content_hash": str, "application_id": int, "event_seq": int},
        pk="path",
        not_null={"content_hash"},
    )
    for table in ("loop_versions", "loop_cases", "applications"):
        append_only_triggers(db, table)


def m006_stats_judgments_assignments(db: Database) -> None:
    """Judgments that carry forward and work assigned to people.

    - regression_states.acknowledged_failing: the failing assertions an acknowledgement covered (JSON); it
      carries forward while the same assertions fail; returned_because: those newly failing that ended it;
    - seen_marks: per person, the newest event of an item they opened (what "changed since you looked" counts
      from); a person's own read receipt, not a record: no event;
    - assignments: who an item is assigned to (the projection of assignment.* events).
    """
    db.table("regression_states").add_column("acknowledged_failing", str)
    db.table("regression_states").add_column("returned_because", str)
    db.table("seen_marks").create(
        {"person": str, "subject_type": str, "subject_id": str, "seq": int, "at": str},
        pk=("person", "subject_type", "subject_id"),
        not_null={"seq", "at"},
    )
    db.table("assignments").create(
        {"subject_type": str, "subject_id": str, "assignee": str, "assigned_by": str, "at": str, "event_seq": int},
        pk=("subject_type", "subject_id"),
        not_null={"assignee", "at"},
    )
    db.table("assignments").create_index(["assignee"])


def m009_console_case_queue_index(db: Database) -> None:
    """The cases queue (open, needing a decision, oldest first) read from one covering index: on 10,000
    cases the console's queue bar read it in ~80 ms from the table."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_cases_queue ON cases (status, needs_decision, updated_at, id)")


def m010_kernel_records_by_event(db: Database) -> None:
    """The records an event created, found by its seq (each domain's RecordSource): sealing a skill run on a
    store of 1,000,000 task results read the whole table each time (0.44 s a run), and verify did so per event."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_skill_runs_event ON skill_runs (event_seq, id)")
    db.execute("CREATE INDEX IF NOT EXISTS idx_manifest_versions_event ON manifest_versions (event_seq, id)")
    db.execute("CREATE INDEX IF NOT EXISTS idx_evaluation_runs_event ON evaluation_runs (event_seq)")


def mark_design_review_waiting(db: Database) -> None:
    """Set each case's `design_review` mark from its stored claims, by the protocol's rule (the cases stored
    before the projection step kept the mark). A store without cases has none to mark: the protocol's rule
    (its interpreter's import) is left to the first command that needs it."""
    if db.execute("SELECT 1 FROM cases LIMIT 1").fetchone() is None:
        return
    db.execute(f"UPDATE cases SET design_review = CASE WHEN {cases.claims_condition(cases.DEFAULT_PROTOCOL)} THEN 1 ELSE 0 END")


def m016_cases_design_review(db: Database) -> None:
    """Whether an open case waits only on a design review, kept in the cases projection (`design_review`, set
    by the case's projection step in the transaction of the event that changes its claims) and read through an
    index: the overview counted those cases by reading every open case's claims as JSON on each open (70 ms at
    100,000 cases), so its first page grew with the store."""
    db.execute("ALTER TABLE cases ADD COLUMN design_review INTEGER NOT NULL DEFAULT 0")
    mark_design_review_waiting(db)
    db.execute("CREATE INDEX idx_cases_design_review ON cases (status, design_review, protocol, updated_at, id)")

def m015_discussion_comments(db: Database) -> None:
    """Comment threads on items, and who they mention.

    - comments: one per `comment.added` event (a record: its key is the event's seq);
    - comment_mentions: per person, the comments that mention them (the projection their Overview reads).
    """
    db.table("comments").create(
        {"event_seq": int, "subject_type": str, "subject_id": str, "author": str, "note": str, "mentions": str,
         "at": str},
        pk="event_seq",
        not_null={"subject_type", "subject_id", "note", "mentions", "at"},
    )
    db.table("comments").create_index(["subject_type", "subject_id", "event_seq"])
    db.table("comment_mentions").create({"person": str, "event_seq": int, "subject_type": str, "subject_id": str},
                                        pk=("person", "event_seq"), not_null={"subject_type", "subject_id"})
    append_only_triggers(db, "comments")


def m018_rubric_answers_and_preferences(db: Database) -> None:
    """What people say beside the evidence.

    - decisions.rubric: a case decision's answers to its protocol's rubric (JSON; NULL where it asks none);
    - preferences: one per `preference.recorded` event (a record: its key is the event's seq), a person's
      choice between the candidate's and the baseline's output of one task of a run.
    """
    db.table("decisions").add_column("rubric", str)
    db.table("preferences").create(
        {"event_seq": int, "run_id": str, "task_id": str, "choice": str, "note": str, "person": str,
         "case_id": str, "counted": int, "evidence_seq": int, "at": str},
        pk="event_seq",
        not_null={"run_id", "task_id", "choice", "person", "counted", "at"},
    )
    db.table("preferences").create_index(["run_id", "task_id", "event_seq"])
    append_only_triggers(db, "preferences")


def m019_queue_rubrics_and_runs_compared(db: Database) -> None:
    """A queue's own rubric, and preferences across two runs.

    - queue_rubrics: the rubric each deciding queue (proposals, manifest drafts, regressions) asks now, one row a
      queue, the projection of its newest `rubric.set` / `rubric.cleared` event (a queue without a row asks none);
    - rubric_answers: one per decision that answered its queue's rubric (a record: its key is the decision's
      event seq), naming the `rubric.set` event whose questions it answered;
    - preferences.against_run_id: the other run a preference compared the run's output with (NULL: the run's own
      candidate and baseline sides).
    """
    db.table("queue_rubrics").create(
        {"queue": str, "questions": str, "source": str, "set_by": str, "at": str, "event_seq": int},
        pk="queue", not_null={"questions", "at", "event_seq"})
    db.table("rubric_answers").create(
        {"event_seq": int, "subject_type": str, "subject_id": str, "decision": str, "answers": str,
         "rubric_seq": int, "person": str, "at": str},
        pk="event_seq", not_null={"subject_type", "subject_id", "decision", "answers", "rubric_seq", "at"})
    db.table("rubric_answers").create_index(["subject_type", "subject_id", "event_seq"])
    db.table("preferences").add_column("against_run_id", str)
    append_only_triggers(db, "rubric_answers")


def m020_cases_counts(db: Database) -> None:
    """How many cases each list holds, kept by triggers on `cases` as the projection changes (case_counts: a list's
    total counted by COUNT(*) costs as much as the store is large), counted once here from the cases stored."""
    cases.create_case_counts(db)


_HERE: dict[str, Callable[[Database], None]] = {
    "m001_initial": m001_initial,
    "m003_pipeline_authority": m003_pipeline_authority,
    "m004_loops_registry": m004_loops_registry,
    "m006_stats_judgments_assignments": m006_stats_judgments_assignments,
    "m009_console_case_queue_index": m009_console_case_queue_index,
    "m010_kernel_records_by_event": m010_kernel_records_by_event,
    "m016_cases_design_review": m016_cases_design_review,

    "m015_discussion_comments": m015_discussion_comments,
    "m018_rubric_answers_and_preferences": m018_rubric_answers_and_preferences,
    "m019_queue_rubrics_and_runs_compared": m019_queue_rubrics_and_runs_compared,
    "m020_cases_counts": m020_cases_counts,
}
# The order they run in (two carry m003: both names are recorded in stores as they are).
MIGRATIONS = (
    "m001_initial",
    "m002_leases",
    "m003_pipeline_authority",
    "m003_kernel_audit_chain",
    "m004_loops_registry",
    "m005_scale_run_task_order",
    "m006_stats_judgments_assignments",
    "m007_formats_upstream_results_and_cache_key",
    "m008_kernel_signatures_and_sealed_records",
    "m009_console_case_queue_index",
    "m010_kernel_records_by_event",
    "m011_scale_run_task_figures",
    "m012_kernel_events_complete",
    "m013_kernel_records_by_position",
    "m014_evaluation_every_run_order",
    "m015_discussion_comments",
    "m016_cases_design_review",
    "m017_kernel_projections_complete",
    "m018_rubric_answers_and_preferences",
    "m019_queue_rubrics_and_runs_compared",
    "m020_cases_counts",
    "m021_evaluation_compact_task_order",
)


def migration_functions() -> dict[str, Callable[[Database], None]]:
    """Every domain's migrations by name: asked for only when a store is migrated (the evaluation domain's bring
    its run-order builder, which a command reading a current store does not need)."""
    every = {**_HERE, **kernel.KERNEL_MIGRATIONS, **evaluation.EVALUATION_MIGRATIONS}
    if sorted(MIGRATIONS) != sorted(every):
        raise ValueError("every domain's migration has its place in MIGRATIONS, once")
    return every


def _sealed_sources() -> tuple[RecordSource, ...]:
    """The tables whose rows events seal, in the order every digest reads them (stored digests depend on it: a new
    source only ever goes at the end, and the one an import streams, task results, stays last)."""
    return (*skills.SKILL_RECORD_SOURCES, evaluation.TASK_RESULT_RECORDS)


def _append_only_tables() -> tuple[str, ...]:
    """Every domain's record tables (the kernel's own it names itself): their triggers are checked before a
    connection's first write and restored by verify."""
    return (*cases.CASES_APPEND_ONLY, *skills.SKILLS_APPEND_ONLY, *evaluation.EVALUATION_APPEND_ONLY,
            *proposals.PROPOSALS_APPEND_ONLY, *loops.LOOPS_APPEND_ONLY, *discussion.DISCUSSION_APPEND_ONLY,
            *preferences.PREFERENCES_APPEND_ONLY, *rubrics.RUBRIC_APPEND_ONLY)


# The kernel is told where each list is; it asks when it first needs one (a read needs none of them: each domain's
# list is its own module, loaded then).
use_migrations(MIGRATIONS, migration_functions)
use_record_sources(_sealed_sources)
use_append_only(_append_only_tables)

__all__ = ["MIGRATIONS", "MIGRATION_SET", "known_migration_names", "latest_version"]  # and `migrations`, made on first use


def __getattr__(name: str) -> Migrations:
    """`migrations`: the store's migrations as sqlite-utils' `Migrations`, made when first asked for."""
    if name == "migrations":
        return store_migrations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
