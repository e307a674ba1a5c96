"""One generic interpreter of `format: protocol/1` files: claims, obligations, actions, outcomes.

A protocol is data (store/protocols/<id>/<revision>.yaml, or els's own files);
this module loads and validates one, then evaluates a case's state against it
in Kleene three-valued logic. Evidence counts for a match only when it is about
the current revision of its artifact and, when the match demands it, from a
producer the case lists as independent on a dimension; the newest counting
record of the kind decides; no counting record leaves the match UNKNOWN.
Every value comes with its why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from gatepost.store.kernel import InputError, load_yaml_file

from .revision import short

TRUE, FALSE, UNKNOWN = "TRUE", "FALSE", "UNKNOWN"
VALUES = (TRUE, FALSE, UNKNOWN)
FORMAT = "protocol/1"
EFFECTS = ("read", "write", "none")
ADMISSIBLE, APPROVAL_REQUIRED, BLOCKED = "admissible", "approval-required", "blocked"
OPEN, DISCHARGED = "open", "discharged"
COUNTING, STALE, NOT_INDEPENDENT, UNUSED = "counting", "stale", "not independent", "unused"
PROTOCOLS_DIR = Path(__file__).parent / "protocols"

TOP_KEYS = {"format", "protocol", "artifacts", "evidence_kinds", "claims", "obligations", "actions",
            "outcomes", "independence_dimensions"}
_IS = {True: TRUE, False: FALSE, "true": TRUE, "false": FALSE, "unknown": UNKNOWN}
MAX_DEPTH = 200  # conditions nested, through claims resting on claims: bounds recursion (a clear error, not RecursionError)
MAX_TREE_NODES = 20_000  # a claim's explanation tree, claims expanded: bounds what a console is asked to draw


# --- conditions: the rule language ------------------------------------------------------
@dataclass(frozen=True)
class Evidence:
    """`evidence: {kind, result?, subject|about?, independent_on?}`: what the newest counting record says."""

    kind: str
    result: str | None = None
    artifact: str | None = None
    independent_on: str | None = None

    def describe(self) -> str:
        text = f"evidence {self.kind}"
        if self.result is not None:
            text += f" = {self.result}"
        if self.artifact:
            text += f" about {self.artifact}"
        if self.independent_on:
            text += f", independent on {self.independent_on}"
        return text


@dataclass(frozen=True)
class ClaimRef:
    """`claim: NAME` (its value) or `claim: NAME, is: true|false|unknown` (TRUE or FALSE, never UNKNOWN)."""

    name: str
    is_: str | None = None

    def describe(self) -> str:
        return self.name if self.is_ is None else f"{self.name} is {self.is_}"


@dataclass(frozen=True)
class All:
    items: tuple

    def describe(self) -> str:
        return "all of (" + "; ".join(c.describe() for c in self.items) + ")"


@dataclass(frozen=True)
class Not:
    item: Any

    def describe(self) -> str:
        return f"not ({self.item.describe()})"


@dataclass(frozen=True)
class Decision:
    """`decision: NAME`: holds only on an explicit decision of that name (with its reason)."""

    name: str

    def describe(self) -> str:
        return f"decision {self.name}"


Condition = Evidence | ClaimRef | All | Not | Decision


@dataclass(frozen=True)
class Action:
    name: str
    description: str
    effect: str | None
    precondition: Condition | None
    requires: tuple[str, ...]
    may_produce: tuple[str, ...]


@dataclass(frozen=True)
class Protocol:
    """A loaded, validated protocol file."""

    id: str
    revision: int
    description: str
    source: str
    artifacts: dict[str, str]
    evidence_kinds: dict[str, dict]  # name -> {description, results: tuple | None}
    independence_dimensions: dict[str, str]
    claims: dict[str, tuple[str, Condition]]  # name -> (description, true_when)
    claim_order: tuple[str, ...]  # claims resting only on evidence first, then those resting on claims
    obligations: dict[str, tuple[str, Condition]]
    actions: dict[str, Action]
    outcomes: dict[str, tuple[str, Condition | None]]
    kind_artifacts: dict[str, str | None] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.id}/{self.revision}"

    def derived(self, claim: str) -> bool:
        """A claim that rests on other claims (shown after the claims that rest on evidence)."""
        return any(isinstance(c, ClaimRef) for c in _walk(self.claims[claim][1]))

    def evaluate(self, state: State) -> Evaluation:
        return Evaluation(self, state)


def _walk(cond):
    yield cond
    if isinstance(cond, All):
        for item in cond.items:
            yield from _walk(item)
    elif isinstance(cond, Not):
        yield from _walk(cond.item)


# --- loading and validation ---------------------------------------------------------------
class _Loader:
    def __init__(self, source: str, data: Any) -> None:
        self.source = source
        self.data = data

    def fail(self, where: str, message: str) -> InputError:
        return InputError(f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}")

    def mapping(self, value: Any, where: str, *, required: bool = True) -> dict:
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a mapping, got {_kind(value)}")
        for key in value:
            if not isinstance(key, str):
                raise self.fail(where, f"expected names as keys, got {key!r}")
        return value

    def text(self, value: Any, where: str, *, required: bool = False) -> str:
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            raise self.fail(where, f"expected a string, got {_kind(value)}")
        return value

    def keys(self, value: dict, where: str, allowed: set[str]) -> None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}" if where else unknown[0],
                            f"unknown key (expected one of {', '.join(sorted(allowed))})")

    def load(self) -> Protocol:
        doc = self.mapping(self.data, "")
        self.keys(doc, "", TOP_KEYS)
        if doc.get("format") != FORMAT:
            raise self.fail("format", f"expected {FORMAT!r}, got {doc.get('format')!r}")
        head = self.mapping(doc.get("protocol"), "protocol")
        self.keys(head, "protocol", {"id", "revision", "description"})
        pid = self.text(head.get("id"), "protocol.id", required=True)
        revision = head.get("revision")
        if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
            raise self.fail("protocol.revision", f"expected a positive integer, got {revision!r}")
        self.artifacts = self._described(doc.get("artifacts"), "artifacts")
        self.dimensions = self._described(doc.get("independence_dimensions"), "independence_dimensions",
                                          required=False)
        self.kinds: dict[str, dict] = {}
        for name, spec in self.mapping(doc.get("evidence_kinds"), "evidence_kinds").items():
            where = f"evidence_kinds.{name}"
            spec = self.mapping(spec, where)
            self.keys(spec, where, {"description", "results"})
            results = spec.get("results")
            if results is not None:
                if not isinstance(results, list) or not results or \
                        not all(isinstance(r, str) and r for r in results):
                    raise self.fail(f"{where}.results", "expected a non-empty list of result names")
                if len(set(results)) != len(results):
                    raise self.fail(f"{where}.results", "lists a result twice")
                results = tuple(results)
            self.kinds[name] = {"description": self.text(spec.get("description"), f"{where}.description"),
                                "results": results}
        raw_claims = self.mapping(doc.get("claims"), "claims")
        self.claim_names = set(raw_claims)
        self.kind_artifacts: dict[str, set] = {}
        claims = {}
        for name, spec in raw_claims.items():
            where = f"claims.{name}"
            spec = self.mapping(spec, where)
            self.keys(spec, where, {"description", "true_when"})
            if "true_when" not in spec:
                raise self.fail(where, "needs true_when")
            claims[name] = (self.text(spec.get("description"), f"{where}.description"),
                            self.condition(spec["true_when"], f"{where}.true_when"))
        order = self._claim_order(claims)
        obligations = {}
        for name, spec in self.mapping(doc.get("obligations"), "obligations", required=False).items():
            where = f"obligations.{name}"
            spec = self.mapping(spec, where)
            self.keys(spec, where, {"description", "discharged_when"})
            if "discharged_when" not in spec:
                raise self.fail(where, "needs discharged_when")
            obligations[name] = (self.text(spec.get("description"), f"{where}.description"),
                                 self.condition(spec["discharged_when"], f"{where}.discharged_when"))
        actions = {}
        for name, spec in self.mapping(doc.get("actions"), "actions", required=False).items():
            actions[name] = self._action(name, spec)
        outcomes = {}
        for name, spec in self.mapping(doc.get("outcomes"), "outcomes", required=False).items():
            where = f"outcomes.{name}"
            spec = self.mapping(spec, where)
            self.keys(spec, where, {"description", "requires"})
            requires = self.condition(spec["requires"], f"{where}.requires") if "requires" in spec else None
            outcomes[name] = (self.text(spec.get("description"), f"{where}.description"), requires)
        return Protocol(
            id=pid, revision=revision, description=self.text(head.get("description"), "protocol.description"),
            source=self.source, artifacts=self.artifacts, evidence_kinds=self.kinds,
            independence_dimensions=self.dimensions, claims=claims, claim_order=order,
            obligations=obligations, actions=actions, outcomes=outcomes,
            kind_artifacts={k: (next(iter(v)) if len(v) == 1 else None) for k, v in self.kind_artifacts.items()},
        )

    def _described(self, value: Any, where: str, *, required: bool = True) -> dict[str, str]:
        out = {}
        for name, spec in self.mapping(value, where, required=required).items():
            spec = self.mapping(spec, f"{where}.{name}", required=False)
            self.keys(spec, f"{where}.{name}", {"description"})
            out[name] = self.text(spec.get("description"), f"{where}.{name}.description")
        return out

    def _action(self, name: str, spec: Any) -> Action:
        where = f"actions.{name}"
        spec = self.mapping(spec, where)
        self.keys(spec, where, {"description", "effect", "may_produce", "precondition", "requires"})
        effect = spec.get("effect")
        if effect is not None and effect not in EFFECTS:
            raise self.fail(f"{where}.effect", f"expected one of {', '.join(EFFECTS)}, got {effect!r}")
        produced = []
        for i, item in enumerate(spec.get("may_produce") or []):
            item = self.mapping(item, f"{where}.may_produce[{i}]")
            self.keys(item, f"{where}.may_produce[{i}]", {"evidence"})
            kind = item.get("evidence")
            if kind not in self.kinds:
                raise self.fail(f"{where}.may_produce[{i}].evidence", f"unknown evidence kind {kind!r}")
            produced.append(kind)
        requires = []
        raw = spec.get("requires") or []
        if not isinstance(raw, list):
            raise self.fail(f"{where}.requires", "expected a list of {capability: NAME}")
        for i, item in enumerate(raw):
            item = self.mapping(item, f"{where}.requires[{i}]")
            self.keys(item, f"{where}.requires[{i}]", {"capability"})
            requires.append(self.text(item.get("capability"), f"{where}.requires[{i}].capability", required=True))
        precondition = (self.condition(spec["precondition"], f"{where}.precondition")
                        if "precondition" in spec else None)
        return Action(name, self.text(spec.get("description"), f"{where}.description"), effect,
                      precondition, tuple(requires), tuple(produced))

    def condition(self, value: Any, where: str) -> Condition:
        spec = self.mapping(value, where)
        heads = [k for k in ("evidence", "claim", "all", "not", "decision") if k in spec]
        if len(heads) != 1:
            raise self.fail(where, "expected exactly one of evidence, claim, all, not, decision")
        head = heads[0]
        self.keys(spec, where, {"claim", "is"} if head == "claim" else {head})
        if head == "claim":
            name = spec["claim"]
            if name not in self.claim_names:
                raise self.fail(f"{where}.claim", f"unknown claim {name!r}")
            is_ = None
            if "is" in spec:
                raw = spec["is"]
                is_ = _IS.get(raw.lower() if isinstance(raw, str) else raw)
                if is_ is None:
                    raise self.fail(f"{where}.is", f"expected true, false or unknown, got {raw!r}")
            return ClaimRef(name, is_)
        if head == "all":
            items = spec["all"]
            if not isinstance(items, list) or not items:
                raise self.fail(f"{where}.all", "expected a non-empty list of conditions")
            return All(tuple(self.condition(item, f"{where}.all[{i}]") for i, item in enumerate(items)))
        if head == "not":
            return Not(self.condition(spec["not"], f"{where}.not"))
        if head == "decision":
            return Decision(self.text(spec["decision"], f"{where}.decision", required=True))
        return self._evidence(self.mapping(spec["evidence"], f"{where}.evidence"), f"{where}.evidence")

    def _evidence(self, spec: dict, where: str) -> Evidence:
        self.keys(spec, where, {"kind", "result", "subject", "about", "independent_on"})
        kind = spec.get("kind")
        if kind not in self.kinds:
            raise self.fail(f"{where}.kind", f"unknown evidence kind {kind!r}")
        result = spec.get("result")
        if result is not None:
            result = self.text(result, f"{where}.result", required=True)
            allowed = self.kinds[kind]["results"]
            if allowed is not None and result not in allowed:
                raise self.fail(f"{where}.result", f"unknown result {result!r} of {kind} "
                                                   f"(expected one of {', '.join(allowed)})")
        if "subject" in spec and "about" in spec:
            raise self.fail(where, "give the artifact once: subject (els) or about, not both")
        artifact = spec.get("about", spec.get("subject"))
        if artifact is not None and artifact not in self.artifacts:
            key = "about" if "about" in spec else "subject"
            raise self.fail(f"{where}.{key}", f"unknown artifact {artifact!r}")
        dimension = spec.get("independent_on")
        if dimension is not None and dimension not in self.dimensions:
            raise self.fail(f"{where}.independent_on", f"unknown independence dimension {dimension!r}"
                                                       " (declare it under independence_dimensions)")
        self.kind_artifacts.setdefault(kind, set()).add(artifact)
        return Evidence(kind, result, artifact, dimension)

    def _claim_order(self, claims: dict) -> tuple[str, ...]:
        deps = {n: [c.name for c in _walk(cond) if isinstance(c, ClaimRef)] for n, (_d, cond) in claims.items()}
        done: list[str] = []
        visiting: list[str] = []

        def visit(name: str) -> None:
            if name in done:
                return
            if name in visiting:
                cycle = " -> ".join([*visiting[visiting.index(name):], name])
                raise self.fail(f"claims.{name}.true_when", f"claims rest on each other in a cycle: {cycle}")
            if len(visiting) >= MAX_DEPTH:
                raise self.fail(f"claims.{visiting[0]}.true_when", f"claims rest on claims more than {MAX_DEPTH} deep"
                                f" ({visiting[0]} -> {visiting[1]} -> ... -> {name})")
            visiting.append(name)
            for dep in deps[name]:
                visit(dep)
            visiting.pop()
            done.append(name)

        for name in claims:
            visit(name)
        self._measure(claims, done)
        base = [n for n in claims if not deps[n]]
        return tuple(base + [n for n in done if deps[n]])


    def _measure(self, claims: dict, order: list[str]) -> None:
        """Refuse claims whose explanation is deeper than MAX_DEPTH or larger than MAX_TREE_NODES (claims expanded)."""
        depth: dict[str, int] = {}
        nodes: dict[str, int] = {}

        def measure(cond: Condition) -> tuple[int, int]:
            if isinstance(cond, ClaimRef):
                return depth[cond.name] + 1, nodes[cond.name] + 1
            parts = [measure(c) for c in (cond.items if isinstance(cond, All) else
                                          (cond.item,) if isinstance(cond, Not) else ())]
            return 1 + max((d for d, _n in parts), default=0), 1 + sum(n for _d, n in parts)

        for name in order:  # a claim after every claim it rests on
            depth[name], nodes[name] = measure(claims[name][1])
            if depth[name] > MAX_DEPTH:
                raise self.fail(f"claims.{name}.true_when",
                                f"conditions nested {depth[name]} deep through the claims they rest on; at most {MAX_DEPTH}")
            if nodes[name] > MAX_TREE_NODES:
                raise self.fail(f"claims.{name}.true_when", f"its explanation would have {nodes[name]:,} conditions"
                                f" (claims expanded); at most {MAX_TREE_NODES:,}")


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def read_yaml(path: str | Path) -> Any:
    """A YAML file's data; unreadable or malformed files become one-line InputErrors."""
    return load_yaml_file(path)


