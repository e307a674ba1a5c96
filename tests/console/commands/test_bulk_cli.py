"""`gatepost decide KIND DECISION --ids …` and `gatepost assign KIND --ids …`: each item its own act; exit 3 lists
the refused (which wrote nothing) while the others are done."""

import json
import subprocess
import sys

from gatepost.store.kernel import leases
from tests.conftest import run_gatepost
from tests.store.test_batch import store  # noqa: F401  (the fixture)


def gp(path, *args, input=None):
    return run_gatepost("--db", str(path), *args) if input is None else _stdin(path, args, input)


def _stdin(path, args, text):
    return subprocess.run([sys.executable, "-m", "gatepost", "--db", str(path), *args], input=text,
                          capture_output=True, text=True, timeout=60)


def test_decide_ids(store, store_path):  # noqa: F811
    leases.take(store, "case", "case-1", "bruno")
    done = gp(store_path, "decide", "case", "inconclusive", "--ids", "case-0,case-1", "--note", "rebuilt", "--as",
              "ana")
    assert done.returncode == 3
    assert "done  case case-0: inconclusive by ana" in done.stdout
    assert "refused  decide case-1 inconclusive: refused: lease: bruno" in done.stderr
    assert "inconclusive: 1 of 2 done, 1 refused" in done.stdout
    again = gp(store_path, "decide", "case", "inconclusive", "--ids", "-", "--note", "rebuilt", "--as", "ana",
               "--json", input="case-2\ncase-3\n")
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["done"] == 2 and [i["id"] for i in data["items"]] == ["case-2", "case-3"]
    bad = gp(store_path, "decide", "draft", "edit", "--ids", "x", "--as", "ana")
    assert bad.returncode == 2 and "one draft at a time" in bad.stderr


def test_assign_ids(store, store_path):  # noqa: F811
    out = gp(store_path, "assign", "case", "--ids", "case-0,case-1", "--to", "bruno", "--as", "ana")
    assert out.returncode == 0 and "assign: 2 of 2 done" in out.stdout
    both = gp(store_path, "assign", "case", "case-0", "--ids", "case-1", "--to", "bruno", "--as", "ana")
    assert both.returncode == 2 and "give ID or --ids" in both.stderr
    refused = gp(store_path, "assign", "case", "--ids", "case-2", "--to", "dara", "--as", "ana")
    assert refused.returncode == 3 and "dara does not hold case.close" in refused.stderr
