"""No function-level import hides a cycle in console/ either (store/ has none at all: test_boundaries.py).

The console defers a few heavy imports so that a plain CLI command never pays for them (Textual,
Rich, the web server, the app, the demo builder, the screenshot taker). Those are the only modules a
function may import; anything else belongs at the top of its module, where a cycle shows.
"""

import ast
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlite_utils import Database

from gatepost.store.kernel import latest_version
from gatepost.store.schema import migrations
from tests.conftest import run_gatepost

ROOT = Path(__file__).resolve().parents[2]
LAZY = ("textual", "rich", "aiohttp", "aiohttp_jinja2", "textual_serve", "asyncio", "signal", "gatepost.app", "gatepost.terminal", "gatepost.screenshots",
        "gatepost.store.demo")


def _nested_imports(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    top |= {id(sub) for node in tree.body  # imports for mypy alone are top-level ones too
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
            for sub in node.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and id(node) not in top:
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and id(node) not in top:
            found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


def _not_lazy(source: str) -> list[tuple[int, str]]:
    return [(line, name) for line, name in _nested_imports(source)
            if not any(name == lazy or name.startswith(lazy + ".") for lazy in LAZY)]


def test_console_functions_import_only_the_deferred_heavy_modules():
    found = [f"{path.relative_to(ROOT)}:{line} imports {name} inside a function"
             for path in sorted((ROOT / "console").rglob("*.py")) if "__pycache__" not in path.parts
             for line, name in _not_lazy(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_check_finds_a_function_level_import():
    source = "import os\n\ndef f():\n    from gatepost.store.kernel import now\n    from rich.text import Text\n"
    assert _not_lazy(source) == [(4, "gatepost.store.kernel")]


def _modules_of_a_command(tmp_path: Path, *argv: str, store: Path | None = None) -> tuple[set[str], bool]:
    """The modules a `gatepost` command imported by its end, and whether sqlite-utils loaded its plugins (on
    `store`, else on a new empty store)."""
    record = tmp_path / "modules.json"
    if store is None:
        store = tmp_path / "s.db"
        assert run_gatepost("--db", str(store), "init").returncode == 0
    code = ("import json, runpy, sys\n"
            f"sys.argv = ['gatepost', '--db', {str(store)!r}, *{list(argv)!r}]\n"
            "try:\n    runpy.run_module('gatepost', run_name='__main__')\nexcept SystemExit as exit:\n    code = exit.code\n"
            "modules = sorted(sys.modules)\n"
            "import sqlite_utils.plugins\n"
            f"open({str(record)!r}, 'w').write(json.dumps([modules, sqlite_utils.plugins._plugins_loaded, code]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    modules, plugins, exit_code = json.loads(record.read_text())
    assert exit_code in (0, None), done.stderr
    return set(modules), plugins


def test_a_read_only_command_starts_without_the_libraries_it_does_not_use(tmp_path: Path):
    """`case list --json` reads the store: no Textual or Rich (the console), no Jinja2 (reports), no cryptography
    (signature checks), and no scan of every installed package for sqlite-utils plugins."""
    modules, plugins = _modules_of_a_command(tmp_path, "case", "list", "--json")
    heavy = sorted(m for m in modules if m.split(".")[0] in {"textual", "rich", "jinja2", "cryptography"})
    assert not heavy, f"case list --json imported {heavy[:8]}"
    assert not plugins, "sqlite-utils looked for plugins (every installed distribution's entry points read)"


# What a read-only command must not import: the parsers, the evaluator and the command modules it does not use
# (each costs its start: benchmarks/cli_startup.py). The store's package faces load a module on first use, so
# one command's import of a package never drags in the rest of it (store/kernel/lazy.py).
NOT_FOR_READING = ("yaml", "tomllib", "re2", "jinja2", "textual", "rich", "cryptography", "subprocess", "tempfile",
                   "shutil",
                   "gatepost.store.evaluation.runner", "gatepost.store.evaluation.suites",
                   "gatepost.store.evaluation.executors", "gatepost.store.proposals.gate",
                   "gatepost.store.evaluation.task_order", "gatepost.store.kernel.bulk",
                   "gatepost.store.skills.assertions", "gatepost.store.skills.bootstrapping",
                   "gatepost.commands.case_evaluate", "gatepost.commands.suite")


@pytest.mark.parametrize("argv", [("case", "list", "--json"), ("skills", "show", "--json"), ("proposal", "list"),
                                  ("events", "--since", "0")], ids=" ".join)
def test_a_read_only_command_imports_no_parser_evaluator_or_other_command(tmp_path: Path, argv: tuple[str, ...]):
    modules, _ = _modules_of_a_command(tmp_path, *argv)
    loaded = sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_FOR_READING))
    assert not loaded, f"{' '.join(argv)} imported {loaded[:8]}"


@pytest.mark.parametrize("argv", [("skills", "show", "--json"), ("proposal", "list"), ("events", "--since", "0"),
                                  ("report", "regressions", "--no-remember")], ids=" ".join)
def test_a_command_that_shows_no_case_starts_without_the_protocol_interpreter(tmp_path: Path, demo_store: Path,
                                                                             argv: tuple[str, ...]):
    """Opening the store sets its migrations; only the one that runs on an old store needs the interpreter (on the
    demo store, so each command reads items: a skill's triage, a proposal's gate)."""
    modules, _ = _modules_of_a_command(tmp_path, *argv, store=demo_store)
    assert "gatepost.store.protocol.interpreter" not in modules, f"{' '.join(argv)} imported the interpreter"


@pytest.mark.parametrize("argv", [("case", "list", "--json"), ("skills", "show", "--json"), ("proposal", "list"),
                                  ("events", "--since", "0"), ("report", "regressions", "--no-remember")],
                         ids=" ".join)
def test_a_command_that_only_reads_rows_starts_without_sqlite_utils(tmp_path: Path, demo_store: Path,
                                                                    argv: tuple[str, ...]):
    """A current store is opened and read with SELECTs on its connection; sqlite-utils (about as much CPU as the
    interpreter and click together) loads only for a write or a migration (store/kernel/db.py)."""
    modules, _ = _modules_of_a_command(tmp_path, *argv, store=demo_store)
    loaded = sorted(m for m in modules if m.split(".")[0] in {"sqlite_utils", "sqlite_fts4", "pluggy", "dateutil"})
    assert not loaded, f"{' '.join(argv)} imported {loaded[:8]}"


@pytest.mark.parametrize("argv", [("case", "list", "--json"), ("skills", "show", "--json"), ("proposal", "list"),
                                  ("events", "--since", "0"), ("report", "regressions", "--no-remember", "--json")],
                         ids=" ".join)
def test_a_command_that_only_reads_rows_starts_without_hashlib(tmp_path: Path, demo_store: Path, argv: tuple[str, ...]):
    """Nothing a read hashes: each function that hashes imports hashlib (loading OpenSSL costs about 2.5 ms), and
    a protocol's twin is checked against its YAML by comparing the text. Jinja2 loads hashlib itself, so a report
    as Markdown or HTML does load it."""
    modules, _ = _modules_of_a_command(tmp_path, *argv, store=demo_store)
    assert "hashlib" not in modules and "_hashlib" not in modules, f"{' '.join(argv)} imported hashlib"


# The acts' machinery: the pipeline, appending events, signing them (base64, struct, the SSH signature format),
# sealing the records they create; and the kernel's migrations (a store is current or migrated once).
ACTS = ("gatepost.store.kernel.pipeline", "gatepost.store.kernel.events", "gatepost.store.kernel.signing",
        "gatepost.store.kernel.sshsig", "gatepost.store.kernel.records", "gatepost.store.kernel.migrations")


@pytest.mark.parametrize("argv", [("skills", "show", "--json"), ("report", "regressions", "--no-remember"),
                                  ("report", "regressions", "--no-remember", "--json")], ids=" ".join)
def test_a_command_that_acts_on_nothing_starts_without_the_guarded_pipeline(tmp_path: Path, demo_store: Path,
                                                                           argv: tuple[str, ...]):
    """A read reaches the pipeline's names through the kernel's face when it acts (a report that remembers itself,
    a triage): one that only reads loads none of it."""
    modules, _ = _modules_of_a_command(tmp_path, *argv, store=demo_store)
    loaded = sorted(set(ACTS) & modules)
    assert not loaded, f"{' '.join(argv)} imported {loaded}"


@pytest.mark.parametrize("argv", [("case", "list", "--json"), ("skills", "show", "--json"), ("proposal", "list"),
                                  ("events", "--since", "0"), ("report", "regressions", "--no-remember")],
                         ids=" ".join)
def test_a_read_loads_no_domain_s_list_of_record_tables(tmp_path: Path, demo_store: Path, argv: tuple[str, ...]):
    """The store's top floor tells the kernel where each domain's record tables and sealed sources are; they are
    asked for before a connection's first write or by verify, so a read loads none of those modules."""
    modules, _ = _modules_of_a_command(tmp_path, *argv, store=demo_store)
    lists = sorted(m for m in modules if m.startswith("gatepost.store.") and m.endswith((".records", ".sealed"))
                   and m != "gatepost.store.kernel.records")
    assert not lists, f"{' '.join(argv)} imported {lists}"


@pytest.mark.parametrize("fmt", [(), ("--format", "html"), ("--json",)], ids=["md", "html", "json"])
def test_a_regressions_report_builds_no_dataclass(tmp_path: Path, demo_store: Path, fmt: tuple[str, ...]):
    """The types a report's modules define as they load (the sealed records' sources, a regression's transition)
    are named tuples: a dataclass's generated methods cost about half a millisecond each, its module as much."""
    modules, _ = _modules_of_a_command(tmp_path, "report", "regressions", "--no-remember", *fmt, store=demo_store)
    assert "dataclasses" not in modules


@pytest.mark.parametrize("fmt", [(), ("--json",)], ids=["md", "json"])
def test_a_regressions_report_starts_without_the_run_comparisons(tmp_path: Path, demo_store: Path,
                                                                 fmt: tuple[str, ...]):
    """Only a suite's report draws a trend of runs: the regressions report loads neither the comparisons nor the
    evaluation statistics under them (statistics, fractions, decimal)."""
    modules, _ = _modules_of_a_command(tmp_path, "report", "regressions", "--no-remember", *fmt, store=demo_store)
    loaded = sorted({"gatepost.store.views.compare", "gatepost.store.evaluation.stats", "statistics"} & modules)
    assert not loaded, f"report regressions imported {loaded}"


def test_a_store_to_migrate_loads_sqlite_utils_and_is_migrated(tmp_path: Path):
    """The other side: an older store is migrated by sqlite-utils' Migrations when a read-only command opens it
    (and the check above would see the import)."""
    store = tmp_path / "old.db"
    old = Database(sqlite3.connect(store))
    migrations.apply(old, stop_before="m002_leases")
    old.execute("PRAGMA user_version = 1")
    old.close()
    modules, _ = _modules_of_a_command(tmp_path, "case", "list", "--json", store=store)
    assert "sqlite_utils.migrations" in modules
    conn = sqlite3.connect(store)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    conn.close()


DOMAINS = ["kernel", "protocol", "cases", "skills", "evaluation", "proposals", "views", "loops", "discussion",
           "rubrics", "preferences"]


def _face(domain: str) -> tuple[dict[str, tuple[str, str]], set[str]]:
    """A package face's names as its `__init__` imports them (for mypy or at once): name -> (module, original),
    and its `__all__`."""
    tree = ast.parse((ROOT / "store" / domain / "__init__.py").read_text(encoding="utf-8"))
    statements = list(tree.body)
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            statements += node.body
    names: dict[str, tuple[str, str]] = {}
    exported: set[str] = set()
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            names |= {alias.asname or alias.name: (node.module, alias.name) for alias in node.names}
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exported = set(ast.literal_eval(node.value))
    return names, exported


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_package_face_gives_at_run_time_what_it_declares(domain: str):
    """The lazy table (store/kernel/lazy.py) and the imports mypy reads name the same objects: a name missing from
    the table, or listed under the wrong module, fails here instead of in the command that first asks for it."""
    names, exported = _face(domain)
    assert exported == set(names), f"store/{domain}: __all__ and the imports differ: {exported ^ set(names)}"
    package = f"gatepost.store.{domain}"
    code = ("import importlib, json, sys\n"
            f"face = importlib.import_module({package!r})\n"
            f"names = {names!r}\n"
            "wrong = [n for n, (m, o) in names.items()\n"
            f"         if getattr(face, n) is not getattr(importlib.import_module({package!r} + '.' + m), o)]\n"
            "print(json.dumps(wrong))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [], f"store/{domain}: the face gives other objects for these names"


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_name_a_face_offers_is_also_a_module_of_its_package(domain: str):
    """Importing a package's module binds it on the package under its own name; a name offered under it would then
    be the module, not the function, once any sibling imported that module. So no name a face offers, lazily or
    imported at once, is a module's name (kernel's pipeline lives in pipeline.py, offered as `guarded`)."""
    names, _ = _face(domain)
    modules = {path.stem for path in (ROOT / "store" / domain).iterdir() if path.suffix == ".py"}
    modules |= {path.name for path in (ROOT / "store" / domain).iterdir() if (path / "__init__.py").exists()}
    assert not set(names) & modules, f"store/{domain}: offered under a module's name: {sorted(set(names) & modules)}"


def test_the_faces_check_reads_names_imported_at_once_and_for_mypy():
    """The check above sees both kinds of a face's names: the kernel's `lazy_exports` (imported at once) and its
    `guarded` (for mypy, offered lazily), each with the module it comes from."""
    names, _ = _face("kernel")
    assert names["guarded"] == ("pipeline", "guarded")
    assert names["lazy_exports"] == ("lazy", "lazy_exports")


def test_a_store_opened_to_read_is_closed_without_sqlite_utils(tmp_path: Path, demo_store: Path):
    """Closing what was only read (the console does it as it quits) is the connection's close, not a load of
    sqlite-utils (about as much CPU as click) to call its own; the file is closed all the same."""
    code = ("import sqlite3, sys\nfrom gatepost.store.kernel import open_store\n"
            f"db = open_store({str(demo_store)!r})\ndb.execute('SELECT COUNT(*) FROM events').fetchone()\n"
            "conn = db.conn\ndb.close()\n"
            "try:\n    conn.execute('SELECT 1')\nexcept sqlite3.ProgrammingError:\n    print('closed')\n"
            "print(sorted(m for m in sys.modules if m.startswith('sqlite_utils')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["closed", "[]"]