def parse_protocol(data: Any, source: str = "protocol") -> Protocol:
    """Validate protocol data; a rule naming anything unknown is an error naming its path in the file."""
    return _Loader(source, data).load()


def load_protocol(path: str | Path) -> Protocol:
    return parse_protocol(read_yaml(path), str(path))


def protocol_path(ref: str) -> Path:
    """Where `id/revision` (e.g. eval.gated_change/1) lives among gatepost's protocols."""
    match = re.fullmatch(r"([a-z0-9][a-z0-9._-]*)/([1-9][0-9]*)", ref or "")
    if not match:
        raise InputError(f"protocol: expected ID/REVISION such as eval.gated_change/1, got {ref!r}")
    folder = re.sub(r"[._]", "-", match.group(1))
    return PROTOCOLS_DIR / folder / f"{match.group(2)}.yaml"


@cache
def protocol_for(ref: str) -> Protocol:
    """gatepost's own protocol `id/revision`, loaded once."""
    path = protocol_path(ref)
    if not path.exists():
        known = sorted(f"{p.parent.name}/{p.stem}" for p in PROTOCOLS_DIR.glob("*/*.yaml"))
        raise InputError(f"protocol: unknown protocol {ref!r} (known: {', '.join(known) or 'none'})")
    proto = load_protocol(path)
    if proto.key != ref:
        raise InputError(f"{path}: declares {proto.key}, expected {ref}")
    return proto


