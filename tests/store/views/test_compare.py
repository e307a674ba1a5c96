"""Runs lined up against a baseline: each run's rate and interval, its paired delta (the one paired comparison of
the store), a task × run matrix with the regressions first; and a suite's pass rate over its runs."""

from pathlib import Path

import pytest

from gatepost.store.evaluation import compare_runs, import_foreign
from gatepost.store.kernel import InputError, add_actor
from gatepost.store.views import compare_matrix, sparkline, suite_trend, trend_svg
from gatepost.store.views.reports import suite_report


def junit(path: Path, fails: set[int], n: int = 12) -> Path:
    cases = "".join(f'<testcase classname="s" name="t{i:02d}">' + ("<failure message='x'/>" if i in fails else "")
                    + "</testcase>" for i in range(n))
    path.write_text(f'<?xml version="1.0"?><testsuite name="s" tests="{n}">{cases}</testsuite>', encoding="utf-8")
    return path


@pytest.fixture
def runs(db, tmp_path):
    add_actor(db, "ana", "person", ["evidence.record"])
    made = {}
    for name, fails in (("base", {0}), ("same", {0, 5}), ("worse", set(range(1, 12)))):
        made[name] = import_foreign(db, str(junit(tmp_path / f"{name}.xml", fails)), actor="ana")[0]
    return made


def test_the_matrix_puts_regressions_first_and_reuses_the_paired_comparison(db, runs):
    result = compare_matrix(db, [runs["same"], runs["worse"]], runs["base"])
    assert result["baseline"]["rate"]["passed"] == 11 and result["task_count"] == 12
    by_run = {r["run"]: r for r in result["runs"]}
    for name in ("same", "worse"):
        paired = compare_runs(db, runs[name], runs["base"])
        assert by_run[runs[name]]["comparison"] == paired["comparison"]  # one implementation
        assert by_run[runs[name]]["rate"] == paired["candidate"]
    assert result["worse"] == [runs["worse"]]
    assert by_run[runs["worse"]]["comparison"]["p_value"] < 0.05 < by_run[runs["same"]]["comparison"]["p_value"]
    tasks = result["tasks"]
    assert tasks[0]["task"] == "s.t05" and tasks[0]["regressed_in"] == [runs["same"], runs["worse"]]
    assert tasks[-1]["task"] == "s.t00" and tasks[-1]["improved_in"] == [runs["worse"]]
    assert len(tasks) == 12 and result["regressions"] == 12
    assert len(compare_matrix(db, [runs["same"]], runs["base"])["tasks"]) == 1  # only what differs
    assert len(compare_matrix(db, [runs["same"]], runs["base"], all_tasks=True)["tasks"]) == 12


def test_bad_input(db, runs, tmp_path):
    with pytest.raises(InputError, match="--baseline: .* is also one of the runs"):
        compare_matrix(db, [runs["base"]], runs["base"])
    with pytest.raises(InputError, match="no evaluation run 'nope'"):
        compare_matrix(db, [runs["same"]], "nope")
    other = import_foreign(db, str(junit(tmp_path / "short.xml", set(), n=5)), actor="ana")[0]
    with pytest.raises(InputError, match="a comparison needs the same tasks"):
        compare_matrix(db, [other], runs["base"])


def test_a_suites_trend_in_the_stores_order(db, runs):
    trend = suite_trend(db, None, skill="s")
    assert [p["run"] for p in trend][:3] == [runs["base"], runs["same"], runs["worse"]]
    assert [p["rate"]["passed"] for p in trend][:3] == [11, 10, 1]
    assert all(p["rate"]["low"] <= p["rate"]["rate"] <= p["rate"]["high"] for p in trend)
    assert sparkline(trend[:3]) == "█▇▁"
    chart = trend_svg(trend[:3])
    low, high = chart["points"][0]["low"], chart["points"][0]["high"]
    assert chart["full"] <= high <= chart["points"][0]["y"] <= low <= chart["zero"]  # y grows downwards
    assert chart["path"].startswith("M24")


def test_the_html_report_draws_the_trend_as_svg_without_script(db, runs):
    html = suite_report(db, runs["same"], "html")
    chart = html[html.index("<svg"):html.index("</svg>")]
    assert chart.count("<circle") == 3 and "<script" not in html.lower()
    assert f'fill="#0969da" stroke="#0969da"><title>{runs["same"]}: 83 % (95 % CI 55 to 95, 10 of 12)' in chart
    assert "the suite over its last 3 runs: █▇▁ (92, 83, 8 %)" in suite_report(db, runs["same"], "md")
