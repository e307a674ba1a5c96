"""`gatepost verify`: does the store still say what its history says?

Read-only checks, each finding one line naming the first broken sequence or row:
1. the hash chain of the events (an edited, inserted or deleted event breaks a link; with
   `expect`, a head kept elsewhere also catches a cut tail or a history rewritten whole);
2. the append-only triggers are all there, compared by their SQL (dropping or replacing them is how
   records get edited);
3. every table the rules read is what the events say: the same read of the events that recomputes the
   chain replays them (replay.py) into the tables they made, compared row by row and column by column;
   a subject decided twice is a finding; the skill runs, manifest versions and task results an event
   created still hash to the digest it sealed (`records_sha256`, or the migration's
   `audit.records_sealed` for older ones); a run's stored counts and review order are what its task
   results give (both from one read of the task results, integrity.py; what it cannot vouch for is checked
   again the exact way, run by run and event by event); the case lists' kept totals are what the cases count;
4. every signed decision's signature verifies against the key its person had registered then, and
   no decision by a person with a key lacks one.
"""

import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from gatepost.store.cases import COUNTS_TABLE as CASE_COUNTS
from gatepost.store.cases import counts_differ
from gatepost.store.evaluation import (
    COUNTS_TABLE,
    FIGURES_TABLE,
    PAGES_TABLE,
    counted_figures,
    order_differences,
    stored_figures,
    stored_orders,
)
from gatepost.store.kernel import (
    EVENT_FIELDS,
    GENESIS,
    canonical_event,
    chain_hash,
    key_replacements,
    migration_seals,
    missing_triggers,
    signature_findings,
)

from .integrity import ResultsRead, read_results, records_differ
from .replay import Replay, compare


@dataclass
class VerifyReport:
    """What verify found: findings (one line each, in sequence order where they have one) and the head."""

    events: int = 0
    signatures: int = 0  # signatures on decisions checked
    head_seq: int = 0
    head_hash: str = GENESIS
    findings: list[str] = field(default_factory=list)
    first_broken_seq: int | None = None
    key_replacements: list[str] = field(default_factory=list)  # every replaced key, one line each (not findings)

    @property
    def intact(self) -> bool:
        return not self.findings


def _chain(db: Database, report: VerifyReport, replay: Replay) -> None:
    """Recompute the chain and replay each event into the tables it says (one read of the events)."""
    prev_hash, prev_seq = GENESIS, 0
    apply = replay.apply
    columns = ", ".join(EVENT_FIELDS)
    cursor = db.execute(f"SELECT {columns}, prev_hash, hash FROM events ORDER BY seq")
    while True:
        rows = cursor.fetchmany(5000)
        if not rows:
            break
        for row in rows:
            seq, stored_prev, stored = row[0], row[-2], row[-1]
            report.events += 1
            if seq != prev_seq + 1:
                gap = f"{prev_seq + 1}" if seq == prev_seq + 2 else f"{prev_seq + 1}..{seq - 1}"
                _find(report, prev_seq + 1, f"event {gap}: missing (the sequence jumps from {prev_seq} to {seq}); "
                                            "events were deleted")
            if stored_prev != prev_hash:
                _find(report, seq, f"event {seq}: prev_hash does not link to event {prev_seq}'s hash; "
                                   "an event before it was edited, inserted or deleted")
            digest = chain_hash(stored_prev or GENESIS, canonical_event(*row[:-2]))
            if stored != digest:
                _find(report, seq, f"event {seq}: content does not match its hash; the event was edited "
                                   f"(kind {row[3]}, subject {row[4] or ''}:{row[5] or ''})" if stored else
                                   f"event {seq}: has no hash; it was inserted by hand")
            prev_hash = stored or digest
            prev_seq = seq
            apply(*row[:-2])
    report.head_seq, report.head_hash = prev_seq, prev_hash


def _find(report: VerifyReport, seq: int | None, line: str) -> None:
    report.findings.append(line)
    # (a record's event_seq edited by hand may hold anything: only a whole number names an event)
    if type(seq) is int and (report.first_broken_seq is None or seq < report.first_broken_seq):
        report.first_broken_seq = seq


def _at(seq: int | None) -> str:
    return f" (event {seq})" if seq else ""


