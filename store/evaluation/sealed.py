"""The evaluation domain's records that events seal (kernel records.RecordSource): a run's task results; and
its record tables, append-only (the top floor hands them to the kernel, which checks their triggers before a
connection's first write).

Apart from the runs module so that the store's top floor (store/schema.py), which lists every sealed table on
import, loads only this and the kernel; the runs module and what it imports load when a command uses them.
"""

from gatepost.store.kernel import RecordSource

EVALUATION_APPEND_ONLY = ("task_results",)

TASK_COLUMNS = ("run_id", "side", "task_id", "attempt", "passed", "judged", "score", "duration_ms", "output",
                "reason", "mock", "split", "details", "error")


def _results_of_event(columns: tuple[str, ...]) -> str:
    # CROSS JOIN: SQLite reads the runs first (by event_seq) and then their results by run_id, never all
    # task results in id order (that made every sealed act cost a scan of the whole table)
    return (f"SELECT {', '.join('t.' + c for c in columns)} FROM evaluation_runs r"
            " CROSS JOIN task_results t ON t.run_id = r.id WHERE r.event_seq = ? ORDER BY t.id")


# A run's task results as its event seals them: in id order (their position in the run), the id itself not
# hashed (the first format hashed it), so whoever hashes them before they are stored need not know their ids.
# Last of the store's record sources: an import hashes them as it inserts them (kernel StreamedRecords).
TASK_RESULT_RECORDS = RecordSource(
    "task_results", TASK_COLUMNS, of_event=_results_of_event(TASK_COLUMNS),
    seqs="SELECT r.event_seq FROM evaluation_runs r WHERE r.event_seq IS NOT NULL"
         " AND EXISTS (SELECT 1 FROM task_results t WHERE t.run_id = r.id)",
    first_format=_results_of_event(("id", *TASK_COLUMNS)), reals=(TASK_COLUMNS.index("score"),))
