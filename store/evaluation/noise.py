"""How much a stored run's numbers mean: its rates with intervals, its paired delta, pass^k, flaky tasks.

Read from the run's task results, so imported runs get the same figures as our own. The arithmetic
is `stats` (pure); this module only gathers the counts.

Flaky pooling: the attempts of one task are pooled over every stored run of the same suite id,
the same executor and the same skill content (sha256 of the skill text), on either side (a
candidate's attempts and a later run's baseline attempts of the same text are the same inputs).
A baseline read from the cache is not counted again. Attempts nobody could judge are left out.
A task is flaky when, among those pooled attempts, it both passed and failed.
"""

import heapq
from collections.abc import Iterator
from typing import Any

from sqlite_utils import Database

from . import stats
from .task_order import stored_figures

# a side's content hash for a task_results row, through its run
_SIDE_HASH = "CASE t.side WHEN 'candidate' THEN r.candidate_hash ELSE r.baseline_hash END"
_NOT_A_CACHED_BASELINE = ("NOT (t.side = 'baseline' AND "
                          "COALESCE(json_extract(r.artifact, '$.baseline_cache.hit'), 0) = 1)")

Sides = dict[str, dict[str, list[dict[str, Any]]]]  # side -> task id -> attempts ({"passed", "judged"}), in order


def sides_of_results(candidate: list[dict[str, Any]], baseline: list[dict[str, Any]]) -> Sides:
    """The attempts of an artifact's candidate_results and baseline_results, per side and task."""
    return {side: {r["task_id"]: list(r.get("attempt_details") or [r]) for r in results}
            for side, results in (("candidate", candidate), ("baseline", baseline))}


