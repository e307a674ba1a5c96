"""The store rebuilt from its events alone: every record and list the rules read, as the events say it.

Each act's event carries what the act wrote (kernel/pipeline.py: the record and its event are one step),
so one pass over the events, oldest first, rebuilds each table row by row: one small function per kind
of event (`HANDLERS`), writing into `Replay.rows` the columns its act wrote. `gatepost verify` then reads
each table once and compares (set differences, no per-event query): a row no event made, a row the events
made that is gone, a column that differs; and, while replaying, a subject decided twice.

A column an event from before events carried it cannot vouch for is `UNSAID` and not compared: events
stored before the store's `audit.events_complete` event (the migration that began carrying everything)
say nothing of the times their rows were written, and older payloads lack the keys newer ones carry.

The skill runs, manifest versions and task results an event created are sealed by digest instead
(kernel/records.py: too large to carry twice), and checked there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

import msgspec
from sqlite_utils import Database

from gatepost.store.cases import (
    PROJECTING,
    current_revisions,
    distinct_records,
    mock_details,
    projection,
    waits_on_design_review,
)
from gatepost.store.evaluation import text_digest
from gatepost.store.kernel import EVENTS_COMPLETE_KIND, PROJECTIONS_COMPLETE_KIND, RECORDS_KEY
from gatepost.store.loops import text_hash
from gatepost.store.proposals import FINAL, case_proposal
from gatepost.store.skills import Transition, state_row


class _Unsaid:
    """What the events do not say (an older event): the column is not compared."""

    def __repr__(self) -> str:
        return "UNSAID"


UNSAID: Any = _Unsaid()


class Event(NamedTuple):
    seq: int
    at: str
    actor: str | None
    kind: str
    subject_type: str | None
    subject_id: str | None
    revision: str | None
    note: str | None
    payload: dict[str, Any]


@dataclass(frozen=True)
class Table:
    """A table the replay rebuilds: its key (as the events name rows), the columns compared, which hold JSON."""

    name: str
    key: tuple[str, ...]
    columns: tuple[str, ...]
    json: frozenset[str] = frozenset()

    def select(self) -> str:
        return f"SELECT {', '.join(self.key + self.columns)} FROM [{self.name}]"


CACHED = ("claims", "allowed", "needs_decision", "design_review", "last_seq", "updated_at")  # a case's columns derived on each act

RUN_COLUMNS = ("suite_id", "skill_id", "candidate_path", "candidate_hash", "baseline_path", "baseline_hash", "executor",
               "mock", "pass_k", "split", "execution_pass_rate", "baseline_pass_rate", "delta", "verdict", "warnings",
               "baseline_health", "artifact", "case_id", "purpose", "started_at", "finished_at")
SUITE_COLUMNS = ("skill_id", "version", "path", "yaml", "task_count", "loaded_at")

TABLES: tuple[Table, ...] = (
    Table("cases", ("id",), ("protocol", "title", "author", "candidate_path", "current_revision", "independent",
                             "status", "outcome", "created_at", *CACHED),
          frozenset({"independent", "claims", "allowed"})),
    Table("candidate_revisions", ("case_id", "revision"), ("content", "basis", "created_at", "event_seq"),
          frozenset({"content", "basis"})),
    Table("evidence", ("event_seq",), ("case_id", "kind", "result", "producer", "artifact", "about", "observed_at",
                                       "details", "recorded_by"), frozenset({"details"})),
    Table("decisions", ("event_seq",), ("case_id", "outcome", "actor", "capability", "revision", "note", "at",
                                        "based_on_seq", "rubric"), frozenset({"rubric"})),
    Table("actors", ("name",), ("kind", "os_user", "created_at")),
    Table("capabilities", ("actor", "capability"), ("granted_by", "granted_at")),
    Table("actor_keys", ("event_seq",), ("actor", "key_type", "public_key", "comment", "fingerprint", "added_by",
                                         "at")),
    Table("skill_evals", ("event_seq",), ("id", "skill", "run_id", "manifest_version_id", "passed", "state",
                                          "severity", "fail_streak", "pass_streak", "broken_streak",
                                          "base_fail_streak", "base_pass_streak", "at")),
    Table("assertion_results", ("eval_id", "assertion"), ("skill", "run_id", "passed", "message")),
    Table("regression_states", ("skill",), ("state", "severity", "fail_streak", "pass_streak", "broken_streak",
                                            "last_run", "last_run_id", "last_eval_id", "acknowledged_eval_id",
                                            "acknowledged_failing", "returned_because", "failing", "urgency"),
          frozenset({"acknowledged_failing", "returned_because", "failing"})),
    Table("manifests", ("skill",), ("active_version_id", "updated_at")),
    Table("manifest_drafts", ("id",), ("skill", "assertions", "yaml", "evidence", "author", "origin", "parent_id",
                                       "based_on_version_id", "status", "created_at", "decided_at", "event_seq"),
          frozenset({"assertions", "evidence"})),
    Table("proposals", ("id",), ("path", "kind", "operation", "edit_mode", "title", "confidence", "rationale",
                                 "before_body", "after_body", "expected_base_body_sha256", "case_id", "status",
                                 "created_at", "updated_at", "event_seq")),
    Table("gate_results", ("event_seq",), ("proposal_id", "passed", "score_before", "score_after", "reason",
                                           "command", "targeted", "duration_ms", "at")),
    Table("leases", ("subject_type", "subject_id"), ("holder", "taken_at", "expires_at", "event_seq")),
    Table("assignments", ("subject_type", "subject_id"), ("assignee", "assigned_by", "at", "event_seq")),
    Table("loops", ("name",), ("version", "settings", "created_at", "updated_at", "event_seq"),
          frozenset({"settings"})),
    Table("loop_versions", ("name", "version"), ("settings", "actor", "at", "event_seq"), frozenset({"settings"})),
    Table("applications", ("event_seq",), ("subject_type", "subject_id", "path", "content_hash", "content", "ref",
                                           "actor", "at")),
    Table("current_content", ("path",), ("content_hash", "application_id", "event_seq")),
    Table("loop_cases", ("case_id",), ("loop", "path", "base_hash", "loop_version", "event_seq")),
    Table("skills", ("name",), ("family", "created_at")),
    Table("task_suites", ("id",), SUITE_COLUMNS),
    Table("evaluation_runs", ("id",), (*RUN_COLUMNS, "event_seq"), frozenset({"warnings", "baseline_health"})),
)
# Columns the events carry as a hash of the stored text (too large to carry twice), with the hash they use.
HASHED: dict[tuple[str, str], Callable[[str], Any]] = {
    ("applications", "content"): text_hash,
    ("evaluation_runs", "artifact"): text_digest,
    ("task_suites", "yaml"): text_digest,
}

TABLE = {t.name: t for t in TABLES}
# Columns of these tables verify does not compare: a row's own id (rows are named by their key), and a regression
# state's last change: a time the evaluation reads from the clock apart from its event's (so it is neither the
# event's time nor a sealed record's; nothing reads it). A manifest's last change is its active version's creation
# time (one clock read writes both), compared with that sealed record's (RecordOf).
NOT_COMPARED = frozenset({"id", "regression_states.updated_at"})


# The tables whose rows another row names by id (RowOf): the ids compare reads, to resolve those names.
NAMED_BY_ID = frozenset({"applications"})


@dataclass(frozen=True)
class RowOf:
    """A column that names another row by its id (an application's): resolved once that table is read."""

    table: str
    key: tuple[Any, ...]
    column: str

    def __post_init__(self) -> None:
        if self.table not in NAMED_BY_ID:  # compare reads the ids of those tables alone
            raise ValueError(f"RowOf: {self.table} is not in NAMED_BY_ID")


@dataclass(frozen=True)
class RecordOf:
    """A column whose value is a column of a sealed record (its digest checked against its event's), by its id:
    read from that table when a row differs."""

    table: str
    id: Any
    column: str


Row = dict[str, Any]
Key = tuple[Any, ...]


@dataclass
class Replay:
    """The tables as the events say them, built event by event (`apply`), and what the replay itself found."""

    complete_from: int = 0  # events after this seq carry everything their act wrote
    projections_from: int = 0  # ... and the runs, suites and skills they stored, and move case caches only
    rows: dict[str, dict[Key, Row]] = field(default_factory=lambda: {t.name: {} for t in TABLES})
    made_by: dict[str, dict[Key, int]] = field(default_factory=lambda: {t.name: {} for t in TABLES})
    findings: list[tuple[int, str]] = field(default_factory=list)
    regression: dict[str, dict[str, Any]] = field(default_factory=dict)  # per skill, as skills.get_state reads it
    content: dict[Key, Any] = field(default_factory=dict)  # (case, revision) -> the candidate's content
    sealed: dict[int, Any] = field(default_factory=dict)  # seq -> the records digest its event sealed
    # seq -> the kind of an event in `sealed` that is not a skill run's (a large store's hundred thousand seals are
    # nearly all skill runs': only the few others are kept)
    sealed_kinds: dict[int, str] = field(default_factory=dict)
    # per case, its cached last_seq and updated_at: the event of the last act that brought them up to date (the
    # case's newest event then), the latest time of those acts
    projected: dict[str, tuple[int, str]] = field(default_factory=dict)
    # events' JSON values made canonical bytes, by identity (id -> (the value, kept so its id is not reused, its
    # bytes)): by cache_cases (each case's independent lists) and compare, each value encoded once
    canonical: dict[int, tuple[Any, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._skills = self.rows["skills"]  # looked up for the commonest event (apply)

    def apply(self, seq: int, at: str, actor: str | None, kind: str, subject_type: str | None,
              subject_id: str | None, revision: str | None, note: str | None, payload: str | None) -> None:
        if kind == _RUN_RECORDED and (subject_id,) in self._skills:
            # the commonest event of a large store: a run of a skill already registered, only its seal to keep
            if payload is not None and RECORDS_KEY in payload:
                try:  # its seal (_SEALED)
                    digest = _SEAL(_SEALED(payload))
                except (msgspec.DecodeError, msgspec.ValidationError):
                    digest = _decode(payload).get(RECORDS_KEY, _UNSET)
                if digest is not _UNSET:
                    self.sealed[seq] = digest
            return
        handler = HANDLERS.get(kind) or (_applied if kind.endswith(".applied") else None)
        if kind in PROJECTING and subject_id is not None:  # the act brings the case's cached columns up to date
            before = self.projected.get(subject_id)
            self.projected[subject_id] = (seq, at if before is None or at > before[1] else before[1])
        if kind == EVENTS_COMPLETE_KIND:
            self.complete_from = seq
        elif kind == PROJECTIONS_COMPLETE_KIND:
            self.projections_from = seq
        seals = payload is not None and RECORDS_KEY in payload
        if handler is None and not seals:
            return
        data = _decode(payload)
        if seals and RECORDS_KEY in data:
            self.sealed[seq] = data[RECORDS_KEY]
            if kind != _RUN_RECORDED:
                self.sealed_kinds[seq] = kind
        if handler is not None:
            handler(self, Event(seq, at, actor, kind, subject_type, subject_id, revision, note, data))

    def sealed_by(self, seq: int) -> str:
        """The kind of the event that sealed `seq`'s records (one in `sealed`)."""
        return self.sealed_kinds.get(seq, _RUN_RECORDED)

    def timed(self, ev: Event, value: Any) -> Any:
        """A column whose value the event's own fields (its time) give only from the complete events on."""
        return value if ev.seq > self.complete_from else UNSAID

    def projecting(self, ev: Event, value: Any) -> Any:
        """A column the events give only from the events carrying runs, suites and skills on."""
        return value if ev.seq > self.projections_from else UNSAID

    def put(self, table: str, key: Key, ev: Event, **columns: Any) -> None:
        self.rows[table][key] = columns
        self.made_by[table][key] = ev.seq

    def set(self, table: str, key: Key, ev: Event, **columns: Any) -> Row | None:
        row = self.rows[table].get(key)
        if row is None:
            return None
        row.update(columns)
        self.made_by[table][key] = ev.seq
        return row

    def drop(self, table: str, key: Key) -> None:
        self.rows[table].pop(key, None)
        self.made_by[table].pop(key, None)


# A payload read for its seal alone: the other keys are skipped, not built. Its digest is _SEAL(_SEALED(text)), as
# _decode(text).get(RECORDS_KEY, _UNSET) (which answers where the payload is not an object: a DecodeError or
# ValidationError); _UNSET: none.
_SEALED = msgspec.json.Decoder(msgspec.defstruct("_Sealed", [(RECORDS_KEY, Any, msgspec.UNSET)])).decode
_SEAL = attrgetter(RECORDS_KEY)
_UNSET = msgspec.UNSET


def _decode(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _said(p: dict[str, Any], key: str) -> Any:
    return p.get(key, UNSAID)


# --- cases -------------------------------------------------------------------------------------
def _revision(r: Replay, ev: Event, case_id: str, p: dict[str, Any]) -> None:
    key = (case_id, ev.revision)
    r.content[key] = _said(p, "content")
    if key not in r.rows["candidate_revisions"]:  # moved back to an earlier revision: its record stands
        r.put("candidate_revisions", key, ev, content=_said(p, "content"), basis=_said(p, "basis"),
              created_at=ev.at, event_seq=ev.seq)


def _case_imported(r: Replay, ev: Event) -> None:
    p, case_id = ev.payload, str(ev.subject_id)
    r.put("cases", (case_id,), ev, protocol=_said(p, "protocol"), title=_said(p, "title"),
          author=_said(p, "author"), candidate_path=_said(p, "candidate_path"), current_revision=ev.revision,
          independent=_said(p, "independent"), status="open", outcome=None, created_at=ev.at)
    _revision(r, ev, case_id, p)
    if "loop" not in p:  # from before loops: whether a loop made it, the event does not say
        r.put("loop_cases", (case_id,), ev, **{c: UNSAID for c in TABLE["loop_cases"].columns})
    elif p["loop"]:  # case new --loop: the case's import links it to its loop, as the loop is at that moment
        loop = r.rows["loops"].get((p["loop"],)) or {}
        basis = p.get("basis")
        r.put("loop_cases", (case_id,), ev, loop=p["loop"], path=_said(p, "candidate_path"),
              base_hash=basis.get("baseline") if isinstance(basis, dict) else UNSAID,
              loop_version=loop.get("version", UNSAID), event_seq=ev.seq)


def _case_revised(r: Replay, ev: Event) -> None:
    p, case_id = ev.payload, str(ev.subject_id)
    r.set("cases", (case_id,), ev, current_revision=ev.revision, independent=_said(p, "independent"),
          title=_said(p, "title"), candidate_path=_said(p, "candidate_path"))
    _revision(r, ev, case_id, p)


def _case_decided(r: Replay, ev: Event) -> None:
    p, case_id = ev.payload, str(ev.subject_id)
    case = r.rows["cases"].get((case_id,))
    if case is not None and case["status"] != "open":
        r.findings.append((ev.seq, f"case {case_id}: decided twice: {case['outcome']} (event "
                                   f"{r.made_by['cases'][(case_id,)]}) and {p.get('outcome')} (event {ev.seq}); "
                                   "a closed case was reopened by hand"))
    outcome = _said(p, "outcome")
    r.set("cases", (case_id,), ev, status="closed", outcome=outcome)
    r.put("decisions", (ev.seq,), ev, case_id=case_id, outcome=outcome, actor=ev.actor,
          capability=_said(p, "capability"), revision=ev.revision, note=ev.note, at=ev.at,
          based_on_seq=_said(p, "based_on_seq"), rubric=p.get("rubric"))  # no rubric asked: none stored
    if outcome == "proposed" and case is not None:
        content = r.content.get((case_id, ev.revision), UNSAID)
        made = {k: UNSAID for k in case_proposal({"content": "", "candidate_path": "", "title": ""}, None)}
        if content is not UNSAID and case["title"] is not UNSAID and case["candidate_path"] is not UNSAID:
            made = case_proposal({"content": content, "candidate_path": case["candidate_path"],
                                  "title": case["title"]}, ev.note)
        r.put("proposals", (f"case:{case_id}",), ev, **made, case_id=case_id, status="waiting", created_at=ev.at,
              updated_at=ev.at, event_seq=ev.seq)


def _evidence_added(r: Replay, ev: Event) -> None:
    p = ev.payload
    r.put("evidence", (ev.seq,), ev, case_id=ev.subject_id, kind=_said(p, "kind"), result=_said(p, "result"),
          producer=_said(p, "producer"), artifact=_said(p, "artifact"), about=ev.revision, observed_at=ev.at,
          details=_said(p, "details"), recorded_by=_said(p, "recorded_by"))


# --- actors and authority ----------------------------------------------------------------------------
def _actor_added(r: Replay, ev: Event) -> None:
    r.put("actors", (ev.subject_id,), ev, kind=_said(ev.payload, "kind"), os_user=None,
          created_at=r.timed(ev, ev.at))


def _granted(r: Replay, ev: Event) -> None:
    r.put("capabilities", (ev.subject_id, _said(ev.payload, "capability")), ev, granted_by=ev.actor,
          granted_at=r.timed(ev, ev.at))


def _revoked(r: Replay, ev: Event) -> None:
    r.drop("capabilities", (ev.subject_id, ev.payload.get("capability")))


def _bound(r: Replay, ev: Event) -> None:
    r.set("actors", (ev.subject_id,), ev, os_user=_said(ev.payload, "os_user"))


def _key_added(r: Replay, ev: Event) -> None:
    p = ev.payload
    r.put("actor_keys", (ev.seq,), ev, actor=ev.subject_id, key_type=_said(p, "key_type"),
          public_key=_said(p, "public_key"), comment=_said(p, "comment"), fingerprint=_said(p, "fingerprint"),
          added_by=ev.actor, at=r.timed(ev, ev.at))


# --- skills ------------------------------------------------------------------------------------------
def _skill_seen(r: Replay, ev: Event, name: Any) -> None:
    """A skill is registered by the first event that names it (skills.ensure_skill, at that event's time)."""
    if isinstance(name, str) and (name,) not in r.rows["skills"]:
        r.put("skills", (name,), ev, family=r.projecting(ev, None), created_at=r.projecting(ev, ev.at))


def _run_recorded(r: Replay, ev: Event) -> None:
    _skill_seen(r, ev, ev.subject_id)


def _unknown_regression(r: Replay, ev: Event, skill: str) -> None:
    """An older event that does not carry the evaluation whole: the skill's state is not rebuilt."""
    r.regression.pop(skill, None)
    r.put("regression_states", (skill,), ev, **{c: UNSAID for c in TABLE["regression_states"].columns})


def _state(r: Replay, ev: Event, skill: str, step: Transition, *, last_run: Any, last_run_id: Any,
           last_eval_id: Any, failing: list[str]) -> None:
    row, _, _ = state_row(r.regression.get(skill), skill, step, last_run=last_run, last_run_id=last_run_id,
                          last_eval_id=last_eval_id, failing=failing)
    r.regression[skill] = {**row, "failing": failing}
    _store_regression(r, ev, skill)


def _store_regression(r: Replay, ev: Event, skill: str) -> None:
    row = r.regression[skill]
    stored = {c: row[c] for c in TABLE["regression_states"].columns}
    for column in ("acknowledged_failing", "returned_because"):  # kept as JSON text, as get_state reads them
        stored[column] = json.loads(row[column]) if isinstance(row[column], str) else row[column]
    r.put("regression_states", (skill,), ev, **stored)


def _evaluated(r: Replay, ev: Event) -> None:
    p, skill = ev.payload, str(ev.subject_id)
    _skill_seen(r, ev, skill)
    if "eval_id" not in p:
        _unknown_regression(r, ev, skill)
        return
    eval_id = p["eval_id"]
    step = Transition(p["state"], p["severity"], p["fail_streak"], p["pass_streak"], p["broken_streak"])
    r.put("skill_evals", (ev.seq,), ev, id=eval_id, skill=skill, run_id=p["run_id"],
          manifest_version_id=p["manifest_version_id"], passed=int(bool(p["passed"])), state=step.state,
          severity=step.severity, fail_streak=step.fail_streak, pass_streak=step.pass_streak,
          broken_streak=step.broken_streak, base_fail_streak=p["base_fail_streak"],
          base_pass_streak=p["base_pass_streak"], at=ev.at)
    for assertion, passed, message in p["results"]:
        r.put("assertion_results", (eval_id, assertion), ev, skill=skill, run_id=p["run_id"],
              passed=int(bool(passed)), message=message)
    _state(r, ev, skill, step, last_run=p["last_run"], last_run_id=p["run_id"], last_eval_id=eval_id,
           failing=list(p["failing"]))


def _acknowledged(r: Replay, ev: Event) -> None:
    p, skill = ev.payload, str(ev.subject_id)
    if skill in r.regression:
        r.regression[skill].update(acknowledged_eval_id=p.get("eval_id"), returned_because=None,
                                   acknowledged_failing=json.dumps(p.get("failing"), ensure_ascii=False))
        _store_regression(r, ev, skill)


def _mismatch(r: Replay, ev: Event) -> None:
    skill = str(ev.subject_id)
    if skill in r.regression:
        r.regression[skill]["acknowledged_eval_id"] = ev.payload.get("eval_id")
        _store_regression(r, ev, skill)


def _state_imported(r: Replay, ev: Event) -> None:
    states = ev.payload.get("states")
    for skill in ev.payload.get("skills") or []:
        _skill_seen(r, ev, skill)
        entry = states.get(skill) if isinstance(states, dict) else None
        if entry is None:
            _unknown_regression(r, ev, skill)
            continue
        step = Transition(entry["state"], entry["severity"], entry["fail_streak"], entry["pass_streak"],
                          entry["broken_pass_streak"])
        _state(r, ev, skill, step, last_run=entry["last_run"], last_run_id=entry["last_run_id"], last_eval_id=None,
               failing=list(entry["failing"]))


def _manifest_active(r: Replay, ev: Event) -> None:
    skill = ev.payload.get("skill") if ev.kind == "draft.approved" else ev.subject_id
    _skill_seen(r, ev, skill)
    version = _said(ev.payload, "version_id")
    r.put("manifests", (skill,), ev, active_version_id=version,
          updated_at=version if version is UNSAID else RecordOf("manifest_versions", version, "created_at"))


def _draft_created(r: Replay, ev: Event) -> None:
    p = ev.payload
    _skill_seen(r, ev, p.get("skill"))
    r.put("manifest_drafts", (ev.subject_id,), ev, skill=_said(p, "skill"), assertions=_said(p, "assertions"),
          yaml=_said(p, "yaml"), evidence=_said(p, "evidence"), author=_said(p, "author"),
          origin=_said(p, "origin"), parent_id=_said(p, "parent_id"),
          based_on_version_id=_said(p, "based_on_version_id"), status="pending", created_at=r.timed(ev, ev.at),
          decided_at=None, event_seq=ev.seq)


DRAFT_STATUS = {"draft.approved": "approved", "draft.rejected": "rejected", "draft.superseded": "superseded"}


def _draft_decided(r: Replay, ev: Event) -> None:
    key = (ev.subject_id,)
    draft = r.rows["manifest_drafts"].get(key)
    if draft is not None and draft["status"] != "pending":
        r.findings.append((ev.seq, f"draft {ev.subject_id}: decided twice: {draft['status']} (event "
                                   f"{r.made_by['manifest_drafts'][key]}) and {DRAFT_STATUS[ev.kind]} "
                                   f"(event {ev.seq}); a decided draft was reopened by hand"))
    r.set("manifest_drafts", key, ev, status=DRAFT_STATUS[ev.kind], decided_at=r.timed(ev, ev.at))
    if ev.kind == "draft.approved":
        _manifest_active(r, ev)


# --- proposals ---------------------------------------------------------------------------------------
def _proposal_imported(r: Replay, ev: Event) -> None:
    p = ev.payload
    fields = {k: _said(p, k) for k in ("path", "kind", "operation", "edit_mode", "title", "confidence",
                                        "rationale", "before_body", "after_body", "expected_base_body_sha256")}
    r.put("proposals", (ev.subject_id,), ev, **fields, case_id=_said(p, "case_id"), status="waiting",
          created_at=ev.at, updated_at=ev.at, event_seq=ev.seq)


def _proposal_marked(r: Replay, ev: Event) -> None:
    key = (ev.subject_id,)
    proposal = r.rows["proposals"].get(key)
    if proposal is not None and proposal["status"] in FINAL:
        r.findings.append((ev.seq, f"proposal {ev.subject_id}: decided twice: {proposal['status']} (event "
                                   f"{r.made_by['proposals'][key]}) and {ev.payload.get('status')} (event {ev.seq}); "
                                   "a decided proposal was reopened by hand"))
    r.set("proposals", key, ev, status=_said(ev.payload, "status"), updated_at=ev.at, event_seq=ev.seq)


def _gated(r: Replay, ev: Event) -> None:
    p = ev.payload
    passed, targeted = _said(p, "passed"), _said(p, "targeted")
    r.put("gate_results", (ev.seq,), ev, proposal_id=ev.subject_id,
          passed=passed if passed is UNSAID else int(bool(passed)), score_before=_said(p, "score_before"),
          score_after=_said(p, "score_after"), reason=_said(p, "reason"),
          command=p.get("command") or None if "command" in p else UNSAID,
          targeted=targeted if targeted is UNSAID else int(bool(targeted)),
          duration_ms=_said(p, "duration_ms"), at=ev.at)


# --- leases, assignments, loops ----------------------------------------------------------------------
def _lease(r: Replay, ev: Event) -> None:
    p = ev.payload
    r.put("leases", (ev.subject_type, ev.subject_id), ev, holder=ev.actor, taken_at=_said(p, "taken_at"),
          expires_at=_said(p, "expires_at"), event_seq=ev.seq)


def _assigned(r: Replay, ev: Event) -> None:
    key = (ev.subject_type, ev.subject_id)
    if ev.kind == "assignment.cleared":
        r.drop("assignments", key)
    else:
        r.put("assignments", key, ev, assignee=_said(ev.payload, "assignee"), assigned_by=ev.actor, at=ev.at,
              event_seq=ev.seq)


def _loop(r: Replay, ev: Event) -> None:
    p, name = ev.payload, ev.subject_id
    before = r.rows["loops"].get((name,))
    r.put("loop_versions", (name, p.get("version")), ev, settings=_said(p, "settings"), actor=ev.actor, at=ev.at,
          event_seq=ev.seq)
    r.put("loops", (name,), ev, version=_said(p, "version"), settings=_said(p, "settings"),
          created_at=before["created_at"] if before else ev.at, updated_at=ev.at, event_seq=ev.seq)


def _applied(r: Replay, ev: Event) -> None:
    p = ev.payload
    r.put("applications", (ev.seq,), ev, subject_type=ev.subject_type, subject_id=ev.subject_id,
          path=_said(p, "path"), content_hash=_said(p, "content_hash"), content=_said(p, "content_hash"),
          ref=_said(p, "ref"), actor=ev.actor, at=ev.at)
    r.put("current_content", (p.get("path"),), ev, content_hash=_said(p, "content_hash"),
          application_id=RowOf("applications", (ev.seq,), "id"), event_seq=ev.seq)


# --- evaluation runs -----------------------------------------------------------------------------------
def _suite_run(r: Replay, ev: Event) -> None:
    """A stored evaluation run: its row as the event carries it, and the suite its first run stored."""
    p, run_id = ev.payload, ev.subject_id
    run = p.get("run")
    if isinstance(run, dict):
        r.put("evaluation_runs", (run_id,), ev, **{c: _said(run, c) for c in RUN_COLUMNS}, event_seq=ev.seq)
    else:  # an older event: the run's columns are not said
        r.put("evaluation_runs", (run_id,), ev, **{c: UNSAID for c in TABLE["evaluation_runs"].columns})
    suite = p.get("suite_row")
    if isinstance(suite, dict):
        if (suite.get("id"),) not in r.rows["task_suites"]:  # stored once, by its first run
            r.put("task_suites", (suite.get("id"),), ev, **{c: _said(suite, c) for c in SUITE_COLUMNS})
    elif p.get("suite") is not None and (p["suite"],) not in r.rows["task_suites"]:
        r.put("task_suites", (p["suite"],), ev, **{c: UNSAID for c in SUITE_COLUMNS})


_RUN_RECORDED = "skill.run_recorded"
HANDLERS: dict[str, Callable[[Replay, Event], None]] = {
    "case.imported": _case_imported,
    "case.revised": _case_revised,
    "case.decided": _case_decided,
    "evidence.added": _evidence_added,
    "actor.added": _actor_added,
    "capability.granted": _granted,
    "capability.revoked": _revoked,
    "actor.bound": _bound,
    "actor.key_added": _key_added,
    "skill.evaluated": _evaluated,
    "regression.acknowledged": _acknowledged,
    "regression.mismatch": _mismatch,
    "state.imported": _state_imported,
    "manifest.imported": _manifest_active,
    "draft.created": _draft_created,
    "draft.approved": _draft_decided,
    "draft.rejected": _draft_decided,
    "draft.superseded": _draft_decided,
    "proposal.imported": _proposal_imported,
    "proposal.marked": _proposal_marked,
    "proposal.gated": _gated,
    "lease.taken": _lease,
    "lease.renewed": _lease,
    "lease.released": _lease,
    "assignment.set": _assigned,
    "assignment.cleared": _assigned,
    "loop.added": _loop,
    "loop.changed": _loop,
    _RUN_RECORDED: _run_recorded,
    "suite.run": _suite_run,
}


# --- a case's cached columns --------------------------------------------------------------------------
def cache_cases(r: Replay) -> None:
    """Each case's cached columns as its last act stored them: the claims, the outcomes allowed and whether it
    needs a decision, computed by the cases' own projection (cases.projection) from the case, its current
    revision and its evidence as the events made them; its newest event then and the latest time of its acts.

    Computed once, at the end: every act that changes what they rest on (a revision, evidence, a decision)
    brings them up to date, so the last one's are those of the case's final state."""
    evidence: dict[Any, list[tuple[Any, ...]]] = {}
    unsaid: set[Any] = set()
    # (`UNSAID in values`: UNSAID equals nothing but itself, so this is `any(v is UNSAID for v in values)`)
    for (seq,), row in r.rows["evidence"].items():
        details = row["details"]
        fields = (seq, row["kind"], row["result"], row["producer"], row["artifact"], row["about"], row["observed_at"])
        if UNSAID in fields or details is UNSAID:
            unsaid.add(row["case_id"])
        elif details is None or not mock_details(details):
            evidence.setdefault(row["case_id"], []).append(fields)
    revisions = r.rows["candidate_revisions"]
    computed: dict[tuple[Any, ...], tuple[dict[str, str], list[str], int, int]] = {}
    listers: dict[bytes, Callable[[Any], Any]] = {}  # _listed_in's answers by the independent lists (canonical)
    made_by, projected, projections_from = r.made_by["cases"], r.projected, r.projections_from
    for key, case in r.rows["cases"].items():
        case_id = key[0]
        made = projected.get(case_id)
        if made is None or made[0] <= projections_from:  # brought up to date before events said enough
            case.update({c: UNSAID for c in CACHED})
            continue
        case["last_seq"], case["updated_at"] = made
        made_by[key] = max(made[0], made_by.get(key, 0))
        basis = (revisions.get((case_id, case["current_revision"])) or {}).get("basis", UNSAID)
        inputs = (case["protocol"], case["status"], case["current_revision"], basis, case["independent"])
        if case_id in unsaid or UNSAID in inputs or not isinstance(basis, dict):
            case.update(claims=UNSAID, allowed=UNSAID, needs_decision=UNSAID, design_review=UNSAID)
            continue
        current = current_revisions(case["current_revision"], basis)
        rows = evidence.get(case_id, ())
        key = _shape(case, current, rows, listers, r.canonical)
        if key not in computed:
            claims, allowed, needs = projection(case["protocol"], case["status"], current, distinct_records(rows),
                                                case["independent"])
            waits = 1 if case["status"] == "open" and waits_on_design_review(case["protocol"], claims) else 0
            computed[key] = claims, allowed, needs, waits
        case["claims"], case["allowed"], case["needs_decision"], case["design_review"] = computed[key]


def _shape(case: Row, current: dict[str, str], rows: Any, listers: dict[bytes, Callable[[Any], Any]],
           canonical: dict[int, tuple[Any, Any]]) -> tuple[Any, ...]:
    """What a case's projection depends on, so that cases of one shape (most of a large store's) are evaluated
    once: its current revisions named by their first appearance (a revision is a hash the protocol only compares
    for equality: a record is about the current one or not; any other revision is kept as it is), and the set of
    its records' distinct (kind, result, producer, artifact, revision) (what distinct_records groups by; a
    match's value is whether the counting records agree, in no order and however many), each producer named by
    the independence lists it is in (_listed_in). `rows`: the case's evidence as distinct_records takes it, read
    before any Record is made (a shape seen before needs none). `listers`: _listed_in of the independent lists seen
    so far, by their canonical bytes (cases mostly list the same producers); `canonical`: Replay.canonical."""
    names: dict[Any, int] = {}
    revisions = tuple((artifact, names.setdefault(rev, len(names))) for artifact, rev in sorted(current.items()))
    name = names.get
    lists = case["independent"]
    known = canonical.get(id(lists))
    if known is None:
        known = canonical[id(lists)] = (lists, _canonical(lists))  # the encoding compare's cache holds (said_canonical)
    independent = known[1]
    listed_in = listers.get(independent)
    if listed_in is None:
        listed_in = listers[independent] = _listed_in(lists)
    return (case["protocol"], case["status"], revisions,
            frozenset([(kind, result, listed_in(producer), artifact, name(about, about))
                       for _, kind, result, producer, artifact, about, _ in rows]),
            independent)


def _listed_in(independent: Any) -> Callable[[Any], Any]:
    """A record's producer as a case's projection reads it: the protocol asks of a producer only whether a list of
    the case's independent producers holds it (`producer in independent[dimension]`, protocol/interpreter.py's
    record_status; elsewhere it is only shown), so a producer is named by the answer for each dimension (in the
    order of their names: the case's independent lists are part of the shape). Producers the lists treat alike
    then make one shape (a 10,000-case store has a third as many). A producer that test cannot be asked of is kept
    as it is."""
    if not isinstance(independent, dict):
        return lambda producer: ("producer", producer)
    lists = [independent[dimension] for dimension in sorted(independent)]
    answers: dict[Any, Any] = {}  # by producer (a name, nearly always: one answer each)

    def listed(producer: Any) -> Any:
        try:
            return answers[producer]
        except (KeyError, TypeError):  # not asked yet, or a producer no dict can hold
            pass
        try:
            answer = tuple([producer in each for each in lists])
        except TypeError:
            return ("producer", producer)
        if type(producer) is str:
            answers[producer] = answer
        return answer
    return listed

# --- comments and the mentions they make ----------------------------------------------------------------
def _commented(r: Replay, ev: Event) -> None:
    mentions = ev.payload.get("mentions")
    r.put("comments", (ev.seq,), ev, subject_type=ev.subject_type, subject_id=ev.subject_id, author=ev.actor,
          note=ev.note, mentions=_said(ev.payload, "mentions"), at=ev.at)
    for person in mentions if isinstance(mentions, list) else []:
        r.put("comment_mentions", (person, ev.seq), ev, subject_type=ev.subject_type, subject_id=ev.subject_id)


DISCUSSION_TABLES = (
    Table("comments", ("event_seq",), ("subject_type", "subject_id", "author", "note", "mentions", "at"),
          frozenset({"mentions"})),
    Table("comment_mentions", ("person", "event_seq"), ("subject_type", "subject_id")),
)
TABLES, TABLE = (*TABLES, *DISCUSSION_TABLES), {**TABLE, **{t.name: t for t in DISCUSSION_TABLES}}
HANDLERS["comment.added"] = _commented


# --- preferences: a person's side-by-side judgment of a task's two outputs ------------------------------------
def _preferred(r: Replay, ev: Event) -> None:
    p = ev.payload
    r.put("preferences", (ev.seq,), ev, run_id=ev.subject_id, task_id=_said(p, "task"), choice=_said(p, "choice"),
          note=ev.note, person=ev.actor, case_id=_said(p, "case_id"),
          counted=int(p["counted"]) if isinstance(p.get("counted"), bool) else UNSAID,
          evidence_seq=_said(p, "evidence_seq"), at=ev.at, against_run_id=p.get("against"))


PREFERENCE_TABLES = (
    Table("preferences", ("event_seq",), ("run_id", "task_id", "choice", "note", "person", "case_id", "counted",
                                          "evidence_seq", "at", "against_run_id")),
)
TABLES, TABLE = (*TABLES, *PREFERENCE_TABLES), {**TABLE, **{t.name: t for t in PREFERENCE_TABLES}}
HANDLERS["preference.recorded"] = _preferred


# --- a queue's rubric, and the answers decisions gave it -------------------------------------------------
def _rubric_set(r: Replay, ev: Event) -> None:
    p = ev.payload
    if ev.kind == "rubric.cleared":
        r.drop("queue_rubrics", (ev.subject_id,))
        return
    r.put("queue_rubrics", (ev.subject_id,), ev, questions=_said(p, "questions"), source=_said(p, "source"),
          set_by=ev.actor, at=ev.at, event_seq=ev.seq)


# each deciding event that may carry its queue's answers, and the decision's name as its record keeps it
ANSWERING = {"proposal.marked": None, "draft.approved": "approve", "draft.rejected": "reject",
             "regression.acknowledged": "acknowledge", "regression.mismatch": "mismatch"}


def _answering(kind: str, decision: str | None) -> Callable[[Replay, Event], None]:
    projected = HANDLERS[kind]

    def handle(r: Replay, ev: Event) -> None:
        projected(r, ev)
        p = ev.payload
        if "rubric" in p:
            r.put("rubric_answers", (ev.seq,), ev, subject_type=ev.subject_type, subject_id=ev.subject_id,
                  decision=decision or _said(p, "status"), answers=p["rubric"], rubric_seq=_said(p, "rubric_seq"),
                  person=ev.actor, at=ev.at)
    return handle


RUBRIC_TABLES = (
    Table("queue_rubrics", ("queue",), ("questions", "source", "set_by", "at", "event_seq"),
          frozenset({"questions"})),
    Table("rubric_answers", ("event_seq",), ("subject_type", "subject_id", "decision", "answers", "rubric_seq",
                                             "person", "at"), frozenset({"answers"})),
)
TABLES, TABLE = (*TABLES, *RUBRIC_TABLES), {**TABLE, **{t.name: t for t in RUBRIC_TABLES}}
HANDLERS["rubric.set"] = HANDLERS["rubric.cleared"] = _rubric_set
for _kind, _decision in ANSWERING.items():
    HANDLERS[_kind] = _answering(_kind, _decision)


# --- comparing -----------------------------------------------------------------------------------------
_CANONICAL = msgspec.json.Encoder(order="sorted")
_NULL = _CANONICAL.encode(None)


def _canonical(value: Any) -> Any:
    """A JSON value as canonical bytes: two are equal exactly when they are the same JSON (true is not 1)."""
    if value is UNSAID or isinstance(value, RowOf | RecordOf):
        return value
    try:
        return _CANONICAL.encode(value)
    except (TypeError, msgspec.EncodeError):
        return value


def _parsed(value: Any) -> Any:
    """A stored JSON column's value, parsed (what is not JSON stays the text it is)."""
    if isinstance(value, str):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError:
            return value
    return value


def _held(table: Table, cache: dict[Any, Any]) -> list[tuple[int, Callable[[Any], Any]]]:
    """Per compared column that is not compared as stored, its index and what makes the stored value comparable
    with the events' (JSON as canonical bytes, a text the events carry as its hash as that hash). `cache`: JSON
    texts already made canonical (one text, one value: the same text is parsed once)."""
    out: list[tuple[int, Callable[[Any], Any]]] = []
    for i, column in enumerate(table.columns):
        digest = HASHED.get((table.name, column))
        if column in table.json:
            out.append((i, partial(_json_cached, cache)))
        elif digest is not None:
            out.append((i, partial(_hashed_held, digest)))
    return out


def _json_held(value: Any) -> Any:
    return _canonical(_parsed(value))


def _json_cached(cache: dict[Any, Any], value: Any) -> Any:
    if type(value) is not str:
        return _NULL if value is None else _json_held(value)  # NULL: most rows' evidence details
    held = cache.get(value)
    if held is None:
        held = cache[value] = _json_held(value)
    return held


def _hashed_held(digest: Callable[[str], Any], value: Any) -> Any:
    return digest(value) if isinstance(value, str) else value


def _same(said: Any, held: Any) -> bool:
    if said is UNSAID:
        return True
    return bool(said == held)


def _show(value: Any) -> str:
    if value is UNSAID:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _difference(column: str, said: Any, held: Any) -> tuple[str, Any, Any]:
    """Where two JSON values first differ: `details.mock`, and the two values there."""
    while isinstance(said, dict) and isinstance(held, dict):
        keys = sorted(k for k in set(said) | set(held)
                      if _canonical(said.get(k, UNSAID)) != _canonical(held.get(k, UNSAID)))
        if not keys:
            break
        column, said, held = f"{column}.{keys[0]}", said.get(keys[0], UNSAID), held.get(keys[0], UNSAID)
    return column, said, held


def _name(key: Key) -> str:
    return "/".join(str(k) for k in key)


def compare(db: Database, replay: Replay) -> list[tuple[int | None, str]]:
    """Each difference between the tables and the replay, as (the event it concerns, one line).

    Each table is read once; a row is compared whole (its columns as a tuple against the events' tuple, JSON as
    canonical bytes), and only a row that differs is looked at column by column."""
    out: list[tuple[int | None, str]] = []
    cache_cases(replay)
    present = set(db.table_names())
    # JSON columns as canonical bytes, each value encoded once: the stored texts by text, the events' values (many
    # cases share one projection's claims) by identity, the value kept alongside so that its id is not reused
    held_cache: dict[Any, Any] = {}
    said_cache = replay.canonical

    def said_canonical(value: Any) -> Any:
        known = said_cache.get(id(value))
        if known is None:
            known = said_cache[id(value)] = (value, _canonical(value))
        return known[1]

    ids: dict[str, dict[Key, Any]] = {}
    for table in TABLES:
        if table.name not in present:
            continue
        want, made_by = replay.rows[table.name], replay.made_by[table.name]
        seen: set[Key] = set()
        width, count = len(table.key), len(table.columns)
        id_of = ids.setdefault(table.name, {})
        has_id = table.name in NAMED_BY_ID and "id" in db[table.name].columns_dict and \
            "id" not in table.key + table.columns
        sql = table.select() if not has_id else table.select().replace(" FROM ", ", id FROM ", 1)
        held_as = _held(table, held_cache)
        said_as = [i for i, column in enumerate(table.columns) if column in table.json]
        # the columns compared other than as stored (held_as's): a row whose values are the events' as they are is
        # the same when the events say null in each of those (null the one value both sides then make of it)
        converted = [i for i, _ in held_as]
        columns = table.columns
        every = itemgetter(*columns) if count > 1 else (lambda row, only=columns[0]: (row[only],))
        cursor = db.execute(sql)
        while batch := cursor.fetchmany(5000):
            for stored in batch:
                key = stored[:width]
                if has_id:
                    id_of[key] = stored[-1]
                if key in seen:
                    out.append((made_by.get(key), f"{table.name} {_name(key)}: a second row with this key; a copy "
                                                   "was inserted by hand"))
                    continue
                seen.add(key)
                row = want.get(key)
                if row is None:
                    out.append((None, f"{table.name} {_name(key)}: no event made this row; it was inserted by hand"))
                    continue
                try:
                    values = every(row)
                except KeyError:  # a column the event did not say
                    said = [row.get(column, UNSAID) for column in columns]
                else:
                    if values == stored[width:width + count]:
                        for i in converted:
                            if values[i] is not None:
                                break
                        else:
                            continue
                    said = list(values)
                held = list(stored[width:width + count])
                for i, convert in held_as:
                    held[i] = convert(held[i])
                for i in said_as:
                    said[i] = said_canonical(said[i])
                if said == held:
                    continue
                out += _differences(db, table, key, row, said, held, made_by.get(key), ids)
        for key in sorted(set(want) - seen, key=lambda k: made_by.get(k, 0)):
            if all(value is UNSAID for value in want[key].values()):
                continue  # an older event that says too little to know whether it left this row
            seq = made_by.get(key)
            out.append((seq, f"{table.name} {_name(key)}: the events made this row (event {seq}), the table "
                             "lacks it; it was deleted by hand"))
    return out


def _differences(db: Database, table: Table, key: Key, row: Row, said: list[Any], held: list[Any], seq: int | None,
                 ids: dict[str, dict[Key, Any]]) -> list[tuple[int | None, str]]:
    """One finding per column of a row that differs from what the events say (none the events do not say)."""
    out: list[tuple[int | None, str]] = []
    for column, one, other in zip(table.columns, said, held, strict=True):
        if isinstance(one, RowOf):
            one = ids.get(one.table, {}).get(one.key, UNSAID)
        elif isinstance(one, RecordOf):
            got = db.execute(f"SELECT [{one.column}] FROM [{one.table}] WHERE id = ?", [one.id]).fetchone()
            one = got[0] if got else None
        if _same(one, other):
            continue
        if column in table.json:  # shown as JSON, down to the first key that differs
            where, one, other = _difference(column, row[column], msgspec.json.decode(other)
                                            if isinstance(other, bytes) else other)
        else:
            where = column
        out.append((seq, f"{table.name} {_name(key)}: {where}: the events say {_show(one)}"
                         f"{f' (event {seq})' if seq else ''}, the table holds {_show(other)}; "
                         "the row was edited by hand"))
    return out
