"""Stored evaluation runs: one run, its event and every attempt in one transaction; the reads the
console pages from; importing an artifact file and exporting a run in upstream's shape.

Parsing and writing the artifact formats is artifacts.py's; running a suite is runner.py's.
"""

from __future__ import annotations

import gc
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sqlite_utils import Database

from gatepost.store.kernel import (
    MAX_FILE_BYTES,
    FlatRows,
    InputError,
    StreamedRecords,
    all_rows,
    background_inserts,
    check_before_first_write,
    guarded,
    insert_values,
    now_iso,
    read_text,
    stored_score,
)

from .artifacts import (
    VERDICTS,
    ParsedArtifact,
    artifact_digest,
    max_artifact_bytes,
    parse_artifact_columns,
    stream_artifact,
    upstream_artifact,
)
from .attempts import attempts_line, outcome, outcome_counts, summarise_attempts
from .progress import report
from .sealed import TASK_COLUMNS
from .task_order import HeldRuns, refresh_task_order
from .types import RunDetail, RunRow

if TYPE_CHECKING:  # a suite is named in signatures only: reading a run never loads the suites' YAML
    from .suites import Suite


def baseline_cache_key(db: Database) -> str:
    """This store's secret for signing baseline-cache entries (set when the store was created or migrated)."""
    row = db.execute("SELECT value FROM store_keys WHERE name = 'baseline_cache'").fetchone()
    if not row:
        raise InputError("store: no baseline-cache key (store_keys); the store is damaged or not migrated")
    return str(row[0])


def record_suite(db: Database, suite: Suite, *, at: str | None = None) -> str:
    """The suite's text, stored once per content hash (evaluation runs point at it); returns the time it would
    be loaded at (its first run's, which stores it)."""
    loaded_at = at or now_iso()
    db.execute(
        "INSERT OR IGNORE INTO task_suites (id, skill_id, version, path, yaml, task_count, loaded_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [suite.id, suite.skill_id, suite.version, str(suite.path), suite.text, len(suite.tasks), loaded_at],
    )
    return loaded_at


# The per-task results live in task_results only; the stored artifact JSON says so and get_run puts them back.
RESULTS_IN_TABLE = "task_results"


