"""Recording evidence costs about the same on a case's 3,000th record as on its 10th.

    python benchmarks/evidence_scale.py [--records 3000]

One case, one producer recording guard_check results through the guarded act (cases.add_evidence, the
act `gatepost case evidence` runs). Printed: the median ms of records 5–15 (around the 10th) and of the
last 11 (around the Nth), and their ratio, which should stay under 2.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from gatepost.store import cases
from gatepost.store.kernel import add_actor, open_store

BASIS = {"baseline": "b-1", "question_set": "qs-1", "data_revision": "d-1", "design": "design-1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = open_store(Path(tmp) / "scale.db")
        add_actor(db, "ana", "person", ["case.close"])
        add_actor(db, "run-52", "producer", ["evidence.record"])
        cases.import_case(db, {"id": "case-1", "title": "one case", "author": "run-41",
                               "candidate": {"path": "a.md", "content": "text", "basis": BASIS},
                               "independent": {"different_agent_run": ["run-52"]}}, actor="ana")
        each = []
        for i in range(args.records):
            began = time.perf_counter()
            cases.add_evidence(db, "case-1", kind="guard_check", result="clean" if i % 7 else "outside",
                               actor="run-52")
            each.append(time.perf_counter() - began)
        db.close()
    early = statistics.median(each[4:15]) * 1000
    late = statistics.median(each[-11:]) * 1000
    print(f"record 10: {early:.2f} ms · record {args.records}: {late:.2f} ms · ratio {late / early:.2f}")


if __name__ == "__main__":
    main()
