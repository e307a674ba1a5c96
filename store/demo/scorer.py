"""The demo's scorer for the ai-memory gate, run as a program: `python scorer.py MODE`.

Standard library only, so it starts fast. `structure` scores a proposal's
body the way ai-memory's example scorer is described (an H1 heading, no
TODO/TBD placeholder, and for procedures a Purpose/Overview and a
Steps/Checklist section) and passes when the new score is at least 0.70 and
not below the old one. The other modes misbehave on purpose, so the demo
shows the gate failing closed for every reason: reject, crash, hang,
garbage, nopassed, dropping.
"""

import json
import re
import sys
import time
from typing import Any

_H1 = re.compile(r"^#\s+\S", re.MULTILINE)


def score(path: str, body: str) -> tuple[float, list[str]]:
    lowered = body.lower()
    total, missing = 0.0, []
    if _H1.search(body):
        total += 0.25
    else:
        missing.append("no H1 heading")
    if "todo" in lowered or "tbd" in lowered:
        missing.append("a TODO/TBD placeholder")
    else:
        total += 0.20
    if path.startswith("procedures/"):
        for names, weight, what in ((("## purpose", "## overview"), 0.20, "Purpose/Overview"),
                                    (("## steps", "## checklist"), 0.25, "Steps/Checklist")):
            if any(n in lowered for n in names):
                total += weight
            else:
                missing.append(f"no {what} section")
    else:
        total += 0.45
    return round(min(total, 1.0), 4), missing


def main(mode: str) -> int:
    request = json.loads(sys.stdin.read() or "{}")
    path = str(request.get("path", ""))
    if mode == "structure":
        before, _ = score(path, str(request.get("before_body", "")))
        after, missing = score(path, str(request.get("after_body", "")))
        passed = after >= 0.70 and after >= before
        answer: dict[str, Any] = {"passed": passed, "score_before": before, "score_after": after}
        if not passed:
            answer["reason"] = "; ".join(missing) or "score did not improve"
        print(json.dumps(answer))
    elif mode == "reject":
        print(json.dumps({"passed": False, "reason": "rules may not weaken a safety instruction"}))
    elif mode == "crash":
        print("score_proposal: cannot open project index", file=sys.stderr)
        return 2
    elif mode == "hang":
        time.sleep(30)
    elif mode == "garbage":
        print("Traceback? no: <html>502 Bad Gateway</html>")
    elif mode == "nopassed":
        print(json.dumps({"score_before": 0.6, "score_after": 0.8}))
    elif mode == "dropping":
        print(json.dumps({"passed": True, "score_before": 0.85, "score_after": 0.8}))
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "structure"))
