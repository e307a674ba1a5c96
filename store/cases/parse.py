"""A case file read and checked: every error names the file and the field.

What a parsed case is (`parse_case`'s mapping) is what import and revision store; nothing here reads
or writes the store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gatepost.store.kernel import (
    InputError,
    check_name,
    parse_iso,
    repo_path,
    same_actor,
)
from gatepost.store.protocol import (
    BASIS_FIELDS,
    Protocol,
    protocol_for,
    read_yaml,
)

DEFAULT_PROTOCOL = "eval.gated_change/1"
AUTHOR_DIMENSION = "different_agent_run"  # the author is never independent of its own work on this
CASE_KEYS = {"protocol", "id", "title", "author", "candidate", "independent", "evidence"}
CANDIDATE_KEYS = {"path", "content", "basis"}
EVIDENCE_KEYS = {"kind", "result", "producer", "about", "at", "observed_at", "details"}
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,99}")


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def parse_case(data: Any, source: str = "case") -> dict[str, Any]:
    """Validate a case file's data; every error names the file and the field."""

    def fail(field: str, message: str) -> InputError:
        return InputError(f"{source}: {field}: {message}")

    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a mapping with protocol, title, author, candidate, independent")
    unknown = sorted(set(map(str, data)) - CASE_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown field (expected {', '.join(sorted(CASE_KEYS))})")
    ref = data.get("protocol", DEFAULT_PROTOCOL)
    if not isinstance(ref, str):
        raise fail("protocol", "expected a string such as eval.gated_change/1")
    try:
        protocol = protocol_for(ref)
    except InputError as exc:
        raise fail("protocol", str(exc).split(": ", 1)[-1]) from None
    case_id = data.get("id")
    if case_id is not None:
        if not isinstance(case_id, str) or not _ID.fullmatch(case_id):
            raise fail("id", "expected letters, digits, '.', '_', ':' or '-' (at most 100), "
                             f"got {case_id!r}")
    for field, meaning in (("title", "a one-line title of the change"),
                           ("author", "the agent run that wrote the candidate")):
        if data.get(field) is None:
            raise fail(field, f"missing (expected {meaning})")
        if not _is_text(data.get(field)):
            raise fail(field, f"expected a string: {meaning}")
    author = check_name(data["author"], field=f"{source}: author")
    candidate = data.get("candidate")
    if not isinstance(candidate, dict):
        missing = "missing (expected a mapping with content and basis)"
        raise fail("candidate", missing if candidate is None else "expected a mapping with content and basis")
    unknown = sorted(set(map(str, candidate)) - CANDIDATE_KEYS)
    if unknown:
        raise fail(f"candidate.{unknown[0]}", f"unknown field (expected {', '.join(sorted(CANDIDATE_KEYS))})")
    path = candidate.get("path")
    if path is not None:
        path = repo_path(path, f"{source}: candidate.path")
    if "content" not in candidate or candidate["content"] is None:
        raise fail("candidate.content", "missing (expected the changed text (a string) or configuration (a mapping))")
    content = candidate["content"]
    if not isinstance(content, (str, dict, list)):
        raise fail("candidate.content", "expected a string, a mapping or a list")
    _check_json(content, f"{source}: candidate.content")
    basis = _parse_basis(candidate.get("basis"), fail)
    independent = _parse_independent(data.get("independent"), protocol, author, fail)
    evidence = []
    raw = data.get("evidence") or []
    if not isinstance(raw, list):
        raise fail("evidence", "expected a list of {kind, result, producer, about}")
    for i, item in enumerate(raw):
        evidence.append(_parse_evidence_item(item, protocol, f"evidence[{i}]", fail, source))
    return {
        "protocol": protocol.key, "id": case_id, "title": data["title"].strip(), "author": author,
        "candidate_path": path, "content": content, "basis": basis,
        "independent": independent, "evidence": evidence,
    }


def _check_json(value: Any, where: str) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected plain text, numbers, lists and mappings (no dates or binary)") from None


def _parse_basis(basis: Any, fail: Callable[[str, str], InputError]) -> dict[str, str]:
    if not isinstance(basis, dict):
        raise fail("candidate.basis", f"{'missing (expected' if basis is None else '(expected'} a mapping with "
                                      f"{', '.join(BASIS_FIELDS)})")
    unknown = sorted(set(map(str, basis)) - set(BASIS_FIELDS))
    if unknown:
        raise fail(f"candidate.basis.{unknown[0]}", f"unknown field (expected {', '.join(BASIS_FIELDS)})")
    out = {}
    for field in BASIS_FIELDS:
        if basis.get(field) is None:
            raise fail(f"candidate.basis.{field}", "missing (expected a string)")
        if not _is_text(basis.get(field)):
            raise fail(f"candidate.basis.{field}", "expected a string")
        out[field] = basis[field].strip()
    return out


def _parse_independent(value: Any, protocol: Protocol, author: str, fail: Callable[[str, str], InputError]) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail("independent", "expected a mapping {dimension: [producer, ...]}")
    out: dict[str, list[str]] = {}
    for dim, producers in value.items():
        if dim not in protocol.independence_dimensions:
            raise fail(f"independent.{dim}", "unknown independence dimension (expected one of "
                                             f"{', '.join(protocol.independence_dimensions)})")
        if producers is None:
            producers = []
        if not isinstance(producers, list) or not all(_is_text(p) for p in producers):
            raise fail(f"independent.{dim}", "expected a list of producer names")
        names = list(dict.fromkeys(check_name(p, field=f"independent.{dim}") for p in producers))
        if dim == AUTHOR_DIMENSION and any(same_actor(author, n) for n in names):
            raise fail(f"independent.{dim}", f"lists the case's own author {author}: the run that wrote "
                                             "the candidate is not independent of it")
        out[dim] = names
    return out


def _parse_evidence_item(item: Any, protocol: Protocol, where: str, fail: Callable[[str, str], InputError],
                         source: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise fail(where, "expected a mapping {kind, result, producer, about}")
    unknown = sorted(set(map(str, item)) - EVIDENCE_KEYS)
    if unknown:
        raise fail(f"{where}.{unknown[0]}", f"unknown field (expected {', '.join(sorted(EVIDENCE_KEYS))})")
    for field in ("kind", "result", "producer"):
        if item.get(field) is None:
            raise fail(f"{where}.{field}", "missing (expected a string)")
        if not _is_text(item.get(field)):
            raise fail(f"{where}.{field}", "expected a string")
    _check_kind(protocol, item["kind"], item["result"], lambda f, m: fail(f"{where}.{f}", m))
    about = item.get("about", "current")
    if not _is_text(about):
        raise fail(f"{where}.about", "expected current or a revision")
    at = item.get("at", item.get("observed_at"))
    if at is not None:
        at = parse_iso(str(at), field=f"{source}: {where}.at")
    details = item.get("details")
    if details is not None:
        if not isinstance(details, dict):
            raise fail(f"{where}.details", "expected a mapping")
        _check_json(details, f"{where}.details")
    return {"kind": item["kind"], "result": item["result"],
            "producer": check_name(item["producer"], field=f"{source}: {where}.producer"),
            "about": about.strip(), "at": at, "details": details}


def _check_kind(protocol: Protocol, kind: str, result: str, fail: Callable[[str, str], InputError]) -> None:
    if kind not in protocol.evidence_kinds:
        raise fail("kind", f"unknown evidence kind {kind!r} (expected one of {', '.join(protocol.evidence_kinds)})")
    results = protocol.evidence_kinds[kind]["results"]
    if results is not None and result not in results:
        raise fail("result", f"unknown result {result!r} of {kind} (expected one of {', '.join(results)})")


def read_case_file(path: str | Path) -> dict[str, Any]:
    return parse_case(read_yaml(path), str(path))


def _read(path_or_mapping: str | Path | dict[str, Any]) -> dict[str, Any]:
    if isinstance(path_or_mapping, dict):
        return parse_case(path_or_mapping, "case")
    return read_case_file(path_or_mapping)
