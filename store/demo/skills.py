"""Demo part: an agent's installed skills, their runs and evals, regression states and manifest drafts.

Every regression state is present (NEW_FAIL of each severity, CHRONIC,
STABLE_FAIL, NEW_PASS, PASS), each skill with 6-15 evaluated runs whose
outputs are what such a skill writes, failing the way such skills fail
(refusals, a dropped section, hedging filler, a missing source, an error).
Drafts: bootstrap drafts pending, edited, approved and rejected, and drafts
started by a "manifest mismatch" triage.
"""

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict

import yaml
from sqlite_utils import Database

from gatepost.store.kernel import GatepostError
from gatepost.store.skills import (
    HIGH_FROM,
    acknowledge,
    approve_draft,
    bootstrap,
    edit_draft,
    evaluate,
    flag_mismatch,
    import_manifest,
    record_run,
    reject_draft,
)

ORDER = 10
BASE = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
PRODUCERS = ["run-41", "run-52", "run-53", "run-60", "run-61"]

TOKENS = ["SOL", "JUP", "BONK", "WIF", "PYTH", "ARB", "OP", "TIA", "PEPE", "LINK", "AAVE", "ENA", "ONDO", "SUI",
          "APT", "TON", "INJ", "SEI", "RNDR", "FET", "TAO", "STRK", "ZRO", "EIGEN"]
REASONS = ["on ETF filing chatter", "ahead of the token unlock", "after the staking upgrade", "as meme volumes returned",
           "on new exchange listings", "after a governance vote passed", "as perps funding flipped positive",
           "on a treasury buyback", "after the mainnet launch", "as a large holder moved coins to exchanges",
           "on integration news", "with open interest at a monthly high"]
MARKET_FILLER = ["Volumes ran above the weekly average while majors stayed range-bound.",
                 "Funding stayed close to neutral across the large caps.",
                 "Stablecoin inflows to exchanges picked up in the second half of the day.",
                 "Liquidations were concentrated in long positions on mid caps.",
                 "Spot led perps for most of the session, which usually makes moves stickier."]
NARRATIVES = ["restaking", "AI agents", "real-world assets", "memecoins", "L2 fee wars", "DePIN", "onchain gaming",
              "stablecoin yields", "intents", "modular data availability"]
PHASES = ["hype", "consolidation", "early adoption", "rotation", "capitulation", "recovery"]
PAPERS = [("Scaling Laws for Sparse Autoencoders", "2405.01234"), ("Tool Use Without Tool Tokens", "2406.11873"),
          ("Verifier-Guided Self-Improvement", "2407.02231"), ("Long-Context Retrieval Is Not Solved", "2408.05102"),
          ("Contamination in Agent Benchmarks", "2409.09912"), ("Preference Data From Code Execution", "2410.00417")]
STORIES = ["A new open-source vector database hits 1.0", "Postmortem: a week-long DNS outage",
           "Why we moved off Kubernetes", "The economics of small language models", "SQLite as an application format",
           "A tour of modern terminal UIs", "Rust in the Linux kernel, two years on", "Reverse-engineering a CPU cache",
           "An honest look at code review metrics", "The case for boring technology", "Local-first sync, explained",
           "How a tiny team runs a search engine"]

class _Family(TypedDict):
    skills: list[str]
    manifest: dict[str, Any]
    faults: list[str]


