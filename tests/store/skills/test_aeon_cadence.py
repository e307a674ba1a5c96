"""aeon's evals.json with a per-skill `expected_cadence` (an addition aeon's SKILL.md allows): STALE past
twice it, as aeon derives staleness from a skill's cron; skills without one keep --max-age / 14 days."""

import json
import os
import time

from tests.conftest import run_gatepost


def _root(tmp_path):
    root = tmp_path / "aeon"
    (root / "articles").mkdir(parents=True)
    three_days_ago = time.time() - 3 * 86400
    for name in ("daily", "weekly"):
        out = root / "articles" / f"{name}-2026-11-28.md"
        out.write_text(f"# {name}\n\nfive words in this output\n")
        os.utime(out, (three_days_ago, three_days_ago))
    return root


def _manifest(tmp_path, daily_cadence) -> str:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps({"version": "1", "skills": {
        "daily": {"output_pattern": "articles/daily-*.md", "min_words": 3, "expected_cadence": daily_cadence},
        "weekly": {"output_pattern": "articles/weekly-*.md", "min_words": 3},
    }}))
    return str(path)


AT = "2026-12-01T09:00:00Z"  # the outputs are dated 2026-11-28 by their names


def test_a_skill_older_than_twice_its_cadence_is_stale_and_the_others_keep_the_fallback(tmp_path):
    root = _root(tmp_path)
    done = run_gatepost("skills", "eval", "--manifest", _manifest(tmp_path, "1d"), "--root", str(root), "--json",
                        "--no-store", "--as-of", AT)
    assert done.returncode == 0, done.stderr
    status = {r["skill"]: (r["status"], r["root_causes"]) for r in json.loads(done.stdout)}
    assert status == {"daily": ("STALE", ["stale_file"]), "weekly": ("PASS", [])}
    relaxed = run_gatepost("skills", "eval", "--manifest", _manifest(tmp_path, "2d"), "--root", str(root), "--json",
                           "--no-store", "--as-of", AT)
    assert {r["skill"]: r["status"] for r in json.loads(relaxed.stdout)} == {"daily": "PASS", "weekly": "PASS"}
    failing = run_gatepost("skills", "eval", "--manifest", _manifest(tmp_path, "1d"), "--root", str(root),
                           "--fail-on", "STALE", "--no-store", "--as-of", AT)
    assert failing.returncode == 1 and "STALE daily: stale_file" in failing.stdout


def test_a_cadence_that_is_not_an_age_is_bad_input(tmp_path):
    done = run_gatepost("skills", "eval", "--manifest", _manifest(tmp_path, "daily"), "--root", str(_root(tmp_path)))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gatepost: evals.json: skills.daily.expected_cadence: expected how often the skill runs, such as 6h, 1d or 7d "
        "(a whole number and one unit of s, m, h, d), got 'daily'"]
