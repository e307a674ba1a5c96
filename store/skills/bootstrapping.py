"""Bootstrap: a starter manifest drawn from a skill's recent successful runs, as a draft.

Assertions are observations, so a draft says what the runs it watched had in
common: `min_words` at the 25th percentile of their word counts (linear
interpolation, rounded down so the p25 run itself passes), the headings
present in at least 80% of them as `required_patterns`, and a short default
list of refusals and hedging filler as `forbidden_patterns`.

A successful run is one that succeeded: the sample is the newest runs recorded
`ok` that are not refusals (they hold none of the refusal markers, the default
ones and the skill family's own) and that pass the active manifest, if any.
Every newer run left out is listed in the draft's evidence with why, so a
failure never shapes the draft meant to catch it. A refusal marker stays
forbidden whatever the sample holds; a filler phrase the sample itself
contains is dropped (a draft must not fail the runs it was drawn from).
It is never approved automatically.
"""

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from sqlite_utils import Database

from gatepost.store.kernel import InputError, RefusedError, each_row, one_of

from .assertions import CHECKS, CUSTOM_CHECKS, headings, run_checks
from .manifests import active_version, create_draft

SAMPLE_SIZE = 5
MIN_SAMPLE = 3
HEADING_SHARE = 0.8
# Refusals: markers of an output that failed without saying so. Kept short on purpose.
REFUSAL_MARKERS = (
    "I cannot",
    "I can't",
    "I'm unable to",
    "as an AI",
    "as a language model",
    "I don't have access",
)
# Hedging filler: forbidden by default, dropped when the sample itself holds it.
FILLER = (
    "it is important to note",
    "it's worth noting that",
)
DEFAULT_FORBIDDEN = REFUSAL_MARKERS + FILLER
# A skill family's own refusals (the family is the skill's recorded one, else that of the custom checks its
# active manifest names): how an output of that kind declines while sounding like an answer.
FAMILY_REFUSALS: dict[str, tuple[str, ...]] = {
    "markets": ("not financial advice", "cannot provide financial advice"),
    "research": ("could not access the paper", "no papers were found"),
    "narrative": ("cannot predict the market",),
    "digest": ("no data was available",),
}


def families(db: Database, skill: str) -> list[str]:
    """A skill's families: its recorded one, else those of the custom checks its active manifest names."""
    row = db.execute("SELECT family FROM skills WHERE name = ?", [skill]).fetchone()
    if row and row[0]:
        return [row[0]]
    active = active_version(db, skill, with_yaml=False)
    names = (active or {}).get("assertions") or {}
    return sorted({CUSTOM_CHECKS[name].family for name in names if name in CUSTOM_CHECKS})


