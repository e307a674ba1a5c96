"""The records an event created, sealed into its hash.

A skill run, a manifest version and an evaluation run's task results are rows of their own tables,
not fields of their event. So that editing one of them is as visible as editing the event, the
event that creates them carries `records_sha256` in its payload: a canonical digest of those rows
as SQLite stores them (read back inside the write's transaction, or hashed as they are inserted, so the
writer and `gatepost verify` hash the very same values). The payload is part of the chained event, so the
chain covers the records too.

Task results are sealed by their position in their event's runs, not by their row ids: the lines are
hashed in id order without the id. A row id is the store's (the largest plus one), so whoever hashes the
rows ahead of the store (an import's worker process) need not know which ids they will get.

Records stored before this seal existed are sealed once by a migration: one `audit.records_sealed`
event holding the digest of each older event's records. Events sealed in the first format, which hashed
each task result's id, are sealed again by position once by a later migration (`reseal_by_position`),
after checking each against what it sealed: one `audit.records_resealed` event.
"""

import hashlib
import json
from collections.abc import Iterator
from math import copysign
from typing import Any

import msgspec
from sqlite_utils import Database

RECORDS_FORMAT = "gatepost-records/2"  # sha256(format, then per table: "\n" table "\n", one JSON line per row)
RECORDS_FORMAT_IDS = "gatepost-records/1"  # the first format: task results hashed with their row ids
RECORDS_KEY = "records_sha256"  # the payload key of an event that seals the records it created
SEAL_KIND = "audit.records_sealed"  # the migration's event: {"digests": {seq: digest}} for older events
RESEAL_KIND = "audit.records_resealed"  # {"digests": {seq: digest}} sealed again by position, "unmatched": [seq]

# Per table: the rows an event created, given its seq, in a fixed order (every stored column that
# says what the record is; event_seq is the link itself, so moving a row to another event shows too).
# Task results: in id order (their position), the id itself not hashed.
TASK_RESULT_COLUMNS = ("run_id", "side", "task_id", "attempt", "passed", "judged", "score", "duration_ms",
                       "output", "reason", "mock", "split", "details", "error")
# The tables whose records are read by their event's seq (both indexed on (event_seq, id)), and their columns.
SEQ_TABLES: tuple[tuple[str, str], ...] = (
    ("skill_runs", "id, skill, at, status, output, word_count, producer, recorded_at"),
    ("manifest_versions", "id, skill, version, assertions, source, draft_id, author, created_at"),
)


def _task_results_sql(columns: tuple[str, ...]) -> str:
    # CROSS JOIN: SQLite reads the runs first (by event_seq) and then their results by run_id, never all
    # task results in id order (that made every sealed act cost a scan of the whole table)
    return (f"SELECT {', '.join('t.' + c for c in columns)} FROM evaluation_runs r"
            " CROSS JOIN task_results t ON t.run_id = r.id WHERE r.event_seq = ? ORDER BY t.id")


_TASK_RESULTS_BY_FORMAT = {RECORDS_FORMAT: _task_results_sql(TASK_RESULT_COLUMNS),
                           RECORDS_FORMAT_IDS: _task_results_sql(("id", *TASK_RESULT_COLUMNS))}
