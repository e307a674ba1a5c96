"""`gatepost comment`: add to a thread, list it, list a person's mentions; refusals exit 3, bad input 2."""

import json

import pytest

from gatepost.store.cases import import_case
from gatepost.store.kernel import add_actor
from tests.conftest import run_gatepost
from tests.store.discussion.test_comments import CASE


@pytest.fixture
def store(db, store_path):
    add_actor(db, "ana", "person", ["case.close"])
    add_actor(db, "bruno", "person", ["item.comment"])
    add_actor(db, "dara", "person", [])
    import_case(db, CASE, actor="run-41")
    return store_path


def gp(store, *args):
    return run_gatepost("--db", str(store), *args)


def test_comment_lists_and_mentions(store):
    added = gp(store, "comment", "case:case-0300", "--note", "@bruno tested? ask @nobody", "--as", "ana")
    assert added.returncode == 0, added.stderr
    assert "comment added" in added.stdout and "mentions bruno" in added.stdout
    assert "not a person of this store, so not mentioned: @nobody" in added.stderr
    assert gp(store, "comment", "case:case-0300", "--note", "yes", "--as", "bruno").returncode == 0
    listed = gp(store, "comment", "case:case-0300")
    lines = listed.stdout.splitlines()
    assert len(lines) == 2 and "ana at" in lines[0] and lines[1].endswith("bruno at " + lines[1].split(" at ")[1])
    data = json.loads(gp(store, "comment", "case:case-0300", "--json").stdout)
    assert [c["note"] for c in data["comments"]] == ["@bruno tested? ask @nobody", "yes"]
    mine = json.loads(gp(store, "comment", "--mentioning", "bruno", "--json").stdout)
    assert [c["subject_id"] for c in mine["comments"]] == ["case-0300"]
    assert "no comment mentions" in gp(store, "comment", "--mentioning", "ana").stdout


def test_refused_and_bad_input(store):
    refused = gp(store, "comment", "case:case-0300", "--note", "hi", "--as", "dara")
    assert refused.returncode == 3 and "refused: capability: dara holds none of item.comment" in refused.stderr
    missing = gp(store, "comment", "case:case-9", "--note", "hi", "--as", "ana")
    assert missing.returncode == 2 and "no such case" in missing.stderr
    bad = gp(store, "comment", "cake:1", "--note", "hi", "--as", "ana")
    assert bad.returncode == 2 and "expected KIND:ID" in bad.stderr and "Traceback" not in bad.stderr
    assert json.loads(gp(store, "comment", "case:case-0300", "--json").stdout)["comments"] == []