def _task_rows(run_id: str, side: str, results: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """task_results rows as tuples in TASK_COLUMNS order, for one executemany."""
    return [(run_id, side, result["task_id"], a["attempt"], int(bool(a["passed"])), int(bool(a["judged"])),
             a["score"], a["duration_ms"], a["output"], a["reason"], int(bool(a["mock"])), result.get("split"),
             None, None)
            for result in results for a in result["attempt_details"]]


_RUN_FIELDS = ("suite_id", "skill_id", "candidate_path", "candidate_hash", "baseline_path", "baseline_hash", "executor",
               "mock", "pass_k", "split", "execution_pass_rate", "baseline_pass_rate", "delta", "verdict", "warnings",
               "baseline_health", "artifact", "case_id", "purpose", "started_at", "finished_at", "event_seq")


def _payload(artifact: dict[str, Any], values: list[Any], suite: Suite | None = None,
             loaded_at: str = "") -> dict[str, Any]:
    """The run's event: what it came to, the evaluation_runs row it wrote (`values`, in _RUN_FIELDS order; the
    stored artifact as its hash) and the suite it stored, so the chain covers them and verify rebuilds both."""
    row = dict(zip(_RUN_FIELDS, values, strict=True))
    del row["event_seq"]  # the event's own seq
    row["artifact"] = text_digest(row["artifact"])
    for key in ("warnings", "baseline_health"):
        row[key] = json.loads(row[key])
    return {"suite": artifact.get("suite_id"), "skill_id": artifact.get("skill_id"), "verdict": artifact["verdict"],
            "delta": artifact["delta"], "case_id": artifact.get("case_id"), "purpose": artifact.get("purpose"),
            "mock": artifact.get("mock"), "run": row, **({"suite_row": _suite_row(suite, loaded_at)} if suite is not None else {})}


def _suite_row(suite: Suite, loaded_at: str) -> dict[str, Any]:
    """The task_suites row a run stores (its first run's; its text as its hash), as the run's event carries it."""
    return {"id": suite.id, "skill_id": suite.skill_id, "version": suite.version, "path": str(suite.path),
            "yaml": text_digest(suite.text), "task_count": len(suite.tasks), "loaded_at": loaded_at}


def text_digest(text: str | None) -> str | None:
    """The sha256 of a stored text (a run's artifact, a suite's YAML), as the run's event carries it."""
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _run_values(suite: Suite | None, artifact: dict[str, Any], seq: int) -> list[Any]:
    """evaluation_runs values in _RUN_FIELDS order (an imported file's odd values: none)."""
    candidate, baseline = artifact.get("candidate") or {}, artifact.get("baseline") or {}
    text: Callable[[Any], str | None] = lambda v: v if isinstance(v, str) else None  # noqa: E731
    suite_id = suite.id if suite is not None else None
    return [suite_id, text(artifact.get("skill_id")), text(candidate.get("path")), text(candidate.get("sha256")),
            text(baseline.get("path")), text(baseline.get("sha256")), text(artifact.get("executor")),
            int(bool(artifact.get("mock"))), artifact.get("pass_k") if type(artifact.get("pass_k")) is int else None,
            text(artifact.get("split")), artifact["execution_pass_rate"], artifact["baseline_pass_rate"],
            artifact["delta"], artifact["verdict"], json.dumps(artifact.get("warnings") or [], ensure_ascii=False),
            json.dumps(artifact.get("baseline_health") or {}, ensure_ascii=False), _stored_artifact(artifact),
            text(artifact.get("case_id")), text(artifact.get("purpose")), text(artifact.get("started_at")),
            text(artifact.get("finished_at")), seq]


def _note(artifact: dict[str, Any]) -> str:
    who = artifact.get("skill_id") or "suite"
    if artifact["baseline_pass_rate"] is None:  # upstream's standalone run: no baseline
        return f"{who}: {artifact['execution_pass_rate']:.4g} standalone ({artifact['verdict']})"
    return f"{who}: {artifact['execution_pass_rate']:.4g} vs {artifact['baseline_pass_rate']:.4g} ({artifact['verdict']})"


def _stored_artifact(artifact: dict[str, Any]) -> str:
    slim = {k: v for k, v in artifact.items() if k not in ("candidate_results", "baseline_results")}
    slim["results_stored_in"] = RESULTS_IN_TABLE
    return json.dumps(slim, ensure_ascii=False)


def _results_from_table(db: Database, run_id: str) -> dict[str, list[dict[str, Any]]]:
    """The artifact's candidate_results and baseline_results, rebuilt from task_results."""
    sides: dict[str, dict[str, list[dict[str, Any]]]] = {"candidate": {}, "baseline": {}}
    splits: dict[tuple[str, str], str | None] = {}
    upstream: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    cursor = db.execute("SELECT side, task_id, attempt, passed, judged, score, duration_ms, output, reason, mock,"
                        " split, details, error FROM task_results WHERE run_id = ? ORDER BY id", [run_id])
    for side, task_id, attempt, passed, judged, score, duration, output, reason, mock, split, details, error in cursor:
        sides.setdefault(side, {}).setdefault(task_id, []).append(
            {"attempt": attempt, "passed": bool(passed), "score": score, "judged": bool(judged), "reason": reason,
             "mock": bool(mock), "duration_ms": duration, "output": output})
        splits[(side, task_id)] = split
        if details is not None or error is not None:
            upstream[(side, task_id)] = (details, error)
    out: dict[str, list[dict[str, Any]]] = {}
    for side, tasks in sides.items():
        if side not in ("candidate", "baseline"):
            continue
        results = []
        for task_id, attempts in tasks.items():
            result = summarise_attempts(task_id, splits[(side, task_id)], attempts)
            if (side, task_id) in upstream:
                result["details"], result["error"] = upstream[(side, task_id)]
            results.append(result)
        out[f"{side}_results"] = results
    return out


@dataclass
class ReadArtifact:
    """An artifact file read and checked, not yet stored: what `read_artifact_file` gives and
    `store_artifact_file` takes. A large file (`parsed` None) is read while it is stored (streamed)."""

    path: Path
    run_id: str
    parsed: ParsedArtifact | None
    # task_results rows in TASK_COLUMNS order (no id), scores as SQLite stores them (stored_score); details
    # and error (the last two) left out when null in every row: inserting them cost a fifth of the insert.
    # Held as their values one after the other, `width` per row, as they are bound (`rows` makes the
    # tuples). `digest`: their seal (by position), as an act with no other records has it (kernel
    # StreamedRecords): whoever stores them need not hash them again.
    values: list[Any]
    width: int
    digest: str | None = None
    source: str = ""  # the file's absolute path (imported_from)

    @property
    def rows(self) -> FlatRows:
        return FlatRows(self.values, self.width)


def store_run(db: Database, suite: Suite | None, artifact: dict[str, Any], *, actor: str | None,
              read: ReadArtifact | None = None, held: HeldRuns | None = None) -> None:
    """Store the run, its event and its task results in one transaction (an imported file's rows are
    `read`'s; else they are built from the artifact's results). `held`: the Tasks of runs the caller stored
    before (task_order.HeldRuns), which this run's order and its neighbour's are built from and this run joins."""
    run_id = artifact["run_id"]
    doing = f"{'import' if artifact.get('purpose') == 'imported' else 'record'} evaluation run {run_id}"
    # through the guarded pipeline (identity checked printable; no capability: any named loop or CI may run a suite)
    with guarded(db, doing, actor=actor, known=False) as act:
        loaded_at = record_suite(db, suite, at=artifact["started_at"]) if suite is not None else ""
        if db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [run_id]).fetchone():
            raise InputError(f"evaluation run {run_id}: already recorded")
        # the run and its results first, naming the seq of the event that then seals them (kernel records.py)
        seq = act.next_seq()
        values = _run_values(suite, artifact, seq)
        db.execute(f"INSERT INTO evaluation_runs (id, {', '.join(_RUN_FIELDS)})"
                   f" VALUES (?, {', '.join('?' * len(_RUN_FIELDS))})", [run_id, *values])
        # hashed before they go in (here, or as the import read them), by their position in the run, so the rows
        # sealed are the rows stored (reading them back for the digest cost a fifth of an import)
        sealed = StreamedRecords(db, seq)
        rows = _sealed_rows(sealed, run_id, artifact, read)
        insert_values(db.conn, "task_results", TASK_COLUMNS[:rows.width], rows.values)
        act.event("suite.run", subject_type="run", subject_id=run_id, payload=_payload(artifact, values, suite, loaded_at),
                  note=_note(artifact),
                  at=artifact.get("finished_at"), seal=True, sealed=sealed)
        refresh_task_order(db, run_id, rows, held=held)  # the run's review order and counts


