"""The records an event created, sealed into its hash.

A skill run, a manifest version and an evaluation run's task results are rows of their own tables,
not fields of their event. So that editing one of them is as visible as editing the event, the
event that creates them carries `records_sha256` in its payload: a canonical digest of those rows
as SQLite stores them (read back inside the write's transaction, so the writer and `gatepost
verify` hash the very same values). The payload is part of the chained event, so the chain covers
the records too.

Records stored before this seal existed are sealed once by a migration: one `audit.records_sealed`
event holding the digest of each older event's records.
"""

import hashlib
from collections.abc import Iterator
from math import copysign
from typing import Any

import msgspec
from sqlite_utils import Database

RECORDS_FORMAT = "gatepost-records/1"  # sha256(format, then per table: "\n" table "\n", one JSON line per row)
RECORDS_KEY = "records_sha256"  # the payload key of an event that seals the records it created
SEAL_KIND = "audit.records_sealed"  # the migration's event: {"digests": {seq: digest}} for older events

# Per table: the rows an event created, given its seq, in a fixed order (every stored column that
# says what the record is; event_seq is the link itself, so moving a row to another event shows too).
TASK_RESULT_COLUMNS = ("id", "run_id", "side", "task_id", "attempt", "passed", "judged", "score", "duration_ms",
                       "output", "reason", "mock", "split", "details", "error")
# The tables whose records are read by their event's seq (both indexed on (event_seq, id)), and their columns.
SEQ_TABLES: tuple[tuple[str, str], ...] = (
    ("skill_runs", "id, skill, at, status, output, word_count, producer, recorded_at"),
    ("manifest_versions", "id, skill, version, assertions, source, draft_id, author, created_at"),
)
RECORD_SOURCES: tuple[tuple[str, str], ...] = (
    *((table, f"SELECT {columns} FROM {table} WHERE event_seq = ? ORDER BY id") for table, columns in SEQ_TABLES),
    # CROSS JOIN: SQLite reads the runs first (by event_seq) and then their results by run_id, never all
    # task results in id order (that made every sealed act cost a scan of the whole table)
    ("task_results", f"SELECT {', '.join('t.' + c for c in TASK_RESULT_COLUMNS)} FROM evaluation_runs r"
                     " CROSS JOIN task_results t ON t.run_id = r.id WHERE r.event_seq = ? ORDER BY t.id"),
)
# Which events have records: every seq a record of these tables names.
_SCORE = TASK_RESULT_COLUMNS.index("score")
SEQS_WITH_RECORDS = ("SELECT event_seq FROM skill_runs WHERE event_seq IS NOT NULL"
                     " UNION SELECT event_seq FROM manifest_versions WHERE event_seq IS NOT NULL"
                     " UNION SELECT r.event_seq FROM evaluation_runs r WHERE r.event_seq IS NOT NULL"
                     " AND EXISTS (SELECT 1 FROM task_results t WHERE t.run_id = r.id)")


_ENCODER = msgspec.json.Encoder()  # compact JSON, UTF-8, shortest round-trip floats: ~9x json.dumps per row


def _encode(row: tuple[Any, ...]) -> bytes:
    """One record as a line of compact JSON (a JSON array of its column values, in the source's order)."""
    return _ENCODER.encode(row) + b"\n"


def records_digest(db: Database, seq: int) -> str | None:
    """sha256 of the records event `seq` created (None when it created none of these records)."""
    digest = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
    found = False
    for table, sql in RECORD_SOURCES:
        digest.update(b"\n" + table.encode("ascii") + b"\n")
        cursor = db.execute(sql, [seq])
        while True:
            rows = cursor.fetchmany(5000)
            if not rows:
                break
            found = True
            for row in rows:
                digest.update(_encode(tuple(row)))
    return digest.hexdigest() if found else None


def records_digests(db: Database) -> Iterator[tuple[int, str | None]]:
    """(seq, records_digest(db, seq)) of every event some record names, in seq order, reading each table once.

    What verify checks: one read of skill_runs and manifest_versions in (event_seq, id) order, merged by
    seq, and the task results of each event's runs; the same bytes records_digest hashes, without its
    queries per event (three per skill run made verify's cost per event grow with the store).
    """
    streams = [_by_seq(db, f"SELECT event_seq, {columns} FROM {table} WHERE event_seq IS NOT NULL"
                           " ORDER BY event_seq, id") for table, columns in SEQ_TABLES]
    heads = [next(stream, None) for stream in streams]
    runs = {r[0] for r in db.execute("SELECT DISTINCT event_seq FROM evaluation_runs WHERE event_seq IS NOT NULL")}
    for seq in seqs_with_records(db):
        digest = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
        found = False
        for i, (table, _) in enumerate(SEQ_TABLES):
            digest.update(b"\n" + table.encode("ascii") + b"\n")
            while heads[i] is not None and heads[i][0] <= seq:  # type: ignore[index]
                row = heads[i]
                if row[0] == seq:  # type: ignore[index]
                    found = True
                    digest.update(_encode(tuple(row[1:])))  # type: ignore[index]
                heads[i] = next(streams[i], None)
        table, sql = RECORD_SOURCES[-1]
        digest.update(b"\n" + table.encode("ascii") + b"\n")
        if seq in runs:
            cursor = db.execute(sql, [seq])
            while rows := cursor.fetchmany(5000):
                found = True
                digest.update(_ENCODER.encode_lines(rows))  # the bytes of _encode, row after row
        yield seq, digest.hexdigest() if found else None


