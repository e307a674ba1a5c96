"""The evaluation domain's migrations (gatepost.store.schema puts them in the store's order)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .task_order import (
    backfill_figures,
    backfill_task_order,
    compact_stored_orders,
    create_figures_table,
    create_task_order_tables,
)

if TYPE_CHECKING:
    from sqlite_utils import Database


def m005_scale_run_task_order(db: Database) -> None:
    """A run's tasks in review order with their counts: a page of one run reads one or two stored chunks."""
    create_task_order_tables(db)
    backfill_task_order(db)


def m007_formats_upstream_results_and_cache_key(db: Database) -> None:
    """Upstream evaluator results keep their `details` and `error` (export as imported); the
    store's own random key signs baseline-cache entries, so a cache file is trusted only if this
    store wrote it."""
    db.execute("ALTER TABLE task_results ADD COLUMN details TEXT")
    db.execute("ALTER TABLE task_results ADD COLUMN error TEXT")
    db.table("store_keys").create({"name": str, "value": str}, pk="name", not_null={"value"})
    db.execute("INSERT INTO store_keys (name, value) VALUES ('baseline_cache', lower(hex(randomblob(32))))")


def m011_scale_run_task_figures(db: Database) -> None:
    """A large run's statistics counts stored with its order: opening a run of 1,000,000 tasks
    streamed every task for its statistics (about 1 s per 100,000), competing with its first rows."""
    create_figures_table(db)
    backfill_figures(db)


def m014_evaluation_every_run_order(db: Database) -> None:
    """Every run's review order and counts stored, not only a large run's: a run's tasks are read one way."""
    backfill_task_order(db)


def m021_evaluation_compact_task_order(db: Database) -> None:
    """Stored orders in the compact form: a chunk of a run's tasks as their ids, their split once and their
    flags a character each, and no list of positions that holds every task (half the pages an import writes)."""
    compact_stored_orders(db)


EVALUATION_MIGRATIONS = {
    "m005_scale_run_task_order": m005_scale_run_task_order,
    "m007_formats_upstream_results_and_cache_key": m007_formats_upstream_results_and_cache_key,
    "m011_scale_run_task_figures": m011_scale_run_task_figures,
    "m014_evaluation_every_run_order": m014_evaluation_every_run_order,
    "m021_evaluation_compact_task_order": m021_evaluation_compact_task_order,
}