def _sealed_rows(sealed: StreamedRecords, run_id: str, artifact: dict[str, Any],
                 read: ReadArtifact | None) -> FlatRows:
    """The run's task_results rows as they are to be inserted (no ids: SQLite gives each the next one), hashed
    into `sealed`: an import's reader hashed them already, a run's are hashed here."""
    if read is None:
        rows = _task_rows(run_id, "candidate", artifact["candidate_results"]) + \
            _task_rows(run_id, "baseline", artifact["baseline_results"] or [])
        return _flat(sealed.add(rows), len(TASK_COLUMNS))
    if sealed.adopt(read.digest):
        return read.rows
    sealed.add(list(read.rows), as_stored=True)
    return read.rows


def _flat(rows: list[tuple[Any, ...]], width: int) -> FlatRows:
    return FlatRows(list(chain.from_iterable(rows)), width)


# --- reading runs (the console's queries) ---------------------------------------------------
RUN_COLUMNS = ("id, suite_id, skill_id, candidate_path, candidate_hash, baseline_path, baseline_hash, executor, mock,"
               " pass_k, split, execution_pass_rate, baseline_pass_rate, delta, verdict, warnings, baseline_health,"
               " case_id, purpose, started_at, finished_at")


def _run_dict(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    record = dict(zip([c[0] for c in cursor.description], row, strict=True))
    for key in ("warnings", "baseline_health"):
        if key in record:
            record[key] = json.loads(record[key]) if record[key] else ([] if key == "warnings" else {})
    return record


def list_runs(db: Database, *, search: str | None = None, verdict: str | None = None, case_id: str | None = None,
              limit: int = 100, offset: int = 0) -> tuple[list[RunRow], int]:
    """Evaluation runs newest first, one page, and how many match."""
    clauses, params = [], []
    if search:
        clauses.append("(id LIKE ? OR skill_id LIKE ? OR candidate_path LIKE ? OR baseline_path LIKE ?"
                       " OR case_id LIKE ? OR executor LIKE ?)")
        params.extend([f"%{search}%"] * 6)
    if verdict:
        clauses.append("verdict = ?")
        params.append(verdict)
    if case_id:
        clauses.append("case_id = ?")
        params.append(case_id)
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    cursor = db.execute(f"SELECT {RUN_COLUMNS} FROM evaluation_runs{where} ORDER BY started_at DESC, id DESC"
                        " LIMIT ? OFFSET ?", [*params, limit, offset])
    rows = [cast(RunRow, _run_dict(cursor, r)) for r in cursor.fetchall()]  # RUN_COLUMNS are RunRow's keys
    total = db.execute(f"SELECT COUNT(*) FROM evaluation_runs{where}", params).fetchone()[0]
    return rows, total


def get_run(db: Database, run_id: str, *, with_results: bool = True) -> RunDetail | None:
    """One run with its artifact (as written), or None.

    The per-task results live in task_results; `with_results=False` leaves them
    out of the artifact, for callers that only show the run's summary.
    """
    cursor = db.execute(f"SELECT {RUN_COLUMNS}, artifact FROM evaluation_runs WHERE id = ?", [run_id])
    row = cursor.fetchone()
    if not row:
        return None
    record = _run_dict(cursor, row)
    artifact = json.loads(record["artifact"]) if record["artifact"] else None
    if artifact is not None and artifact.pop("results_stored_in", None) == RESULTS_IN_TABLE and with_results:
        artifact.update(_results_from_table(db, run_id))
    record["artifact"] = artifact
    return cast(RunDetail, record)  # RUN_COLUMNS and the artifact are RunDetail's keys


def _side_summary(attempts: list[dict[str, Any]]) -> dict[str, Any]:
    passing = [a for a in attempts if a["passed"]]
    shown = passing[0] if passing else attempts[-1]
    scores = [a["score"] for a in attempts if a["score"] is not None]
    return {"passed": bool(passing), "score": max(scores) if scores else None,
            "outcomes": outcome_counts(attempts), "attempts_line": attempts_line(attempts),
            "judged": any(a["judged"] for a in attempts), "attempts": len(attempts),
            "duration_ms": sum(a["duration_ms"] or 0 for a in attempts), "reason": None if passing else shown["reason"],
            "mock": any(a["mock"] for a in attempts), "shown_attempt": shown["attempt"]}


def _attempts(db: Database, run_id: str, task_id: str | None = None, *, with_output: bool = False) -> list[dict[str, Any]]:
    cols = "id, side, task_id, attempt, passed, judged, score, duration_ms, reason, mock, split"
    if with_output:
        cols += ", output"
    sql = f"SELECT {cols} FROM task_results WHERE run_id = ?"
    params: list[Any] = [run_id]
    if task_id is not None:  # side named so the (run_id, side, task_id) index finds the task, not a run scan
        sql += " AND side IN ('candidate', 'baseline') AND task_id = ?"
        params.append(task_id)
    return all_rows(db.execute(sql + " ORDER BY id", params))


def previous_run(db: Database, run_id: str) -> RunRow | None:
    """The run of the same suite and skill just before this one (by start time): what a run is compared with."""
    row = db.execute("SELECT suite_id, skill_id, COALESCE(started_at, '') FROM evaluation_runs WHERE id = ?",
                     [run_id]).fetchone()
    if not row:
        return None
    suite_id, skill_id, started = row
    cursor = db.execute(
        f"SELECT {RUN_COLUMNS} FROM evaluation_runs WHERE suite_id IS ? AND skill_id IS ? AND id != ?"
        " AND (COALESCE(started_at, '') < ? OR (COALESCE(started_at, '') = ? AND id < ?))"
        " ORDER BY started_at DESC, id DESC LIMIT 1", [suite_id, skill_id, run_id, started, started, run_id])
    found = cursor.fetchone()
    return cast(RunRow, _run_dict(cursor, found)) if found else None


def _candidate_passes(db: Database, run_id: str) -> dict[str, bool]:
    """Per task, whether the candidate passed in a run (pass@k: any attempt)."""
    return {task: bool(passed) for task, passed in db.execute(
        "SELECT task_id, MAX(passed) FROM task_results WHERE run_id = ? AND side = 'candidate' GROUP BY task_id",
        [run_id]).fetchall()}


def run_tasks(db: Database, run_id: str) -> list[dict[str, Any]]:
    """Per task: the candidate's and the baseline's result, and whether the candidate's pass/fail changed
    against the previous run of the same suite and skill (`changed_vs_previous`, `previous_passed`).

    Tasks that changed since the previous run lead, then those whose candidate and baseline differ.
    """
    previous = previous_run(db, run_id)
    before = _candidate_passes(db, previous["id"]) if previous else {}
    order: list[str] = []
    sides: dict[str, dict[str, list[dict[str, Any]]]] = {}
    splits: dict[str, str] = {}
    for a in _attempts(db, run_id):
        if a["task_id"] not in sides:
            order.append(a["task_id"])
            sides[a["task_id"]] = {"candidate": [], "baseline": []}
        sides[a["task_id"]].setdefault(a["side"], []).append(a)
        splits[a["task_id"]] = a["split"]
    rows = []
    for index, task_id in enumerate(order):
        cand, base = sides[task_id].get("candidate"), sides[task_id].get("baseline")
        c = _side_summary(cand) if cand else None
        b = _side_summary(base) if base else None
        differs = (c or {}).get("passed") != (b or {}).get("passed")
        was = before.get(task_id)
        changed = was is not None and c is not None and was != c["passed"]
        rows.append({"task_id": task_id, "split": splits[task_id], "candidate": c, "baseline": b,
                     "differs": differs, "changed_vs_previous": changed, "previous_passed": was,
                     "previous_run": previous["id"] if previous else None, "_order": index})
    rows.sort(key=lambda r: (not r["changed_vs_previous"], not r["differs"] and not r["changed_vs_previous"],
                             r["_order"]))
    for r in rows:
        del r["_order"]
    return rows


def task_attempts(db: Database, run_id: str, task_id: str) -> dict[str, list[dict[str, Any]]]:
    """Each attempt of a task per side, in order, with its outcome word, reason, score and duration."""
    out: dict[str, list[dict[str, Any]]] = {"candidate": [], "baseline": []}
    for a in _attempts(db, run_id, task_id):
        out.setdefault(a["side"], []).append({**a, "passed": bool(a["passed"]), "outcome": outcome(a)})
    return out


def task_outputs(db: Database, run_id: str, task_id: str) -> dict[str, dict[str, Any] | None]:
    """A task's two outputs (the passing attempt's, else the last one's) with their attempt and reason."""
    attempts = _attempts(db, run_id, task_id, with_output=True)
    out: dict[str, dict[str, Any] | None] = {"candidate": None, "baseline": None}
    for side in out:
        mine = [a for a in attempts if a["side"] == side]
        if mine:
            summary = _side_summary(mine)
            shown = next(a for a in mine if a["attempt"] == summary["shown_attempt"])
            out[side] = {"output": shown["output"] or "", "attempt": shown["attempt"], "passed": summary["passed"],
                         "score": summary["score"], "reason": summary["reason"], "attempts": len(mine)}
    return out


# --- importing and exporting artifact files ---------------------------------------------------
def read_artifact_file(path: str | Path) -> ReadArtifact:
    """Read, hash and check one artifact file (no store needed), its rows hashed for the seal; InputError
    naming the file when it is not one. A file over the whole-read limit is only named here: it is streamed
    when stored."""
    path = Path(path)
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        size = 0
    if size > MAX_FILE_BYTES:  # streamed in bounded memory, stored in batches inside its one transaction
        return ReadArtifact(path, "", None, [], 0)
    text = read_text(path, what="artifact file")
    parsed, parsed_columns, n = parse_artifact_columns(text, name=path.name)
    run_id = "imp-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    columns = _stored_columns(run_id, parsed_columns, n)
    sealed = StreamedRecords(None, 0)
    if n:  # the seal hashes a line per row, every column of it: a column left out is hashed as null, so a row is
        # made with its nulls here (the encoder writing them is a third of the time of adding them to its lines)
        pad = [repeat(None, n) for _ in range(len(TASK_COLUMNS) - len(columns))]
        sealed.add_whole(zip(*columns, *pad, strict=True))
    return ReadArtifact(path, run_id, parsed, _interleaved(columns, n), len(columns) if n else 0,
                        sealed.hexdigest(), str(path.resolve()))


def _stored_columns(run_id: str, parsed: Sequence[Sequence[Any]], n: int) -> list[Sequence[Any]]:
    """A file's parsed rows (artifacts.RowTuple fields, as columns of n values) as the columns of task_results rows
    of its run (TASK_COLUMNS order, attempt 1), scores as SQLite stores them; details and error left out when null
    in every row (inserting them cost a fifth of the insert). No Python work per row where the scores are
    already floats."""
    sides, tasks, passed, judged, scores, durations, outputs, reasons, mocks, splits, details, errors = parsed
    if set(map(type, scores)) != {float} or 0.0 in scores:  # a whole number, a null, or a zero that may be -0.0
        scores = list(map(stored_score, scores))
    columns = [[run_id] * n, sides, tasks, [1] * n, passed, judged, scores, durations, outputs, reasons, mocks, splits]
    if details.count(None) != n or errors.count(None) != n:
        columns += [details, errors]
    return columns


def _interleaved(columns: Sequence[Sequence[Any]], n: int) -> list[Any]:
    """Columns of n values each as rows' values one after the other (what insert_values binds): each column put
    in its place by one slice assignment, no tuple made per row."""
    width = len(columns)
    values: list[Any] = [None] * (n * width)
    for at, column in enumerate(columns):
        values[at::width] = column
    return values


def store_artifact_file(db: Database, read: ReadArtifact, *, actor: str | None = None,
                        held: HeldRuns | None = None) -> tuple[str, bool]:
    """Store a file `read_artifact_file` read as an evaluation run (one transaction); returns (run id, newly
    stored). A run already stored (the same bytes) is not stored again.

    `held`: the runs this caller stored before (task_order.HeldRuns); the run joins them, or leaves them when its
    transaction fails. Held Tasks stay true even if an enclosing transaction rolls the run back: an imported run's
    id is its file's hash, so a run stored under that id again has the very same results."""
    if read.parsed is None:
        return _import_streamed(db, read.path, actor=actor)
    rows = len(read.values) // read.width if read.width else 0
    if db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [read.run_id]).fetchone():
        report(None, rows)
        return read.run_id, False
    try:
        store_run(db, None, _imported(read.parsed, read.path, read.run_id, read.source), actor=actor, read=read,
                  held=held)
    except BaseException:
        if held is not None:
            held.drop(read.run_id)
        raise
    report(None, rows)
    return read.run_id, True