def _rows(db: Database, sql: str, params: list[Any] | None = None) -> Iterator[dict[str, Any]]:
    yield from db.query(sql, params or [])


def _tables(db: Database) -> set[str]:
    return set(db.table_names())


def _references(db: Database, report: VerifyReport) -> None:
    """Every record naming an event (event_seq) names one that exists. When the events are exactly 1..head (as many
    as the head's seq, the first 1: seqs are distinct whole numbers), a whole number in that range names one, and
    only the other values are looked up."""
    whole = bool(report.events) and report.events == report.head_seq and \
        db.execute("SELECT MIN(seq) FROM events").fetchone()[0] == 1
    outside = f"(typeof(t.event_seq) <> 'integer' OR t.event_seq NOT BETWEEN 1 AND {int(report.head_seq)}) AND " \
        if whole else ""
    for table in sorted(_tables(db)):
        if table.startswith(("_", "sqlite_")) or "event_seq" not in db[table].columns_dict:
            continue
        for row in _rows(db, f"SELECT t.rowid AS id, t.event_seq FROM [{table}] t WHERE t.event_seq IS NOT NULL"
                             f" AND {outside}NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = t.event_seq)"
                             " ORDER BY t.event_seq"):
            _find(report, row["event_seq"], f"{table} row {row['id']}: names event {row['event_seq']}, which is "
                                            "not in the store; events were deleted")


def _records(db: Database, report: VerifyReport, replay: Replay, read: ResultsRead) -> None:
    """The skill runs, manifest versions and task results each event created still hash to what it sealed
    (what each event sealed was collected as the chain was read: `Replay.sealed`). A migration's seal of an
    event's records, newer than the event (records sealed again by position), is the one they must match."""
    sealed = migration_seals(db)
    claimed = replay.sealed
    # what each event's records must hash to: a migration's seal over the event's own (no copy when there is none)
    wanted = {**claimed, **{seq: digest for seq, (_, digest) in sealed.items()}} if sealed else claimed
    differ, named = records_differ(db, read, wanted)
    # the events whose records are not what a seal says (the rest, nearly all, need nothing more)
    unmatched = [*differ, *(seq for seq in claimed.keys() - named if wanted[seq] is not None)]
    for seq in sorted(unmatched, key=_seq_order):
        if seq in sealed:
            kind = sealed[seq][0]
        elif seq in claimed:
            kind = replay.sealed_by(seq)
        else:
            _find(report, seq, f"event {seq}: skill runs, manifest versions or task results name it, and no hash "
                               "covers them; they were inserted by hand")
            continue
        # unmatched: records_differ's (their digest is not the wanted one) or none left of what it sealed
        _find(report, seq, f"event {seq}: the skill runs, manifest versions or task results it created "
                           f"({kind}) no longer hash to what it sealed; a record was edited, added or deleted")


def _seq_order(seq: Any) -> tuple[int, Any, str]:
    """Events' seqs in order, whatever a record edited by hand names (numbers by value, then anything else by text)."""
    return (0, seq, "") if type(seq) in (int, float) else (1, 0, str(seq))


def _figures(db: Database, report: VerifyReport, runs: list[str]) -> None:
    """A run's stored statistics counts (derived at import, read instead of its task results) are what its task
    results count: an edited row would change a run's pass rates and intervals, and no hash covers it. `runs`: those
    the read of the task results (integrity.read_results) could not vouch for, counted again here one by one."""
    for run_id in runs:
        stored, counted = stored_figures(db, run_id), counted_figures(db, run_id)
        if stored != counted:
            if stored is None or counted is None:
                differ = "a task has repeated attempts, which no stored counts describe"
            else:
                differ = ", ".join(f"{name} {stored[name]} stored, {counted[name]} counted" for name in stored
                                   if stored[name] != counted[name])
            seq = db.execute("SELECT event_seq FROM evaluation_runs WHERE id = ?", [run_id]).fetchone()
            _find(report, seq[0] if seq else None, f"run {run_id}: its stored statistics counts are not what its "
                                                  f"task results count ({differ}); the row was edited by hand")