def _by_seq(db: Database, sql: str) -> Iterator[tuple[Any, ...]]:
    cursor = db.execute(sql)
    while rows := cursor.fetchmany(5000):
        yield from rows


class StreamedRecords:
    """records_digest(db, seq) of an act that inserts many task results, hashed as they are inserted instead
    of read back (reading a 1 GB run back cost as much as parsing it).

    The other tables' records are read when it is made (the act writes none after); then `add` takes the
    task results in id order, as the very tuples the act inserts (TASK_RESULT_COLUMNS order, id first) and
    returns them as SQLite will store them: a score (REAL) as a float, -0.0 as 0.0. Every other value is
    already stored as given: text as str or None, whole numbers as int (the importer makes them so).
    """

    def __init__(self, db: Database | None, seq: int) -> None:
        """`db` None: an act that creates no other records (an import's worker process hashes its rows so,
        ahead of the store; the act that stores them `adopt`s that digest when it has no other records)."""
        self.hash = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
        self.found = False
        self.adopted: tuple[str | None] | None = None
        for table, sql in RECORD_SOURCES[:-1]:
            self.hash.update(b"\n" + table.encode("ascii") + b"\n")
            for row in db.execute(sql, [seq]).fetchall() if db is not None else ():
                self.found = True
                self.hash.update(_encode(tuple(row)))
        assert RECORD_SOURCES[-1][0] == "task_results"
        self.hash.update(b"\ntask_results\n")

    def adopt(self, digest: str | None) -> bool:
        """Take as this act's digest one made by `StreamedRecords(None, ...)` of exactly the rows the act
        inserts: only when the act has no other records and has hashed nothing yet (then the two hashes
        read the same bytes). False: hash the rows here (`add`)."""
        if self.found or self.adopted is not None:
            return False
        self.adopted = (digest,)
        return True

    def add(self, rows: list[tuple[Any, ...]], *, as_stored: bool = False) -> list[tuple[Any, ...]]:
        """Hash these rows (id first, in TASK_RESULT_COLUMNS order); returns them as they are to be inserted.

        Rows may leave out trailing columns that are null in every one of them (an import's rows leave out
        details and error: inserting two nulls per row cost a fifth of the insert); they are hashed as null.
        `as_stored`: the scores are already as SQLite stores them (`stored_score`), not looked at again.
        """
        if not as_stored:
            at = _SCORE
            for i, row in enumerate(rows):
                score = row[at]
                if score is not None and (type(score) is not float or (score == 0 and copysign(1.0, score) < 0)):
                    rows[i] = (*row[:at], float(score) + 0.0, *row[at + 1:])  # -0.0 + 0.0 is 0.0
        assert self.adopted is None, "rows hashed after a digest was adopted"
        if rows:
            self.found = True
            self.hash.update(_task_result_lines(rows))
        return rows

    def hexdigest(self) -> str | None:
        """The digest records_digest gives (None: no records)."""
        if self.adopted is not None:
            return self.adopted[0]
        return self.hash.hexdigest() if self.found else None


def _task_result_lines(rows: list[tuple[Any, ...]]) -> bytes:
    """Task results (id first, TASK_RESULT_COLUMNS order, scores as stored) as the seal hashes them: one JSON
    line per row, as `_encode` gives. Rows may leave out trailing columns null in every one of them."""
    lines = _ENCODER.encode_lines(rows)
    missing = len(TASK_RESULT_COLUMNS) - len(rows[0]) if rows else 0
    if missing:  # a raw newline only ends a JSON line (one inside a string is written \n): ']\n' ends a row
        lines = (b",null" * missing + b"]\n").join(lines.split(b"]\n"))  # half the time of bytes.replace
    return lines


def stored_score(score: Any) -> float | None:
    """A score as SQLite stores it in a REAL column: a float, -0.0 as 0.0 (None stays None)."""
    return None if score is None else float(score) + 0.0


def seqs_with_records(db: Database) -> list[int]:
    """The seqs of every event that some skill run, manifest version or task result belongs to."""
    return sorted(r[0] for r in db.execute(SEQS_WITH_RECORDS).fetchall())


def seal_existing(db: Database) -> dict[str, str]:
    """The digest of every event's records, keyed by seq (as text): what the migration seals."""
    digests: dict[str, str] = {}
    for seq in seqs_with_records(db):
        digest = records_digest(db, seq)
        if digest is not None:
            digests[str(seq)] = digest
    return digests
