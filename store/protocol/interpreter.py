"""One generic interpreter of `format: protocol/1` files: claims, obligations, actions, outcomes.

A protocol is data (store/protocols/<id>/<revision>.yaml, or els's own files);
this module loads and validates one, then evaluates a case's state against it
in Kleene three-valued logic, by Canon's rules (beyond10x/canon, `eval/claims.rs`).
A record counts for a match only when it is about the current revision of its
artifact, is not older than its kind's `max_age` at the evaluation instant, is
not invalidated for the claim by an `invalidation:` rule and, when the match
demands it, comes from a producer the case lists as independent on a dimension.
Counting records that all have the match's result make it TRUE, none of them
FALSE; counting records that disagree leave it UNKNOWN, as does no counting
record. Every value comes with its why. docs/protocol.md says where gatepost
reads protocol/1 differently from Canon, and why.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from gatepost.store import kernel
from gatepost.store.kernel import InputError

from .revision import short
from .rubric import Rubric, rubric_from
from .twins import PROTOCOLS_DIR, own_yaml_data

TRUE, FALSE, UNKNOWN = "TRUE", "FALSE", "UNKNOWN"
VALUES = (TRUE, FALSE, UNKNOWN)
FORMAT = "protocol/1"
EFFECTS = ("read", "write", "none")  # the usual effect classes; any identifier is one (as in Canon)
ADMISSIBLE, APPROVAL_REQUIRED, BLOCKED = "admissible", "approval-required", "blocked"
OPEN, DISCHARGED = "open", "discharged"
COUNTING, STALE, NOT_INDEPENDENT, UNUSED = "counting", "stale", "not independent", "unused"
EXPIRED, INVALIDATED = "expired", "invalidated"

TOP_KEYS = {"format", "protocol", "artifacts", "evidence_kinds", "claims", "obligations", "actions",
            "outcomes", "invalidation", "independence_dimensions", "rubric"}
HEADS = ("evidence", "claim", "all", "any", "not", "decision")
_AGE = re.compile(r"(0|[1-9][0-9]*)([smhd])")
_AGE_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_REF = re.compile(r"([a-z0-9][a-z0-9._-]*)/([1-9][0-9]*)")
_INSTANT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
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
    """`claim: NAME, is: true|false|unknown`, as in Canon: `is: true` (the default) is the claim's
    value, `is: false` its negation (UNKNOWN stays UNKNOWN), `is: unknown` whether it is undecided."""

    name: str
    is_: str | None = None

    def describe(self) -> str:
        return self.name if self.is_ is None else f"{self.name} is {self.is_}"


@dataclass(frozen=True)
class All:
    items: tuple[Any, ...]

    def describe(self) -> str:
        return "all of (" + "; ".join(c.describe() for c in self.items) + ")"


@dataclass(frozen=True)
class AnyOf:
    """`any: [...]`: Kleene OR; TRUE when one member is TRUE, FALSE when all are (an empty any is FALSE)."""

    items: tuple[Any, ...]

    def describe(self) -> str:
        return "any of (" + "; ".join(c.describe() for c in self.items) + ")"


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


Condition = Evidence | ClaimRef | All | AnyOf | Not | Decision


@dataclass(frozen=True)
class Invalidation:
    """`invalidation: {NAME: {upstream: ARTIFACT, invalidates: [CLAIM, ...]}}`: a record that recorded
    another revision of `upstream` than the current one no longer supports those claims (nor any
    claim built on them)."""

    name: str
    description: str
    upstream: str
    invalidates: tuple[str, ...]


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
    evidence_kinds: dict[str, dict[str, Any]]  # name -> {description, results: tuple | None, max_age, max_age_seconds}
    independence_dimensions: dict[str, str]
    claims: dict[str, tuple[str, Condition]]  # name -> (description, true_when)
    claim_order: tuple[str, ...]  # claims resting only on evidence first, then those resting on claims
    obligations: dict[str, tuple[str, Condition]]
    actions: dict[str, Action]
    outcomes: dict[str, tuple[str, Condition | None]]
    kind_artifacts: dict[str, str | None] = field(default_factory=dict)
    invalidation: dict[str, Invalidation] = field(default_factory=dict)
    rubric: Rubric | None = None  # (extension) the questions every decision of a case answers

    @property
    def key(self) -> str:
        return f"{self.id}/{self.revision}"

    @cached_property
    def matches_by_kind(self) -> dict[str, tuple[Evidence, ...]]:
        """Every evidence match any rule makes, by evidence kind (worked out once a protocol)."""
        matches: dict[str, list[Evidence]] = {}
        for cond in _all_conditions(self):
            if isinstance(cond, Evidence):
                matches.setdefault(cond.kind, []).append(cond)
        return {kind: tuple(found) for kind, found in matches.items()}

    def derived(self, claim: str) -> bool:
        """A claim that rests on other claims (shown after the claims that rest on evidence)."""
        return claim in self._derived_claims

    @cached_property
    def _derived_claims(self) -> frozenset[str]:
        """The claims resting on other claims, found once a protocol (a case's view and each of its whys asked
        for every claim, each a walk of its condition)."""
        return frozenset(name for name, (_d, cond) in self.claims.items()
                         if any(isinstance(c, ClaimRef) for c in _walk(cond)))

    @cached_property
    def explicit_by_outcome(self) -> dict[str, frozenset[str]]:
        """Each outcome's explicit decisions (the Decision conditions its requirement names), found once."""
        return {name: frozenset(c.name for c in _walk(cond) if isinstance(c, Decision)) if cond else frozenset()
                for name, (_d, cond) in self.outcomes.items()}

    def evaluate(self, state: State) -> Evaluation:
        return Evaluation(self, state)


