"""Replay `els-fixture/1` files state by state and compare every expectation with the interpreter.

As strict as els's harness (`tests/support/mod.rs`): a fixture file is named
`<id>.fixture.yaml` after the id it declares; an unknown key, a required key
left out or written with no value, evidence observed after the fixture's `at`,
a case that does not give the current revision of every artifact the protocol
declares, a capability decided twice and a protocol file that is not there are
refused in one line; and expectations are compared both ways: a declared claim
a state does not expect is reported as a mismatch, as is a declared obligation,
action or outcome missing from a section the state expects.

A fixture names its protocol by a path relative to its els root: the parent
of the nearest folder called `fixtures` above it; a path that is absolute or
leaves the repository (the nearest folder holding `.git`, else the els root)
is refused before anything is read, as els refuses it. Each state may move
revisions (`set_revisions`), decide authority (`add_authority`, granted or
denied) and add evidence (`add_evidence`), then lists what it `expect`s of
claims, obligations, actions and (a gatepost extension) outcomes. The
fixture's `at` is the evaluation instant evidence with a `max_age` is judged
against. docs/protocol.md lists where gatepost differs from els, and why.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gatepost.store.kernel import InputError

from .interpreter import (
    ADMISSIBLE,
    APPROVAL_REQUIRED,
    BLOCKED,
    DISCHARGED,
    FALSE,
    OPEN,
    TRUE,
    UNKNOWN,
    Protocol,
    Record,
    State,
    instant_seconds,
    load_protocol,
    read_yaml,
)

FORMAT = "els-fixture/1"
CASE_FORMAT = "canon-case/1"
EVIDENCE_FORMAT = "canon-evidence/1"
FIXTURE_KEYS = {"format", "id", "protocol", "at", "case", "states"}
CASE_KEYS = {"format", "id", "protocol", "revision", "artifacts", "independent"}  # independent: extension
STATE_KEYS = {"id", "set_revisions", "add_authority", "add_evidence", "expect"}
OBSERVATION_KEYS = {"observed_at", "record"}
RECORD_KEYS = {"format", "id", "kind", "result", "subject", "subject_revision", "observed_at",
               "upstream_revisions", "producer"}  # producer: extension
AUTHORITY_KEYS = {"capability", "decision"}
EXPECT_KEYS = ("claims", "obligations", "actions", "outcomes")  # outcomes: extension
DECISIONS = ("granted", "denied")
_CLAIM_VALUES = {True: TRUE, False: FALSE, "true": TRUE, "false": FALSE, "unknown": UNKNOWN}
_OUTCOME_VALUES = {True: True, False: False, "allowed": True, "not-allowed": False}


@dataclass(frozen=True)
class Mismatch:
    fixture: str
    state: str
    section: str  # claims | obligations | actions | outcomes
    name: str
    expected: str  # "nothing" when the state does not expect a declared name
    actual: str

    def __str__(self) -> str:
        return (f"{self.fixture}: state {self.state}: {self.section}.{self.name}: "
                f"expected {self.expected}, got {self.actual}")


def els_root(fixture: Path) -> Path:
    """The parent of the nearest `fixtures` folder above the fixture (else the fixture's folder)."""
    for parent in fixture.resolve().parents:
        if parent.name == "fixtures":
            return parent.parent
    return fixture.resolve().parent


class _Reader:
    """One fixture's checks; every refusal is one InputError naming the file and the path inside it."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> InputError:
        return InputError(f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}")

    def mapping(self, value: Any, where: str, keys: set[str] | None = None, *, required: bool = True) -> dict[str, Any]:
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a mapping{'' if value is not None else ', got no value'}")
        if keys is not None:
            unknown = sorted(str(k) for k in value if k not in keys)
            if unknown:
                raise self.fail(f"{where}.{unknown[0]}" if where else unknown[0],
                                f"unknown key (expected one of {', '.join(sorted(keys))})")
        return value

    def need(self, doc: dict[str, Any], key: str, where: str) -> Any:
        """A required key, refused when left out or written with no value (as els refuses `add_evidence:`)."""
        path = f"{where}.{key}" if where else key
        if key not in doc:
            raise self.fail(path, "required")
        if doc[key] is None:
            raise self.fail(path, "a key is written with no value")
        return doc[key]

    def list(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, "expected a list")
        return value

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(where, f"expected a string, got {value!r}")
        return value

    def instant(self, value: Any, where: str) -> str:
        if isinstance(value, datetime) and value.tzinfo is not None:  # YAML read an unquoted instant
            value = value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        if instant_seconds(value) is None:
            raise self.fail(where, f"{value!r} is not an instant written YYYY-MM-DDTHH:MM:SSZ")
        return str(value)


def repository_root(root: Path) -> Path:
    """The repository an els root lies in: the nearest folder holding `.git` at or above it, else the els root."""
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return folder
    return root


def _inside_repository(r: _Reader, root: Path, rel: str) -> Path:
    """The protocol file a fixture names, refused before anything is read when the path is absolute or leaves
    the repository, by `../` or through a link: els's harness refuses such a fixture ("absolute or leaves the
    repository"), so a fixture cannot make the replay read a file outside its tree."""
    repo = repository_root(root)
    refusal = f"{rel}: absolute or leaves the repository ({repo})"
    if Path(rel).is_absolute() or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        raise r.fail("protocol", refusal)
    target = root / rel
    if not Path(os.path.normpath(target)).is_relative_to(repo):
        raise r.fail("protocol", refusal)
    if not target.resolve().is_relative_to(repo.resolve()):
        raise r.fail("protocol", f"{refusal}: a link to {target.resolve()}")
    return target


def replay_fixture(path: str | Path) -> list[Mismatch]:
    """Every expectation of the fixture the interpreter does not meet (empty: the fixture passes)."""
    path = Path(path)
    source = str(path)
    r = _Reader(source)
    doc = r.mapping(read_yaml(path), "", FIXTURE_KEYS)
    if r.need(doc, "format", "") != FORMAT:
        raise r.fail("format", f"expected {FORMAT!r}, got {doc.get('format')!r}")
    fixture_id = r.text(r.need(doc, "id", ""), "id")
    named = f"{fixture_id}.fixture.yaml"
    if path.resolve().name != named:
        raise r.fail("id", f"fixture file {path.resolve().name} declares id {fixture_id}; it must be named {named}")
    rel = r.text(r.need(doc, "protocol", ""), "protocol")
    at = r.instant(r.need(doc, "at", ""), "at")
    case = r.mapping(r.need(doc, "case", ""), "case", CASE_KEYS)
    states = r.list(r.need(doc, "states", ""), "states")
    if not states:
        raise r.fail("states", "the fixture lists no states")
    root = els_root(path)
    protocol_file = _inside_repository(r, root, rel)
    if not protocol_file.is_file():
        raise r.fail("protocol", f"{rel} is not there (no file {protocol_file} under the els root {root}): "
                                 "the fixture cannot be replayed without its protocol")
    protocol = load_protocol(protocol_file)
    revisions, independent = _case(r, case, protocol, rel)
    state = State(revisions=revisions, independent=independent, at=at)
    decided: set[str] = set()
    seen_states: set[str] = set()
    seen_records: set[str] = set()
    mismatches: list[Mismatch] = []
    for i, raw in enumerate(states):
        where = f"states[{i}]"
        step = r.mapping(raw, where, STATE_KEYS)
        label = r.text(r.need(step, "id", where), f"{where}.id")
        if label in seen_states:
            raise r.fail(f"{where}.id", f"state {label} is given more than once")
        seen_states.add(label)
        if "set_revisions" in step:
            moved = r.mapping(r.need(step, "set_revisions", where), f"{where}.set_revisions")
            for name, rev in moved.items():
                if name not in revisions:
                    raise r.fail(f"{where}.set_revisions.{name}", f"sets the revision of artifact {name}, "
                                                                  "which the case does not list")
                state.revisions[name] = r.text(rev, f"{where}.set_revisions.{name}")
        if "add_authority" in step:
            grants = r.list(r.need(step, "add_authority", where), f"{where}.add_authority")
            for j, grant in enumerate(grants):
                at_j = f"{where}.add_authority[{j}]"
                grant = r.mapping(grant, at_j, AUTHORITY_KEYS)
                cap = r.text(r.need(grant, "capability", at_j), f"{at_j}.capability")
                decision = r.need(grant, "decision", at_j)
                if decision not in DECISIONS:
                    raise r.fail(f"{at_j}.decision", f"expected granted or denied, got {decision!r}")
                if cap in decided:
                    raise r.fail(f"{at_j}.capability", f"capability {cap} is decided a second time (Canon refuses "
                                                       "it as duplicate-identifier; a fixture cannot revoke a grant)")
                decided.add(cap)
                (state.authority if decision == "granted" else state.denied).add(cap)
        observations = r.list(r.need(step, "add_evidence", where), f"{where}.add_evidence")
        for j, item in enumerate(observations):
            record = _record(r, protocol, item, f"{where}.add_evidence[{j}]", at, len(state.records) + 1)
            if record.id in seen_records:
                raise r.fail(f"{where}.add_evidence[{j}].record.id", f"evidence {record.id} is given more than once")
            seen_records.add(record.id)
            state.records.append(record)
        expect = r.mapping(r.need(step, "expect", where), f"{where}.expect", set(EXPECT_KEYS))
        mismatches += _compare(r, protocol, state, expect, label, f"{where}.expect")
    return mismatches


def _case(r: _Reader, case: dict[str, Any], protocol: Protocol, rel: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The case's current revisions and independence lists, checked as Canon checks a case snapshot."""
    if r.need(case, "format", "case") != CASE_FORMAT:
        raise r.fail("case.format", f"expected {CASE_FORMAT!r}, got {case.get('format')!r}")
    case_id = r.text(r.need(case, "id", "case"), "case.id")
    named = r.need(case, "protocol", "case")
    if named not in (protocol.id, protocol.key):
        raise r.fail("case.protocol", f"case {case_id} is governed by protocol {named!r}, but {rel} is {protocol.id}")
    revisions = {}
    for name, spec in r.mapping(r.need(case, "artifacts", "case"), "case.artifacts").items():
        if name not in protocol.artifacts:
            raise r.fail(f"case.artifacts.{name}", f"case {case_id} lists artifact {name}, which "
                                                   f"{protocol.key} does not declare")
        spec = r.mapping(spec, f"case.artifacts.{name}", {"revision"})
        revisions[name] = r.text(r.need(spec, "revision", f"case.artifacts.{name}"),
                                 f"case.artifacts.{name}.revision")
    missing = [name for name in protocol.artifacts if name not in revisions]
    if missing:
        raise r.fail("case.artifacts", f"case {case_id} does not give the current revision of artifact "
                                       f"{missing[0]}, which {protocol.key} declares (Canon refuses it: "
                                       "missing-artifact)")
    independent = {}
    for dim, producers in r.mapping(case.get("independent"), "case.independent", required=False).items():
        if dim not in protocol.independence_dimensions:
            raise r.fail(f"case.independent.{dim}", f"unknown independence dimension of {protocol.key}")
        independent[dim] = [r.text(p, f"case.independent.{dim}") for p in r.list(producers, f"case.independent.{dim}")]
    return revisions, independent


def _record(r: _Reader, protocol: Protocol, item: Any, where: str, at: str, order: int) -> Record:
    item = r.mapping(item, where, OBSERVATION_KEYS)
    observed = r.instant(r.need(item, "observed_at", where), f"{where}.observed_at")
    rec = r.mapping(r.need(item, "record", where), f"{where}.record", RECORD_KEYS)
    here = f"{where}.record"
    if r.need(rec, "format", here) != EVIDENCE_FORMAT:
        raise r.fail(f"{here}.format", f"expected {EVIDENCE_FORMAT!r}, got {rec.get('format')!r}")
    rid = r.text(r.need(rec, "id", here), f"{here}.id")
    seen, evaluated = instant_seconds(observed), instant_seconds(at)
    if seen is not None and evaluated is not None and seen > evaluated:
        raise r.fail(f"{where}.observed_at", f"evidence {rid} is observed at {observed}, after the evaluation "
                                             f"instant {at}")
    if "observed_at" in rec:
        own = r.instant(r.need(rec, "observed_at", here), f"{here}.observed_at")
        if own != observed:
            raise r.fail(f"{here}.observed_at", f"evidence {rid} record is observed at {own}, its entry at {observed}")
    kind = r.text(r.need(rec, "kind", here), f"{here}.kind")
    if kind not in protocol.evidence_kinds:
        raise r.fail(f"{here}.kind", f"evidence {rid} is of kind {kind}, which {protocol.key} does not declare")
    result = None
    if "result" in rec:
        result = r.text(r.need(rec, "result", here), f"{here}.result")
        results = protocol.evidence_kinds[kind]["results"]
        if results is not None and result not in results:
            raise r.fail(f"{here}.result", f"expected one of {', '.join(results)}")
    subject = rec.get("subject") if "subject" in rec else protocol.kind_artifacts.get(kind)
    if "subject" in rec:
        subject = r.text(r.need(rec, "subject", here), f"{here}.subject")
    if subject is not None and subject not in protocol.artifacts:
        raise r.fail(f"{here}.subject", f"evidence {rid} is about artifact {subject}, which {protocol.key} "
                                        "does not declare")
    revision = r.text(r.need(rec, "subject_revision", here), f"{here}.subject_revision")
    upstream = []
    for name, rev in r.mapping(rec.get("upstream_revisions"), f"{here}.upstream_revisions", required=False).items():
        if name not in protocol.artifacts:
            raise r.fail(f"{here}.upstream_revisions.{name}", f"unknown artifact of {protocol.key}")
        upstream.append((name, r.text(rev, f"{here}.upstream_revisions.{name}")))
    producer = r.text(rec["producer"], f"{here}.producer") if "producer" in rec else None
    return Record(id=rid, kind=kind, result=result, artifact=subject, revision=revision, producer=producer,
                  observed_at=observed, order=order, upstream=tuple(upstream))


def _compare(r: _Reader, protocol: Protocol, state: State, expect: dict[str, Any], label: str,
             where: str) -> list[Mismatch]:
    """Mismatches both ways: a wrong value, and a declared name the state does not expect."""
    ev = protocol.evaluate(state)
    # section -> (actual values, accepted expectations -> value, how a value is printed)
    sections: dict[str, tuple[dict[str, Any], dict[Any, Any], Callable[[Any], str]]] = {
        "claims": (ev.claims, _CLAIM_VALUES, str.lower),
        "obligations": ({k: v["status"] for k, v in ev.obligations().items()},
                        {OPEN: OPEN, DISCHARGED: DISCHARGED}, str),
        "actions": ({k: v["status"] for k, v in ev.actions().items()},
                    {ADMISSIBLE: ADMISSIBLE, APPROVAL_REQUIRED: APPROVAL_REQUIRED, BLOCKED: BLOCKED}, str),
        "outcomes": ({k: v["allowed"] for k, v in ev.outcomes().items()}, _OUTCOME_VALUES,
                     lambda a: "allowed" if a else "not-allowed"),
    }
    r.need(expect, "claims", where)
    out = []
    for section, (actual, allowed, show) in sections.items():
        if section not in expect:
            continue
        wanted = r.mapping(r.need(expect, section, where), f"{where}.{section}")
        for name, raw in wanted.items():
            if name not in actual:
                raise r.fail(f"{where}.{section}.{name}", f"{protocol.key} has no such {section[:-1]}")
            if not isinstance(raw, (str, bool)) or raw not in allowed:
                raise r.fail(f"{where}.{section}.{name}",
                             f"expected one of {', '.join(str(k) for k in allowed if isinstance(k, str))}")
            want = allowed[raw]
            if actual[name] != want:
                out.append(Mismatch(r.source, label, section, name, show(want), show(actual[name])))
        for name in actual:
            if name not in wanted:
                out.append(Mismatch(r.source, label, section, name, "nothing", show(actual[name])))
    return out