FAMILIES: dict[str, _Family] = {
    "markets": {
        "skills": ["token-movers", "token-movers-solana", "token-movers-base", "token-movers-arbitrum",
                   "token-movers-ethereum", "token-movers-bnb", "token-movers-cosmos", "token-movers-sui",
                   "token-movers-ton", "token-movers-avalanche", "token-movers-polygon", "token-movers-optimism"],
        "manifest": {"min_words": 60, "required_patterns": ["Top movers", "24h"],
                     "forbidden_patterns": ["I cannot", "as an AI", "as a language model"],
                     "must_cite_source": True, "min_distinct_items": 5, "must_quote_changes": True},
        "faults": ["refusal", "short", "nosource", "dupes", "error"],
    },
    "narrative": {
        "skills": ["narrative-tracker", "narrative-defi", "narrative-ai-agents", "narrative-restaking",
                   "narrative-rwa", "narrative-gaming", "narrative-memecoins", "narrative-l2s"],
        "manifest": {"min_words": 80, "required_sections": ["TRANSITIONS", "POSITIONS", "MAP"],
                     "forbidden_patterns": ["exciting", "consider"], "must_have_position_call": True,
                     "must_name_drivers": True},
        "faults": ["nomap", "hedge", "nocall", "error"],
    },
    "research": {
        "skills": ["paper-pick", "arxiv-cs-cl", "arxiv-cs-lg", "arxiv-cs-cr", "arxiv-q-fin", "arxiv-stat-ml",
                   "hf-papers"],
        "manifest": {"min_words": 90, "required_sections": ["Central claim", "Why it's worth reading",
                                                            "Where it might be wrong", "Read order"],
                     "must_cite_paper": True, "forbidden_patterns": ["groundbreaking", "as an AI"]},
        "faults": ["nowrong", "nolink", "hype"],
    },
    "digest": {
        "skills": ["hn-digest", "lobsters-digest", "github-trending", "producthunt-digest", "reddit-ml-digest",
                   "rss-digest", "changelog-digest"],
        "manifest": {"min_words": 70, "max_words": 600, "required_patterns": ["Top stories"],
                     "min_distinct_items": 5, "must_cite_source": True, "must_date_the_report": True},
        "faults": ["dupes", "undated", "long", "error"],
    },
    "brief": {
        "skills": ["macro-brief", "governance-watch", "unlock-calendar", "defi-yields", "onchain-flows",
                   "security-advisories", "funding-rounds", "stablecoin-supply", "etf-flows", "regulatory-watch"],
        "manifest": {"min_words": 50, "max_words": 400, "required_sections": ["SUMMARY", "WATCH"],
                     "forbidden_patterns": ["it is important to note", "I'm unable to"], "must_cite_source": True,
                     "output_pattern": r"^\*\*Bottom line:\*\* .+"},
        "faults": ["nowatch", "hedge", "nobottom", "error"],
    },
}
# Skills with runs but no manifest yet: the coverage gap bootstrap is for.
UNMANIFESTED = {"huggingface-trending": "digest", "podcast-digest": "digest", "newsletter-digest": "digest"}
# A manifest written by hand for a skill that has no run yet, forbidding words of style: review flags both.
SPECULATIVE = ("weekly-outlook:\n  min_words: 300\n  required_sections: [OUTLOOK, RISKS]\n"
               "  forbidden_patterns: [exciting, consider, as an AI]\n")
TARGETS = ["NEW_FAIL:high"] * 6 + ["NEW_FAIL:medium"] * 6 + ["NEW_FAIL:low"] * 6 + ["CHRONIC"] * 7 + \
    ["STABLE_FAIL"] * 7 + ["NEW_PASS"] * 6


def _markets(rng: random.Random, skill: str, day: datetime, fault: str | None) -> str:
    chain = skill.removeprefix("token-movers").strip("-") or "all chains"
    if fault == "refusal":
        return ("I cannot provide real-time market data as an AI language model. Prices change quickly; "
                "please check an exchange or a data aggregator for the latest movers.")
    count = 2 if fault == "short" else rng.randint(6, 9)
    tokens = rng.sample(TOKENS, count)
    items = [f"- {token} {rng.choice([-1, 1]) * rng.uniform(2.5, 24):+.1f}% {rng.choice(REASONS)}" for token in tokens]
    if fault == "dupes":  # the same three movers listed twice
        items = items[:3] * 2
    lines = [f"# Top movers — 24h ({chain})", "", rng.choice(MARKET_FILLER), "", *items]
    if fault != "short":
        lines += ["", " ".join(rng.sample(MARKET_FILLER, 3))]
    if fault not in ("nosource", "short"):
        lines += ["", f"Source: https://www.coingecko.com/en/highlights?date={day:%Y-%m-%d}"]
    return "\n".join(lines) + "\n"


def _narrative(rng: random.Random, skill: str, day: datetime, fault: str | None) -> str:
    picks = rng.sample(NARRATIVES, 4)
    lines = ["## TRANSITIONS", ""]
    for name in picks[:3]:
        a, b = rng.sample(PHASES, 2)
        lines.append(f"{name.capitalize()} moved from {a} to {b} as flows and developer activity shifted this week.")
    if fault == "hedge":
        lines.append("This is an exciting time, and readers should consider every angle before acting.")
    lines += ["", "Drivers: " + ", ".join(rng.sample(["ETF flows", "token unlocks", "fee switches", "airdrops",
                                                      "regulatory news", "exchange listings"], 3)), "",
              "## POSITIONS", ""]
    if fault == "nocall":
        lines.append("The desk keeps its book unchanged and waits for clearer signals from the flows.")
    else:
        lines.append(f"Position: overweight {picks[0]}, underweight {picks[1]} into the unlock schedule.")
        lines.append(f"Neutral on {picks[2]} until volumes confirm the move.")
    if fault != "nomap":
        lines += ["", "## MAP", ""] + [f"- {name}: {rng.choice(PHASES)}" for name in picks]
    return "\n".join(lines) + "\n"