def _walk(cond: Condition | None) -> Iterator[Condition | None]:
    yield cond
    if isinstance(cond, (All, AnyOf)):
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

    def mapping(self, value: Any, where: str, *, required: bool = True) -> dict[str, Any]:
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

    def keys(self, value: dict[str, Any], where: str, allowed: set[str]) -> None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}" if where else unknown[0],
                            f"unknown key (expected one of {', '.join(sorted(allowed))})")

    def load(self) -> Protocol:
        doc = self.mapping(self.data, "")
        if doc.get("format") != FORMAT:
            raise self.fail("format", f"expected {FORMAT!r}, got {doc.get('format')!r}")
        self.keys(doc, "", TOP_KEYS)
        head = self.mapping(doc.get("protocol"), "protocol")
        self.keys(head, "protocol", {"id", "revision", "description"})
        pid = self.text(head.get("id"), "protocol.id", required=True)
        revision = head.get("revision")
        if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
            raise self.fail("protocol.revision", f"expected a positive integer, got {revision!r}")
        self.artifacts = self._described(doc.get("artifacts"), "artifacts", required=False)
        self.dimensions = self._described(doc.get("independence_dimensions"), "independence_dimensions",
                                          required=False)
        self.kinds: dict[str, dict[str, Any]] = {}
        for name, spec in self.mapping(doc.get("evidence_kinds"), "evidence_kinds", required=False).items():
            where = f"evidence_kinds.{name}"
            spec = self.mapping(spec, where, required=False)
            self.keys(spec, where, {"description", "results", "max_age"})
            results = spec.get("results")
            if results is not None:
                if not isinstance(results, list) or not results or \
                        not all(isinstance(r, str) and r for r in results):
                    raise self.fail(f"{where}.results", "expected a non-empty list of result names")
                if len(set(results)) != len(results):
                    raise self.fail(f"{where}.results", "lists a result twice")
                results = tuple(results)
            max_age = spec.get("max_age")
            seconds = None
            if max_age is not None:
                seconds = age_seconds(max_age)
                if seconds is None:
                    raise self.fail(f"{where}.max_age", f"expected an age such as 15m, 1h or 2d (a whole number "
                                                        f"and one unit of s, m, h, d), got {max_age!r}")
            self.kinds[name] = {"description": self.text(spec.get("description"), f"{where}.description"),
                                "results": results, "max_age": max_age, "max_age_seconds": seconds}
        raw_claims = self.mapping(doc.get("claims"), "claims", required=False)
        self.claim_names = set(raw_claims)
        self.kind_artifacts: dict[str, set[Any]] = {}
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
        invalidation = {}
        for name, spec in self.mapping(doc.get("invalidation"), "invalidation", required=False).items():
            invalidation[name] = self._invalidation(name, spec)
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
            invalidation=invalidation, rubric=rubric_from(doc.get("rubric"), self.source),
        )

    def _described(self, value: Any, where: str, *, required: bool = True) -> dict[str, str]:
        out = {}
        for name, spec in self.mapping(value, where, required=required).items():
            spec = self.mapping(spec, f"{where}.{name}", required=False)
            self.keys(spec, f"{where}.{name}", {"description"})
            out[name] = self.text(spec.get("description"), f"{where}.{name}.description")
        return out

    def _invalidation(self, name: str, spec: Any) -> Invalidation:
        where = f"invalidation.{name}"
        spec = self.mapping(spec, where)
        self.keys(spec, where, {"description", "upstream", "invalidates"})
        upstream = spec.get("upstream")
        if upstream not in self.artifacts:
            raise self.fail(f"{where}.upstream", f"unknown artifact {upstream!r}")
        names = spec.get("invalidates")
        if not isinstance(names, list):
            raise self.fail(f"{where}.invalidates", "expected a list of claims")
        for i, claim in enumerate(names):
            if claim not in self.claim_names:
                raise self.fail(f"{where}.invalidates[{i}]", f"unknown claim {claim!r}")
        return Invalidation(name, self.text(spec.get("description"), f"{where}.description"), upstream,
                            tuple(names))

    def _action(self, name: str, spec: Any) -> Action:
        where = f"actions.{name}"
        spec = self.mapping(spec, where, required=False)
        self.keys(spec, where, {"description", "effect", "may_produce", "precondition", "requires"})
        effect = spec.get("effect")
        if effect is not None and not is_identifier(effect):
            raise self.fail(f"{where}.effect", f"expected an effect class: one identifier such as "
                                               f"{', '.join(EFFECTS)} (no spaces), got {effect!r}")
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
        heads = [k for k in HEADS if k in spec]
        if len(heads) != 1:
            raise self.fail(where, f"expected exactly one of {', '.join(HEADS)}")
        head = heads[0]
        if "is" in spec and head != "claim":
            raise self.fail(f"{where}.is", "is is allowed only beside claim")
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
        if head in ("all", "any"):
            items = spec[head]
            if not isinstance(items, list):
                raise self.fail(f"{where}.{head}", "expected a list of conditions")
            members = tuple(self.condition(item, f"{where}.{head}[{i}]") for i, item in enumerate(items))
            return All(members) if head == "all" else AnyOf(members)
        if head == "not":
            return Not(self.condition(spec["not"], f"{where}.not"))
        if head == "decision":
            return Decision(self.text(spec["decision"], f"{where}.decision", required=True))
        return self._evidence(self.mapping(spec["evidence"], f"{where}.evidence"), f"{where}.evidence")

    def _evidence(self, spec: dict[str, Any], where: str) -> Evidence:
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

    def _claim_order(self, claims: dict[str, Any]) -> tuple[str, ...]:
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


    def _measure(self, claims: dict[str, Any], order: list[str]) -> None:
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


