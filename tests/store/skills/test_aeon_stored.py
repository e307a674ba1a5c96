"""aeon's dialect stored as runs and evals, with aeon's diff against the previous eval, on aeon's real run of
2026-05-03: the seven outputs it judged (copies of the real files) and its article, whose Diff column and line
("2 new fail · 2 fixed · 7 still failing · 3 stable") are the ground truth. The eval before it (2026-04-26) is
laid out from the same files: the outputs aeon found then, dated 2026-04-25, where heartbeat's log did not yet
hold the three `${var}` lines and repo-article named aeon, and push-recap and cost-report had written nothing
(aeon's article: both were NO_OUTPUT before, FIXED now)."""

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_gatepost

AEON = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "aeon"
RUN = AEON / "aeonfun-aeon" / "c31d240ff146c1c63e1f2ce939ed40fe90215307"
MANIFEST = RUN / "skills" / "skill-evals" / "evals.json"
BEFORE = "2026-04-26T06:40:00Z"
AT_RUN = "2026-05-03T06:41:22Z"  # dashboard/outputs/skill-evals-2026-05-03T06-41-22Z


def _table() -> dict[str, dict[str, str]]:
    text = (RUN / "articles" / "skill-evals-2026-05-03.md").read_text()
    table = text.split("## Full Results", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 7 and cells[0] not in ("Skill", "") and not cells[0].startswith("-"):
            rows[cells[0]] = {"status": cells[1], "diff": cells[2]}
    return rows


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    db = ["--db", str(tmp_path / "s.db")]
    assert run_gatepost(*db, "init", "--admin", "ana").returncode == 0
    added = run_gatepost(*db, "actors", "add", "aeon-ci", "--kind", "producer", "--capability", "evidence.record",
                         "--as", "ana")
    assert added.returncode == 0, added.stderr
    return db


def _before(root: Path) -> None:
    """The tree at aeon's previous eval, from the real outputs (see the module's docstring)."""
    (root / "articles").mkdir(parents=True)
    (root / "memory" / "logs").mkdir(parents=True)
    log = (RUN / "memory/logs/2026-05-02.md").read_text()
    (root / "memory/logs/2026-04-25.md").write_text("".join(line for line in log.splitlines(keepends=True)
                                                            if "${var}" not in line))
    for path in (RUN / "articles").glob("*.md"):
        skill = re.sub(r"-\d{4}-\d{2}-\d{2}\.md$", "", path.name)
        if skill in ("push-recap", "cost-report", "skill-evals") or skill.startswith("changelog-"):
            continue
        text = path.read_text() + ("\nWritten with aeon.\n" if skill == "repo-article" else "")
        (root / "articles" / f"{skill}-2026-04-25.md").write_text(text)


def _after(root: Path) -> None:
    """The real outputs aeon judged on 2026-05-03, added to the tree."""
    for rel in ("memory/logs/2026-05-02.md", *(str(p.relative_to(RUN)) for p in (RUN / "articles").glob("*.md")
                                               if not p.name.startswith("skill-evals-"))):
        shutil.copy(RUN / rel, root / rel)


def _eval(db: list[str], root: Path, as_of: str, *args: str):
    return run_gatepost(*db, "skills", "eval", "--manifest", str(MANIFEST), "--root", str(root), "--as", "aeon-ci",
                        "--as-of", as_of, *args)


@pytest.mark.slow
def test_aeons_diff_and_the_stored_states_follow_its_two_runs(store: list[str], tmp_path: Path):
    root = tmp_path / "aeon"
    _before(root)
    first = _eval(store, root, BEFORE, "--json")
    assert first.returncode == 0, first.stderr
    earlier = {r["skill"]: r for r in json.loads(first.stdout)}
    assert {s: r["status"] for s, r in earlier.items() if r["status"] != "NO_OUTPUT"} == {
        "heartbeat": "PASS", "changelog": "PASS", "repo-article": "PASS", "repo-actions": "PASS",
        "deep-research": "PASS"}
    assert {r["diff"] for r in earlier.values()} == {"NEW_PASS"}  # no prior eval: every result NEW_*

    _after(root)
    second = _eval(store, root, AT_RUN, "--fail-on", "FIXED")
    assert second.returncode == 1 and "--fail-on: 2 skill(s) in FIXED: push-recap, cost-report" in second.stderr
    lines = second.stdout.splitlines()
    ours = {m[2]: (m[1], m[3]) for m in (re.match(r"(\S+) ([\w-]+)\b.* · ([A-Z_]+) · state ", line)
                                         for line in lines[:-1]) if m}
    theirs = _table()
    assert len(ours) == len(lines) - 1 == 14
    assert ours == {s: (r["status"], r["diff"]) for s, r in theirs.items()}
    assert lines[-1] == "Diff: 2 new fail · 2 fixed · 7 still failing · 3 stable"
    assert "**Diff:** 2 new fail · 2 fixed · 7 still failing · 3 stable" in (
        RUN / "articles" / "skill-evals-2026-05-03.md").read_text()
    again = {r["skill"]: r for r in json.loads(_eval(store, root, AT_RUN, "--json").stdout)}
    assert {r["diff"] for r in again.values()} == {"STABLE", "STILL_FAIL"}  # against the eval just stored
    assert {r["stored"] for r in again.values()} == {"unchanged"}

    shown = {r["skill"]: r for r in json.loads(run_gatepost(*store, "skills", "show", "--json").stdout)}
    assert set(shown) == set(theirs)
    assert (shown["heartbeat"]["state"], shown["heartbeat"]["severity"]) == ("NEW_FAIL", "low")
    assert shown["heartbeat"]["failing"] == ["forbidden_pattern:\\$\\{var\\}"]
    assert shown["repo-article"]["failing"] == ["required_pattern:Aeon|aeon"]
    assert shown["push-recap"]["state"] == "NEW_PASS" and shown["changelog"]["state"] == "PASS"
    assert shown["repo-pulse"]["state"] == "NEW_FAIL" and shown["repo-pulse"]["failing"] == ["output_file"]
    assert again["push-recap"]["run_id"].startswith("push-recap:")
    assert shown["repo-pulse"]["fail_streak"] == 1  # the same missing output counts once

    gate = _eval(store, root, AT_RUN, "--fail-on", "NEW_FAIL")  # the regression state stays until a new output
    assert gate.returncode == 1 and "heartbeat" in gate.stderr and "repo-pulse" in gate.stderr
    assert _eval(store, root, AT_RUN, "--fail-on", "STABLE_FAIL,FIXED").returncode == 0


@pytest.mark.slow
def test_an_output_is_dated_by_its_file_name_else_its_modification_time(store: list[str], tmp_path: Path):
    root = tmp_path / "aeon"
    (root / "articles").mkdir(parents=True)
    (root / "articles" / "changelog-2026-02-19.md").write_text(  # a fresh checkout: modified just now
        (RUN / "articles" / "changelog-2026-05-02.md").read_text())
    manifest = tmp_path / "evals.json"
    spec = json.loads(MANIFEST.read_text())["skills"]["changelog"]
    manifest.write_text(json.dumps({"version": "1", "skills": {
        "changelog": spec, "notes": {"output_pattern": "articles/notes.md"}}}))
    (root / "articles" / "notes.md").write_text("no date in this name\n")
    done = run_gatepost(*store, "skills", "eval", "--manifest", str(manifest), "--root", str(root), "--as",
                        "aeon-ci", "--as-of", AT_RUN)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 2)[1:] for line in done.stdout.splitlines()[:-1])
    assert done.stdout.startswith("STALE changelog: stale_file")  # 73 days old by its name, fresh by mtime
    assert "(dated 2026-02-19 by its file name)" in lines["changelog:"]
    assert "(dated 2026-" in lines["notes"] and "by its modification time" in lines["notes"]
    judged = json.loads(run_gatepost(*store, "skills", "eval", "--manifest", str(manifest), "--root", str(root),
                                     "--no-store", "--json", "--as-of", AT_RUN).stdout)
    assert [(r["output_at"], r["dated_by"]) for r in judged][0] == ("2026-02-19T00:00:00Z", "file name")


@pytest.mark.slow
def test_storing_needs_evidence_record(store: list[str], tmp_path: Path):
    root = tmp_path / "aeon"
    _before(root)
    assert run_gatepost(*store, "actors", "add", "bob", "--as", "ana").returncode == 0
    done = run_gatepost(*store, "skills", "eval", "--manifest", str(MANIFEST), "--root", str(root), "--as", "bob",
                        "--as-of", BEFORE)
    assert done.returncode == 3 and "refused" in done.stderr
    assert json.loads(run_gatepost(*store, "skills", "show", "--json").stdout) == []