def _research(rng: random.Random, skill: str, day: datetime, fault: str | None) -> str:
    title, arxiv = rng.choice(PAPERS)
    lines = [f"# {title}", "", "## Central claim", "",
             "The authors argue that the effect holds across model sizes and that it survives a change of data mix, "
             "which would make it a property of the method rather than of one training run.", "",
             "## Why it's worth reading", "",
             "It replaces a hand-tuned heuristic with a measurement that anyone can repeat on a laptop-sized model."]
    if fault == "hype":
        lines.append("A groundbreaking result that changes everything we know about training.")
    if fault != "nowrong":
        lines += ["", "## Where it might be wrong", "",
                  "The held-out set is small and drawn from the same sources as the tuning set, so leakage is possible."]
    lines += ["", "## Read order", "", "1. Section 3 for the setup", "2. The ablation table", "3. The appendix on data"]
    if fault != "nolink":
        lines += ["", f"Paper: https://arxiv.org/abs/{arxiv}"]
    return "\n".join(lines) + "\n"


def _digest(rng: random.Random, skill: str, day: datetime, fault: str | None) -> str:
    stories = [f"{story} ({rng.randint(80, 900)} points, {rng.randint(20, 400)} comments)"
               for story in rng.sample(STORIES, rng.randint(6, 8))]
    if fault == "dupes":  # the feed returned the same page twice
        stories = stories[:3] * 2
    header = f"# {skill} — Top stories" + ("" if fault == "undated" else f" for {day:%Y-%m-%d}")
    lines = [header, ""] + [f"{i}. {story}" for i, story in enumerate(stories, 1)]
    lines += ["", "The discussion threads were more technical than usual this time, with several authors answering "
                  "questions directly and linking follow-up posts.", ""]
    if fault == "long":
        lines += ["Commentary: " + " ".join(["The thread went on about tooling, hiring and the state of the web."] * 60)]
    lines.append("Source: https://news.ycombinator.com/front")
    return "\n".join(lines) + "\n"


def _brief(rng: random.Random, skill: str, day: datetime, fault: str | None) -> str:
    lines = ["SUMMARY", "",
             f"{skill.replace('-', ' ').capitalize()} for {day:%d %b}: flows were steady, two items changed since the "
             "last brief and one needs a decision before the end of the week."]
    if fault == "hedge":
        lines.append("It is important to note that conditions may change and nothing here is certain.")
    if fault != "nowatch":
        lines += ["", "WATCH", "", "- the vote on the fee switch closes on Thursday",
                  "- a large unlock lands on Friday", "- the monthly report is due on Monday"]
    lines += ["", "Source: https://defillama.com/"]
    if fault != "nobottom":
        lines += ["", f"**Bottom line:** {rng.choice(['no action needed', 'watch Thursday', 'reduce exposure'])}."]
    return "\n".join(lines) + "\n"


WRITERS = {"markets": _markets, "narrative": _narrative, "research": _research, "digest": _digest, "brief": _brief}


def _plan(rng: random.Random, target: str) -> list[bool]:
    """A pass/fail history of 6-15 runs ending in the target state (a high NEW_FAIL needs a longer one:
    it breaks a pass streak of at least HIGH_FROM)."""
    P, F = True, False
    if target == "NEW_FAIL:high":
        suffix = [P] * rng.randint(HIGH_FROM, HIGH_FROM + 4) + [F]
    elif target == "NEW_FAIL:medium":
        suffix = [P] * rng.randint(2, 4) + [F]
    elif target == "NEW_FAIL:low":
        suffix = [F, P, F]  # a broken streak of 1 (0 happens only on a skill's first run)
    elif target == "CHRONIC":
        suffix = [P] + [F] * rng.randint(4, 9)
    elif target == "STABLE_FAIL":
        suffix = [P] + [F] * rng.randint(2, 3)
    elif target == "NEW_PASS":
        suffix = [F] * rng.randint(1, 3) + [P]
    else:  # PASS
        suffix = [F] + [P] * rng.randint(2, 10)
    total = max(len(suffix), rng.randint(6, 15))
    prefix = [rng.random() < 0.8 for _ in range(total - len(suffix))]
    if target.startswith("NEW_FAIL") and not target.endswith("low") and prefix:
        prefix[-1] = F  # so the pass streak broken is exactly the suffix's
    return (prefix + suffix)[-max(15, len(suffix) + 1):]


