"""Acts on many items at once: one decision (or one assignment) with one note, taken on each item as its own act.

Nothing here decides anything by itself: each item goes through its act's own guarded pipeline (its
capability, self-dealing, open, lease and seen-seq checks), in its own transaction, and is its own event in
the chain, exactly as if the person had taken it on that item alone. An item the rules refuse is listed with
its refusal and the others go on; an item decided is never undone because another was refused.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from gatepost.store.flows import ASSIGNABLE, DECISIONS, assign, decide_on, rubric_of
from gatepost.store.kernel import GatepostError, InputError, last_seq
from gatepost.store.protocol import Rubric

MAX_ITEMS = 1000  # items one bulk act may name: more is a mistake more often than a queue
# Decisions taken on many items with one note: all but a draft's edit (its "note" is the draft's new YAML).
NOT_IN_BULK = {("draft", "edit"): "an edit is a draft's new text, written for one draft"}


@dataclass(frozen=True)
class ItemResult:
    """What happened to one item of a bulk act: done (with the event it wrote) or refused (with the refusal)."""

    key: str
    done: bool
    message: str  # the refusal's one line, or what was done
    seq: int | None = None  # the item's newest event after the act (done only)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.key, "done": self.done, "message": self.message, "seq": self.seq}


def check_keys(keys: list[str], *, field: str = "--ids") -> list[str]:
    """The ids as given, stripped, each once, in order; none or too many is bad input."""
    out = list(dict.fromkeys(k.strip() for k in keys if k and k.strip()))
    if not out:
        raise InputError(f"{field}: expected one or more ids, got none")
    if len(out) > MAX_ITEMS:
        raise InputError(f"{field}: expected at most {MAX_ITEMS} ids, got {len(out)}")
    return out


def check_bulk_decision(subject: str, name: str) -> None:
    """Refuse, as bad input, a decision that is not taken with one note on many items."""
    if subject not in DECISIONS:
        raise InputError(f"item: expected one of {', '.join(DECISIONS)}, got {subject!r}")
    if name not in DECISIONS[subject]:
        raise InputError(f"decision: expected one of {', '.join(DECISIONS[subject])} on a {subject}, got {name!r}")
    why = NOT_IN_BULK.get((subject, name))
    if why:
        raise InputError(f"decision: {name} is taken on one {subject} at a time ({why})")


NO_RUBRIC = "asks no rubric: decided without the answers"  # said of an item the answers do not apply to


def decide_each(db: Database, subject: str, name: str, keys: list[str], *, actor: str | None, note: str | None,
                seen: dict[str, int | None] | None = None,
                answers: Mapping[str, Any] | None = None) -> list[ItemResult]:
    """Take decision `name` on each item of `keys`, each its own act (`flows.decide_on`); `seen` holds the seq
    each item was at when the person looked (an item that changed since is refused by its seen-seq rule).

    `answers` answer the rubric of every item whose decision asks one, checked by each item's own act against
    its own rubric (an item whose rubric differs is refused as bad input, an unanswered question by rule
    `rubric`); an item whose decision asks none is decided without them, and its line says so.
    """
    check_bulk_decision(subject, name)
    out: list[ItemResult] = []
    for key in check_keys(keys):
        given = answers or None
        unasked = False
        try:
            if given is not None and rubric_of(db, subject, name, key) is None:
                given, unasked = None, True
            decide_on(db, subject, name, key, actor=actor, note=note, seen_seq=(seen or {}).get(key), answers=given)
        except GatepostError as exc:
            out.append(ItemResult(key, False, str(exc)))
            continue
        said = f"{subject} {key}: {name} by {actor}" + (f" ({NO_RUBRIC})" if unasked else "")
        out.append(ItemResult(key, True, said, last_seq(db, subject, key)))
    return out


@dataclass(frozen=True)
class SharedRubric:
    """The rubric one bulk decision asks once: the questions its items share (None: none of them asks one), the
    items it does not apply to (they ask none), and why it cannot be asked once (the items ask different ones)."""

    rubric: Rubric | None
    unasked: list[str]
    mixed: str | None = None


def shared_rubric(db: Database, subject: str, name: str, keys: list[str]) -> SharedRubric:
    """What decision `name` on the items `keys` asks: one rubric for all that ask one, or why not (`mixed`). An
    item that cannot be read is left to its own act, which refuses it."""
    check_bulk_decision(subject, name)
    groups: dict[tuple[Any, ...], list[str]] = {}
    found: dict[tuple[Any, ...], Rubric] = {}
    unasked: list[str] = []
    for key in check_keys(keys):
        try:
            rubric = rubric_of(db, subject, name, key)
        except GatepostError:
            continue
        if rubric is None:
            unasked.append(key)
            continue
        shape = rubric.questions
        groups.setdefault(shape, []).append(key)
        found.setdefault(shape, rubric)
    if len(groups) > 1:
        said = "; ".join(f"{', '.join(items[:3])}{' …' if len(items) > 3 else ''}: {', '.join(found[shape].keys())}"
                         for shape, items in groups.items())
        return SharedRubric(None, unasked, f"the marked items ask different rubrics ({said}); mark the items of one "
                                           "rubric at a time")
    return SharedRubric(next(iter(found.values()), None), unasked)


def assign_each(db: Database, subject: str, keys: list[str], assignee: str | None, *, actor: str | None,
                note: str | None = None) -> list[ItemResult]:
    """Assign each item of `keys` to `assignee` (None: clear), each its own act (`flows.assign`)."""
    if subject not in ASSIGNABLE:
        raise InputError(f"item: expected one of {', '.join(ASSIGNABLE)}, got {subject!r}")
    out: list[ItemResult] = []
    for key in check_keys(keys):
        try:
            seq = assign(db, subject, key, assignee, actor=actor, note=note)
        except GatepostError as exc:
            out.append(ItemResult(key, False, str(exc)))
            continue
        said = f"assigned to {assignee}" if assignee else "assignment cleared"
        out.append(ItemResult(key, True, f"{subject} {key}: {said}", seq))
    return out


def summary(results: list[ItemResult], doing: str) -> str:
    """`acknowledge: 3 of 5 done, 2 refused`."""
    done = sum(r.done for r in results)
    refused = len(results) - done
    return f"{doing}: {done} of {len(results)} done" + (f", {refused} refused" if refused else "")