def _orders(db: Database, report: VerifyReport, runs: list[str]) -> None:
    """A run's stored review order and counts (what the console lists its tasks by, and under which filters) are
    what its task results give. `runs`: those the read of the task results could not vouch for, written again
    here one by one and compared (task_order.order_differences)."""
    for run_id in runs:
        differ = order_differences(db, run_id)
        if differ:
            seq = db.execute("SELECT event_seq FROM evaluation_runs WHERE id = ?", [run_id]).fetchone()
            _find(report, seq[0] if seq else None, f"run {run_id}: its stored review order is not what its task "
                                                  f"results give ({', '.join(differ)}); rows were edited by hand")


def _signatures(db: Database, report: VerifyReport) -> None:
    report.signatures = db.execute("SELECT COUNT(*) FROM signatures").fetchone()[0]
    for seq, line in signature_findings(db):
        _find(report, seq, line)


# The parts of a verify, in the order they run: what a progress display names while each runs.
VERIFY_PARTS = ("the hash chain and its replay", "every table against the events",
                "the task results: sealed records and run orders", "signatures and references")

Parts = Callable[[str, int, int], None]  # (the part beginning, parts done before it, parts in all)


def verify_store(db: Database, *, expect: str | None = None, parts: Parts | None = None) -> VerifyReport:
    """Recompute the chain, look for the triggers, and check projections against the events.

    `parts(name, done, total)` is called as each of VERIFY_PARTS begins (a large store takes seconds)."""
    collecting = gc.isenabled()
    # The replay holds a row per record the events made (hundreds of thousands on a large store), none of them in a
    # reference cycle: the cyclic collector would walk them all again each time it ran, for nothing. Whatever
    # cycles verify leaves are collected once it is done.
    gc.disable()
    try:
        return _verify(db, expect, parts)
    finally:
        if collecting:
            gc.enable()


def _verify(db: Database, expect: str | None, parts: Parts | None) -> VerifyReport:
    def begin(index: int) -> None:
        if parts is not None:
            parts(VERIFY_PARTS[index], index, len(VERIFY_PARTS))

    report = VerifyReport()
    replay = Replay()
    begin(0)
    _chain(db, report, replay)
    if expect is not None:  # a head kept elsewhere must still be in the chain (the store may have grown since)
        wanted = expect.strip().lower()
        if wanted != report.head_hash and not db.execute("SELECT 1 FROM events WHERE hash = ?", [wanted]).fetchone():
            _find(report, None, f"head: expected {wanted} in the chain, it is not there; the store's "
                                               f"head is event {report.head_seq} ({report.head_hash}): the tail "
                                               "was cut or the history rewritten")
    missing = missing_triggers(db)
    if missing:
        _find(report, None, f"triggers: append-only triggers are missing or not what the schema makes "
                            f"({', '.join(missing)}); records may have been edited by hand")
    for seq, line in replay.findings:
        _find(report, seq, line)
    begin(1)
    for at, line in compare(db, replay):
        _find(report, at, line)
    tables = _tables(db)
    begin(2)
    read = ResultsRead()
    if "task_results" in tables:
        read = read_results(db)
        _records(db, report, replay, read)
    else:
        read.orders = stored_orders(db) if {PAGES_TABLE, COUNTS_TABLE} <= tables else []
        read.figures = [row[0] for row in db.execute(f"SELECT run_id FROM {FIGURES_TABLE} ORDER BY run_id")] \
            if FIGURES_TABLE in tables else []
    begin(3)
    if FIGURES_TABLE in tables:
        _figures(db, report, read.figures)
    if PAGES_TABLE in tables:
        _orders(db, report, read.orders)
    if CASE_COUNTS in tables:  # the case lists' totals, kept as the cases change: what the cases count now
        for line in counts_differ(db):
            _find(report, None, f"case counts: {line}")
    if "signatures" in tables:
        _signatures(db, report)
    _references(db, report)
    if "events" in tables:
        report.key_replacements = [
            f"key: event {r['seq']}: {r['actor']}'s key {r['replaced']} replaced by {r['fingerprint']} "
            f"({ROTATION_WORDS.get(r['rotation'], r['rotation'])}{'' if r['by'] == r['actor'] else ', by ' + str(r['by'])})"
            for r in key_replacements(db)]
    return report


# How a key replacement was vouched for, in the line `gatepost verify` prints.
ROTATION_WORDS = {"signed": "rotation signed with the replaced key", "administrator": "by another administrator",
                  "in-process": "by an in-process caller", "unstated": "before rotations were recorded"}
