"""People's step on a case: the review of its evaluation design.

A design review is evidence (`design_review`, passed or failed) about the design the case's basis
names, recorded by a holder of eval_design.review through the evidence act (the guarded pipeline).
A case *waits on a design review* when the claims resting on a design review are UNKNOWN and every
other claim resting on evidence is decided: nobody's decision queue holds it (no outcome but
inconclusive is allowed), so it has a queue of its own, for reviewers.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from gatepost.store.protocol import All, AnyOf, Condition, Evidence, Not, Protocol, protocol_for

if TYPE_CHECKING:
    from sqlite_utils import Database

DESIGN_REVIEW_KIND = "design_review"
AUTHOR_DIMENSION = "different_agent_run"  # the dimension a design review must be independent on (case.py's)
DESIGN_QUEUE = "design_reviews"


def _evidence_kinds(cond: Condition | None) -> Iterator[str]:
    if isinstance(cond, Evidence):
        yield cond.kind
    elif isinstance(cond, (All, AnyOf)):
        for item in cond.items:
            yield from _evidence_kinds(item)
    elif isinstance(cond, Not):
        yield from _evidence_kinds(cond.item)


def design_claims(protocol: Protocol) -> tuple[list[str], list[str]]:
    """The claims resting on a design review, and the other claims resting on evidence."""
    base = [name for name in protocol.claim_order if not protocol.derived(name)]
    design = [name for name in base if DESIGN_REVIEW_KIND in set(_evidence_kinds(protocol.claims[name][1]))]
    return design, [name for name in base if name not in design]


def claims_condition(protocol_ref: str) -> str:
    """The rule of `waits_on_design_review` as an SQL condition over a cases row (its stored claims): how the
    cases stored before the projection kept its `design_review` mark were marked (gatepost.store.schema)."""
    design, others = design_claims(protocol_for(protocol_ref))

    def claim(name: str) -> str:
        return "json_extract(claims, '$.\"" + name.replace('"', "") + "\"')"

    parts = [f"{claim(n)} = 'UNKNOWN'" for n in design] + [f"{claim(n)} IN ('TRUE', 'FALSE')" for n in others]
    return f"status = 'open' AND protocol = '{protocol_ref}' AND " + (" AND ".join(parts) if design else "0")


@cache
def waiting_sql(protocol_ref: str, *, for_reviewer: bool = False) -> str:
    """SQL over the cases projection: `id`s of open cases waiting only on a design review, oldest first, read
    through the index of the projection's `design_review` mark (set by `waits_on_design_review`).

    `for_reviewer`: only those whose review by the person bound to its one `?` would count (the case
    lists them as independent, as a loop's case lists the loop's reviewers): that reviewer's queue.
    """
    reviewer = (f" AND EXISTS (SELECT 1 FROM json_each(cases.independent, '$.{AUTHOR_DIMENSION}') WHERE value = ?)"
                if for_reviewer else "")
    return (f"SELECT id FROM cases WHERE status = 'open' AND design_review = 1 AND protocol = '{protocol_ref}'"
            f"{reviewer} ORDER BY updated_at, id")


def waiting_on_design_review(db: Database, protocol_ref: str) -> list[str]:
    """The open cases waiting only on a design review (their reviewers' queue), oldest activity first."""
    return [r[0] for r in db.execute(waiting_sql(protocol_ref)).fetchall()]


def waiting_count(db: Database, protocol_ref: str) -> int:
    """How many open cases wait only on a design review: counted in the index of the projection's mark, so
    the count costs what the queue holds, not what the store holds."""
    return int(db.execute("SELECT COUNT(*) FROM cases WHERE status = 'open' AND design_review = 1 AND protocol = ?",
                          [protocol_ref]).fetchone()[0])


def known_designs(db: Database, case_id: str) -> list[str]:
    """Every design a revision of the case was made on (its basis `design`), first seen first."""
    rows = db.execute("SELECT json_extract(basis, '$.design') FROM candidate_revisions WHERE case_id = ?"
                      " ORDER BY event_seq", [case_id]).fetchall()
    return list(dict.fromkeys(r[0] for r in rows if r[0]))


def waits_on_design_review(protocol_ref: str, claims: dict[str, str]) -> bool:
    """Pure: whether claims (an open case's) wait only on a design review: the projection's `design_review` mark."""
    design, others = design_claims(protocol_for(protocol_ref))
    return bool(design) and all(claims.get(n) == "UNKNOWN" for n in design) \
        and all(claims.get(n) in ("TRUE", "FALSE") for n in others)