def pooled_attempts(db: Database, key: dict[str, Any], *, leave_out: str | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """Per side and task: passes, attempts and runs pooled over stored runs of the same suite id, executor and
    skill text (key: suite_id, executor, candidate_hash, baseline_hash), leaving out the run `leave_out`."""
    out: dict[str, dict[str, dict[str, int]]] = {"candidate": {}, "baseline": {}}
    for side, content in (("candidate", key.get("candidate_hash")), ("baseline", key.get("baseline_hash"))):
        if not content or not key.get("suite_id"):
            continue
        cursor = db.execute(
            "SELECT t.task_id, SUM(t.passed), COUNT(*), COUNT(DISTINCT t.run_id) FROM task_results t"
            " JOIN evaluation_runs r ON r.id = t.run_id"
            f" WHERE r.suite_id = ? AND r.executor IS ? AND {_SIDE_HASH} = ? AND t.judged = 1 AND r.id IS NOT ?"
            f" AND {_NOT_A_CACHED_BASELINE} GROUP BY t.task_id",
            [key["suite_id"], key.get("executor"), content, leave_out])
        out[side] = {task: {"passes": int(p or 0), "attempts": n, "runs": runs} for task, p, n, runs in cursor}
    return out


def summarise(sides: Sides, *, pass_k: int, pooled: dict[str, dict[str, dict[str, int]]] | None = None,
              cached_baseline: bool = False, alpha: float = stats.ALPHA,
              level: float = stats.LEVEL) -> dict[str, Any]:
    """A run's rates with Wilson intervals, its paired delta over the same tasks, pass@k beside pass^k,
    and its flaky tasks (its own attempts added to `pooled`, the other runs' counts). No SQL."""
    k = pass_k or 1
    out: dict[str, Any] = {"level": level, "alpha": alpha, "pass_k": k}
    passed: dict[str, dict[str, bool]] = {}
    for side in ("candidate", "baseline"):
        tasks = sides.get(side, {})
        passed[side] = {task: any(a["passed"] for a in attempts) for task, attempts in tasks.items()}
        summary = stats.rate_summary(sum(passed[side].values()), len(tasks), level)
        # pass^k: every one of k attempts passed; measurable only where all k attempts ran
        measured = bool(tasks) and all(len(attempts) >= k for attempts in tasks.values())
        all_pass = sum(1 for attempts in tasks.values() if attempts and all(a["passed"] for a in attempts[:k]))
        summary["pass_at_k"] = summary["rate"]
        summary["pass_hat_k"] = round(all_pass / len(tasks), 4) if measured else None
        summary["words"] = stats.rate_words(summary)
        out[side] = summary
    common = [t for t in passed["candidate"] if t in passed["baseline"]]
    pairs = stats.Pairs.of([passed["candidate"][t] for t in common], [passed["baseline"][t] for t in common])
    out["comparison"] = stats.compare(pairs, alpha=alpha, level=level)
    out["inside_noise"] = stats.inside_noise(out["comparison"])
    out["flaky"] = _flaky(sides, pooled or {}, k, cached_baseline)
    return out


def _flaky(sides: Sides, pooled: dict[str, dict[str, dict[str, int]]], k: int, cached_baseline: bool) -> list[dict[str, Any]]:
    found = []
    for side in ("candidate", "baseline"):
        for task, attempts in sides.get(side, {}).items():
            judged = [a for a in attempts if a.get("judged", True)]
            here = {"passes": sum(1 for a in judged if a["passed"]), "attempts": len(judged), "runs": 1}
            other = (pooled.get(side) or {}).get(task)
            if other and side == "baseline" and cached_baseline:
                counts = other  # a cached baseline is an earlier run's attempts: counted once
            elif other:
                counts = {key: here[key] + other[key] for key in here}
            else:
                counts = here
            if 0 < counts["passes"] < counts["attempts"]:
                found.append({"task_id": task, "side": side, **counts,
                              "in_this_run": f"{here['passes']} of {here['attempts']}",
                              "pass_hat_k": (round(stats.pass_hat_k(counts["attempts"], counts["passes"], k), 4)
                                             if counts["attempts"] >= k else None)})
    return found


# One side of a run per task, in task-id order (the index on run_id, side, task_id groups them without a
# sort): first id, any attempt passed, attempts, judged passes, judged attempts, and whether the first k
# attempts passed: no failed attempt, or at least k attempts stored before the first failed one.
_SIDE_TASKS = """
SELECT task_id, first, passed, attempts, judged_passes, judged,
       first_fail IS NULL OR (CASE WHEN :k = 1 THEN first < first_fail ELSE
         (SELECT COUNT(*) FROM task_results e WHERE e.run_id = :run AND e.side = :side AND e.task_id = g.task_id
          AND e.id < g.first_fail) >= :k END)
FROM (SELECT task_id, MIN(id) AS first, MAX(COALESCE(passed, 0) != 0) AS passed, COUNT(*) AS attempts,
             SUM(COALESCE(passed, 0) != 0 AND COALESCE(judged, 0) != 0) AS judged_passes,
             SUM(COALESCE(judged, 0) != 0) AS judged,
             MIN(CASE WHEN COALESCE(passed, 0) = 0 THEN id END) AS first_fail
      FROM task_results WHERE run_id = :run AND side = :side GROUP BY task_id ORDER BY task_id) AS g"""
# The other runs' judged attempts of the same suite, executor and skill text, per task in task-id order.
_POOLED = ("SELECT t.task_id, COALESCE(SUM(t.passed), 0), COUNT(*), COUNT(DISTINCT t.run_id) FROM task_results t"
           " JOIN evaluation_runs r ON r.id = t.run_id"
           f" WHERE r.suite_id = ? AND r.executor IS ? AND {_SIDE_HASH} = ? AND t.judged = 1 AND r.id IS NOT ?"
           f" AND {_NOT_A_CACHED_BASELINE}"
           " AND t.task_id IN (SELECT task_id FROM task_results WHERE run_id = ? AND side = ?)"
           " GROUP BY t.task_id ORDER BY t.task_id")

# per task of one side: (task id, first id, any attempt passed, attempts, the first k all passed,
# judged passes, judged attempts)
_Task = tuple[str, int, bool, int, bool, int, int]


def _side_tasks(db: Database, run_id: str, side: str, k: int) -> Iterator[_Task]:
    for task_id, first, passed, attempts, judged_passes, judged, first_k in db.execute(
            _SIDE_TASKS, {"run": run_id, "side": side, "k": k}):
        yield task_id, first, bool(passed), attempts, bool(first_k), judged_passes, judged


def _pooled(db: Database, run_id: str, side: str, key: dict[str, Any]) -> Iterator[tuple[str, int, int, int]]:
    content = key.get(f"{side}_hash")
    for side_hash in ((content,) if content and key.get("suite_id") else ()):
        yield from db.execute(_POOLED, [key["suite_id"], key.get("executor"), side_hash, run_id, run_id, side])


def _joined(left: Iterator[Any], right: Iterator[Any]) -> Iterator[tuple[Any, Any]]:
    """Merge two streams ordered by their first item (a task id): (left row or None, right row or None)."""
    a, b = next(left, None), next(right, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a[0] < b[0]):
            yield a, None
            a = next(left, None)
        elif a is None or b[0] < a[0]:
            yield None, b
            b = next(right, None)
        else:
            yield a, b
            a, b = next(left, None), next(right, None)


class _Flaky:
    """One side's flaky tasks, the first `limit` of them in import order kept (all when None), all counted."""

    def __init__(self, side: str, k: int, cached_baseline: bool, limit: int | None) -> None:
        self.side, self.k, self.cached, self.limit = side, k, cached_baseline and side == "baseline", limit
        self.kept: list[tuple[int, dict[str, Any]]] = []  # a max-heap on the first id (negated)
        self.total = 0

    def add(self, task: _Task, other: tuple[str, int, int, int] | None) -> None:
        task_id, first, _, _, _, passes, attempts = task
        if other and self.cached:
            counts = {"passes": other[1], "attempts": other[2], "runs": other[3]}  # an earlier run's: counted once
        elif other:
            counts = {"passes": passes + other[1], "attempts": attempts + other[2], "runs": 1 + other[3]}
        else:
            counts = {"passes": passes, "attempts": attempts, "runs": 1}
        if not 0 < counts["passes"] < counts["attempts"]:
            return
        self.total += 1
        if self.limit is not None and len(self.kept) >= self.limit:
            if not self.kept or -self.kept[0][0] < first:
                return
            heapq.heappop(self.kept)
        heapq.heappush(self.kept, (-first, {
            "task_id": task_id, "side": self.side, **counts, "in_this_run": f"{passes} of {attempts}",
            "pass_hat_k": (round(stats.pass_hat_k(counts["attempts"], counts["passes"], self.k), 4)
                           if counts["attempts"] >= self.k else None)}))

    def found(self) -> list[dict[str, Any]]:
        return [item for _, item in sorted(self.kept, key=lambda kept: -kept[0])]


def run_statistics(db: Database, run_id: str, *, alpha: float = stats.ALPHA, level: float = stats.LEVEL,
                   flaky_limit: int | None = None) -> dict[str, Any] | None:
    """summarise() for a stored run (ours or imported); None when there is no such run.

    Read as streams in task-id order, the two sides and the other runs' pooled counts merged task by
    task, so memory does not grow with the size of the run: `flaky` lists the first `flaky_limit`
    flaky tasks (all when None), `flaky_total` counts them all.
    """
    row = db.execute("SELECT id, suite_id, executor, candidate_hash, baseline_hash, pass_k,"
                     " COALESCE(json_extract(artifact, '$.baseline_cache.hit'), 0) FROM evaluation_runs"
                     " WHERE id = ?", [run_id]).fetchone()
    if row is None:
        return None
    key = dict(zip(("id", "suite_id", "executor", "candidate_hash", "baseline_hash", "pass_k"), row[:6], strict=True))
    k = key["pass_k"] or 1
    pooled = key["suite_id"] and (key["candidate_hash"] or key["baseline_hash"])
    figures = None if pooled else stored_figures(db, run_id)
    if figures is not None:  # one attempt per task and side, nothing pooled: the stored counts are all it takes
        return _from_figures(figures, k, alpha, level)
    # per side: tasks, tasks passed (pass@k), fewest attempts of a task, tasks whose first k attempts passed
    counted: dict[str, list[int]] = {side: [0, 0, 1 << 62, 0] for side in ("candidate", "baseline")}
    pairs = [0, 0, 0, 0]  # both pass, only the candidate, only the baseline, neither
    flaky = {side: _Flaky(side, k, bool(row[6]), flaky_limit) for side in ("candidate", "baseline")}

    def side_stream(side: str) -> Iterator[tuple[str, _Task, Any]]:
        for task, other in _joined(_side_tasks(db, run_id, side, k), _pooled(db, run_id, side, key)):
            if task is None:
                continue
            figures = counted[side]
            figures[0] += 1
            figures[1] += task[2]
            figures[2] = min(figures[2], task[3])
            figures[3] += task[4]
            flaky[side].add(task, other)
            yield task[0], task, None

    for candidate, baseline in _joined(side_stream("candidate"), side_stream("baseline")):
        if candidate is not None and baseline is not None:
            c, b = candidate[1][2], baseline[1][2]
            pairs[0 if c and b else 1 if c else 2 if b else 3] += 1
    out: dict[str, Any] = {"level": level, "alpha": alpha, "pass_k": k}
    for side, (tasks, passed, fewest, all_pass) in counted.items():
        summary = stats.rate_summary(passed, tasks, level)
        summary["pass_at_k"] = summary["rate"]  # pass^k: measurable only where every task ran k attempts
        summary["pass_hat_k"] = round(all_pass / tasks, 4) if tasks and fewest >= k else None
        summary["words"] = stats.rate_words(summary)
        out[side] = summary
    out["comparison"] = stats.compare(stats.Pairs(*pairs), alpha=alpha, level=level)
    out["inside_noise"] = stats.inside_noise(out["comparison"])
    out["flaky"] = (flaky["candidate"].found() + flaky["baseline"].found())[:flaky_limit]
    out["flaky_total"] = flaky["candidate"].total + flaky["baseline"].total
    return out


def _from_figures(figures: dict[str, int], k: int, alpha: float, level: float) -> dict[str, Any]:
    """run_statistics from a run's stored counts (task_order.stored_figures), stored only when every task has one
    attempt per side: then a side's pass^k is its pass rate where k is 1 (not measurable above), and no task
    is flaky (one attempt cannot both pass and fail)."""
    out: dict[str, Any] = {"level": level, "alpha": alpha, "pass_k": k}
    for side in ("candidate", "baseline"):
        tasks, passed = figures[f"{side}_tasks"], figures[f"{side}_passed"]
        summary = stats.rate_summary(passed, tasks, level)
        summary["pass_at_k"] = summary["rate"]
        summary["pass_hat_k"] = round(passed / tasks, 4) if tasks and k <= 1 else None
        summary["words"] = stats.rate_words(summary)
        out[side] = summary
    pairs = stats.Pairs(*(figures[name] for name in ("both_pass", "only_candidate", "only_baseline", "neither")))
    out["comparison"] = stats.compare(pairs, alpha=alpha, level=level)
    out["inside_noise"] = stats.inside_noise(out["comparison"])
    out["flaky"], out["flaky_total"] = [], 0
    return out


def flaky_words(item: dict[str, Any]) -> str:
    """'t3 (candidate): passed 2 of 5 attempts over 2 runs'."""
    runs = item["runs"]
    return (f"{item['task_id']} ({item['side']}): passed {item['passes']} of {item['attempts']} attempts"
            f" over {runs} run{'s' if runs != 1 else ''}")
