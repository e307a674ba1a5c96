"""How much a stored run's numbers mean: its rates with intervals, its paired delta, pass^k, flaky tasks.

Read from the run's task results, so imported runs get the same figures as our own. The arithmetic
is `stats` (pure); this module only gathers the counts.

Flaky pooling: the attempts of one task are pooled over every stored run of the same suite id,
the same executor and the same skill content (sha256 of the skill text), on either side (a
candidate's attempts and a later run's baseline attempts of the same text are the same inputs).
A baseline read from the cache is not counted again. Attempts nobody could judge are left out.
A task is flaky when, among those pooled attempts, it both passed and failed.
"""

from typing import Any

from sqlite_utils import Database

from . import stats

# a side's content hash for a task_results row, through its run
_SIDE_HASH = "CASE t.side WHEN 'candidate' THEN r.candidate_hash ELSE r.baseline_hash END"
_NOT_A_CACHED_BASELINE = ("NOT (t.side = 'baseline' AND "
                          "COALESCE(json_extract(r.artifact, '$.baseline_cache.hit'), 0) = 1)")

Sides = dict[str, dict[str, list[dict[str, Any]]]]  # side -> task id -> attempts ({"passed", "judged"}), in order


def sides_of_results(candidate: list[dict[str, Any]], baseline: list[dict[str, Any]]) -> Sides:
    """The attempts of an artifact's candidate_results and baseline_results, per side and task."""
    return {side: {r["task_id"]: list(r.get("attempt_details") or [r]) for r in results}
            for side, results in (("candidate", candidate), ("baseline", baseline))}


def _stored_sides(db: Database, run_id: str) -> Sides:
    sides: Sides = {"candidate": {}, "baseline": {}}
    cursor = db.execute("SELECT side, task_id, passed, judged FROM task_results WHERE run_id = ? ORDER BY id",
                        [run_id])
    for side, task, passed, judged in cursor:
        sides.setdefault(side, {}).setdefault(task, []).append({"passed": bool(passed), "judged": bool(judged)})
    return sides


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


def run_statistics(db: Database, run_id: str, *, alpha: float = stats.ALPHA,
                   level: float = stats.LEVEL) -> dict[str, Any] | None:
    """summarise() for a stored run (ours or imported); None when there is no such run."""
    row = db.execute("SELECT id, suite_id, executor, candidate_hash, baseline_hash, pass_k,"
                     " COALESCE(json_extract(artifact, '$.baseline_cache.hit'), 0) FROM evaluation_runs"
                     " WHERE id = ?", [run_id]).fetchone()
    if row is None:
        return None
    key = dict(zip(("id", "suite_id", "executor", "candidate_hash", "baseline_hash", "pass_k"), row[:6], strict=True))
    return summarise(_stored_sides(db, run_id), pass_k=key["pass_k"] or 1,
                     pooled=pooled_attempts(db, key, leave_out=run_id), cached_baseline=bool(row[6]),
                     alpha=alpha, level=level)


def flaky_words(item: dict[str, Any]) -> str:
    """'t3 (candidate): passed 2 of 5 attempts over 2 runs'."""
    runs = item["runs"]
    return (f"{item['task_id']} ({item['side']}): passed {item['passes']} of {item['attempts']} attempts"
            f" over {runs} run{'s' if runs != 1 else ''}")
