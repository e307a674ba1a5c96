"""No function-level import hides a cycle in console/ either (store/ has none at all: test_boundaries.py).

The console defers a few heavy imports so that a plain CLI command never pays for them (Textual,
Rich, the web server, the app, the demo builder, the screenshot taker). Those are the only modules a
function may import; anything else belongs at the top of its module, where a cycle shows.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAZY = ("textual", "rich", "aiohttp", "aiohttp_jinja2", "textual_serve", "asyncio", "signal", "gatepost.app", "gatepost.screenshots",
        "gatepost.store.demo")


def _nested_imports(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
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
