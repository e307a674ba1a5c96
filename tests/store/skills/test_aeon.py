"""aeon's real evals.json as a second manifest dialect, judged as aeon judges it: aeon's own run of
2026-05-03 replayed on the seven outputs it judged (copies of the real files) agrees on every status,
word count and root cause."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gatepost.store.kernel import InputError
from gatepost.store.skills import judge_manifest, parse_manifest, read_aeon_manifest, wc_words

AEON = Path(__file__).resolve().parents[2] / "fixtures" / "reference" / "upstream" / "aeon"
RUN = AEON / "aeonfun-aeon" / "c31d240ff146c1c63e1f2ce939ed40fe90215307"
MANIFESTS = sorted(AEON.glob("*/*/skills/skill-evals/evals.json"))


def _gatepost(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gatepost", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env={**os.environ, **(env or {})})


def _aeons_table() -> dict[str, dict[str, str]]:
    """aeon's "Full Results" table of articles/skill-evals-2026-05-03.md, row by skill."""
    text = (RUN / "articles" / "skill-evals-2026-05-03.md").read_text()
    table = text.split("## Full Results", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 7 and cells[0] not in ("Skill", "") and not cells[0].startswith("-"):
            rows[cells[0]] = dict(zip(["status", "diff", "root_cause", "quality", "words", "output"], cells[1:],
                                      strict=True))
    return rows


@pytest.fixture
def aeon_root(tmp_path: Path) -> Path:
    """aeon's repository at the run: the manifest in force and the outputs it judged (fresh copies, dated by
    their file names: the run is replayed at its own time, 2026-05-03T06:41:22Z)."""
    root = tmp_path / "aeon"
    for rel in ("skills/skill-evals/evals.json", "memory/logs/2026-05-02.md", *(
            str(p.relative_to(RUN)) for p in (RUN / "articles").glob("*.md"))):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RUN / rel, root / rel)
    return root


def test_aeons_run_of_2026_05_03_is_replayed_verdict_for_verdict(aeon_root: Path, tmp_path: Path):
    done = _gatepost("--db", str(tmp_path / "r.db"), "skills", "eval", "--manifest",
                     str(aeon_root / "skills" / "skill-evals" / "evals.json"), "--root", str(aeon_root), "--json",
                     "--no-store", "--as-of", "2026-05-03T06:41:22Z", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ours = {r["skill"]: r for r in json.loads(done.stdout)}
    theirs = _aeons_table()
    assert len(theirs) == 14 and set(ours) == set(theirs)
    judged = [s for s, row in theirs.items() if row["status"] != "NO_OUTPUT"]
    assert len(judged) == 7
    assert sorted(theirs[s]["status"] for s in judged) == ["FAIL", "FAIL", "PASS", "PASS", "PASS", "PASS", "PASS"]
    for skill, row in theirs.items():
        mine = ours[skill]
        assert mine["status"] == row["status"], skill
        if row["status"] == "NO_OUTPUT":
            assert mine["root_cause"] == "no_file_match" and mine["output"] is None
            continue
        assert mine["output"] == row["output"], skill
        if row["words"].startswith("~"):  # aeon estimated the shared log: "~13k+"
            assert mine["words"] >= 13_000
        else:
            assert mine["words"] == int(row["words"].replace(",", "")), skill
        if row["root_cause"] == "—":
            assert mine["root_causes"] == [], skill
        else:  # aeon prints the pattern unescaped: forbidden_pattern:${var}, missing_pattern:Aeon\|aeon
            kind, pattern = row["root_cause"].replace("\\|", "|").split(":", 1)
            assert mine["root_cause"].split(":", 1)[0] == kind
            assert re.sub(r"\\(.)", r"\1", mine["root_cause"].split(":", 1)[1]) == pattern


@pytest.mark.skipif(shutil.which("wc") is None, reason="no wc on this machine")
def test_word_counts_are_wc_w(aeon_root: Path):
    for path in [*aeon_root.glob("articles/*.md"), *aeon_root.glob("memory/logs/*.md")]:
        expected = int(subprocess.run(["wc", "-w"], stdin=path.open("rb"), capture_output=True, text=True,
                                      env={**os.environ, "LC_ALL": "C.UTF-8"}).stdout.split()[0])  # aeon runs in UTF-8
        assert wc_words(path.read_bytes()) == expected, path.name


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.parts[-5][:8])
def test_every_real_evals_json_reads_as_aeons_dialect(path: Path):
    specs = read_aeon_manifest(path)
    assert specs and all(s.output_pattern for s in specs)
    with pytest.raises(InputError, match="is aeon's evals.json .*skills eval --manifest"):
        parse_manifest(path.read_text(), source=path.name)  # manifest import: pointed to the right command


