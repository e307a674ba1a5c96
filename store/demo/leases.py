"""Demo part: colleagues working the queues right now, so the console shows items held by others.

Leases last 15 minutes from the time the demo is built; each colleague holds items
of a queue they have the authority to work, and one earlier lease was released.
"""

import random

from sqlite_utils import Database

from gatepost.store.kernel import leases
from gatepost.store.views import QUEUES, queue_state

ORDER = 90
LIVE = True  # the leases run from the real now: the console opened on the demo shows them held

# (colleague, queue, how many items they hold): only queues their capabilities let them decide.
HOLDS = [("bruno", "cases", 2), ("bruno", "drafts", 1), ("chen", "regressions", 2), ("chen", "proposals", 1)]


def populate(db: Database, rng: random.Random, person: str) -> str:
    held = 0
    for colleague, queue, count in HOLDS:
        if colleague == person:
            continue
        keys = queue_state(db, queue, colleague).keys
        if len(keys) <= count:
            continue
        subject_type = QUEUES[queue].subject_type
        chosen = sorted(rng.sample(keys[1:], count))  # the first item stays free for the person at the demo
        for key in chosen:
            leases.take(db, subject_type, key, colleague)
            held += 1
        released = keys[0]
        leases.take(db, subject_type, released, colleague)
        leases.release(db, subject_type, released, colleague)  # looked at it, moved on
    return f"{held} items held by colleagues for 15 minutes"
