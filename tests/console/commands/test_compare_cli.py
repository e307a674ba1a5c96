"""`gatepost compare RUN… --baseline RUN`: the matrix as text and JSON; --fail-on-regression exits 1 only on a run
worse beyond the noise."""

import json

from tests.conftest import run_gatepost
from tests.store.views.test_compare import junit


def test_compare_text_json_and_ci(store_path, tmp_path):
    gp = lambda *a: run_gatepost("--db", str(store_path), *a)  # noqa: E731
    assert gp("init", "--admin", "ana").returncode == 0
    files = [str(junit(tmp_path / f"{n}.xml", f)) for n, f in (("base", {0}), ("same", {0, 5}),
                                                               ("worse", set(range(1, 12))))]
    done = gp("suite", "import-artifact", *files, "--as", "ana")
    assert done.returncode == 0, done.stderr
    base, same, worse = [line.split()[1] for line in done.stdout.splitlines()]
    text = gp("compare", same, "--baseline", base)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith(f"baseline {base}: 92 % (95 % CI 65 to 99, 11 of 12)")
    assert lines[1].startswith(f"{same}: 83 %") and "p = 1" in lines[1] and "too few tasks to tell" in lines[1]
    assert any(line.split()[:3] == ["s.t05", "pass", "FAIL↓"] for line in lines)
    assert "11 tasks the same in every run as in the baseline" in text.stdout
    assert gp("compare", same, "--baseline", base, "--fail-on-regression").returncode == 0  # noise does not fail CI
    ci = gp("compare", same, worse, "--baseline", base, "--fail-on-regression", "--json", "--trend")
    assert ci.returncode == 1
    data = json.loads(ci.stdout)
    assert data["worse"] == [worse] and data["tasks"][0]["task"] == "s.t05"
    assert [p["run"] for p in data["trend"]] == [base, same, worse]
    bad = gp("compare", same, "--baseline", "nope")
    assert bad.returncode == 2 and "no evaluation run 'nope'" in bad.stderr and "Traceback" not in bad.stderr
