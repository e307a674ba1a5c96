"""The upstream reference files the tests read are exact copies of the ones in shared/reference."""

from pathlib import Path

import pytest

COPIES = Path(__file__).resolve().parents[1] / "fixtures" / "reference"
ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = [ROOT.parent / "shared" / "reference", Path("/work/shared/reference")]


def test_copies_match_upstream():
    upstream = next((p for p in CANDIDATES if p.is_dir()), None)
    if upstream is None:
        pytest.skip("no shared/reference beside this checkout to compare with")
    theirs = sorted(p.relative_to(upstream) for p in upstream.rglob("*") if p.is_file() and p.name != "README.md")
    ours = sorted(p.relative_to(COPIES) for p in COPIES.rglob("*") if p.is_file() and p.name != "README.md")
    assert ours == theirs
    for rel in ours:
        assert (COPIES / rel).read_bytes() == (upstream / rel).read_bytes(), rel
