"""Manifest versions and drafts: import, approve, reject (note required), edit as a new draft."""

import json
import sqlite3

import pytest

from gatepost.store.kernel import (
    ConflictError,
    InputError,
    RefusedError,
    add_actor,
    last_seq,
    list_events,
)
from gatepost.store.skills import (
    active_version,
    approve_draft,
    create_draft,
    edit_draft,
    get_draft,
    import_manifest,
    list_drafts,
    list_versions,
    reject_draft,
)
from tests.conftest import FIXTURES

MANIFEST = str(FIXTURES / "skills" / "evals.yaml")


@pytest.fixture
def store(db):
    add_actor(db, "bruno", "person", ["manifest.review"])
    add_actor(db, "chen", "person", ["regression.triage"])
    return db


def test_import_makes_each_skill_active_and_is_idempotent(store):
    first = import_manifest(store, MANIFEST, actor="bruno")
    assert [(v["skill"], v["version"], v["unchanged"]) for v in first] == [
        ("token-movers", 1, False), ("narrative-tracker", 1, False)]
    assert active_version(store, "token-movers")["assertions"]["min_distinct_items"] == 5
    again = import_manifest(store, MANIFEST, actor="bruno")
    assert all(v["unchanged"] for v in again)
    import_manifest(store, "m2.yaml", actor="bruno", text="token-movers:\n  min_words: 10\n")
    versions = list_versions(store, "token-movers")
    assert [(v["version"], v["active"]) for v in versions] == [(1, False), (2, True)]
    assert versions[0]["assertions"]["min_words"] == 40  # the old version is still there, unchanged
    assert len(list_events(store, kind="manifest.imported")) == 3


def test_import_needs_manifest_review(store):
    with pytest.raises(RefusedError, match="chen does not hold manifest.review"):
        import_manifest(store, MANIFEST, actor="chen")
    assert active_version(store, "token-movers") is None


def test_versions_cannot_be_edited_in_place(store):
    import_manifest(store, MANIFEST, actor="bruno")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.execute("UPDATE manifest_versions SET assertions = '{}'")


def _draft(store, skill="token-movers", min_words=150):
    return create_draft(store, skill, {"min_words": min_words, "forbidden_patterns": ["as an AI"]},
                        author="run-52", origin="bootstrap", evidence={"word_counts": [150, 200]})


def test_approve_makes_a_new_active_version_and_supersedes_siblings(store):
    import_manifest(store, MANIFEST, actor="bruno")
    draft, sibling = _draft(store), _draft(store, min_words=99)
    version = approve_draft(store, draft["id"], actor="bruno", note="matches the last runs")
    assert (version["version"], version["source"], version["draft_id"]) == (2, "draft", draft["id"])
    assert active_version(store, "token-movers")["assertions"] == {"min_words": 150,
                                                                  "forbidden_patterns": ["as an AI"]}
    assert get_draft(store, draft["id"])["status"] == "approved"
    assert get_draft(store, sibling["id"])["status"] == "superseded"
    [event] = list_events(store, kind="draft.approved")
    assert (event["actor"], event["note"]) == ("bruno", "matches the last runs")
    with pytest.raises(RefusedError, match="is approved, not pending"):
        approve_draft(store, draft["id"], actor="bruno")


def test_reject_needs_a_note_and_leaves_the_active_version(store):
    import_manifest(store, MANIFEST, actor="bruno")
    draft = _draft(store)
    with pytest.raises(InputError, match="note is required"):
        reject_draft(store, draft["id"], actor="bruno", note="")
    with pytest.raises(RefusedError, match="chen does not hold manifest.review"):
        reject_draft(store, draft["id"], actor="chen", note="no")
    reject_draft(store, draft["id"], actor="bruno", note="min_words too high for weekend runs")
    assert get_draft(store, draft["id"])["status"] == "rejected"
    assert active_version(store, "token-movers")["version"] == 1
    assert list_events(store, kind="draft.rejected")[0]["note"] == "min_words too high for weekend runs"


def test_edit_saves_a_new_draft_by_the_editor(store):
    draft = _draft(store)
    edited = edit_draft(store, draft["id"], "token-movers:\n  min_words: 120\n", actor="bruno", note="looser")
    assert edited["id"] != draft["id"]
    assert (edited["author"], edited["origin"], edited["parent_id"], edited["status"]) == (
        "bruno", "edit", draft["id"], "pending")
    assert edited["assertions"] == {"min_words": 120}
    assert edited["evidence"] == {"word_counts": [150, 200]}  # the evidence travels with the edit
    old = get_draft(store, draft["id"])
    assert old["status"] == "superseded" and old["assertions"]["min_words"] == 150


