"""The skills domain's records that events seal (kernel records.RecordSource): a skill run and a manifest
version are each a row of their own table, created by one event, read in id order; and the domain's record tables,
append-only (the top floor hands them to the kernel, which checks their triggers before a connection's first
write)."""

from gatepost.store.kernel import RecordSource


def _source(table: str, columns: str) -> RecordSource:
    return RecordSource(
        table, tuple(c.strip() for c in columns.split(",")),
        of_event=f"SELECT {columns} FROM {table} WHERE event_seq = ? ORDER BY id",
        seqs=f"SELECT event_seq FROM {table} WHERE event_seq IS NOT NULL",
        # read once for every event by verify (indexed on (event_seq, id): m010_kernel_records_by_event)
        in_seq_order=f"SELECT event_seq, {columns} FROM {table} WHERE event_seq IS NOT NULL ORDER BY event_seq, id")


SKILL_RECORD_SOURCES = (
    _source("skill_runs", "id, skill, at, status, output, word_count, producer, recorded_at"),
    _source("manifest_versions", "id, skill, version, assertions, source, draft_id, author, created_at"),
)

# A skill's manifest versions, its runs, their evaluations and assertion results: records, never edited.
SKILLS_APPEND_ONLY = ("manifest_versions", "skill_runs", "skill_evals", "assertion_results")