RECORD_SOURCES: tuple[tuple[str, str], ...] = (
    *((table, f"SELECT {columns} FROM {table} WHERE event_seq = ? ORDER BY id") for table, columns in SEQ_TABLES),
    ("task_results", _TASK_RESULTS_BY_FORMAT[RECORDS_FORMAT]),
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


def records_digests(db: Database, *, form: str = RECORDS_FORMAT) -> Iterator[tuple[int, str | None]]:
    """(seq, records_digest(db, seq)) of every event some record names, in seq order, reading each table once.

    What verify checks: one read of skill_runs and manifest_versions in (event_seq, id) order, merged by
    seq, and the task results of each event's runs; the same bytes records_digest hashes, without its
    queries per event (three per skill run made verify's cost per event grow with the store). `form`
    RECORDS_FORMAT_IDS: the digests as the first format sealed them (what `reseal_by_position` checks).
    """
    streams = [_by_seq(db, f"SELECT event_seq, {columns} FROM {table} WHERE event_seq IS NOT NULL"
                           " ORDER BY event_seq, id") for table, columns in SEQ_TABLES]
    heads = [next(stream, None) for stream in streams]
    runs = {r[0] for r in db.execute("SELECT DISTINCT event_seq FROM evaluation_runs WHERE event_seq IS NOT NULL")}
    task_results = _TASK_RESULTS_BY_FORMAT[form]
    for seq in seqs_with_records(db):
        digest = hashlib.sha256(form.encode("ascii"))
        found = False
        for i, (table, _) in enumerate(SEQ_TABLES):
            digest.update(b"\n" + table.encode("ascii") + b"\n")
            while heads[i] is not None and heads[i][0] <= seq:  # type: ignore[index]
                row = heads[i]
                if row[0] == seq:  # type: ignore[index]
                    found = True
                    digest.update(_encode(tuple(row[1:])))  # type: ignore[index]
                heads[i] = next(streams[i], None)
        digest.update(b"\ntask_results\n")
        if seq in runs:
            cursor = db.execute(task_results, [seq])
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
    task results in the order they are inserted (their position), as the very tuples the act inserts
    (TASK_RESULT_COLUMNS order, no id: SQLite gives each the next one) and returns them as SQLite will store them: a score (REAL) as a float, -0.0 as 0.0. Every other value is
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
        """Hash these rows (TASK_RESULT_COLUMNS order), next in the run; returns them as they are to be inserted.

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
    """Task results (TASK_RESULT_COLUMNS order, scores as stored) as the seal hashes them: one JSON
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
    """The digest of every event's records, keyed by seq (as text), in the first format: what the migration
    that first sealed older records sealed (a later migration checks them and seals them again by position)."""
    return {str(seq): digest for seq, digest in records_digests(db, form=RECORDS_FORMAT_IDS) if digest is not None}


def _claimed(db: Database) -> dict[int, str]:
    """What each event with records claims they hash to: its own payload's digest, else the older migration's."""
    claimed: dict[int, str] = {}
    for (text,) in db.execute("SELECT payload FROM events WHERE kind = ? ORDER BY seq", [SEAL_KIND]).fetchall():
        digests = _payload(text).get("digests")
        if isinstance(digests, dict):
            claimed.update({int(k): str(v) for k, v in digests.items() if str(k).isdigit()})
    for seq, text in db.execute("SELECT seq, payload FROM events WHERE payload LIKE ? ORDER BY seq",
                                [f"%{RECORDS_KEY}%"]).fetchall():
        digest = _payload(text).get(RECORDS_KEY)
        if isinstance(digest, str):
            claimed[seq] = digest
    return claimed


def _payload(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def reseal_by_position(db: Database) -> tuple[dict[str, str], list[int]]:
    """The records of every event sealed in the first format, sealed again by position: (digests by seq as
    text, the seqs left out). An event's records are sealed again only when they still hash, in the first
    format, to what the event (or the older migration) sealed; one that does not (a record edited before,
    or none claimed) is left out, so `gatepost verify` goes on finding it. Nothing is sealed unchecked."""
    claimed = _claimed(db)
    before = dict(records_digests(db, form=RECORDS_FORMAT_IDS))
    digests: dict[str, str] = {}
    unmatched: list[int] = []
    for seq, now in records_digests(db):
        if now is not None and before.get(seq) is not None and claimed.get(seq) == before[seq]:
            digests[str(seq)] = now
        else:
            unmatched.append(seq)
    return digests, unmatched


def migration_seals(db: Database) -> dict[int, tuple[str, str]]:
    """Per seq, the digest a migration sealed for its records and which: the newest wins (sealed again by
    position over sealed once); events after the migrations carry their own in their payload."""
    seals: dict[int, tuple[str, str]] = {}
    for kind, label in ((SEAL_KIND, "sealed by the migration"), (RESEAL_KIND, "sealed again by position")):
        for (text,) in db.execute("SELECT payload FROM events WHERE kind = ? ORDER BY seq", [kind]).fetchall():
            digests = _payload(text).get("digests")
            if isinstance(digests, dict):
                seals.update({int(k): (label, str(v)) for k, v in digests.items() if str(k).isdigit()})
    return seals