def test_five_real_versions_of_evals_json():
    assert len({p.read_bytes() for p in MANIFESTS}) == 5  # six copies: the run's commit holds one of them again


def test_a_file_of_neither_shape_names_both(tmp_path: Path):
    bad = tmp_path / "evals.json"
    bad.write_text(json.dumps({"version": "1", "checks": []}))
    done = _gatepost("--db", str(tmp_path / "r.db"), "skills", "eval", "--manifest", str(bad), "--root",
                     str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and '{"version", "skills"' in line and "BankrBot" in line


def _write(root: Path, spec: dict, files: dict[str, str], *, name: str = "s") -> list:
    manifest = root / "evals.json"
    manifest.write_text(json.dumps({"version": "1", "skills": {name: spec}}))
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return judge_manifest(read_aeon_manifest(manifest), root)


def test_patterns_are_case_sensitive_ere_with_alternatives_matched_per_line(tmp_path: Path):
    spec = {"output_pattern": "out/s-*.md", "required_patterns": ["Aeon|aeon"], "forbidden_patterns": ["a.b"]}
    [r] = _write(tmp_path, spec, {"out/s-1.md": "AEON rises\na\nb\n"})
    assert r.status == "FAIL" and r.root_causes == ["missing_pattern:Aeon|aeon"]  # case-sensitive; . not across \n
    [r] = _write(tmp_path, spec, {"out/s-2.md": "aeon rises\naxb\n"})
    assert r.output == "out/s-2.md" and r.root_causes == ["forbidden_pattern:a.b"]  # the last file by name


def test_numeric_checks_bound_the_first_number_and_may_skip(tmp_path: Path):
    checks = [{"label": "price", "pattern": "\\$([\\d.]+)", "min": 0, "max": 100},
              {"label": "stars", "pattern": "(\\d+) star", "min": 1, "max": 10, "skip_if_not_found": True},
              {"label": "pct", "pattern": "([\\d.]+)%", "min": 0, "max": 100}]
    [r] = _write(tmp_path, {"output_pattern": "a.md", "numeric_checks": checks}, {"a.md": "costs $250 today"})
    assert r.status == "FAIL" and r.root_causes == ["numeric_oob:price", "numeric_missing:pct"]
    assert r.numbers == {"price": 250.0}
    [r] = _write(tmp_path, {"output_pattern": "a.md", "numeric_checks": checks}, {"a.md": "costs $25, 3 stars"})
    assert r.status == "WARN" and r.root_causes == ["numeric_missing:pct"]


def test_statuses_follow_aeons_precedence(tmp_path: Path):
    [r] = _write(tmp_path, {"output_pattern": "a.md", "min_words": 1}, {"a.md": ""})
    assert (r.status, r.root_causes) == ("FAIL", ["empty_file"])
    [r] = _write(tmp_path, {"output_pattern": "a.md", "min_words": 5}, {"a.md": "one two"})
    old = time.time() - 30 * 86400
    os.utime(tmp_path / "a.md", (old, old))
    [r] = judge_manifest(read_aeon_manifest(tmp_path / "evals.json"), tmp_path)
    assert r.status == "FAIL" and r.root_causes == ["stale_file", "word_count"]  # FAIL outranks STALE
    (tmp_path / "a.md").write_text("one two three four five six")
    os.utime(tmp_path / "a.md", (old, old))
    [r] = judge_manifest(read_aeon_manifest(tmp_path / "evals.json"), tmp_path)
    assert r.status == "STALE"
    (tmp_path / "memory" / "skill-health").mkdir(parents=True)
    (tmp_path / "memory" / "skill-health" / "s.json").write_text('{"avg_score": 2.1}')
    (tmp_path / "a.md").write_text("one two three four five six")
    [r] = judge_manifest(read_aeon_manifest(tmp_path / "evals.json"), tmp_path)
    assert (r.status, r.root_causes) == ("QUALITY_DEGRADED", ["quality_score:2.1"])


def test_a_pattern_re2_cannot_run_is_refused_at_reading(tmp_path: Path):
    with pytest.raises(InputError, match=r"skills.s.forbidden_patterns: invalid regular expression '\(a\)\\\\1'"):
        _write(tmp_path, {"output_pattern": "a.md", "forbidden_patterns": ["(a)\\1"]}, {"a.md": "aa"})


def test_a_pathological_pattern_runs_in_linear_time(tmp_path: Path):
    [r] = _write(tmp_path, {"output_pattern": "a.md", "required_patterns": ["^(a+)+$"]}, {"a.md": "a" * 41 + "!"})
    assert r.status == "FAIL" and r.root_causes == ["missing_pattern:^(a+)+$"]
