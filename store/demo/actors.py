"""Demo part: the people and producers of a small team running a self-improvement loop."""

import random

from sqlite_utils import Database

from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor

ORDER = 0

PEOPLE = {
    "ana": ("loop_change.keep", "eval_design.review", "case.close", "proposal.review"),
    "bruno": ("manifest.review", "regression.triage", "case.close"),
    "chen": ("proposal.review", "regression.triage", "eval_design.review"),
    "dara": ("eval_design.review",),  # reviews evaluation designs (evidence), decides nothing
}
PRODUCERS = ["run-41", "run-52", "run-53", "run-60", "run-61", "ci-nightly", "ci-pr"]


def populate(db: Database, rng: random.Random, person: str) -> str:
    add_actor(db, person, "person", PERSON_CAPABILITIES, by=person)
    for name, caps in PEOPLE.items():
        if name != person:
            add_actor(db, name, "person", caps, by=person)
    for name in PRODUCERS:
        add_actor(db, name, "producer", ("evidence.record",), by=person)
    people = len(set(PEOPLE) | {person})
    return f"{people} people, {len(PRODUCERS)} producers"
