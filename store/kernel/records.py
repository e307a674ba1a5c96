"""The records an event created, sealed into its hash.

A skill run, a manifest version and an evaluation run's task results are rows of their own tables,
not fields of their event (each domain says how its records are read: `RecordSource`; the store's top
floor sets them in order, so the kernel names none of their tables). So that editing one of them is as visible as editing the event, the
event that creates them carries `records_sha256` in its payload: a canonical digest of those rows
as SQLite stores them (read back inside the write's transaction, or hashed as they are inserted, so the
writer and `gatepost verify` hash the very same values). The payload is part of the chained event, so the
chain covers the records too.

Task results are sealed by their position in their event's runs, not by their row ids: the lines are
hashed in id order without the id. A row id is the store's (the largest plus one), so whoever hashes the
rows ahead of the store need not know which ids they will get.

Records stored before this seal existed are sealed once by a migration: one `audit.records_sealed`
event holding the digest of each older event's records. Events sealed in the first format, which hashed
each task result's id, are sealed again by position once by a later migration (`reseal_by_position`),
after checking each against what it sealed: one `audit.records_resealed` event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from math import copysign
from typing import TYPE_CHECKING, Any, NamedTuple

from .schema import record_sources

if TYPE_CHECKING:
    import msgspec
    from sqlite_utils import Database

RECORDS_FORMAT = "gatepost-records/2"  # sha256(format, then per table: "\n" table "\n", one JSON line per row)
RECORDS_FORMAT_IDS = "gatepost-records/1"  # the first format: task results hashed with their row ids
RECORDS_KEY = "records_sha256"  # the payload key of an event that seals the records it created
SEAL_KIND = "audit.records_sealed"  # the migration's event: {"digests": {seq: digest}} for older events
RESEAL_KIND = "audit.records_resealed"  # {"digests": {seq: digest}} sealed again by position, "unmatched": [seq]


class RecordSource(NamedTuple):
    """A table whose rows are records an event created, as the seal reads them: the domain that owns the table
    says how (the kernel names no domain's table); the store's top floor sets them in their one order. (A named
    tuple, not a dataclass: a dataclass's generated methods cost a command's start about half a millisecond each,
    the dataclasses module as much again.)

    - `columns`: every stored column that says what the record is, hashed in this order (event_seq, the link
      itself, is not: moving a row to another event changes which event's digest reads it);
    - `of_event`: SQL with one parameter, the seq: the rows that event created, `columns` each, in order;
    - `seqs`: SQL: the seqs of every event with rows here;
    - `in_seq_order`: SQL: (event_seq, *columns) of every row, by seq then in order, which `records_digests`
      reads once instead of `of_event` per event (None: read per event);
    - `first_format`: `of_event` as the first format (RECORDS_FORMAT_IDS) read it, where it differs;
    - `reals`: the positions in `columns` of REAL columns (a value streamed in is hashed as SQLite stores it).
    """

    table: str
    columns: tuple[str, ...]
    of_event: str
    seqs: str
    in_seq_order: str | None = None
    first_format: str | None = None
    reals: tuple[int, ...] = ()

    def rows_sql(self, form: str) -> str:
        """`of_event` in this format."""
        return self.first_format if form == RECORDS_FORMAT_IDS and self.first_format else self.of_event




@cache
def _encoder() -> msgspec.json.Encoder:
    """Compact JSON, UTF-8, shortest round-trip floats: ~9x json.dumps per row. Built on first use: importing
    msgspec (and typing_extensions) costs a command about 5 ms, and only writes and verify hash records."""
    import msgspec

    return msgspec.json.Encoder()


def _encode(row: tuple[Any, ...]) -> bytes:
    """One record as a line of compact JSON (a JSON array of its column values, in the source's order)."""
    return _encoder().encode(row) + b"\n"


def _read_into(digest: Any, cursor: Any) -> bool:
    """Hash a cursor's rows as record lines; whether it had any."""
    found = False
    while rows := cursor.fetchmany(5000):
        found = True
        digest.update(_encoder().encode_lines(rows))  # the bytes of _encode, row after row
    return found


def records_digest(db: Database, seq: int) -> str | None:
    """sha256 of the records event `seq` created (None when it created none of these records)."""
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    digest = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
    found = False
    for source in record_sources():
        digest.update(b"\n" + source.table.encode("ascii") + b"\n")
        found = _read_into(digest, db.execute(source.of_event, [seq])) or found
    return digest.hexdigest() if found else None


def records_digests(db: Database, *, form: str = RECORDS_FORMAT) -> Iterator[tuple[int, str | None]]:
    """(seq, records_digest(db, seq)) of every event some record names, in seq order, reading each table once.

    What verify checks: one read in (event_seq, order) of each source that can be read so, merged by seq, and
    the rows of each event of the others; the same bytes records_digest hashes, without its queries per
    event (three per skill run made verify's cost per event grow with the store). `form`
    RECORDS_FORMAT_IDS: the digests as the first format sealed them (what `reseal_by_position` checks).
    """
    import hashlib  # as in records_digest

    sources = record_sources()
    streams = {i: _by_seq(db, s.in_seq_order) for i, s in enumerate(sources) if s.in_seq_order is not None}
    heads = {i: next(stream, None) for i, stream in streams.items()}
    per_event = {i: {r[0] for r in db.execute(s.seqs)} for i, s in enumerate(sources) if i not in streams}
    for seq in seqs_with_records(db):
        digest = hashlib.sha256(form.encode("ascii"))
        found = False
        for i, source in enumerate(sources):
            digest.update(b"\n" + source.table.encode("ascii") + b"\n")
            if i in streams:
                while (row := heads[i]) is not None and row[0] <= seq:
                    if row[0] == seq:
                        found = True
                        digest.update(_encode(tuple(row[1:])))
                    heads[i] = next(streams[i], None)
            elif seq in per_event[i]:
                found = _read_into(digest, db.execute(source.rows_sql(form), [seq])) or found
        yield seq, digest.hexdigest() if found else None


def _by_seq(db: Database, sql: str) -> Iterator[tuple[Any, ...]]:
    cursor = db.execute(sql)
    while rows := cursor.fetchmany(5000):
        yield from rows


class StreamedRecords:
    """records_digest(db, seq) of an act that inserts many records of the last source, hashed as they are
    inserted instead of read back (reading a 1 GB run back cost as much as parsing it).

    The other sources' records are read when it is made (the act writes none after); then `add` takes the
    last source's rows in the order they are inserted (their position), as the very tuples the act inserts
    (its `columns`, no id: SQLite gives each the next one) and returns them as SQLite will store them: a REAL
    column's value as a float, -0.0 as 0.0. Every other value is already stored as given: text as str or None,
    whole numbers as int (the importer makes them so).
    """

    def __init__(self, db: Database | None, seq: int) -> None:
        """`db` None: an act that creates no other records (an import hashes its rows so, ahead of the store;
        the act that stores them `adopt`s that digest when it has no other records)."""
        import hashlib  # as in records_digest

        *others, self.source = record_sources()
        self.hash = hashlib.sha256(RECORDS_FORMAT.encode("ascii"))
        self.found = False
        self.adopted: tuple[str | None] | None = None
        for source in others:
            self.hash.update(b"\n" + source.table.encode("ascii") + b"\n")
            if db is not None:
                self.found = _read_into(self.hash, db.execute(source.of_event, [seq])) or self.found
        self.hash.update(b"\n" + self.source.table.encode("ascii") + b"\n")

    def adopt(self, digest: str | None) -> bool:
        """Take as this act's digest one made by `StreamedRecords(None, ...)` of exactly the rows the act
        inserts: only when the act has no other records and has hashed nothing yet (then the two hashes
        read the same bytes). False: hash the rows here (`add`)."""
        if self.found or self.adopted is not None:
            return False
        self.adopted = (digest,)
        return True

    def add(self, rows: list[tuple[Any, ...]], *, as_stored: bool = False) -> list[tuple[Any, ...]]:
        """Hash these rows (the source's `columns` order), next in the act; returns them as they are to be
        inserted.

        Rows may leave out trailing columns that are null in every one of them (an import's rows leave out
        details and error: inserting two nulls per row cost a fifth of the insert); they are hashed as null.
        `as_stored`: the REAL columns' values are already as SQLite stores them (`stored_score`).
        """
        if not as_stored:
            for at in self.source.reals:
                for i, row in enumerate(rows):
                    value = row[at]
                    if value is not None and (type(value) is not float or (value == 0 and copysign(1.0, value) < 0)):
                        rows[i] = (*row[:at], float(value) + 0.0, *row[at + 1:])  # -0.0 + 0.0 is 0.0
        assert self.adopted is None, "rows hashed after a digest was adopted"
        if rows:
            self.found = True
            self.hash.update(record_lines(rows, len(self.source.columns)))
        return rows

    def add_whole(self, rows: Iterable[Sequence[Any]]) -> None:
        """Hash rows of every column (the source's `columns` order, nothing left out), their REAL values as SQLite
        stores them, next in the act, as they are made (an iterator: encoded one by one, no list of them held)."""
        assert self.adopted is None, "rows hashed after a digest was adopted"
        lines = _encoder().encode_lines(rows)
        if lines:
            self.found = True
            self.hash.update(lines)

    def hexdigest(self) -> str | None:
        """The digest records_digest gives (None: no records)."""
        if self.adopted is not None:
            return self.adopted[0]
        return self.hash.hexdigest() if self.found else None


def record_lines(rows: Sequence[Sequence[Any]], width: int) -> bytes:
    """Records (as stored) as the seal hashes them: one JSON line per row, as `_encode` gives. Rows may leave
    out trailing columns (of `width`) null in every one of them."""
    lines = _encoder().encode_lines(rows)
    missing = width - len(rows[0]) if rows else 0
    if missing:  # a raw newline only ends a JSON line (one inside a string is written \n): ']\n' ends a row
        lines = (b",null" * missing + b"]\n").join(lines.split(b"]\n"))  # half the time of bytes.replace
    return lines


def stored_score(score: Any) -> float | None:
    """A score as SQLite stores it in a REAL column: a float, -0.0 as 0.0 (None stays None)."""
    return None if score is None else float(score) + 0.0


def seqs_with_records(db: Database) -> list[int]:
    """The seqs of every event that some record of a source belongs to."""
    union = " UNION ".join(source.seqs for source in record_sources())
    return sorted(r[0] for r in db.execute(union).fetchall())


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
