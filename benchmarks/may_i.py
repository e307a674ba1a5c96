"""What rehearsing every decision of an item costs (flows.may: what the console adds to reading an item).

    python benchmarks/may_i.py STORE.db [PERSON] [--runs 5]

For every item of the store (e.g. one `gatepost demo --no-console` built), as PERSON (default ana): the CPU
of flows.may (every decision of the item rehearsed and rolled back), this process's alone (it starts no
other). Each item is timed --runs times (at least 5) in interleaved passes over the store; per kind of item
the median of the items' medians, their p90 and max, and the spread of the passes' medians. There is no
floor in this process: the budget it is held to is the floor of a cursor move with its detail (about 12-14 ms
CPU for a DataTable beside a Static, benchmarks/console_scale.py), which the rehearsal must stay well under
because the console runs it on each detail it shows.
"""

import argparse
import statistics
import time

from gatepost.store import flows
from gatepost.store.kernel import last_seq, open_store

ITEMS = [("case", "SELECT id FROM cases"), ("proposal", "SELECT id FROM proposals"),
         ("draft", "SELECT id FROM manifest_drafts"), ("skill", "SELECT skill FROM regression_states")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("person", nargs="?", default="ana")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    db = open_store(args.store)
    for subject, sql in ITEMS:
        keys = [key for (key,) in db.execute(sql).fetchall()]
        if not keys:
            print(f"{subject:9} n=  0")
            continue
        times: dict[str, list[float]] = {key: [] for key in keys}
        for pass_no in range(args.runs):
            for key in keys if pass_no % 2 == 0 else keys[::-1]:
                start = time.process_time()
                flows.may(db, subject, key, actor=args.person, seen_seq=last_seq(db, subject, key))
                times[key].append((time.process_time() - start) * 1000)
        ms = sorted(statistics.median(t) for t in times.values())
        passes = [statistics.median(t[i] for t in times.values()) for i in range(args.runs)]
        print(f"{subject:9} n={len(ms):3} CPU median {statistics.median(ms):6.1f} ms ({min(passes):.1f}–{max(passes):.1f} "
              f"over passes)  p90 {ms[int(len(ms) * 0.9)]:6.1f} ms  max {ms[-1]:6.1f} ms")


if __name__ == "__main__":
    main()
