"""Recording evidence costs about the same on a case's 3,000th record as on its 10th.

    python benchmarks/evidence_scale.py [--records 3000] [--runs 5]

One case, one producer recording guard_check results through the guarded act (cases.add_evidence, the
act `gatepost case evidence` runs), in a fresh store per run, --runs runs (at least 5). Each record is timed
in CPU (this process's: the act starts no other). The floor is the same act on the case's 10th record
(the median of records 5-15): a record costs at least that on a case that has few, so the ratio of the
last 11 records' median to it says what a long history adds; it should stay under 2. Printed: both
medians per run summarised as the median with the spread (min-max), and the per-run ratios.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gatepost.store import cases
from gatepost.store.kernel import add_actor, open_store

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}


def one_run(records: int) -> tuple[float, float]:
    """(CPU median of records 5-15, of the last 11) in seconds, on a fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        db = open_store(Path(tmp) / "scale.db")
        add_actor(db, "ana", "person", ["case.close"])
        add_actor(db, "run-52", "producer", ["evidence.record"])
        cases.import_case(db, {"id": "case-1", "title": "one case", "author": "run-41",
                               "candidate": {"path": "a.md", "content": "text", "basis": BASIS},
                               "independent": {"different_agent_run": ["run-52"]}}, actor="ana")
        each = []
        for i in range(records):
            began = time.process_time()
            cases.add_evidence(db, "case-1", kind="guard_check", result="clean" if i % 7 else "outside",
                               actor="run-52")
            each.append(time.process_time() - began)
        db.close()
    return statistics.median(each[4:15]), statistics.median(each[-11:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.runs < 5:
        parser.error("--runs must be at least 5")
    runs = [one_run(args.records) for _ in range(args.runs)]
    early, late = [e for e, _ in runs], [t for _, t in runs]
    ratios = [t / e for e, t in runs]

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.2f} ms ({min(values) * 1000:.2f}–{max(values) * 1000:.2f})"

    print(f"CPU per record, median (min-max) of {args.runs} runs: record 10: {ms(early)} · record {args.records}: "
          f"{ms(late)} · ratio {statistics.median(late) / statistics.median(early):.2f} "
          f"(per run {min(ratios):.2f}–{max(ratios):.2f}; target under 2)")


if __name__ == "__main__":
    main()
