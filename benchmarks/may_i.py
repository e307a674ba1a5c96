"""Time flows.may (every decision of an item rehearsed) for every item of a store, as ana: what the console adds
to reading an item. Usage: python benchmarks/may_i.py STORE.db (e.g. one `gatepost demo --no-console` built)."""

import statistics
import sys
import time

from gatepost.store import flows
from gatepost.store.kernel import last_seq, open_store

ITEMS = [("case", "SELECT id FROM cases"), ("proposal", "SELECT id FROM proposals"),
         ("draft", "SELECT id FROM manifest_drafts"), ("skill", "SELECT skill FROM regression_states")]


def main(path: str, person: str = "ana") -> None:
    db = open_store(path)
    for subject, sql in ITEMS:
        ms = []
        for (key,) in db.execute(sql).fetchall():
            start = time.perf_counter()
            flows.may(db, subject, key, actor=person, seen_seq=last_seq(db, subject, key))
            ms.append((time.perf_counter() - start) * 1000)
        ms.sort()
        print(f"{subject:9} n={len(ms):3} median {statistics.median(ms):6.1f} ms  p90 {ms[int(len(ms) * 0.9)]:6.1f} ms"
              f"  max {ms[-1]:6.1f} ms")


if __name__ == "__main__":
    main(*sys.argv[1:])