def is_identifier(value: Any) -> bool:
    """Canon's identifier: a non-empty string without whitespace, control or format characters."""
    return isinstance(value, str) and bool(value) and not any(
        c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in value)


def age_seconds(value: Any) -> int | None:
    """A `max_age` as Canon reads it (`15m`, `1h`, `2d`: digits without a leading zero, one unit), in seconds."""
    match = _AGE.fullmatch(value) if isinstance(value, str) else None
    return int(match.group(1)) * _AGE_UNIT[match.group(2)] if match else None


def instant_seconds(value: Any) -> int | None:
    """An instant written YYYY-MM-DDTHH:MM:SSZ (a real calendar date, UTC), in seconds since 1970; else None."""
    if not isinstance(value, str) or not _INSTANT.fullmatch(value):
        return None
    try:
        moment = datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return int(moment.timestamp())


def read_yaml(path: str | Path) -> Any:
    """A YAML file's data; unreadable or malformed files become one-line InputErrors."""
    return kernel.load_yaml_file(path)  # through the package face: PyYAML loads only when a YAML file is read


def parse_protocol(data: Any, source: str = "protocol") -> Protocol:
    """Validate protocol data; a rule naming anything unknown is an error naming its path in the file."""
    return _Loader(source, data).load()


def load_protocol(path: str | Path) -> Protocol:
    return parse_protocol(read_yaml(path), str(path))


