"""The layering rules hold in the code itself, so a change that breaks one fails here, not in review.

- the store stands on floors (FLOORS): a package imports only packages on floors below its own;
- store/ never imports Textual or click; console/ never writes SQL;
- store/protocol/ (the interpreter) runs no SQL and imports nothing of the database;
- no function-level import anywhere in store/ (a function-level import is how a cycle hides);
- every store domain package says in its __init__ what other packages may use (__all__), and other
  packages import a domain through that, not through its modules.
"""

import ast
import re
from pathlib import Path

import pytest

import gatepost.store  # noqa: F401  (its schema sets the record sources and tables)
from gatepost.store.kernel import KERNEL_APPEND_ONLY, record_sources, record_tables
from gatepost.store.kernel.integrity import expected_triggers
from gatepost.store.schema import MIGRATIONS

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "store"
CONSOLE = ROOT / "console"
DOMAINS = ["kernel", "protocol", "cases", "skills", "evaluation", "proposals", "views", "loops", "discussion",
           "preferences", "rubrics"]


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[tuple[str, ast.AST]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node))
    return found


@pytest.mark.parametrize("path", _modules(STORE), ids=lambda p: str(p.relative_to(ROOT)))
def test_store_imports_neither_textual_nor_click(path: Path):
    bad = [name for name, _ in _imports(path) if name.split(".")[0] in {"textual", "click", "rich"}]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


# libraries only the function that uses them imports: no cycle can hide behind them (they import nothing of
# gatepost), and a command that renders no report, hashes no records and starts no ssh-keygen starts without
# them (tests/structure/test_lazy_imports.py checks that a read-only command does)
DEFERRED = ("jinja2", "cryptography", "msgspec", "subprocess", "sqlite_utils", "tempfile", "shutil", "hashlib")


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """A module's own statements, with those of a top-level `if TYPE_CHECKING:` (a package face's imports for
    mypy: store/kernel/lazy.py)."""
    return [*tree.body, *(node for block in tree.body if isinstance(block, ast.If)
                         and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                         for node in block.body)]


def _nested_imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in _top_level(tree)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and id(node) not in top:
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and id(node) not in top:
            found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


@pytest.mark.parametrize("path", _modules(STORE), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_level_import_in_store(path: Path):
    nested = [line for line, name in _nested_imports(path) if name.split(".")[0] not in DEFERRED]
    assert not nested, f"{path.relative_to(ROOT)}: imports inside functions at lines {nested}"


def test_only_the_deferred_libraries_may_be_imported_in_a_function(tmp_path: Path):
    module = tmp_path / "m.py"
    module.write_text("import os\n\ndef f():\n    from jinja2 import Environment\n    from gatepost.store import cases\n"
                      "    from .x import y\n")
    assert [line for line, name in _nested_imports(module) if name.split(".")[0] not in DEFERRED] == [5, 6]


def test_protocol_runs_no_sql():
    for path in _modules(STORE / "protocol"):
        text = path.read_text(encoding="utf-8")
        names = {name.split(".")[0] for name, _ in _imports(path)}
        assert not names & {"sqlite3", "sqlite_utils"}, f"{path.relative_to(ROOT)} imports the database"
        for word in (".execute(", "SELECT ", "INSERT ", "UPDATE "):
            assert word not in text, f"{path.relative_to(ROOT)} runs SQL ({word.strip()})"


@pytest.mark.parametrize("path", _modules(CONSOLE), ids=lambda p: str(p.relative_to(ROOT)))
def test_console_writes_no_sql(path: Path):
    text = path.read_text(encoding="utf-8")
    for word in ("INSERT INTO", "UPDATE ", "DELETE FROM", ".execute("):
        assert word not in text, f"{path.relative_to(ROOT)} writes SQL ({word.strip()})"


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_domain_names_what_others_may_use(domain: str):
    init = STORE / domain / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"store/{domain}/__init__.py says nothing about the package"
    exported = [node for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)]
    assert exported, f"store/{domain}/__init__.py has no __all__"


@pytest.mark.parametrize("path", _modules(STORE) + _modules(CONSOLE), ids=lambda p: str(p.relative_to(ROOT)))
def test_other_packages_use_a_domain_through_its_init(path: Path):
    """`from gatepost.store.cases.acts import x` from outside cases/ reaches past what cases/ offers."""
    rel = path.relative_to(ROOT).parts
    own = rel[1] if rel[0] == "store" and len(rel) > 2 else None
    for name, _node in _imports(path):
        parts = name.split(".")
        if parts[:2] == ["gatepost", "store"] and len(parts) > 3 and parts[2] in DOMAINS and parts[2] != own:
            pytest.fail(f"{'/'.join(rel)} imports {name}: use gatepost.store.{parts[2]} instead")


# The store's floors, as docs/architecture.md draws them: a package imports only packages on floors below
# its own (the kernel and the marks stand on nothing of the store; the demo builder uses everything).
FLOORS = [
    {"kernel", "glyphs"},
    {"protocol", "evaluation", "discussion"},
    {"rubrics"},
    {"skills", "loops"},
    {"cases"},
    {"proposals", "preferences"},
    {"views", "flows", "schema"},
    {"batch", "failures"},
    {"demo"},
]


def _store_unit(path: Path) -> str:
    """The package (or top-level module) of store/ a file belongs to: `cases`, `flows`, `glyphs`."""
    rel = path.relative_to(STORE).parts
    return rel[0] if len(rel) > 1 else rel[0].removesuffix(".py")


