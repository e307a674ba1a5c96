"""What the console and the CLI read of cases: the case view (everything a person needs to decide),
`case show --json`, one page of the case list, and the short forms lists show.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from gatepost.store import glyphs, loops
from gatepost.store.kernel import (
    InputError,
    all_rows,
    capabilities_of,
    last_seq,
    one_of,
)
from gatepost.store.protocol import (
    BLOCKED,
    protocol_for,
    short,
)

from .counts import kept_count
from .derived import (
    KEPT_NOT_LANDED,
    MOCK_WHY,
    _contradicted,
    _decisions,
    _records,
    _stale,
    case_state,
    contradicted_case_ids,
    get_case,
    is_mock,
    undecided_notes,
)
from .design_review import waiting_on_design_review
from .parse import DEFAULT_PROTOCOL
from .types import CaseRow, CaseView, DecisionItem, EvidenceItem

if TYPE_CHECKING:
    from sqlite_utils import Database


def noise_warnings(evidence: list[EvidenceItem]) -> list[str]:
    """One line per counting record whose comparison is not decided at its alpha: a claim resting on noise.

    The evaluation puts `inside_noise` and the comparisons in words in the record's details
    (flows.evaluate_case); records from elsewhere say nothing of it and draw no warning.
    """
    lines = []
    for e in evidence:
        details = e.get("details") or {}
        flags, words = details.get("inside_noise"), details.get("comparisons")
        if e["status"] != "counting" or not isinstance(flags, list) or not isinstance(words, list):
            continue
        for i, (flag, said) in enumerate(zip(flags, words, strict=False)):
            if flag is True and isinstance(said, str):
                run = f" run {i + 1}" if len(flags) > 1 else ""
                decides = f" ({', '.join(e['decides'])})" if e.get("decides") else ""
                rule = f" ({details['decided_by']})" if isinstance(details.get("decided_by"), str) else ""
                lines.append(f"#{e['id']} {e['kind']} {e['result']}{decides} rests on a delta inside the noise"
                             f"{rule}:{run} {said}")
    return lines


def case_view(db: Database, case_id: str, *, actor: str | None = None) -> CaseView:
    """Everything a person needs to decide a case: the `case show --json` shape plus the why of each value.

    Actions' status is for `actor` (their capabilities are the authority held):
    approval-required means someone holding the capability must take it.
    """
    case = get_case(db, case_id)
    authority = set(capabilities_of(db, actor)) if actor else set()  # the whole actor took 7 reads
    protocol = protocol_for(case["protocol"])
    evidence_rows = _records(db, case_id)  # read once: for the interpreter and for the list shown
    evaluation = protocol.evaluate(case_state(case, evidence_rows, authority))
    actions = evaluation.actions()
    outcomes = evaluation.outcomes()
    decisions = _decisions(db, case_id)
    if case["status"] != "open":
        last = decisions[-1] if decisions else {}
        closed = f"the case is closed ({case['outcome']}" + (f" by {last['actor']})" if last else ")")
        actions = {n: {"allowed": False, "status": BLOCKED, "why": closed} for n in actions}
        outcomes = {n: {"allowed": False, "why": closed} for n in outcomes}
    rows = {str(r["id"]): r for r in evidence_rows}
    evidence: list[EvidenceItem] = []
    for item in evaluation.records():
        rec = item["record"]
        row = rows[rec.id]
        evidence.append({"id": row["id"], "kind": rec.kind, "result": rec.result, "producer": rec.producer,
                         "artifact": rec.artifact, "about": rec.revision, "observed_at": rec.observed_at,
                         "details": json.loads(row["details"]) if row["details"] else None,
                         "status": item["status"], "why": item["why"], "decides": item["decides"]})
    for row in rows.values():
        if is_mock(row):
            evidence.append({"id": row["id"], "kind": row["kind"], "result": row["result"],
                             "producer": row["producer"], "artifact": row["artifact"], "about": row["about"],
                             "observed_at": row["observed_at"], "details": json.loads(row["details"]),
                             "status": "mock", "why": MOCK_WHY, "decides": []})
    evidence.sort(key=lambda e: e["id"])
    counts = {s: sum(1 for e in evidence if e["status"] == s) for s in ("counting", "stale", "not independent")}
    undecided = undecided_notes(db, case_id, case["current_revision"])
    explanations = {name: evaluation.claim_why(name) for name in protocol.claims}
    for name, why in explanations.items():
        for kind, note in undecided.items():
            if evaluation.claims[name] == "UNKNOWN" and kind in why:
                explanations[name] = f"{why}; the evaluation settled nothing: {note}"
    applied = loops.applications_of(db, "case", case_id)
    stale = _stale(db, case, applied)
    path = case["candidate_path"]
    link = loops.loop_case(db, case_id)
    return {
        "id": case["id"],
        "revision": case["current_revision"],
        "claims": dict(evaluation.claims),
        "actions": actions,
        "outcomes": outcomes,
        "outcome": case["outcome"],
        "title": case["title"],
        "author": case["author"],
        "protocol": case["protocol"],
        "status": case["status"],
        "last_seq": last_seq(db, "case", case_id),
        "independent": case["independent"],
        "candidate": {"path": case["candidate_path"], "content": case["content"], "basis": case["basis"],
                      "revision": case["current_revision"]},
        "explanations": explanations,
        "undecided": undecided,
        "noise": noise_warnings(evidence),
        "claim_order": list(protocol.claim_order),
        "derived": [name for name in protocol.claims if protocol.derived(name)],
        "claim_descriptions": {name: desc for name, (desc, _c) in protocol.claims.items()},
        "trees": {name: evaluation.claim_tree(name) for name in protocol.claims},
        "evidence": evidence,
        "evidence_counts": counts,
        "decisions": [DecisionItem(id=d["id"], outcome=d["outcome"], actor=d["actor"], capability=d["capability"],
                                   revision=d["revision"], note=d["note"], at=d["at"], based_on_seq=d["based_on_seq"],
                                   rubric=json.loads(d["rubric"]) if d.get("rubric") else None)
                      for d in decisions],
        "rubric": [{"key": q.key, "question": q.question, "scale": q.scale}
                   for q in (protocol.rubric.questions if protocol.rubric else ())],
        "viewer": actor,
        "viewer_capabilities": sorted(authority),
        "loop": link["loop"] if link else None,
        "base": {"path": path, "made_on": case["basis"].get("baseline"),
                 "current": loops.current_hash(db, path) if path else None, "stale": bool(stale), "why": stale},
        "applied": applied,
        "contradicted": _contradicted(db, case, lambda: evidence_rows),
    }


CASE_SCHEMA = "gatepost.case/1"


def show_json(view: CaseView) -> dict[str, Any]:
    """The `case show --json` document (schema gatepost.case/1): DESIGN.md's shape, then everything a loop needs.

    Status, `last_seq` (what `case decide --seq` asks for), decisions, the candidate (content, basis,
    path), evidence with its producer, status and runs, the loop, its base and where it landed.
    """
    doc: dict[str, Any] = {"schema": CASE_SCHEMA}
    doc.update({k: view[k] for k in ("id", "revision", "claims", "actions", "outcomes", "outcome")})
    doc.update({k: view[k] for k in ("status", "last_seq", "title", "author", "protocol", "independent",
                                     "candidate", "decisions", "rubric", "loop", "base", "applied",
                                     "contradicted")})
    doc["evidence"] = [{k: e[k] for k in ("id", "kind", "result", "producer", "artifact", "about", "observed_at",
                                          "status", "why", "decides")}
                       | {"runs": list((e["details"] or {}).get("runs", [])), "details": e["details"]}
                       for e in view["evidence"]]
    doc["evidence_counts"] = view["evidence_counts"]
    return doc


def list_cases(db: Database, *, status: str | None = None, outcome: str | None = None,
               needs_decision: bool | None = None, search: str | None = None, limit: int = 100,
               offset: int = 0, contradicted: bool = False,
               kept_not_landed: bool = False) -> tuple[list[CaseRow], int]:
    """One page of cases, newest activity first, from the projection's indexed columns; and the total.

    `contradicted` keeps the closed cases whose decision later evidence contradicts (status
    `contradicted` is the same); `kept_not_landed` the kept cases never recorded applied.
    """
    clauses: list[str] = []
    params: list[Any] = []
    if status == "contradicted":
        status, contradicted = None, True
    if status == "kept_not_landed":
        status, kept_not_landed = None, True
    if kept_not_landed:
        clauses.append(f"({KEPT_NOT_LANDED})")
    if status == "design_review":
        waiting = waiting_on_design_review(db, DEFAULT_PROTOCOL)
        clause, values = one_of("id", waiting)
        clauses.append(clause)
        params += values
        status = None
    if contradicted:
        found = contradicted_case_ids(db)
        clause, values = one_of("id", found)
        clauses.append(clause)
        params += values
    counted_apart = bool(clauses)  # a filter the kept counts (case_counts) do not count by
    if status == "needs_decision":
        status, needs_decision = "open", True
    if status:
        if status not in ("open", "closed"):
            raise InputError(f"--status: expected open, closed, needs_decision, design_review or contradicted, "
                             f"got {status!r}")
        clauses.append("status = ?")
        params.append(status)
    if outcome:
        clauses.append("outcome = ?")
        params.append(outcome)
    if needs_decision is not None:
        clauses.append("needs_decision = ?")
        params.append(1 if needs_decision else 0)
    if search and search.strip():
        like = f"%{search.strip()}%"
        clauses.append("(id LIKE ? OR title LIKE ? OR author LIKE ? OR candidate_path LIKE ? "
                       "OR current_revision LIKE ?)")
        params += [like, like, like, like, search.strip() + "%"]
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    if not counted_apart and not (search and search.strip()):
        # filtered by status, outcome and needs_decision alone: the kept counts hold the total
        total = kept_count(db, status=status or None, outcome=outcome or None, needs_decision=needs_decision)
    else:
        total = db.execute(f"SELECT COUNT(*) FROM cases{where}", params).fetchone()[0]
    cursor = db.execute(
        "SELECT id, title, author, protocol, candidate_path, current_revision, status, outcome, claims, allowed,"
        f" needs_decision, last_seq, created_at, updated_at FROM cases{where}"
        " ORDER BY updated_at DESC, id LIMIT ? OFFSET ?", [*params, int(limit), int(offset)])
    rows: list[CaseRow] = []
    for row in all_rows(cursor):  # the columns selected are CaseRow's keys
        row["claims"] = json.loads(row["claims"] or "{}")
        row["allowed"] = json.loads(row["allowed"] or "[]")
        rows.append(cast(CaseRow, row))
    return rows, int(total)


def claim_strip(protocol_ref: str, claims: dict[str, str]) -> str:
    """✔ ✘ ? per claim in protocol order, claims resting on claims after a space (for lists)."""
    protocol = protocol_for(protocol_ref)
    base = "".join(glyphs.CLAIM.get(claims.get(n, ""), glyphs.UNKNOWN) for n in protocol.claim_order
                   if not protocol.derived(n))
    derived = "".join(glyphs.CLAIM.get(claims.get(n, ""), glyphs.UNKNOWN) for n in protocol.claim_order
                      if protocol.derived(n))
    return f"{base} {derived}".strip()


def evidence_note(item: EvidenceItem) -> str:
    """`counting`, `stale: about revision …`, `not independent: producer … not independent on …`; a comparison
    the evaluator recorded adds the rule that decided it (`counting: strict: noise may pass`)."""
    status: str = item["status"]
    why: str = item["why"]
    text = why if why == status or why.startswith(status) else f"{status}: {why}"
    rule = (item.get("details") or {}).get("decided_by")
    if not isinstance(rule, str) or not rule:
        return text
    return f"{text}: {rule}" if text == status else f"{text}; {rule}"


def short_revision(revision: str | None, width: int = 6) -> str:
    """A hash's first characters; a name such as design-2 is shown whole."""
    return short(revision, width)
