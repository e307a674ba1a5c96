"""Replay `els-fixture/1` files state by state and compare every expectation with the interpreter.

A fixture names its protocol by a path relative to its els root: the parent
of the nearest folder called `fixtures` above it. Each state may move
revisions (`set_revisions`), grant authority (`add_authority`) and add
evidence (`add_evidence`), then lists what it `expect`s of claims,
obligations, actions and (a gatepost extension) outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    load_protocol,
    read_yaml,
)

FORMAT = "els-fixture/1"
_CLAIM_VALUES = {True: TRUE, False: FALSE, "true": TRUE, "false": FALSE, "unknown": UNKNOWN}
_OUTCOME_VALUES = {True: True, False: False, "allowed": True, "not-allowed": False}


@dataclass(frozen=True)
class Mismatch:
    fixture: str
    state: str
    section: str  # claims | obligations | actions | outcomes
    name: str
    expected: str
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


def _fail(source: str, where: str, message: str) -> InputError:
    return InputError(f"{source}: {where}: {message}")


def _mapping(value: Any, source: str, where: str, *, required: bool = True) -> dict:
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise _fail(source, where, "expected a mapping")
    return value


def _list(value: Any, source: str, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail(source, where, "expected a list")
    return value


def _str(value: Any, source: str, where: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value:
        raise _fail(source, where, "expected a string")
    return value


def replay_fixture(path: str | Path) -> list[Mismatch]:
    """Every expectation of the fixture the interpreter does not meet (empty: the fixture passes)."""
    path = Path(path)
    source = str(path)
    doc = _mapping(read_yaml(path), source, "fixture")
    if doc.get("format") != FORMAT:
        raise _fail(source, "format", f"expected {FORMAT!r}, got {doc.get('format')!r}")
    rel = _str(doc.get("protocol"), source, "protocol")
    protocol_file = els_root(path) / rel
    if not protocol_file.exists():
        raise _fail(source, "protocol", f"no protocol file at {protocol_file} (relative to the els root "
                                        f"{els_root(path)})")
    protocol = load_protocol(protocol_file)
    case = _mapping(doc.get("case"), source, "case")
    if case.get("protocol") not in (None, protocol.id, protocol.key):
        raise _fail(source, "case.protocol", f"names {case.get('protocol')!r} but {rel} is {protocol.id}")
    revisions = {}
    for name, spec in _mapping(case.get("artifacts"), source, "case.artifacts").items():
        if name not in protocol.artifacts:
            raise _fail(source, f"case.artifacts.{name}", f"unknown artifact of {protocol.key}")
        revisions[name] = _str(_mapping(spec, source, f"case.artifacts.{name}").get("revision"), source,
                               f"case.artifacts.{name}.revision")
    independent = {}
    for dim, producers in _mapping(case.get("independent"), source, "case.independent", required=False).items():
        if dim not in protocol.independence_dimensions:
            raise _fail(source, f"case.independent.{dim}", f"unknown independence dimension of {protocol.key}")
        independent[dim] = [_str(p, source, f"case.independent.{dim}") for p in _list(producers, source,
                                                                                      f"case.independent.{dim}")]
    state = State(revisions=revisions, independent=independent)
    mismatches: list[Mismatch] = []
    order = 0
    for i, raw in enumerate(_list(doc.get("states"), source, "states")):
        where = f"states[{i}]"
        step = _mapping(raw, source, where)
        label = str(step.get("id") or i)
        for name, rev in _mapping(step.get("set_revisions"), source, f"{where}.set_revisions",
                                  required=False).items():
            if name not in protocol.artifacts:
                raise _fail(source, f"{where}.set_revisions.{name}", "unknown artifact")
            state.revisions[name] = _str(rev, source, f"{where}.set_revisions.{name}")
        for j, grant in enumerate(_list(step.get("add_authority"), source, f"{where}.add_authority")):
            grant = _mapping(grant, source, f"{where}.add_authority[{j}]")
            cap = _str(grant.get("capability"), source, f"{where}.add_authority[{j}].capability")
            decision = grant.get("decision", "granted")
            if decision == "granted":
                state.authority.add(cap)
            elif decision in ("revoked", "denied"):
                state.authority.discard(cap)
            else:
                raise _fail(source, f"{where}.add_authority[{j}].decision", "expected granted, revoked or denied")
        for j, item in enumerate(_list(step.get("add_evidence"), source, f"{where}.add_evidence")):
            order += 1
            state.records.append(_record(protocol, item, source, f"{where}.add_evidence[{j}]", order))
        expect = _mapping(step.get("expect"), source, f"{where}.expect", required=False)
        mismatches += _compare(protocol, state, expect, source, label, f"{where}.expect")
    return mismatches


def _record(protocol: Protocol, item: Any, source: str, where: str, order: int) -> Record:
    item = _mapping(item, source, where)
    rec = _mapping(item.get("record"), source, f"{where}.record")
    kind = _str(rec.get("kind"), source, f"{where}.record.kind")
    if kind not in protocol.evidence_kinds:
        raise _fail(source, f"{where}.record.kind", f"unknown evidence kind of {protocol.key}")
    result = _str(rec.get("result", "recorded"), source, f"{where}.record.result")
    results = protocol.evidence_kinds[kind]["results"]
    if "result" in rec and results is not None and result not in results:
        raise _fail(source, f"{where}.record.result", f"expected one of {', '.join(results)}")
    subject = rec.get("subject") or protocol.kind_artifacts.get(kind)
    if subject is not None and subject not in protocol.artifacts:
        raise _fail(source, f"{where}.record.subject", "unknown artifact")
    revision = rec.get("subject_revision")
    return Record(
        id=str(rec.get("id") or order), kind=kind, result=result, artifact=subject,
        revision=None if revision is None else str(revision),
        producer=None if rec.get("producer") is None else str(rec["producer"]),
        observed_at=str(item.get("observed_at") or ""), order=order,
    )


def _compare(protocol: Protocol, state: State, expect: dict, source: str, label: str,
             where: str) -> list[Mismatch]:
    ev = protocol.evaluate(state)
    out = []
    # section -> (actual values, accepted expectations -> value, how a value is printed)
    sections = {
        "claims": (ev.claims, _CLAIM_VALUES, str.lower),
        "obligations": ({k: v["status"] for k, v in ev.obligations().items()},
                        {OPEN: OPEN, DISCHARGED: DISCHARGED}, str),
        "actions": ({k: v["status"] for k, v in ev.actions().items()},
                    {ADMISSIBLE: ADMISSIBLE, APPROVAL_REQUIRED: APPROVAL_REQUIRED, BLOCKED: BLOCKED}, str),
        "outcomes": ({k: v["allowed"] for k, v in ev.outcomes().items()}, _OUTCOME_VALUES,
                     lambda a: "allowed" if a else "not-allowed"),
    }
    unknown = sorted(set(expect) - set(sections))
    if unknown:
        raise _fail(source, f"{where}.{unknown[0]}", f"unknown section (expected {', '.join(sections)})")
    for section, (actual, allowed, show) in sections.items():
        for name, raw in _mapping(expect.get(section), source, f"{where}.{section}", required=False).items():
            if name not in actual:
                raise _fail(source, f"{where}.{section}.{name}", f"{protocol.key} has no such {section[:-1]}")
            key = raw.lower() if isinstance(raw, str) else raw
            if key not in allowed:
                raise _fail(source, f"{where}.{section}.{name}",
                            f"expected one of {', '.join(str(k) for k in allowed if isinstance(k, str))}")
            want = allowed[key]
            if actual[name] != want:
                out.append(Mismatch(source, label, section, name, show(want), show(actual[name])))
    return out
