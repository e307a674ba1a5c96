"""The Regressions list, worst first (issue 15): state, severity, broken streak, then failing assertions, then
whether the last run errored; the queue follows the same order."""

from gatepost.store.kernel import add_actor
from gatepost.store.skills import evaluate, import_manifest, record_run
from gatepost.store.views import queue_state, worst_first

CHECKS = "  min_words: 3\n  required_patterns: ['Top']\n  max_words: 50\n"


def _break(db, skill: str, output: str, *, status: str = "ok") -> None:
    """Five passing runs, then `output` (`status`): a NEW_FAIL that broke a streak of 5."""
    for i in range(5):
        record_run(db, skill, "Top one two three", actor="run-52", at=f"2026-05-{i + 1:02d}T08:00:00Z")
        evaluate(db, actor="run-52", skill=skill)
    record_run(db, skill, output, actor="run-52", at="2026-05-06T08:00:00Z", status=status)
    evaluate(db, actor="run-52", skill=skill)


def test_equal_streaks_put_more_failing_assertions_first_and_then_an_errored_run(db):
    add_actor(db, "bruno", "person", ["regression.triage", "manifest.review"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    names = ("a-one-failing", "b-two-failing", "c-two-failing-errored", "d-one-failing-errored")
    import_manifest(db, "evals.yaml", actor="bruno", text="".join(f"{n}:\n{CHECKS}" for n in names))
    _break(db, "a-one-failing", "Top only")  # min_words fails
    _break(db, "b-two-failing", "only")  # min_words and required_patterns fail
    _break(db, "c-two-failing-errored", "only", status="error")
    _break(db, "d-one-failing-errored", "Top only", status="error")
    rows, _total = worst_first(db)
    assert [(r["skill"], r["state"], r["broken_streak"], len(r["failing"]), r["run_error"]) for r in rows] == [
        ("c-two-failing-errored", "NEW_FAIL", 5, 3, True),  # an errored run fails run_status too
        ("d-one-failing-errored", "NEW_FAIL", 5, 2, True),  # as many failing as b: the errored run first
        ("b-two-failing", "NEW_FAIL", 5, 2, False),
        ("a-one-failing", "NEW_FAIL", 5, 1, False),
    ]
    assert queue_state(db, "regressions", "bruno").keys == [r["skill"] for r in rows]
