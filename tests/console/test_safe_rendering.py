"""Text from data is shown literally on every screen: markup stays text, escapes never reach the terminal."""

import json
import re

import pytest

from gatepost.app import GatepostApp
from gatepost.store import cases, proposals, skills
from gatepost.store.evaluation import import_artifact
from gatepost.store.kernel import PERSON_CAPABILITIES, add_actor
from gatepost.store.skills import manifests
from tests.console_helpers import settle

MARKUP = "[bold red]LOUD[/bold red] [link=http://evil.example]click[/link] [/]"
ESCAPES = "\x1b[31mred\x1b[0m \x1b]8;;http://evil.example\x07osc\x1b]8;;\x07 \x1b[2J\x1b[H"
HOSTILE = f"{MARKUP} {ESCAPES} end"


def _populate(db, tmp_path) -> dict[str, str]:
    add_actor(db, "ana", "person", PERSON_CAPABILITIES)
    case_id = cases.import_case(db, {
        "protocol": "eval.gated_change/1", "id": "case-hostile", "title": HOSTILE, "author": "run-41",
        "candidate": {"path": "procedures/release.md", "content": HOSTILE,
                      "basis": {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}},
        "independent": {"different_agent_run": ["run-52", "ana"]},
        "evidence": [{"kind": "guard_check", "result": "clean", "producer": "run-52", "about": "current"}],
    }, actor="ana")
    cases.add_evidence(db, case_id, kind="design_review", result="passed", producer="ana", about="current",
                       actor="ana")
    manifests.import_manifest(db, "m.yaml", actor="ana", text="hostile-skill:\n  min_words: 500\n")
    for i in range(5):
        skills.record_run(db, "hostile-skill", f"# Report {i}\n{HOSTILE}\n" + "word " * 30, actor="ana",
                          run_id=f"h-{i}", at=f"2026-11-0{i + 1}T10:00:00Z")
    skills.evaluate(db, actor="ana", skill="hostile-skill")
    draft = manifests.create_draft(db, "hostile-skill", {"min_words": 20, "required_patterns": [MARKUP]},
                                   author="ana", origin="bootstrap", note=HOSTILE)
    proposal_file = tmp_path / "proposal.json"
    proposal_file.write_text(json.dumps({
        "path": "procedures/release.md", "kind": "procedure", "operation": "update", "edit_mode": "full_page",
        "title": HOSTILE, "confidence": 0.9, "rationale": HOSTILE,
        "before_body": "# Release\n", "after_body": f"# Release\n{HOSTILE}\n"}))
    proposal_id, _ = proposals.import_proposal(db, proposal_file, actor="ana")
    artifact = tmp_path / "artifact.json"
    artifact.write_text(json.dumps({
        "skill_id": "hostile-skill", "execution_pass_rate": 1.0, "baseline_pass_rate": 0.0, "delta": 1.0,
        "verdict": "pass", "warnings": [HOSTILE],
        "candidate_results": [{"task_id": "t1", "passed": True, "score": 1.0, "duration_ms": 3, "output": HOSTILE}],
        "baseline_results": [{"task_id": "t1", "passed": False, "score": 0.0, "duration_ms": 3, "output": MARKUP}]}))
    run_id, _ = import_artifact(db, artifact, actor="ana")
    return {"cases": case_id, "regressions": "hostile-skill", "manifests": draft["id"],
            "proposals": proposal_id, "results": run_id}


def _screen_text(app) -> str:
    svg = app.export_screenshot()
    text = re.sub(r"<[^>]+>", "", svg)
    for entity, char in (("&#160;", " "), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&#x27;", "'"),
                         ("&quot;", '"')):
        text = text.replace(entity, char)
    return text


@pytest.mark.slow
async def test_hostile_text_is_literal_on_every_screen(db, store_path, tmp_path):
    keys = _populate(db, tmp_path)
    app = GatepostApp(store_path, person="ana")
    seen_markup = []
    async with app.run_test(size=(200, 60)) as pilot:
        for mode, key, _label, _target in app.screen_specs:
            await pilot.press(key)
            await settle(pilot)
            if mode in keys:
                app.screen.open_item(keys[mode])
                await settle(pilot)
                await settle(pilot)
            text = _screen_text(app)
            assert "\x1b" not in text, mode
            assert "[31m" not in text and "]8;;" not in text and "[2J" not in text, mode
            if "LOUD" in text:
                assert "[bold red]LOUD" in text, f"{mode}: markup in data styled the screen"
                seen_markup.append(mode)
            assert "click[/link]" in text or "click" not in text, mode
    assert {"cases", "regressions", "proposals", "results", "audit"} <= set(seen_markup), seen_markup


async def test_notifications_show_data_literally(db, store_path):
    add_actor(db, "ana", "person", PERSON_CAPABILITIES)
    app = GatepostApp(store_path, person="ana")
    async with app.run_test(size=(160, 30), notifications=True) as pilot:
        app.screen.notify(f"refused: {MARKUP}", severity="error")  # "[/]" would be a markup error
        await settle(pilot)
        await settle(pilot)
        assert "[bold red]LOUD[/bold red]" in _screen_text(app)
