"""Canonical JSON and the candidate revision: what makes two candidates the same candidate."""

import json
from typing import Any

BASIS_FIELDS = ("baseline", "data_revision", "design", "question_set")


def canonical_json(value: Any) -> str:
    """Keys sorted, no spaces, non-ASCII kept as is: one text per value, whoever writes it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(value: Any) -> str:
    """sha256 hex of the UTF-8 bytes of the value's canonical JSON."""
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def candidate_revision(content: Any, basis: dict[str, Any], path: str | None = None) -> str:
    """The revision of a candidate: its content hashed together with its basis and the path it changes.

    Moving any basis field (baseline, question set, data revision, design) or the path makes a new
    revision, so evidence about the old one no longer counts: a change checked for one file says nothing
    about another. A candidate with no path hashes `{basis, content}` alone, as before paths counted.
    """
    return content_hash({"basis": dict(basis), "content": content, **({"path": path} if path else {})})


def short(revision: str | None, width: int = 7) -> str:
    """The first characters of a hash, for lists and explanations; a name (design-2) stays whole."""
    text = revision or ""
    if not all(ch in "0123456789abcdef" for ch in text):
        return text
    return text[:width]