# --- a case's state -----------------------------------------------------------------------
@dataclass(frozen=True)
class Record:
    """One piece of evidence as the interpreter sees it."""

    id: str
    kind: str
    result: str
    artifact: str | None
    revision: str | None
    producer: str | None = None
    observed_at: str = ""
    order: int = 0

    def label(self) -> str:
        by = f" · {self.producer}" if self.producer else ""
        return f"{self.kind} {self.result}{by}"


@dataclass
class State:
    """What a case knows: its artifacts' current revisions, its evidence, who it lists, what authority is held."""

    revisions: dict[str, str]
    records: list[Record] = field(default_factory=list)
    independent: dict[str, list[str]] = field(default_factory=dict)
    authority: set[str] = field(default_factory=set)
    decisions: set[str] = field(default_factory=set)


def kleene_and(values) -> str:
    values = list(values)
    if FALSE in values:
        return FALSE
    return UNKNOWN if UNKNOWN in values else TRUE


def kleene_not(value: str) -> str:
    return {TRUE: FALSE, FALSE: TRUE}.get(value, UNKNOWN)


# --- evaluation -------------------------------------------------------------------------------
class Evaluation:
    """The values of one state under one protocol, computed once, each with its why."""

    def __init__(self, protocol: Protocol, state: State) -> None:
        self.protocol = protocol
        self.state = state
        self._match_cache: dict[Evidence, tuple[str, str, Record | None]] = {}
        self.claims: dict[str, str] = {}
        for name in protocol.claim_order:
            self.claims[name] = self.value(protocol.claims[name][1])
        self.claims = {name: self.claims[name] for name in protocol.claims}

    # values
    def value(self, cond: Condition) -> str:
        if isinstance(cond, Evidence):
            return self.match(cond)[0]
        if isinstance(cond, ClaimRef):
            val = self.claims[cond.name]
            return val if cond.is_ is None else (TRUE if val == cond.is_ else FALSE)
        if isinstance(cond, All):
            return kleene_and(self.value(item) for item in cond.items)
        if isinstance(cond, Not):
            return kleene_not(self.value(cond.item))
        return TRUE if cond.name in self.state.decisions else FALSE

    def record_status(self, record: Record, match: Evidence) -> list[str]:
        """Why a record does not count for a match (empty when it counts)."""
        reasons = []
        current = self.state.revisions.get(record.artifact) if record.artifact else None
        if current is None or record.revision != current:
            now = f" (current {short(current)})" if current else " (no current revision)"
            reasons.append(f"stale: about revision {short(record.revision)}{now}")
        if match.independent_on and record.producer not in self.state.independent.get(match.independent_on, ()):
            reasons.append(f"producer {record.producer or 'unnamed'} not independent on {match.independent_on}")
        return reasons

    def relevant(self, match: Evidence) -> list[Record]:
        return [r for r in self.state.records
                if r.kind == match.kind and (match.artifact is None or r.artifact == match.artifact)]

    def match(self, match: Evidence) -> tuple[str, str, Record | None]:
        """(value, why, the record that decided it): the newest counting record of the kind decides."""
        if match in self._match_cache:
            return self._match_cache[match]
        relevant = self.relevant(match)
        counting = [r for r in relevant if not self.record_status(r, match)]
        if counting:
            newest = max(counting, key=lambda r: (r.observed_at, r.order))
            value = TRUE if match.result is None or newest.result == match.result else FALSE
            why = newest.label()
            answer = (value, why, newest)
        elif not relevant:
            answer = (UNKNOWN, f"none counts: missing {match.kind}", None)
        else:
            reasons = [f"{r.label()}: {'; '.join(self.record_status(r, match))}" for r in relevant]
            answer = (UNKNOWN, "none counts: " + " | ".join(reasons), None)
        self._match_cache[match] = answer
        return answer

    def explain(self, cond: Condition) -> str:
        """The facts a condition's value rests on, in one line."""
        if isinstance(cond, Evidence):
            return self.match(cond)[1]
        if isinstance(cond, ClaimRef):
            return f"{cond.name} is {self.claims[cond.name]}"
        if isinstance(cond, Not):
            return self.explain(cond.item)
        if isinstance(cond, Decision):
            return (f"on the explicit decision {cond.name}" if cond.name in self.state.decisions
                    else f"needs an explicit decision ({cond.name})")
        value = self.value(cond)
        parts = [item for item in cond.items if value == TRUE or self.value(item) != TRUE]
        return "; ".join(dict.fromkeys(self.explain(item) for item in parts))

    def claim_why(self, name: str) -> str:
        cond = self.protocol.claims[name][1]
        if isinstance(cond, (Evidence, Not)) and not self.protocol.derived(name):
            return self.explain(cond)
        value = self.claims[name]
        if value == UNKNOWN:
            waits = [c.name for c in _walk(cond) if isinstance(c, ClaimRef) and self.claims[c.name] == UNKNOWN]
            if waits:
                return "waits on " + ", ".join(dict.fromkeys(waits))
        if isinstance(cond, All) and all(isinstance(i, ClaimRef) for i in cond.items):
            if value == TRUE:
                return f"all {len(cond.items)} hold"
            if value == FALSE:
                return "; ".join(self.explain(i) for i in cond.items if self.value(i) == FALSE)
        return self.explain(cond)

    def decided_by(self, name: str) -> list[Record]:
        """The records that established a claim's value (through its evidence matches)."""
        out = []
        for cond in _walk(self.protocol.claims[name][1]):
            if isinstance(cond, Evidence):
                record = self.match(cond)[2]
                if record is not None and record not in out:
                    out.append(record)
        return out

    def trace(self, cond: Condition, seen: frozenset = frozenset()) -> dict:
        """What a condition rests on, as a tree of {label, value, why, children} for a console."""
        value = self.value(cond)
        if isinstance(cond, ClaimRef):
            label = cond.describe()
            children = [] if cond.name in seen else [self.trace(self.protocol.claims[cond.name][1],
                                                                seen | {cond.name})]
            return {"label": label, "value": value, "why": self.claim_why(cond.name), "children": children}
        if isinstance(cond, All):
            return {"label": "all of", "value": value, "why": self.explain(cond),
                    "children": [self.trace(i, seen) for i in cond.items]}
        if isinstance(cond, Not):
            return {"label": "not", "value": value, "why": self.explain(cond), "children": [self.trace(cond.item, seen)]}
        if isinstance(cond, Evidence):
            children = []
            for record in self.relevant(cond):
                reasons = self.record_status(record, cond)
                children.append({"label": f"#{record.id} {record.label()} about {short(record.revision)}",
                                 "value": None, "why": "; ".join(reasons) or COUNTING, "children": []})
            return {"label": cond.describe(), "value": value, "why": self.explain(cond), "children": children}
        return {"label": cond.describe(), "value": value, "why": self.explain(cond), "children": []}

    def claim_tree(self, name: str) -> dict:
        return self.trace(ClaimRef(name), frozenset())

    # records, obligations, actions, outcomes
    def records(self) -> list[dict]:
        """Every record with whether it counts (counting / stale / not independent) and what it decides."""
        matches: dict[str, list[Evidence]] = {}
        for cond in _all_conditions(self.protocol):
            if isinstance(cond, Evidence):
                matches.setdefault(cond.kind, []).append(cond)
        deciding: dict[Record, list[str]] = {}
        for name in self.protocol.claims:
            for record in self.decided_by(name):
                deciding.setdefault(record, []).append(name)
        out = []
        for record in self.state.records:
            reasons: list[str] = []
            for match in matches.get(record.kind, []):
                if match.artifact is None or match.artifact == record.artifact:
                    for reason in self.record_status(record, match):
                        if reason not in reasons:
                            reasons.append(reason)
            used = any(m.artifact is None or m.artifact == record.artifact for m in matches.get(record.kind, []))
            if not used:
                status = UNUSED
            elif any(r.startswith("stale") for r in reasons):
                status = STALE
            elif reasons:
                status = NOT_INDEPENDENT
            else:
                status = COUNTING
            out.append({"record": record, "status": status, "why": "; ".join(reasons) or status,
                        "decides": deciding.get(record, [])})
        return out

    def obligations(self) -> dict[str, dict]:
        out = {}
        for name, (_desc, cond) in self.protocol.obligations.items():
            value = self.value(cond)
            out[name] = {"status": DISCHARGED if value == TRUE else OPEN, "why": self.explain(cond)}
        return out

    def actions(self) -> dict[str, dict]:
        out = {}
        for name, action in self.protocol.actions.items():
            held = [cap for cap in action.requires if cap in self.state.authority]
            missing = [cap for cap in action.requires if cap not in self.state.authority]
            pre = self.value(action.precondition) if action.precondition else TRUE
            facts = self.explain(action.precondition) if action.precondition else "no precondition"
            if pre != TRUE:
                status, why = BLOCKED, f"blocked: {facts}"
            elif missing:
                status, why = APPROVAL_REQUIRED, f"needs {', '.join(missing)} ({facts})"
            else:
                status = ADMISSIBLE
                why = facts + (f"; authority {', '.join(held)} held" if held else "")
            out[name] = {"allowed": status != BLOCKED, "status": status, "why": why}
        return out

    def outcomes(self) -> dict[str, dict]:
        out = {}
        for name, (_desc, cond) in self.protocol.outcomes.items():
            if cond is None:
                out[name] = {"allowed": True, "why": "no requirement"}
                continue
            state = self.state
            explicit = {c.name for c in _walk(cond) if isinstance(c, Decision)}
            if explicit - state.decisions:  # deciding this outcome is that explicit decision
                view = Evaluation(self.protocol, State(state.revisions, state.records, state.independent,
                                                       state.authority, state.decisions | explicit))
            else:
                view = self
            allowed = view.value(cond) == TRUE
            why = view.explain(cond)
            if explicit and allowed:
                why = "on an explicit decision with a reason" + ("" if isinstance(cond, Decision) else f" ({why})")
            out[name] = {"allowed": allowed, "why": why}
        return out

    def outcome_allowed(self, name: str, decisions: set[str] | frozenset = frozenset()) -> tuple[bool, str]:
        """Whether deciding `name` (with these explicit decisions) satisfies its requirement, and why."""
        cond = self.protocol.outcomes[name][1]
        if cond is None:
            return True, "no requirement"
        view = Evaluation(self.protocol, State(self.state.revisions, self.state.records, self.state.independent,
                                               self.state.authority, self.state.decisions | set(decisions)))
        return view.value(cond) == TRUE, view.explain(cond)


def explicit_decisions(protocol: Protocol, outcome: str) -> set[str]:
    """The explicit decisions an outcome's requirement names (deciding it needs a reason)."""
    cond = protocol.outcomes[outcome][1]
    return {c.name for c in _walk(cond) if isinstance(c, Decision)} if cond else set()


def _all_conditions(protocol: Protocol):
    roots = [cond for _d, cond in protocol.claims.values()]
    roots += [cond for _d, cond in protocol.obligations.values()]
    roots += [a.precondition for a in protocol.actions.values() if a.precondition]
    roots += [cond for _d, cond in protocol.outcomes.values() if cond]
    for root in roots:
        yield from _walk(root)
