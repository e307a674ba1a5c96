"""Report templates ship with their compiled twins (Python source Jinja2 made from them): a report renders from
the twin when it was made from the template's current text, and from the text otherwise."""

import builtins
import compileall
import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest

from gatepost.store.kernel import open_store
from gatepost.store.views import reports

REFRESH = 'python -c "from gatepost.store.views.reports import write_compiled_templates; write_compiled_templates()"'
NAMES = sorted(p.name for p in reports.TEMPLATES.iterdir() if p.suffix in {".md", ".html"} and not p.name.startswith("_"))


@pytest.mark.parametrize("name", NAMES)
def test_each_template_s_compiled_twin_is_current(name: str):
    twin = reports.TEMPLATES / (name + reports.COMPILED_SUFFIX)
    assert twin.is_file(), f"{twin.name} is missing: {REFRESH}"
    assert twin.read_text(encoding="utf-8") == reports.compiled_template(name), f"{twin.name} is stale: {REFRESH}"


def _every_report(store: Path) -> dict[str, str]:
    db = open_store(store)
    try:
        case_id = db.execute("SELECT id FROM cases ORDER BY id LIMIT 1").fetchone()[0]
        run_id = db.execute("SELECT id FROM evaluation_runs ORDER BY id LIMIT 1").fetchone()[0]
        return {f"{kind}.{fmt}": text for fmt in reports.FORMATS for kind, text in (
            ("case", reports.case_report(db, case_id, fmt)),
            ("regressions", reports.regressions_report(db, fmt, remember=False)),
            ("suite", reports.suite_report(db, run_id, fmt)))}
    finally:
        db.close()


def test_a_report_from_the_twin_reads_as_the_report_from_the_template(demo_copy: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    from_twins = _every_report(demo_copy)
    bare = tmp_path / "templates"
    shutil.copytree(reports.TEMPLATES, bare, ignore=shutil.ignore_patterns("*" + reports.COMPILED_SUFFIX))
    monkeypatch.setattr(reports, "TEMPLATES", bare)
    assert _every_report(demo_copy) == from_twins


def test_a_report_is_rendered_without_compiling_its_template(demo_copy: Path, monkeypatch: pytest.MonkeyPatch):
    def no_compiling(*args: object, **kwargs: object) -> None:
        raise AssertionError("a template was compiled")

    monkeypatch.setattr(jinja2.Environment, "compile", no_compiling)
    db = open_store(demo_copy)
    try:
        assert reports.regressions_report(db, "md", remember=False).startswith("#")
    finally:
        db.close()


def test_a_twin_s_kept_bytecode_is_rendered_without_compiling_python(demo_copy: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch):
    """The twin is a `.py` file: its bytecode, compiled when the package is installed, is read from __pycache__ as a
    module's is, not compiled from the twin's text on each report (about a millisecond)."""
    kept = tmp_path / "templates"
    shutil.copytree(reports.TEMPLATES, kept, ignore=shutil.ignore_patterns("__pycache__"))
    assert compileall.compile_dir(str(kept), quiet=1)
    expected = _every_report(demo_copy)
    monkeypatch.setattr(reports, "TEMPLATES", kept)
    compiled: list[str] = []
    python_compile = builtins.compile

    def compile_noted(source: Any, filename: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(Path(str(filename)).name)
        return python_compile(source, filename, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(builtins, "compile", compile_noted)
        reports_now = _every_report(demo_copy)
    assert reports_now == expected
    # only the part the HTML templates include, which has no twin, is compiled (by Jinja2, from its text)
    assert set(compiled) == {"_style.html"}, compiled


def test_an_edited_template_is_rendered_from_its_text_not_from_the_stale_twin(demo_copy: Path, tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch):
    edited = tmp_path / "templates"
    shutil.copytree(reports.TEMPLATES, edited)
    path = edited / "regressions.md"
    path.write_text(path.read_text(encoding="utf-8") + "edited after its twin was made\n", encoding="utf-8")
    monkeypatch.setattr(reports, "TEMPLATES", edited)
    db = open_store(demo_copy)
    try:
        assert reports.regressions_report(db, "md", remember=False).endswith("edited after its twin was made\n")
    finally:
        db.close()
