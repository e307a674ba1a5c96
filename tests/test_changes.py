"""Change since the last run: the assertions that flipped lead a skill's detail; the assertion × run grid."""

import pytest

from store.actors import add_actor
from store.manifests import import_manifest
from store.skills import assertion_changes, assertion_grid, evaluate, record_run, skill_detail

MANIFEST = """\
digest:
  min_words: 3
  max_words: 50
  required_patterns: ["Top"]
"""
OUTPUTS = ["Top stories today", "Top", "alpha beta gamma delta", "alpha beta gamma delta"]


@pytest.fixture
def store(db):
    add_actor(db, "bruno", "person", ["manifest.review", "regression.triage"])
    add_actor(db, "run-52", "producer", ["evidence.record"])
    import_manifest(db, "evals.yaml", actor="bruno", text=MANIFEST)
    return db


def run(db, output: str, day: int) -> None:
    record_run(db, "digest", output, actor="run-52", at=f"2026-05-{day:02d}T08:00:00Z")
    evaluate(db, actor="run-52", skill="digest")


def test_nothing_to_compare_before_two_evals(store):
    assert assertion_changes(store, "digest")["changes"] == []
    run(store, OUTPUTS[0], 1)
    assert assertion_changes(store, "digest")["changes"] == []


def test_flipped_assertions_lead_newly_failing_first(store):
    run(store, OUTPUTS[1], 1)  # min_words fails, the pattern is there
    run(store, OUTPUTS[2], 2)  # min_words passes, the pattern is gone; max_words passes both times
    found = assertion_changes(store, "digest")
    assert [(c["assertion"], c["change"]) for c in found["changes"]] == [
        ("required_patterns", "now failing"), ("min_words", "now passing")]
    first = found["changes"][0]
    assert first["before"] is True and first["after"] is False and "Top" in first["message"]
    assert found["before"]["run_id"] != found["after"]["run_id"]


def test_an_unchanged_run_has_no_changes(store):
    run(store, OUTPUTS[2], 1)
    run(store, OUTPUTS[3], 2)
    assert assertion_changes(store, "digest")["changes"] == []


def test_assertions_added_by_a_new_manifest_version_are_new(store):
    run(store, OUTPUTS[0], 1)
    import_manifest(store, "evals.yaml", actor="bruno",
                    text=MANIFEST + '  forbidden_patterns: ["stories"]\n')
    evaluate(store, actor="run-52", skill="digest")  # the same run again, under v2
    changes = assertion_changes(store, "digest")["changes"]
    assert [(c["assertion"], c["change"], c["after"]) for c in changes] == [("forbidden_patterns", "new", False)]


def test_grid_of_assertions_over_runs_failing_now_on_top(store):
    for day, output in enumerate(OUTPUTS, start=1):
        run(store, output, day)
    grid = assertion_grid(store, "digest", runs=3)
    assert len(grid["evals"]) == 3  # the newest three, oldest first
    rows = {r["assertion"]: r["marks"] for r in grid["rows"]}
    assert rows == {"required_patterns": [True, False, False], "min_words": [False, True, True],
                    "max_words": [True, True, True]}
    assert grid["rows"][0]["assertion"] == "required_patterns"  # failing in the newest run


def test_detail_carries_the_changes_and_grid(store):
    run(store, OUTPUTS[1], 1)
    run(store, OUTPUTS[2], 2)
    detail = skill_detail(store, "digest")
    assert [c["assertion"] for c in detail["changes"]["changes"]] == ["required_patterns", "min_words"]
    assert len(detail["grid"]["evals"]) == 2


async def test_regressions_detail_leads_with_the_changes_and_shows_the_grid(store, store_path):
    from console.app import GatepostApp

    run(store, OUTPUTS[1], 1)
    run(store, OUTPUTS[2], 2)
    app = GatepostApp(store_path, person="bruno")
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("4")
        await pilot.pause()
        screen = app.screen
        assert screen.key == "digest"
        changes = str(screen.query_one("#reg-changes").render())
        lines = changes.splitlines()
        assert lines[0].startswith("Changed since the previous eval (digest-0001 → digest-0002)")
        assert lines[1].startswith("✔→✘ required_patterns now failing")
        assert lines[2].startswith("✘→✔ min_words now passing")
        grid = str(screen.query_one("#reg-grid").render()).splitlines()
        assert [line.split() for line in grid[1:]] == [["required_patterns", "✔✘"], ["max_words", "✔✔"],
                                                        ["min_words", "✘✔"]]
        children = [w.id for w in screen.query_one("#reg-detail").children]
        assert children.index("reg-changes") < children.index("reg-failing")  # changes lead the detail