def protocol_path(ref: str) -> Path:
    """Where `id/revision` (e.g. eval.gated_change/1) lives among gatepost's protocols."""
    match = _REF.fullmatch(ref or "")
    if not match:
        raise InputError(f"protocol: expected ID/REVISION such as eval.gated_change/1, got {ref!r}")
    folder = match.group(1).replace(".", "-").replace("_", "-")
    return PROTOCOLS_DIR / folder / f"{match.group(2)}.yaml"


@cache
def protocol_for(ref: str) -> Protocol:
    """gatepost's own protocol `id/revision`, loaded once (from its JSON twin when that is current)."""
    path = protocol_path(ref)
    if not path.exists():
        known = sorted(f"{p.parent.name}/{p.stem}" for p in PROTOCOLS_DIR.glob("*/*.yaml"))
        raise InputError(f"protocol: unknown protocol {ref!r} (known: {', '.join(known) or 'none'})")
    proto = parse_protocol(own_yaml_data(path, what="protocol file"), str(path))
    if proto.key != ref:
        raise InputError(f"{path}: declares {proto.key}, expected {ref}")
    return proto


# --- a case's state -----------------------------------------------------------------------
@dataclass(frozen=True)
class Record:
    """One piece of evidence as the interpreter sees it (`result` None: a record without a result)."""

    id: str
    kind: str
    result: str | None
    artifact: str | None
    revision: str | None
    producer: str | None = None
    observed_at: str = ""
    order: int = 0
    upstream: tuple[tuple[str, str], ...] = ()  # Canon's upstream_revisions: (artifact, revision) pairs

    def label(self) -> str:
        by = f" · {self.producer}" if self.producer else ""
        result = f" {self.result}" if self.result is not None else ""
        return f"{self.kind}{result}{by}"

    def named(self) -> str:
        return f"#{self.id} {self.label()}"


@dataclass
class State:
    """What a case knows: its artifacts' current revisions, its evidence, who it lists, the authority
    decided (capabilities granted, capabilities denied), explicit decisions, and the evaluation instant
    (`at`, YYYY-MM-DDTHH:MM:SSZ) that evidence with a `max_age` is judged against (None: nothing expires)."""

    revisions: dict[str, str]
    records: list[Record] = field(default_factory=list)
    independent: dict[str, list[str]] = field(default_factory=dict)
    authority: set[str] = field(default_factory=set)
    decisions: set[str] = field(default_factory=set)
    denied: set[str] = field(default_factory=set)
    at: str | None = None


def kleene_and(values: Iterable[str]) -> str:
    values = list(values)
    if FALSE in values:
        return FALSE
    return UNKNOWN if UNKNOWN in values else TRUE


def kleene_or(values: Iterable[str]) -> str:
    values = list(values)
    if TRUE in values:
        return TRUE
    return UNKNOWN if UNKNOWN in values else FALSE


def kleene_not(value: str) -> str:
    return {TRUE: FALSE, FALSE: TRUE}.get(value, UNKNOWN)


def tested(value: str, is_: str | None) -> str:
    """A claim test as Canon reads it: `is: true` the value, `is: false` its negation, `is: unknown` decided."""
    if is_ is None or is_ == TRUE:
        return value
    if is_ == FALSE:
        return kleene_not(value)
    return TRUE if value == UNKNOWN else FALSE


_NO_CONTEXT: frozenset[str] = frozenset()


