"""Who acts is the OS's and the store's word, never a file's or the environment's.

Each attack below is run as an attacker with a shell on the loop's machine would, through the real
`gatepost` entry point in a subprocess: it is refused in one line naming the rule (exit 3, or 2 for a
bad path) and writes nothing.
"""

import json
import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from gatepost.store import cases
from gatepost.store.kernel import InputError as KernelInputError
from gatepost.store.kernel import RefusedError, add_actor, leases, open_store, os_user, repo_path
from tests.conftest import run_gatepost

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}
ME = os_user()


def gp(store: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_gatepost("--db", str(store), *args,
                        env={"GATEPOST_REVIEWER": "", "SSH_AUTH_SOCK": "", "GATEPOST_SIGNING_KEY": "", **(env or {})})


def refused(proc: subprocess.CompletedProcess, code: int, *words: str) -> None:
    """One line on stderr, the exit code, the words; never a traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in proc.stderr, proc.stderr


def events(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])


def one(store: Path, query: str, params: tuple = ()):
    with sqlite3.connect(store) as conn:
        return conn.execute(query, params).fetchone()


def case_file(folder: Path, case_id: str = "case-0042", *, author: str = "loop-a", path: str = "procedures/release.md",
              independent=("run-52", "ana", "erin"), evidence=(), name: str | None = None) -> Path:
    target = folder / (name or f"{case_id}-{len(list(folder.iterdir()))}.yaml")
    target.write_text(yaml.safe_dump({
        "protocol": "eval.gated_change/1", "id": case_id, "title": "Release checklist", "author": author,
        "candidate": {"path": path, "content": "Use the checklist.", "basis": dict(BASIS)},
        "independent": {"different_agent_run": list(independent)},
        "evidence": [{"kind": k, "result": r, "producer": p, "about": "design-2" if k == "design_review"
                      else "current"} for k, r, p in evidence]}, allow_unicode=True))
    return target


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """This OS user administers the store; ana keeps and closes cases, erin reviews designs; loop-a and run-52
    are loops."""
    path = tmp_path / "store.db"
    assert gp(path, "init").returncode == 0
    for args in (["ana", "--capability", "loop_change.keep", "--capability", "case.close",
                  "--capability", "eval_design.review", "--capability", "evidence.record"],
                 ["erin", "--capability", "eval_design.review"],
                 ["loop-a", "--kind", "producer", "--capability", "evidence.record"],
                 ["run-52", "--kind", "producer", "--capability", "evidence.record"]):
        done = gp(path, "actors", "add", *args, "--as", ME)
        assert done.returncode == 0, done.stderr
    return path


@pytest.fixture
def files(tmp_path: Path) -> Path:
    folder = tmp_path / "files"
    folder.mkdir()
    return folder


# --- 1. the importer is the author ----------------------------------------------------------------
@pytest.mark.slow
def test_a_file_cannot_name_another_author_than_its_importer(store: Path, files: Path):
    before = events(store)
    forged = case_file(files, author="ghost-run", independent=("loop-a", "run-52"))
    refused(gp(store, "case", "import", str(forged), "--as", "loop-a"), 3,
            "import case case-0042: refused: authorship: loop-a imports a case whose author is ghost-run")
    refused(gp(store, "case", "import", str(forged), "--as", "LOOP-A"), 3, "authorship")
    assert events(store) == before and one(store, "SELECT COUNT(*) FROM cases")[0] == 0
    # the same name, however spelled, is the author; the stored case names it
    assert gp(store, "case", "import", str(case_file(files, author="Loop-A")), "--as", "loop-a").returncode == 0


@pytest.mark.slow
def test_an_administrator_imports_on_an_authors_behalf_and_the_event_names_both(store: Path, files: Path):
    done = gp(store, "case", "import", str(case_file(files, author="ghost-run")), "--as", ME)
    assert done.returncode == 0, done.stderr
    actor, payload = one(store, "SELECT actor, payload FROM events WHERE kind = 'case.imported'")
    assert actor == ME and json.loads(payload)["on_behalf_of"] == "ghost-run"
    assert one(store, "SELECT author FROM cases WHERE id = 'case-0042'")[0] == "ghost-run"


# --- 2. revisions belong to their author; the path is part of the revision -------------------------
@pytest.mark.slow
def test_only_the_author_or_an_administrator_revises_a_case(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    before = events(store)
    moved = case_file(files, path="skills/other/SKILL.md")
    for who in ("nobody-at-all", "run-52", "ana"):
        refused(gp(store, "case", "revise", str(moved), "--as", who), 3,
                f"revise case-0042: refused: authorship: {who} revises a case whose author is loop-a")
    assert events(store) == before
    assert gp(store, "case", "revise", str(moved), "--as", ME, "--note", "moved for the loop").returncode == 0
    actor, payload = one(store, "SELECT actor, payload FROM events WHERE kind = 'case.revised'")
    assert actor == ME and json.loads(payload)["on_behalf_of"] == "loop-a"


@pytest.mark.slow
def test_moving_the_candidate_makes_its_evidence_stale(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    assert gp(store, "case", "evidence", "case-0042", "--kind", "guard_check", "--result", "clean",
              "--as", "run-52").returncode == 0
    first = json.loads(gp(store, "case", "show", "case-0042", "--json").stdout)
    assert first["evidence"][0]["status"] == "counting"
    assert gp(store, "case", "revise", str(case_file(files, path="procedures/other.md")),
              "--as", "loop-a").returncode == 0
    moved = json.loads(gp(store, "case", "show", "case-0042", "--json").stdout)
    assert moved["revision"] != first["revision"] and moved["candidate"]["path"] == "procedures/other.md"
    assert moved["evidence"][0]["status"] == "stale" and moved["claims"]["content.clean"] == "UNKNOWN"


# --- paths are repository paths ---------------------------------------------------------------------
BAD_PATHS = ["../../etc/cron.d/evil", "/etc/passwd", "C:/Windows/x.ini", "a/../../b", "skills/\u202etxt.md",
             "skills/\u200bx.md", "a\x07b", "x/" * 600 + "y"]


@pytest.mark.parametrize("bad", BAD_PATHS)
def test_a_path_that_is_not_a_repository_path_is_bad_input(bad: str):
    with pytest.raises(KernelInputError, match="^candidate.path: .*expected a repository path"):
        repo_path(bad, "candidate.path")


def test_paths_are_normalised():
    assert repo_path("./skills//a/./SKILL.md") == "skills/a/SKILL.md"
    assert repo_path("skills\\a\\SKILL.md") == "skills/a/SKILL.md"
    assert repo_path(".github/workflows/ci.yml") == ".github/workflows/ci.yml"


@pytest.mark.slow
def test_bad_paths_are_refused_at_import_revise_current_and_proposals(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    before = events(store)
    refused(gp(store, "case", "import", str(case_file(files, "case-0043", path="../../etc/cron.d/evil")),
               "--as", "loop-a"), 2, "candidate.path", "'..' segment")
    refused(gp(store, "case", "revise", str(case_file(files, path="../../etc/cron.d/evil")), "--as", "loop-a"),
            2, "candidate.path", "'..' segment")
    refused(gp(store, "case", "revise", str(case_file(files, path="/etc/passwd")), "--as", "loop-a"),
            2, "candidate.path", "absolute")
    refused(gp(store, "current", "../../etc/passwd"), 2, "PATH", "'..' segment")
    for bad in ("../../etc/passwd", "/etc/passwd"):
        proposal = files / "p.json"
        proposal.write_text(json.dumps({"path": bad, "operation": "create", "edit_mode": "full_page",
                                        "after_body": "root::0:0::/:/bin/sh"}))
        refused(gp(store, "proposal", "import", str(proposal), "--as", "loop-a"), 2, "p.json: path")
    assert events(store) == before


def test_a_landing_on_a_bad_path_is_bad_input(tmp_path: Path):
    """A case stored before paths were checked cannot land outside the repository either."""
    db = open_store(tmp_path / "old.db")
    add_actor(db, "ana", "person", ["loop_change.keep"])
    cases.import_case(db, {"id": "c-1", "title": "t", "author": "run-41",
                           "candidate": {"path": "procedures/a.md", "content": "x", "basis": BASIS}})
    db.execute("UPDATE cases SET candidate_path = '../../etc/cron.d/evil', status = 'closed', outcome = 'kept'")
    before = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    with pytest.raises(KernelInputError, match="case applied c-1: candidate.path: a '..' segment"):
        cases.record_applied(db, "c-1", ref="abc", actor="ana")
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == before
    db.close()


# --- 3. the OS user comes from the OS ---------------------------------------------------------------
@pytest.mark.slow
def test_logname_and_user_do_not_make_a_process_another_os_user(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    other = "someone-not-" + ME
    assert gp(store, "actors", "bind", "ana", "--os-user", other, "--as", ME).returncode == 0
    before = events(store)
    for env in ({"LOGNAME": other}, {"USER": other}, {"LOGNAME": other, "USER": other, "LNAME": other,
                                                      "USERNAME": other}):
        refused(gp(store, "case", "decide", "case-0042", "inconclusive", "--as", "ana", "--note", "x", env=env),
                3, f"refused: identity: ana is bound to OS user {other}; this process runs as {ME}")
    assert events(store) == before


# --- 4. the clock comes from the store ----------------------------------------------------------------
@pytest.mark.slow
def test_the_environment_neither_outlasts_a_lease_nor_stamps_events(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    assert gp(store, "actors", "add", "bruno", "--capability", "case.close", "--as", ME).returncode == 0
    db = open_store(store)
    leases.take(db, "case", "case-0042", "bruno")
    db.close()
    before = events(store)
    refused(gp(store, "case", "decide", "case-0042", "inconclusive", "--as", "ana", "--note", "x",
               env={"GATEPOST_FROZEN_CLOCK": "2099-01-01T00:00:00Z"}), 3, "refused: lease: bruno is working on it")
    assert events(store) == before
    assert gp(store, "actors", "add", "dara", "--as", ME, env={"GATEPOST_FROZEN_CLOCK": "2099-01-01T00:00:00Z"}
              ).returncode == 0
    assert one(store, "SELECT MAX(at) FROM events")[0][:4] != "2099"


@pytest.mark.slow
def test_a_lease_needs_a_capability_the_items_decisions_need(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    assert gp(store, "actors", "add", "dara", "--as", ME).returncode == 0  # browses, decides nothing
    db = open_store(store)
    before = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    with pytest.raises(RefusedError, match="take case case-0042: refused: capability: dara holds none of"):
        leases.take(db, "case", "case-0042", "dara", now=datetime(2099, 1, 1, tzinfo=UTC))
    with pytest.raises(RefusedError, match="refused: identity: mallory is not a known actor"):
        leases.take(db, "case", "case-0042", "mallory")
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == before
    db.close()


# --- 5. keys rotate with the old key ----------------------------------------------------------------
needs_keygen = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def keygen(folder: Path, name: str) -> Path:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key


def rotation(folder: Path, old: Path, new: Path) -> Path:
    fp = subprocess.run(["ssh-keygen", "-l", "-f", f"{new}.pub"], capture_output=True, text=True,
                        check=True).stdout.split()[1]
    signed = subprocess.run(["ssh-keygen", "-Y", "sign", "-n", "gatepost-key-rotation", "-f", str(old)], input=fp,
                            capture_output=True, text=True, check=True).stdout
    path = folder / f"{new.name}.rotation"
    path.write_text(signed)
    return path


@pytest.mark.slow
@needs_keygen
def test_a_key_is_replaced_only_with_the_old_key_or_another_administrator(store: Path, tmp_path: Path):
    assert gp(store, "actors", "grant", "ana", "store.admin", "--as", ME).returncode == 0
    ana = keygen(tmp_path, "ana")
    assert gp(store, "actors", "key", "ana", f"{ana}.pub", "--as", ME).returncode == 0
    evil = keygen(tmp_path, "evil")
    before = events(store)
    # a process running as ana (an administrator) without her private key
    refused(gp(store, "actors", "key", "ana", f"{evil}.pub", "--as", "ana"), 3,
            "register a key for ana: refused: rotation: ana already has the key")
    # a statement signed by another key than ana's current one
    refused(gp(store, "actors", "key", "ana", f"{evil}.pub", "--rotation", str(rotation(tmp_path, evil, evil)),
               "--as", "ana"), 3, "refused: rotation: the rotation statement is not ana's current key")
    assert events(store) == before
    # ana rotates with her current key; then another administrator replaces it
    newer = keygen(tmp_path, "ana-2")
    assert gp(store, "actors", "key", "ana", f"{newer}.pub", "--rotation", str(rotation(tmp_path, ana, newer)),
              "--as", "ana").returncode == 0
    third = keygen(tmp_path, "ana-3")
    done = gp(store, "actors", "key", "ana", f"{third}.pub", "--as", ME)
    assert done.returncode == 0 and "replacing" in done.stdout, done.stderr
    check = gp(store, "verify")
    assert check.returncode == 0, check.stdout
    lines = [ln for ln in check.stdout.splitlines() if ln.startswith("key:")]
    assert len(lines) == 2
    assert "rotation signed with the replaced key" in lines[0] and f"by another administrator, by {ME}" in lines[1]


# --- 6. deciding is for people, never for whom the evidence came from ---------------------------------
@pytest.mark.slow
def test_a_producer_is_never_granted_a_deciding_capability(store: Path):
    before = events(store)
    for cap in ("loop_change.keep", "case.close", "proposal.review", "manifest.review", "regression.triage",
                "loop_change.apply_outside_surface"):
        refused(gp(store, "actors", "grant", "run-52", cap, "--as", ME), 3,
                f"grant {cap} to run-52: refused: capability: {cap} is never granted to a loop")
    refused(gp(store, "actors", "add", "run-60", "--kind", "producer", "--capability", "case.close", "--as", ME), 3,
            "never granted to a loop")
    assert events(store) == before


@pytest.mark.slow
def test_whose_evidence_counts_on_a_case_never_decides_it(store: Path, files: Path):
    assert gp(store, "case", "import", str(case_file(files)), "--as", "loop-a").returncode == 0
    for kind, result, who in (("guard_check", "clean", "ana"), ("design_review", "passed", "erin"),
                              ("tuning_comparison", "reproduced", "run-52"), ("heldout_comparison", "held", "run-52")):
        done = gp(store, "case", "evidence", "case-0042", "--kind", kind, "--result", result,
                  *(["--about", "design-2"] if kind == "design_review" else []), "--as", who)
        assert done.returncode == 0, done.stderr
    before = events(store)
    for outcome in ("kept", "inconclusive"):
        refused(gp(store, "case", "decide", "case-0042", outcome, "--as", "ana", "--note", "mine"), 3,
                f"decide case-0042 {outcome}: refused: decider: ana produced evidence #1 (guard_check clean)")
    assert events(store) == before
    # another person, whose evidence it does not weigh, decides
    assert gp(store, "actors", "add", "bruno", "--capability", "loop_change.keep", "--as", ME).returncode == 0
    assert gp(store, "case", "decide", "case-0042", "kept", "--as", "bruno", "--note", "ok").returncode == 0


def test_a_producer_holding_a_deciding_capability_from_before_still_never_decides(tmp_path: Path):
    db = open_store(tmp_path / "old.db")
    add_actor(db, "run-52", "producer", [])
    cases.import_case(db, {"id": "c-1", "title": "t", "author": "run-41",
                           "candidate": {"path": "procedures/a.md", "content": "x", "basis": BASIS}})
    db.execute("INSERT INTO capabilities (actor, capability, granted_by, granted_at) VALUES ('run-52', "
               "'case.close', 'someone', '2026-01-01T00:00:00Z')")  # a grant made before producers were refused it
    with pytest.raises(RefusedError, match="decide c-1 inconclusive: refused: decider: run-52 is a producer"):
        cases.decide(db, "c-1", "inconclusive", actor="run-52", note="mine")
    db.close()
