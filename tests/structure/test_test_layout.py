"""tests/ mirrors the packages, so a newcomer finds a module's tests where the module is.

tests/store/<domain>/ for store/<domain>/, tests/console/ for console/ (and its commands/ and
screens/), tests/structure/ for these rules; no test module sits loose in tests/, and every test
folder names a package that exists (a renamed package must take its tests along).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SHARED = {"fixtures", "structure", "__pycache__", "__snapshots__"}


def _test_folders() -> list[Path]:
    return sorted({p.parent for p in TESTS.rglob("test_*.py") if "fixtures" not in p.relative_to(TESTS).parts})


def test_no_test_module_sits_loose_in_tests():
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"move these into the folder of the package they test: {loose}"


def test_every_test_folder_mirrors_a_package_folder():
    orphans = []
    for folder in _test_folders():
        rel = folder.relative_to(TESTS)
        if rel.parts[0] in SHARED:
            continue
        source = ROOT.joinpath(*rel.parts)
        if not (source / "__init__.py").is_file():
            orphans.append(str(rel))
    assert not orphans, f"test folders with no package of that name: {orphans}"


def test_every_test_folder_is_a_package_so_imports_are_absolute():
    missing = [str(f.relative_to(TESTS)) for f in _test_folders() if not (f / "__init__.py").is_file()]
    assert not missing, f"add __init__.py to: {missing}"