@pytest.mark.parametrize("text,message", [
    ("token-movers:\n  min_wordz: 1\n", "min_wordz: unknown assertion"),
    ("other-skill:\n  min_words: 1\n", "expected exactly one skill, token-movers"),
    ("token-movers:\n  min_words: 150\n  forbidden_patterns: [as an AI]\n", "changes no assertion"),
])
def test_bad_edits_are_refused_and_change_nothing(store, text, message):
    draft = _draft(store)
    with pytest.raises(InputError, match=message):
        edit_draft(store, draft["id"], text, actor="bruno")
    assert get_draft(store, draft["id"])["status"] == "pending"
    assert list_drafts(store)[1] == 1


def test_stale_decision_is_a_conflict(store):
    draft = _draft(store)
    seen = last_seq(store, "draft", draft["id"])
    edit_draft(store, draft["id"], "token-movers:\n  min_words: 1\n", actor="bruno")
    with pytest.raises(RefusedError):
        approve_draft(store, draft["id"], actor="bruno", expected_seq=seen)
    other = _draft(store, skill="narrative-tracker")
    with pytest.raises(ConflictError):
        approve_draft(store, other["id"], actor="bruno", expected_seq=0)


def test_list_drafts_pages_and_filters(store):
    ids = [_draft(store, skill=f"skill-{i:02d}")["id"] for i in range(7)]
    reject_draft(store, ids[0], actor="bruno", note="no")
    rows, total = list_drafts(store, limit=3, offset=0)
    assert total == 6 and len(rows) == 3
    rows2, _ = list_drafts(store, limit=3, offset=3)
    assert {r["id"] for r in rows} | {r["id"] for r in rows2} == set(ids[1:])
    assert list_drafts(store, status="rejected")[0][0]["id"] == ids[0]
    assert list_drafts(store, status=None)[1] == 7
    assert [r["skill"] for r in list_drafts(store, search="skill-03")[0]] == ["skill-03"]
    with pytest.raises(InputError, match="--status"):
        list_drafts(store, status="waiting")


def test_cli_import_approve_reject_show(store, cli, tmp_path):
    assert cli("manifest", "import", MANIFEST, "--as", "chen").exit_code == 3
    result = cli("manifest", "import", MANIFEST, "--as", "bruno")
    assert result.exit_code == 0 and "token-movers: v1 active" in result.output
    draft = _draft(store)
    shown = cli("manifest", "show", draft["id"], "--json")
    assert json.loads(shown.output)["assertions"]["min_words"] == 150
    assert cli("manifest", "reject", draft["id"], "--as", "bruno").exit_code == 2  # --note is required
    listed = json.loads(cli("manifest", "drafts", "--json").output)
    assert listed["total"] == 1 and listed["drafts"][0]["id"] == draft["id"]
    approved = cli("manifest", "approve", draft["id"], "--as", "bruno", "--note", "ok")
    assert approved.exit_code == 0 and "token-movers v2 is active" in approved.output
    versions = cli("manifest", "versions", "token-movers")
    assert "* v2  draft from " + draft["id"] in versions.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("token-movers:\n  output_pattern: '[a-'\n")
    failed = cli("manifest", "import", str(bad), "--as", "bruno")
    assert failed.exit_code == 2 and "token-movers: output_pattern: invalid regular expression" in failed.output
    edit_file = tmp_path / "edit.yaml"
    other = _draft(store, skill="narrative-tracker")
    edit_file.write_text("narrative-tracker:\n  min_words: 10\n")
    edited = cli("manifest", "edit", other["id"], str(edit_file), "--as", "bruno")
    assert edited.exit_code == 0 and "pending review" in edited.output


def test_the_approver_reads_the_draft_as_it_becomes_active_and_the_raw_text_only_on_request(store, cli):
    draft = _draft(store)
    written = "token-movers:\n  min_words: 0200\n  forbidden_patterns: [as an AI]\n"  # YAML 1.1: octal, 128
    edited = edit_draft(store, draft["id"], written, actor="bruno")
    shown = cli("manifest", "show", edited["id"])
    assert shown.exit_code == 0 and "min_words: 128" in shown.output and "0200" not in shown.output
    as_json = json.loads(cli("manifest", "show", edited["id"], "--json").output)
    assert "min_words: 128" in as_json["yaml"] and "raw_yaml" not in as_json
    raw = cli("manifest", "show", edited["id"], "--raw")
    assert "min_words: 0200" in raw.output and "as written (--raw)" in raw.output
    listed = json.loads(cli("manifest", "drafts", "--json").output)
    assert listed["drafts"][0]["assertions"]["min_words"] == 128
    approve_draft(store, edited["id"], actor="bruno")
    active = cli("manifest", "show", "token-movers")
    assert active.output.split("\n", 1)[1] == shown.output.split("\n", 1)[1].split("warning:")[0]
    assert active_version(store, "token-movers")["assertions"]["min_words"] == 128