def import_artifact(db: Database, path: str | Path, *, actor: str | None = None,
                    held: HeldRuns | None = None) -> tuple[str, bool]:
    """Store an evaluator artifact JSON (any shape upstream's evaluate.py writes, or gatepost's);
    returns (run id, newly stored). A file whose delta or verdict contradicts its rates is refused."""
    return store_artifact_file(db, read_artifact_file(path), actor=actor, held=held)


def import_artifacts(db: Database, paths: Sequence[str | Path], *, actor: str | None = None
                     ) -> Iterator[tuple[Path, str, bool]]:
    """Store artifact files as evaluation runs, in the order given, each in its own transaction (as
    `import_artifact` one at a time); yields (path, run id, newly stored) as each is stored. The first bad file
    raises its InputError (naming it) when its turn comes: the files before it are stored, none after it.

    Every file is read in this process: reading them ahead in a second one saved wall time only where a core
    was idle, and cost more CPU in all (a second interpreter, every row pickled across). Each file is read and
    stored with the cyclic garbage collector paused (as a streamed file is): its rows are many tuples of text
    and numbers, never a cycle, and the collector walking them cost a twelfth of the import. The runs stored are
    held in memory (task_order.HeldRuns, bounded), so a later file's run and the run after it are ordered without
    reading results back.
    """
    held = HeldRuns()
    for path in map(Path, paths):
        with _collector_paused():
            stored = import_artifact(db, path, actor=actor, held=held)
        yield (path, *stored)


