"""Reports: decision records, regressions (quiet when green) and runs; hostile text is escaped in HTML."""

import json

import pytest

from gatepost.store import cases, skills
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor, open_store
from gatepost.store.skills import manifests
from gatepost.store.views import reports

HOSTILE = '<script>alert("x")</script> [bold]loud[/bold] [link=http://evil]click[/link] **x** `y` | z'


@pytest.fixture
def store(db):
    add_actor(db, "ana", "person", PERSON_CAPABILITIES)
    return db


def _case(db, title=HOSTILE, content=HOSTILE) -> str:
    return cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": "case-h", "title": title, "author": "run-41",
        "candidate": {"path": "procedures/release.md", "content": content,
                      "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}},
        "independent": {"different_agent_run": ["run-52", "ana"]},
        "evidence": [{"kind": "guard_check", "result": "clean", "producer": "run-52", "about": "current"}],
    }, actor="ana")


def test_case_report_in_html_escapes_hostile_text(store):
    case_id = _case(store)
    html = reports.case_report(store, case_id, "html")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "[bold]loud[/bold]" in html  # markup of other tools stays visible text
    assert "change.within_surface" in html and "guard_check clean" in html


def test_case_report_in_markdown_cannot_inject(store):
    case_id = _case(store, content="```\n# not a heading\n<img src=x onerror=alert(1)>\n```")
    md = reports.case_report(store, case_id, "md")
    assert "\\<script\\>" in md  # the title, escaped inline
    assert "````text\n```\n# not a heading" in md  # the content, in a fence longer than any inside it
    assert "## Claims" in md


def test_case_decisions_appear_with_their_actor(store):
    case_id = _case(store)
    cases.decide(store, case_id, "inconclusive", actor="ana", note="design under review " + HOSTILE)
    html = reports.case_report(store, case_id, "html")
    assert "<strong>inconclusive</strong> by ana" in html
    assert "design under review &lt;script&gt;" in html


def _skill(db, name: str, outputs: list[str]):
    manifests.import_manifest(db, "m.yaml", actor="ana", text=f"{name}:\n  min_words: 3\n")
    for i, out in enumerate(outputs):
        skills.record_run(db, name, out, actor="ana", run_id=f"{name}-{i}", at=f"2026-11-0{i + 1}T10:00:00Z")
        skills.evaluate(db, actor="ana", skill=name)


def test_regressions_report_leads_with_changes_then_stays_quiet(store):
    _skill(store, "digest", ["one two three four", "one two three"])
    first = reports.regressions_report(store, "md")
    assert "First regressions report" in first
    assert "| digest | PASS |" in first
    second = reports.regressions_report(store, "md")
    assert second.splitlines()[2].startswith("Nothing changed since the previous report")
    skills.record_run(store, "digest", "one", actor="ana", run_id="digest-9", at="2026-11-09T10:00:00Z")
    skills.evaluate(store, actor="ana", skill="digest")
    third = reports.regressions_report(store, "md")
    assert "## Changed since the previous report" in third
    assert "digest: PASS → NEW\\_FAIL" in third


def test_regressions_report_html_escapes_assertion_messages(store):
    manifests.import_manifest(store, "m.yaml", actor="ana",
                              text="evil:\n  required_patterns: ['<b>needed</b>']\n")
    skills.record_run(store, "evil", HOSTILE, actor="ana", run_id="evil-1")
    skills.evaluate(store, actor="ana", skill="evil")
    html = reports.regressions_report(store, "html")
    assert "<b>needed</b>" not in html
    assert "&lt;b&gt;needed&lt;/b&gt;" in html


def test_suite_report_escapes_task_text(store, tmp_path):
    artifact = {"execution_pass_rate": 0.5, "baseline_pass_rate": 1.0, "delta": -0.5, "verdict": "fail",
                "warnings": [HOSTILE],
                "candidate_results": [{"task_id": "<i>t1</i>", "passed": True, "score": 1.0, "duration_ms": 5},
                                      {"task_id": "t2", "passed": False, "score": 0.0, "duration_ms": 5}],
                "baseline_results": [{"task_id": "<i>t1</i>", "passed": True, "score": 1.0, "duration_ms": 5},
                                     {"task_id": "t2", "passed": True, "score": 1.0, "duration_ms": 5}]}
    path = tmp_path / "artifact.json"
    path.write_text(json.dumps(artifact))
    run_id, _ = import_artifact(store, path, actor="ana")
    html = reports.suite_report(store, run_id, "html")
    assert "<i>t1</i>" not in html and "&lt;i&gt;t1&lt;/i&gt;" in html
    assert "<script>" not in html
    md = reports.suite_report(store, run_id, "md")
    assert "verdict **fail**" in md
    assert md.index("| t2 |") < md.index("\\<i\\>t1")  # the task that changed leads


def test_report_cli_exit_codes(cli, store):
    _case(store)
    result = cli("report", "case", "case-h", "--format", "html")
    assert result.exit_code == 0 and "<!doctype html>" in result.output
    assert cli("report", "case", "nope").exit_code == 2
    assert cli("report", "suite", "nope").exit_code == 2
    assert cli("report", "case", "case-h", "--format", "pdf").exit_code == 2


def test_the_regressions_report_gives_each_skill_its_newest_triage(demo_copy):
    db = open_store(demo_copy)
    try:
        rows = reports.regressions_data(db)["skills"]
        assert all(row["triage"] == skills.triage(db, row["skill"]) for row in rows)
        kinds = sorted({row["triage"]["kind"] for row in rows if row["triage"]})
        assert kinds == ["acknowledged", "mismatch"]
    finally:
        db.close()