def refusal_markers(db: Database, skill: str) -> list[str]:
    """The default refusal markers and the skill family's own, in that order."""
    markers = list(REFUSAL_MARKERS)
    for family in families(db, skill):
        markers += [m for m in FAMILY_REFUSALS.get(family, ()) if m not in markers]
    return markers


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (0-100) with linear interpolation between closest ranks (numpy's default)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _newest_runs(db: Database, skill: str) -> Iterator[dict[str, Any]]:
    cursor = db.execute("SELECT id, at, status, word_count, output FROM skill_runs WHERE skill = ?"
                        " ORDER BY at DESC, rowid DESC", [skill])
    yield from each_row(cursor)


def sample_runs(db: Database, skill: str, size: int = SAMPLE_SIZE) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The newest `size` successful runs of a skill, newest first, and every newer run left out with why.

    Left out: a run recorded `error`, a refusal (it holds a refusal marker, matched case-insensitively),
    a run that fails the active manifest. Runs are read newest first until the sample is full.
    """
    markers = [(m, m.casefold()) for m in refusal_markers(db, skill)]
    active = active_version(db, skill, with_yaml=False)
    sampled: list[dict[str, Any]] = []
    left_out: list[dict[str, Any]] = []
    for run in _newest_runs(db, skill):
        if len(sampled) >= size:
            break
        why = None
        text = (run["output"] or "").casefold()
        if run["status"] != "ok":
            why = f"recorded {run['status']}"
        elif found := [m for m, folded in markers if folded in text]:
            why = "a refusal: holds " + ", ".join(repr(m) for m in found)
        elif active is not None:
            failed = [r for r in run_checks(active["assertions"], run["output"]) if not r.passed]
            if failed:
                why = (f"fails the active manifest v{active['version']}: "
                       + "; ".join(f"{r.assertion}: {r.message}" for r in failed))
        if why:
            left_out.append({"id": run["id"], "at": run["at"], "status": run["status"], "why": why})
        else:
            sampled.append({k: run[k] for k in ("id", "at", "word_count", "output")})
    return sampled, left_out


def left_out_words(left_out: list[dict[str, Any]]) -> list[str]:
    """"hn-digest-0007: a refusal: holds 'I cannot'" per run left out."""
    return [f"{r['id']}: {r['why']}" for r in left_out]


def propose(db: Database, skill: str, *, sample: int = SAMPLE_SIZE) -> tuple[dict[str, Any], dict[str, Any]]:
    """(assertions, evidence) for a skill, without storing anything; too few successful runs is a refusal."""
    if sample < MIN_SAMPLE:
        raise InputError(f"bootstrap {skill}: --sample: expected at least {MIN_SAMPLE} runs, got {sample}")
    runs, left_out = sample_runs(db, skill, sample)
    if len(runs) < sample:
        skipped = f" ({len(left_out)} left out: {'; '.join(left_out_words(left_out[:3]))}" + (
            f"; and {len(left_out) - 3} more)" if len(left_out) > 3 else ")") if left_out else ""
        raise RefusedError(f"bootstrap {skill}: refused: {len(runs)} successful run"
                           f"{'' if len(runs) == 1 else 's'} recorded, bootstrap needs the last {sample}{skipped}")
    counts = [r["word_count"] for r in runs]
    p25 = percentile(counts, 25)
    found: dict[str, dict[str, Any]] = {}  # casefolded heading -> {"text", "runs"}
    per_run = []
    for run in runs:
        titles = []
        for _line, title in headings(run["output"]):
            key = title.casefold()
            entry = found.setdefault(key, {"text": title, "runs": [], "spellings": {}})
            entry["spellings"][title] = entry["spellings"].get(title, 0) + 1
            if run["id"] not in entry["runs"]:
                entry["runs"].append(run["id"])
                titles.append(title)
        per_run.append({"id": run["id"], "at": run["at"], "word_count": run["word_count"], "headings": titles})
    for entry in found.values():  # the most common spelling of a heading; ties go to the newest run's
        entry["text"] = max(entry["spellings"], key=lambda t: (entry["spellings"][t], -list(entry["spellings"]).index(t)))
    needed = math.ceil(HEADING_SHARE * len(runs))
    common = [e["text"] for e in found.values() if len(e["runs"]) >= needed]
    outputs = [(r["id"], (r["output"] or "").casefold()) for r in runs]
    markers = refusal_markers(db, skill)
    forbidden, dropped = list(markers), {}  # a refusal marker is never dropped: refusals were left out above
    for pattern in FILLER:
        seen_in = [rid for rid, text in outputs if pattern.casefold() in text]
        if seen_in:
            dropped[pattern] = seen_in
        else:
            forbidden.append(pattern)
    assertions: dict[str, Any] = {"min_words": math.floor(p25)}
    if common:
        assertions["required_patterns"] = common
    if forbidden:
        assertions["forbidden_patterns"] = forbidden
    active = active_version(db, skill, with_yaml=False)
    evidence = {
        "sample_size": sample,
        "runs": per_run,
        "left_out": left_out,
        "refusal_markers": markers,
        "checked_against": active["version"] if active else None,
        "word_counts": counts,
        "min_words": {"percentile": 25, "method": "linear", "value": p25, "rounded_down": math.floor(p25)},
        "heading_share": HEADING_SHARE,
        "headings_needed": needed,
        "headings": {e["text"]: e["runs"] for e in found.values()},
        "forbidden_dropped": dropped,
    }
    return assertions, evidence


def bootstrap(db: Database, skill: str, *, actor: str, sample: int = SAMPLE_SIZE, origin: str = "bootstrap",
              note: str | None = None) -> dict[str, Any]:
    """Draw a draft from the last successful runs and store it, pending a person's review."""
    if sample < MIN_SAMPLE:
        raise InputError(f"bootstrap {skill}: --sample: expected at least {MIN_SAMPLE} runs, got {sample}")
    if not db.execute("SELECT 1 FROM skills WHERE name = ?", [skill]).fetchone():
        raise InputError(f"--skill: no skill {skill!r} in this store (record runs first)")
    assertions, evidence = propose(db, skill, sample=sample)
    return create_draft(db, skill, assertions, author=actor, origin=origin, evidence=evidence, note=note)


def sample_failures(db: Database, draft: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The runs a draft was drawn from that it would fail, and on which assertion.

    `min_words` at p25 is the seed's rule, so by design the shortest sampled runs can fall below it;
    a person must see that before approving, most of all when the newest run (the one the next eval
    checks) fails: approving would make it NEW_FAIL at once. Checks the draft's assertions as they are
    now (an edited draft is checked as edited). Newest run first.
    """
    evidence = draft.get("evidence") or {}
    ids = [r["id"] for r in evidence.get("runs", [])]
    if not ids:
        return []
    clause, values = one_of("id", ids)
    outputs = dict(db.execute(f"SELECT id, output FROM skill_runs WHERE {clause}", values).fetchall())
    found = []
    for index, run_id in enumerate(ids):
        if run_id not in outputs:
            continue
        for key, value in (draft.get("assertions") or {}).items():
            check = CHECKS.get(key)
            if check is None:
                continue
            passed, message = check(outputs[run_id] or "", value)
            if not passed:
                found.append({"run_id": run_id, "newest": index == 0, "assertion": key, "message": message})
    return found


def failure_lines(failures: list[dict[str, Any]]) -> list[str]:
    """Plain lines saying which sampled runs a draft would fail (for the CLI and the console's detail)."""
    lines = []
    for f in failures:
        newest = " (the newest run: the next eval fails at once, NEW_FAIL)" if f["newest"] else ""
        lines.append(f"would fail sampled run {f['run_id']}{newest} on {f['assertion']}: {f['message']}")
    return lines


# --- what a reviewer is told beside a manifest --------------------------------------------------
# Single words a forbidden list may rightly hold: placeholders an output should never carry.
PLACEHOLDER_WORDS = frozenset({"lorem", "ipsum", "todo", "fixme", "tbd", "xxx", "placeholder", "undefined", "null",
                               "nan", "none"})
_STYLE_WORD = re.compile(r"^[A-Za-z][a-z]+(?:['-][a-z]+)*$")


def style_words(assertions: dict[str, Any]) -> list[str]:
    """Forbidden patterns that are one ordinary word (`exciting`, `consider`): a choice of style, not a refusal
    or hallucination marker (those are phrases: "I cannot", "as an AI"). A placeholder word is not flagged."""
    return [p for p in assertions.get("forbidden_patterns") or []
            if _STYLE_WORD.match(p.strip()) and p.strip().casefold() not in PLACEHOLDER_WORDS]


def review_notes(db: Database, skill: str, assertions: dict[str, Any], *, hand_written: bool) -> list[str]:
    """What a reviewer should know of a manifest: written by hand for a skill with no run recorded it is
    speculative (the seed: bootstrap before writing speculatively); a style word it forbids is flagged."""
    notes = []
    if hand_written and db.execute("SELECT 1 FROM skill_runs WHERE skill = ? LIMIT 1", [skill]).fetchone() is None:
        notes.append(f"speculative: no run of {skill} is recorded, so these assertions observe nothing yet: "
                     f"bootstrap before writing speculatively (gatepost bootstrap --skill {skill} once it has runs)")
    for word in style_words(assertions):
        notes.append(f"forbidden_patterns: {word!r} is an ordinary word of style, not a refusal or a hallucination "
                     "marker: keep the list tight, do not lint stylistic choices")
    return notes


def draft_review_lines(db: Database, draft: Mapping[str, Any]) -> list[str]:
    """Everything a draft's reviewer is warned of: sampled runs it would fail, runs bootstrap left out and why,
    and the review notes (an edited draft is written by hand)."""
    evidence = draft.get("evidence") or {}
    lines = failure_lines(sample_failures(db, draft))
    lines += [f"left out of the sample: {text}" for text in left_out_words(evidence.get("left_out") or [])]
    lines += review_notes(db, draft["skill"], draft.get("assertions") or {}, hand_written=draft.get("origin") == "edit")
    return lines
