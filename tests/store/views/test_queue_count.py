"""A queue counted for its bar says what the listed queue says: how many wait for the person, how many in all, which
items others hold; without reading every key into Python (a queue of 50,000 cases did on each look)."""

from gatepost.store.kernel import leases, open_store, transaction
from gatepost.store.views import QUEUES, queue_count, queue_state


def test_every_queue_counted_says_what_it_says_listed(demo_copy):
    db = open_store(demo_copy)
    people = [row[0] for row in db.execute("SELECT name FROM actors WHERE kind = 'person' ORDER BY name")]
    # an item held by a colleague now (the demo's own leases last 15 minutes: a long run outlives them)
    held_by, queued = people[0], queue_state(db, "cases", people[0]).keys[0]
    with transaction(db):
        leases.take(db, "case", queued, held_by)
    held_somewhere = False
    for name in QUEUES:
        for person in people:
            listed, counted = queue_state(db, name, person), queue_count(db, name, person)
            assert not counted.listed and counted.keys == []
            assert (counted.waiting, counted.total, counted.held) == (listed.waiting, listed.total, listed.held), \
                (name, person)
            assert listed.waiting == len(listed.keys)
            held_somewhere = held_somewhere or bool(listed.held)
    assert held_somewhere, "the demo holds items for colleagues: some queue should show them held"
    db.close()


def test_a_queue_counted_reads_no_key_into_python(demo_copy):
    db = open_store(demo_copy)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    queue_count(db, "cases", "ana")
    assert any("case_counts" in s for s in statements)  # the cases' counts kept as they change
    queue_count(db, "proposals", "ana")
    assert any("COUNT(*)" in s for s in statements)
    assert not any(s.startswith(QUEUES[name].sql) for s in statements for name in ("cases", "proposals"))
    db.close()