def _imported(parsed: ParsedArtifact, path: Path, run_id: str, source: str = "") -> dict[str, Any]:
    """The stored artifact of an imported file: its own fields, gatepost's columns, no result lists."""
    data = parsed.data
    at = now_iso()
    str_or_none: Callable[[Any], str | None] = lambda v: v if isinstance(v, str) else None  # noqa: E731
    block = cast(dict[str, Any], data.get("evaluation")) if isinstance(data.get("evaluation"), dict) else {}
    artifact = dict(data)
    artifact.update({
        "run_id": run_id,
        "source_run_id": str_or_none(data.get("run_id")),
        "shape": parsed.shape,
        "skill_id": (str_or_none(data.get("skill_id")) or str_or_none(data.get("task_suite_skill_id"))
                     or str_or_none(data.get("candidate_id"))),
        "executor": str_or_none(data.get("executor")) or "imported",
        "mock": parsed.mock,
        "candidate": data.get("candidate") if isinstance(data.get("candidate"), dict) else {"path": None, "sha256": None},
        "baseline": data.get("baseline") if isinstance(data.get("baseline"), dict) else {"path": None, "sha256": None},
        "execution_pass_rate": parsed.execution_pass_rate,
        "baseline_pass_rate": parsed.baseline_pass_rate,
        "delta": parsed.delta,
        "verdict": parsed.verdict,
        "evaluation_reason": str_or_none(block.get("reason")),
        "warnings": parsed.warnings,
        "baseline_health": parsed.baseline_health,
        "baseline_results_null": "baseline_results" in data and data["baseline_results"] is None,
        "purpose": "imported",
        "pass_k": data.get("pass_k") if type(data.get("pass_k")) is int else None,
        "split": str_or_none(data.get("split")),
        "case_id": None,
        "started_at": str_or_none(data.get("started_at")) or str_or_none(data.get("created_at")) or at,
        "finished_at": at,
        "imported_from": source or str(path.resolve()),
    })
    for key in ("candidate_results", "baseline_results", "task_results", "evaluation"):
        artifact.pop(key, None)  # checked into rows and fields above; results stored once, in task_results
    return artifact


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the duration: a streamed import allocates millions of rows
    (tuples of text and numbers, never a cycle), and the collector kept walking the batches alive, about a
    tenth of the import's CPU. Reference counting still frees every row as soon as it is stored."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _import_streamed(db: Database, path: Path, *, actor: str | None) -> tuple[str, bool]:
    """A large artifact: hashed, then parsed once, its results inserted batch by batch as they are read.

    The run row is written first (task results point at it) and completed when the file has been read;
    a bad result anywhere rolls the whole import back (one transaction).
    """
    digest = artifact_digest(path, name=path.name, max_bytes=max_artifact_bytes())
    run_id = "imp-" + digest[:12]
    if db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [run_id]).fetchone():
        return run_id, False
    with _collector_paused(), guarded(db, f"import evaluation run {run_id}", actor=actor, known=False) as act:
        check_before_first_write(db)  # the store's health before its first write, not after a GB of them
        seq = act.next_seq()
        db.execute("INSERT INTO evaluation_runs (id, verdict, purpose, execution_pass_rate, event_seq)"
                   " VALUES (?, ?, ?, ?, ?)", [run_id, "error", "imported", 0.0, seq])
        # the results' digest (sealed by the run's event) hashed as they are inserted, not read back
        sealed = StreamedRecords(db, seq)
        # SQLite writes one batch in a second thread while this one parses the next (two cores: the import
        # takes about the longer of the two, not their sum); the connection is the writer's until it ends
        with background_inserts(db.conn, "task_results", TASK_COLUMNS) as insert:

            def store_rows(rows: list[Any]) -> None:
                rows = sealed.add(rows)  # in the order they go in: the rows hashed are the rows stored
                insert(rows)

            parsed = stream_artifact(path, name=path.name, on_rows=store_rows, run_id=run_id)
        artifact = _imported(parsed, path, run_id)
        values = _run_values(None, artifact, seq)
        act.event("suite.run", subject_type="run", subject_id=run_id, payload=_payload(artifact, values),
                  note=_note(artifact), at=artifact.get("finished_at"), seal=True, sealed=sealed)
        db.execute(f"UPDATE evaluation_runs SET {', '.join(c + ' = ?' for c in _RUN_FIELDS)} WHERE id = ?",
                   [*values, run_id])
        refresh_task_order(db, run_id)  # the review order, as store_run stores it (read back, in bounded memory)
    return run_id, True


def export_artifact(db: Database, run_id: str) -> dict[str, Any]:
    """A stored run as an artifact in upstream evaluate.py's shape (gatepost's fields beside)."""
    record = get_run(db, run_id)
    if record is None or record["artifact"] is None:
        raise InputError(f"run {run_id}: no such evaluation run")
    artifact = dict(record["artifact"])
    artifact.setdefault("candidate_results", [])
    artifact.setdefault("baseline_results", [])
    if artifact.pop("baseline_results_null", False):
        artifact["baseline_results"] = None
    for key in ("execution_pass_rate", "baseline_pass_rate", "delta", "verdict"):
        artifact[key] = record[key]
    return upstream_artifact(artifact)


__all__ = ["text_digest", "VERDICTS", "RUN_COLUMNS", "RESULTS_IN_TABLE", "ReadArtifact", "baseline_cache_key",
           "export_artifact", "get_run", "import_artifact", "import_artifacts", "list_runs", "previous_run", "read_artifact_file",
           "record_suite", "run_tasks", "store_artifact_file", "store_run", "task_attempts", "task_outputs"]