def _store_units_imported(path: Path) -> set[str]:
    found = set()
    for name, node in _imports(path):
        parts = name.split(".")
        if parts[:2] == ["gatepost", "store"] and len(parts) > 2:
            found.add(parts[2])
        elif name == "gatepost.store" and isinstance(node, ast.ImportFrom):
            found |= {alias.name for alias in node.names}
    return found


def test_the_store_stands_on_its_floors():
    floor_of = {unit: i for i, units in enumerate(FLOORS) for unit in units}
    wrong = []
    for path in _modules(STORE):
        unit = _store_unit(path)
        if unit == "__init__":
            continue
        assert unit in floor_of, f"store/{unit} stands on no floor: add it to FLOORS (and to docs/architecture.md)"
        for other in _store_units_imported(path) - {unit}:
            if floor_of.get(other, len(FLOORS)) >= floor_of[unit]:
                wrong.append(f"{path.relative_to(ROOT)} (floor {floor_of[unit] + 1}) imports store/{other} "
                             f"(floor {floor_of[other] + 1 if other in floor_of else '?'})")
    assert not wrong, "an import runs up or across a floor:\n" + "\n".join(wrong)


def _imported_modules(source: str, package: str) -> set[str]:
    """Every module a file imports, relative imports resolved against its package (`gatepost.store.kernel`)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("path", _modules(STORE / "kernel"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_kernel_imports_nothing_above_it(path: Path):
    """The kernel is the bottom floor: it names no domain's module (evaluation's run order and migrations live
    in evaluation; the ordered list of every domain's migrations on the top floor, store/schema.py)."""
    found = _imported_modules(path.read_text(encoding="utf-8"), "gatepost.store.kernel")
    above = sorted(name for name in found if name.startswith("gatepost.store.")
                   and not name.startswith("gatepost.store.kernel"))
    assert not above, f"{path.relative_to(ROOT)} imports {above}"


def test_the_kernel_check_sees_relative_and_absolute_imports():
    found = _imported_modules("from ..evaluation import task_order\nfrom .chain import head\n"
                              "import gatepost.store.cases\n", "gatepost.store.kernel")
    assert {"gatepost.store.evaluation.task_order", "gatepost.store.kernel.chain.head",
            "gatepost.store.cases"} <= found


def test_migration_names_are_unique_and_new_ones_numbered_once():
    """A store records each migration by name: a name is never reused, and from m004 on no number repeats
    (the two m003 stay as stores recorded them)."""
    assert len(set(MIGRATIONS)) == len(MIGRATIONS)
    numbers = [name.split("_")[0] for name in MIGRATIONS]
    assert numbers[:4] == ["m001", "m002", "m003", "m003"] and len(set(numbers[4:])) == len(numbers[4:])
    assert numbers == sorted(numbers)


# The tables of the domains above the kernel that are records: each domain says how its sealed records are read
# (kernel RecordSource) and which of its tables are append-only (`<DOMAIN>_APPEND_ONLY`), and the top floor hands
# both to the kernel, so the kernel's code names none of them (only its own: KERNEL_APPEND_ONLY).
SEALED_DOMAIN_TABLES = ("task_results", "evaluation_runs", "task_suites", "skill_runs", "manifest_versions")
DOMAIN_RECORD_TABLES = tuple(t for t in record_tables() if t not in KERNEL_APPEND_ONLY)


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def _names(text: str, table: str) -> bool:
    """Whether a string of code names a table: the name itself, in SQL, or (a name with "_", no English word)
    anywhere; prose ("their decisions", "evidence.record") is not a table."""
    if "_" in table:
        return re.search(rf"\b{table}\b", text) is not None
    return text.strip() == table or re.search(rf"\b(?:FROM|INTO|JOIN|UPDATE|TABLE|ON|EXISTS)\s+\[?{table}\b",
                                              text) is not None


def test_the_table_check_tells_sql_from_prose():
    assert _names("SELECT 1 FROM decisions WHERE seq = ?", "decisions") and _names("evidence", "evidence")
    assert _names("the task_results of a run", "task_results")
    assert not _names("each of their decisions is signed", "decisions") and not _names("evidence.record", "evidence")


@pytest.mark.parametrize("path", _modules(STORE / "kernel"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_kernel_names_no_table_of_another_domain(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = [(line, table) for line, text in _strings(tree)
             for table in (*SEALED_DOMAIN_TABLES, *DOMAIN_RECORD_TABLES) if _names(text, table)]
    assert not named, f"{path.relative_to(ROOT)} names another domain's table: {named}"


def test_every_domain_declares_its_record_tables_and_the_kernel_checks_them():
    """The kernel's own record tables and every other domain's, each once: what the triggers are checked for."""
    assert set(KERNEL_APPEND_ONLY) == {"events", "actor_keys", "signatures"}
    assert len(set(record_tables())) == len(record_tables())
    assert set(DOMAIN_RECORD_TABLES) == {
        "decisions", "evidence", "candidate_revisions", "manifest_versions", "skill_runs", "skill_evals",
        "assertion_results", "task_results", "gate_results", "loop_versions", "loop_cases", "applications",
        "comments", "preferences", "rubric_answers"}
    assert set(expected_triggers()) == {f"{t}_no_{verb}" for t in record_tables() for verb in ("update", "delete")}


def test_every_sealed_table_is_a_record_source_set_by_the_top_floor():
    assert [s.table for s in record_sources()] == ["skill_runs", "manifest_versions", "task_results"]