# --- evaluation -------------------------------------------------------------------------------
class Evaluation:
    """The values of one state under one protocol, computed once, each with its why.

    A claim is evaluated in its context: the records invalidated for it (by an `invalidation:`
    rule naming it or a claim it is built on), which none of the matches it reaches reads.
    """

    def __init__(self, protocol: Protocol, state: State, *, matched: Evaluation | None = None) -> None:
        """`matched`: an evaluation of the same protocol and state but for its explicit decisions (a view of
        deciding an outcome): which records count and how evidence matches never depend on decisions, so
        they are taken from it instead of worked out again."""
        self.protocol = protocol
        self.state = state
        self._at = instant_seconds(state.at)
        self._claim_cache: dict[tuple[str, frozenset[str]], str] = {}
        # a condition's value by the condition (its id: the entry holds the condition, so no other takes that id
        # while the evaluation lives) and its context: a claim's tree and its whys ask the same conditions' values
        # again and again. Never shared with a view that adds decisions: a value depends on them.
        self._value_cache: dict[tuple[int, frozenset[str]], tuple[Condition, str]] = {}
        self._match_cache: dict[tuple[Evidence, frozenset[str]], tuple[str, str, tuple[Record, ...]]]
        self._invalid: dict[str, frozenset[str]]
        self._expired: dict[Record, str]
        if matched is not None:
            self._match_cache, self._invalid, self._expired = matched._match_cache, matched._invalid, matched._expired
        else:
            self._match_cache = {}
            self._invalid = self._invalidated()
            self._expired = self._expiries()
            # every reader of a case's evaluation reads its claims: worked out at once; a view deciding an outcome
            # (matched) asks only for the values its requirement reaches, on first read
            self.claims = self._claims()

    @cached_property
    def claims(self) -> dict[str, str]:
        """Every claim's value, in the protocol's order."""
        return self._claims()

    def _claims(self) -> dict[str, str]:
        values = {name: self.claim_value(name) for name in self.protocol.claim_order}
        return {name: values[name] for name in self.protocol.claims}

    def _invalidated(self) -> dict[str, frozenset[str]]:
        """Claim -> ids of the records an invalidation rule keeps from it (and from claims built on it)."""
        out: dict[str, set[Any]] = {}
        for rule in self.protocol.invalidation.values():
            current = self.state.revisions.get(rule.upstream)
            moved = {r.id for r in self.state.records
                     if any(a == rule.upstream and rev != current for a, rev in r.upstream)}
            if not moved:
                continue
            named = set(rule.invalidates)
            while True:  # every claim built on a named one, through any number of claim references
                more = {n for n, (_d, cond) in self.protocol.claims.items() if n not in named
                        and any(isinstance(c, ClaimRef) and c.name in named for c in _walk(cond))}
                if not more:
                    break
                named |= more
            for name in named:
                out.setdefault(name, set()).update(moved)
        return {name: frozenset(ids) for name, ids in out.items()}

    def _expiries(self) -> dict[Record, str]:
        """Record -> why it is older than its kind's max_age at the evaluation instant (only those that are)."""
        if self._at is None or not any(k.get("max_age_seconds") is not None
                                       for k in self.protocol.evidence_kinds.values()):
            return {}
        out = {}
        for record in self.state.records:
            kind = self.protocol.evidence_kinds.get(record.kind) or {}
            limit = kind.get("max_age_seconds")
            observed = instant_seconds(record.observed_at)
            if limit is not None and observed is not None and self._at - observed > limit:
                out[record] = (f"expired: observed {record.observed_at}, older than max_age {kind['max_age']} "
                               f"at {self.state.at}")
        return out

    def context(self, claim: str) -> frozenset[str]:
        """The records invalidated for a claim."""
        return self._invalid.get(claim, _NO_CONTEXT)

    # values
    def claim_value(self, name: str, ctx: frozenset[str] = _NO_CONTEXT) -> str:
        """A claim's value, evaluated without the records invalidated for it or for the claim testing it."""
        ctx = ctx | self.context(name)
        key = (name, ctx)
        if key not in self._claim_cache:
            self._claim_cache[key] = self.value(self.protocol.claims[name][1], ctx)
        return self._claim_cache[key]

    def value(self, cond: Condition, ctx: frozenset[str] = _NO_CONTEXT) -> str:
        key = (id(cond), ctx)
        found = self._value_cache.get(key)
        if found is None:
            found = self._value_cache[key] = (cond, self._value(cond, ctx))
        return found[1]

    def _value(self, cond: Condition, ctx: frozenset[str]) -> str:
        if isinstance(cond, Evidence):
            return self.match(cond, ctx)[0]
        if isinstance(cond, ClaimRef):
            return tested(self.claim_value(cond.name, ctx), cond.is_)
        if isinstance(cond, All):
            return kleene_and(self.value(item, ctx) for item in cond.items)
        if isinstance(cond, AnyOf):
            return kleene_or(self.value(item, ctx) for item in cond.items)
        if isinstance(cond, Not):
            return kleene_not(self.value(cond.item, ctx))
        return TRUE if cond.name in self.state.decisions else FALSE

    def record_status(self, record: Record, match: Evidence, ctx: frozenset[str] = _NO_CONTEXT) -> list[str]:
        """Why a record does not count for a match (empty when it counts)."""
        reasons = []
        current = self.state.revisions.get(record.artifact) if record.artifact else None
        if current is None or record.revision != current:
            now = f" (current {short(current)})" if current else " (no current revision)"
            reasons.append(f"stale: about revision {short(record.revision)}{now}")
        expired = self._expired.get(record)
        if expired:
            reasons.append(expired)
        if record.id in ctx:
            reasons.append(self.invalidated_why(record))
        if match.independent_on and record.producer not in self.state.independent.get(match.independent_on, ()):
            reasons.append(f"producer {record.producer or 'unnamed'} not independent on {match.independent_on}")
        return reasons

    def invalidated_why(self, record: Record) -> str:
        moved = [f"{a} {short(rev)} (current {short(self.state.revisions.get(a))})" for a, rev in record.upstream
                 if any(rule.upstream == a for rule in self.protocol.invalidation.values())
                 and rev != self.state.revisions.get(a)]
        return "invalidated: recorded upstream " + ", ".join(moved)

    def relevant(self, match: Evidence) -> list[Record]:
        return [r for r in self.state.records
                if r.kind == match.kind and (match.artifact is None or r.artifact == match.artifact)]

    def match(self, match: Evidence, ctx: frozenset[str] = _NO_CONTEXT) -> tuple[str, str, tuple[Record, ...]]:
        """(value, why, the records that decided it), as Canon matches evidence.

        No counting record: UNKNOWN. A match without a result: TRUE. Otherwise TRUE when every counting
        record has the result, FALSE when none has it, and UNKNOWN when they disagree (the why names
        the records on both sides): conflicting evidence neither establishes nor contradicts it.
        """
        key = (match, ctx)
        if key in self._match_cache:
            return self._match_cache[key]
        relevant = self.relevant(match)
        counting = [r for r in relevant if not self.record_status(r, match, ctx)]
        if not counting:
            if not relevant:
                answer: tuple[str, str, tuple[Record, ...]] = (UNKNOWN, f"none counts: missing {match.kind}", ())
            else:
                reasons = [f"{r.label()}: {'; '.join(self.record_status(r, match, ctx))}" for r in relevant]
                answer = (UNKNOWN, "none counts: " + " | ".join(reasons), ())
        else:
            with_: list[Record] = []  # one pass: a membership test in a list made this quadratic per case
            without: list[Record] = []
            for r in counting:
                (with_ if match.result is None or r.result == match.result else without).append(r)
            if with_ and without:
                answer = (UNKNOWN, "records disagree: " + "; ".join(r.named() for r in with_) + " vs "
                          + "; ".join(r.named() for r in without), ())
            else:
                decided = tuple(with_ or without)
                answer = (TRUE if with_ else FALSE, _labels(decided), decided)
        self._match_cache[key] = answer
        return answer

    def explain(self, cond: Condition, ctx: frozenset[str] = _NO_CONTEXT) -> str:
        """The facts a condition's value rests on, in one line."""
        if isinstance(cond, Evidence):
            return self.match(cond, ctx)[1]
        if isinstance(cond, ClaimRef):
            return f"{cond.name} is {self.claim_value(cond.name, ctx)}"
        if isinstance(cond, Not):
            return self.explain(cond.item, ctx)
        if isinstance(cond, Decision):
            return (f"on the explicit decision {cond.name}" if cond.name in self.state.decisions
                    else f"needs an explicit decision ({cond.name})")
        value = self.value(cond, ctx)
        if isinstance(cond, AnyOf):
            parts = [i for i in cond.items if self.value(i, ctx) == value] if value != UNKNOWN else \
                [i for i in cond.items if self.value(i, ctx) != FALSE]
        else:
            parts = [item for item in cond.items if value == TRUE or self.value(item, ctx) != TRUE]
        if not parts:
            return "no member" if not cond.items else f"{len(cond.items)} members"
        return "; ".join(dict.fromkeys(self.explain(item, ctx) for item in parts))

    def claim_why(self, name: str) -> str:
        cond = self.protocol.claims[name][1]
        ctx = self.context(name)
        if isinstance(cond, (Evidence, Not)) and not self.protocol.derived(name):
            return self.explain(cond, ctx)
        value = self.claims[name]
        if value == UNKNOWN:
            waits = [c.name for c in _walk(cond) if isinstance(c, ClaimRef)
                     and self.claim_value(c.name, ctx) == UNKNOWN]
            if waits:
                return "waits on " + ", ".join(dict.fromkeys(waits))
        if isinstance(cond, All) and all(isinstance(i, ClaimRef) for i in cond.items):
            if value == TRUE:
                return f"all {len(cond.items)} hold"
            if value == FALSE:
                return "; ".join(self.explain(i, ctx) for i in cond.items if self.value(i, ctx) == FALSE)
        return self.explain(cond, ctx)

    def decided_by(self, name: str) -> list[Record]:
        """The records that established a claim's value (through its evidence matches)."""
        out = []
        ctx = self.context(name)
        for cond in _walk(self.protocol.claims[name][1]):
            if isinstance(cond, Evidence):
                for record in self.match(cond, ctx)[2]:
                    if record not in out:
                        out.append(record)
        return out

    def trace(self, cond: Condition, seen: frozenset[str] = frozenset(), ctx: frozenset[str] = _NO_CONTEXT) -> dict[str, Any]:
        """What a condition rests on, as a tree of {label, value, why, children} for a console."""
        value = self.value(cond, ctx)
        if isinstance(cond, ClaimRef):
            label = cond.describe()
            inner = ctx | self.context(cond.name)
            children = [] if cond.name in seen else [self.trace(self.protocol.claims[cond.name][1],
                                                                seen | {cond.name}, inner)]
            why = self.claim_why(cond.name) if ctx == _NO_CONTEXT else self.explain(cond, ctx)
            return {"label": label, "value": value, "why": why, "children": children}
        if isinstance(cond, (All, AnyOf)):
            return {"label": "all of" if isinstance(cond, All) else "any of", "value": value,
                    "why": self.explain(cond, ctx), "children": [self.trace(i, seen, ctx) for i in cond.items]}
        if isinstance(cond, Not):
            return {"label": "not", "value": value, "why": self.explain(cond, ctx),
                    "children": [self.trace(cond.item, seen, ctx)]}
        if isinstance(cond, Evidence):
            children = []
            for record in self.relevant(cond):
                reasons = self.record_status(record, cond, ctx)
                children.append({"label": f"#{record.id} {record.label()} about {short(record.revision)}",
                                 "value": None, "why": "; ".join(reasons) or COUNTING, "children": []})
            return {"label": cond.describe(), "value": value, "why": self.explain(cond, ctx), "children": children}
        return {"label": cond.describe(), "value": value, "why": self.explain(cond, ctx), "children": []}

    def claim_tree(self, name: str) -> dict[str, Any]:
        return self.trace(ClaimRef(name), frozenset())

    # records, obligations, actions, outcomes
    def records(self) -> list[dict[str, Any]]:
        """Every record with whether it counts (counting / stale / expired / invalidated / not independent)
        and what it decides."""
        deciding: dict[Record, list[str]] = {}
        for name in self.protocol.claims:
            for record in self.decided_by(name):
                deciding.setdefault(record, []).append(name)
        invalidated = {rid for ids in self._invalid.values() for rid in ids}
        out = []
        for record in self.state.records:
            status, reasons = self._status(record, invalidated)
            out.append({"record": record, "status": status, "why": "; ".join(reasons) or status,
                        "decides": deciding.get(record, [])})
        return out

    def counting(self) -> frozenset[str]:
        """The ids of the records that count (`records()`'s status counting), without what each decides."""
        invalidated = {rid for ids in self._invalid.values() for rid in ids}
        return frozenset(record.id for record in self.state.records
                         if self._status(record, invalidated)[0] == COUNTING)

    def _status(self, record: Record, invalidated: set[str]) -> tuple[str, list[str]]:
        """Whether a record counts, and if not every reason why (`invalidated`: the ids of every claim's
        invalidated records)."""
        matches = self.protocol.matches_by_kind.get(record.kind, ())
        reasons: list[str] = []
        for match in matches:
            if match.artifact is None or match.artifact == record.artifact:
                for reason in self.record_status(record, match):
                    if reason not in reasons:
                        reasons.append(reason)
        if record.id in invalidated:
            reasons.append(self.invalidated_why(record))
        used = any(m.artifact is None or m.artifact == record.artifact for m in matches)
        if not used:
            status = UNUSED
        elif any(r.startswith("stale") for r in reasons):
            status = STALE
        elif any(r.startswith("expired") for r in reasons):
            status = EXPIRED
        elif any(r.startswith("invalidated") for r in reasons):
            status = INVALIDATED
        elif reasons:
            status = NOT_INDEPENDENT
        else:
            status = COUNTING
        return status, reasons

    def obligations(self) -> dict[str, dict[str, Any]]:
        out = {}
        for name, (_desc, cond) in self.protocol.obligations.items():
            value = self.value(cond)
            out[name] = {"status": DISCHARGED if value == TRUE else OPEN, "why": self.explain(cond)}
        return out

    def actions(self) -> dict[str, dict[str, Any]]:
        """Each action's status, as Canon decides it: blocked while the precondition is not TRUE or a
        required capability is denied, approval-required while one is not decided, else admissible."""
        out = {}
        for name, action in self.protocol.actions.items():
            held = [cap for cap in action.requires if cap in self.state.authority and cap not in self.state.denied]
            denied = [cap for cap in action.requires if cap in self.state.denied]
            missing = [cap for cap in action.requires if cap not in self.state.authority and cap not in denied]
            pre = self.value(action.precondition) if action.precondition else TRUE
            facts = self.explain(action.precondition) if action.precondition else "no precondition"
            if pre != TRUE:
                status, why = BLOCKED, f"blocked: {facts}"
            elif denied:
                status, why = BLOCKED, f"blocked: {', '.join(denied)} denied ({facts})"
            elif missing:
                status, why = APPROVAL_REQUIRED, f"needs {', '.join(missing)} ({facts})"
            else:
                status = ADMISSIBLE
                why = facts + (f"; authority {', '.join(held)} held" if held else "")
            out[name] = {"allowed": status != BLOCKED, "status": status, "why": why}
        return out

    def outcomes(self) -> dict[str, dict[str, Any]]:
        out = {}
        for name, (_desc, cond) in self.protocol.outcomes.items():
            if cond is None:
                out[name] = {"allowed": True, "why": "no requirement"}
                continue
            explicit, view = self._deciding(name)
            allowed = view.value(cond) == TRUE
            why = view.explain(cond)
            if explicit and allowed:
                why = "on an explicit decision with a reason" + ("" if isinstance(cond, Decision) else f" ({why})")
            out[name] = {"allowed": allowed, "why": why}
        return out

    def allowed_outcomes(self) -> list[str]:
        """The outcomes `outcomes()` allows, in the protocol's order, without saying why (a case's cached list)."""
        out = []
        for name, (_desc, cond) in self.protocol.outcomes.items():
            if cond is None or self._deciding(name)[1].value(cond) == TRUE:
                out.append(name)
        return out

    def _deciding(self, outcome: str) -> tuple[frozenset[str], Evaluation]:
        """The explicit decisions an outcome's requirement names, and the evaluation that decides it: deciding
        the outcome is making those decisions."""
        explicit = self.protocol.explicit_by_outcome[outcome]
        if explicit - self.state.decisions:
            return explicit, self._deciding_also(explicit)
        return explicit, self

    def outcome_allowed(self, name: str, decisions: set[str] | frozenset[str] = frozenset()) -> tuple[bool, str]:
        """Whether deciding `name` (with these explicit decisions) satisfies its requirement, and why."""
        cond = self.protocol.outcomes[name][1]
        if cond is None:
            return True, "no requirement"
        more = set(decisions) - self.state.decisions
        view = self._deciding_also(more) if more else self
        return view.value(cond) == TRUE, view.explain(cond)

    def _deciding_also(self, decisions: set[str] | frozenset[str]) -> Evaluation:
        """This state with these explicit decisions made too."""
        return Evaluation(self.protocol, replace(self.state, decisions=self.state.decisions | decisions), matched=self)


def _labels(records: tuple[Record, ...]) -> str:
    """The records that decided a match, newest first, each label once."""
    ordered = sorted(records, key=lambda r: (r.observed_at, r.order), reverse=True)
    return " + ".join(dict.fromkeys(r.label() for r in ordered))


def explicit_decisions(protocol: Protocol, outcome: str) -> set[str]:
    """The explicit decisions an outcome's requirement names (deciding it needs a reason)."""
    return set(protocol.explicit_by_outcome[outcome])


def _all_conditions(protocol: Protocol) -> Iterator[Condition | None]:
    roots = [cond for _d, cond in protocol.claims.values()]
    roots += [cond for _d, cond in protocol.obligations.values()]
    roots += [a.precondition for a in protocol.actions.values() if a.precondition]
    roots += [cond for _d, cond in protocol.outcomes.values() if cond]
    for root in roots:
        yield from _walk(root)