def _record_history(db: Database, rng: random.Random, skill: str, family: str, plan: list[bool], *,
                    evaluate_each: bool = True) -> None:
    writer = WRITERS[family]
    faults = FAMILIES[family]["faults"]
    fault = rng.choice(faults)  # a skill tends to fail the same way for a while
    for i, passed in enumerate(plan):
        day = BASE - timedelta(days=len(plan) - 1 - i, minutes=rng.randint(0, 90))
        if not passed and rng.random() < 0.25:
            fault = rng.choice(faults)
        this_fault = None if passed else fault
        status = "error" if this_fault == "error" else "ok"
        output = "Traceback: upstream API returned 503 Service Unavailable\n" if status == "error" else \
            writer(rng, skill, day, this_fault)
        record_run(db, skill, output, actor=rng.choice(PRODUCERS), at=day.isoformat(), status=status)
        if evaluate_each:
            evaluate(db, actor="ci-nightly", skill=skill)


def _manifest_yaml() -> str:
    # Copies, so YAML writes each skill out in full (no anchors and aliases).
    manifest = {skill: json.loads(json.dumps(family["manifest"])) for family in FAMILIES.values()
                for skill in family["skills"]}
    return yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)


def populate(db: Database, rng: random.Random, person: str) -> str:
    import_manifest(db, "evals.yaml", actor="bruno", text=_manifest_yaml())
    skills = [(skill, name) for name, family in FAMILIES.items() for skill in family["skills"]]
    targets = TARGETS + ["PASS"] * (len(skills) - len(TARGETS))
    rng.shuffle(targets)
    by_target: dict[str, list[str]] = {}
    for (skill, family), target in zip(skills, targets, strict=True):
        plan = _plan(rng, target)
        _record_history(db, rng, skill, family, plan)
        by_target.setdefault(target.split(":")[0], []).append(skill)
    for skill, family in UNMANIFESTED.items():
        _record_history(db, rng, skill, family, [True] * rng.randint(6, 9), evaluate_each=False)

    import_manifest(db, "weekly-outlook.yaml", actor=person, text=SPECULATIVE)
    drafts = {"pending": 0, "approved": 0, "rejected": 0, "edited": 0}
    # The coverage gap: bootstrap drafts for skills without a manifest, drafted by the agent's own run.
    for skill in UNMANIFESTED:
        bootstrap(db, skill, actor="run-60")
    # Triage: acknowledged NEW_FAILs, and mismatch flags on skills that keep failing.
    notes = ["seen; aeon-skill-repair queued for this one", "upstream API changed its response, fix in progress",
             "known: the data provider was down overnight"]
    for skill, note in zip(by_target.get("NEW_FAIL", [])[:3], notes, strict=False):
        acknowledge(db, skill, actor="chen", note=note)
    mismatch_notes = ["the section list predates the format change; the output is fine",
                      "min_words is too strict for weekend runs", "this assertion never matched the real output"]
    for skill, note in zip(by_target.get("STABLE_FAIL", [])[:2] + by_target.get("CHRONIC", [])[:1], mismatch_notes,
                           strict=False):
        flag_mismatch(db, skill, actor="bruno", note=note)
    # Bootstrap drafts of passing skills: some approved, some rejected, some edited, the rest pending.
    candidates = by_target.get("PASS", []) + by_target.get("NEW_PASS", [])
    made = []
    for skill in candidates[:16]:
        try:
            made.append(bootstrap(db, skill, actor=rng.choice(["run-60", "run-61", "bruno"])))
        except GatepostError:
            continue
    reasons = ["required_patterns pick up the date line; too brittle", "min_words would fail every short news day",
               "keeps the forbidden list but drops the custom checks we rely on"]
    for draft in made[:4]:
        approve_draft(db, draft["id"], actor="bruno", note="matches the last five runs; replaces the hand-written one")
        evaluate(db, actor="ci-nightly", skill=draft["skill"])
        drafts["approved"] += 1
    for draft, reason in zip(made[4:7], reasons, strict=False):
        reject_draft(db, draft["id"], actor="bruno", note=reason)
        drafts["rejected"] += 1
    for draft in made[7:10]:
        floor = max(10, draft["assertions"]["min_words"] - 15)
        text = draft["yaml"].replace(f"min_words: {draft['assertions']['min_words']}", f"min_words: {floor}")
        edit_draft(db, draft["id"], text, actor=rng.choice(["bruno", person]), note="looser floor for short days")
        drafts["edited"] += 1
    pending = db.execute("SELECT COUNT(*) FROM manifest_drafts WHERE status = 'pending'").fetchone()[0]
    states = dict(db.execute("SELECT state, COUNT(*) FROM regression_states GROUP BY state").fetchall())
    shown = ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
    return (f"{len(skills) + len(UNMANIFESTED)} skills ({shown}), {pending} manifest drafts pending, "
            f"{drafts['approved']} approved, {drafts['rejected']} rejected")
