"""The render fence: console/render/ is the only place that touches Textual's private API.

Outside it, no module of console/ imports a private Textual module or name, reads, calls or writes a private
name of a Textual object, or overrides one in a class derived from Textual's. Inside it, every private name
touched is listed, with why, in `gatepost.render.internals.PRIVATE`; this checks that the Textual installed has
each of them, so a Textual upgrade says by name what it no longer offers (console/render/README.md).

A private name is one starting with `_` (dunders aside) that Textual defines: a module's, a class's, or one its
objects set on themselves. Read through `self` in a class derived from Textual's, it is Textual's when a Textual
class of that class's bases defines it; read through anything else (`self.app._x`, `event._x`), it is Textual's
unless the console defines that name itself.
"""

import ast
import importlib
import inspect
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import textual
from textual.app import App
from textual.screen import Screen

from gatepost.render.internals import PRIVATE

ROOT = Path(__file__).resolve().parents[2]
CONSOLE = ROOT / "console"
RENDER = CONSOLE / "render"
TEXTUAL = Path(textual.__file__).resolve().parent
LOOKUPS = {"getattr", "setattr", "hasattr", "delattr"}


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_textual(module: str | None) -> bool:
    return bool(module) and (module == "textual" or str(module).startswith("textual."))


def _defined_here(tree: ast.AST, *, on_self: bool = True) -> Iterator[str]:
    """Names a module defines at its top, in its classes' bodies, and as attributes of its objects
    (`self._name = ...`; `on_self` False: of any object, `x._name = ...`)."""
    bodies: list[list[ast.stmt]] = [tree.body] if isinstance(tree, ast.Module) else []
    bodies += [node.body for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    for body in bodies:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield stmt.name
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    if isinstance(target, ast.Name):
                        yield target.id
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and (
                not on_self or isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}):
            yield node.attr


@cache
def textual_private_names() -> frozenset[str]:
    """Every private name Textual defines, in any of its modules."""
    return frozenset(name for path in TEXTUAL.rglob("*.py")
                     for name in _defined_here(ast.parse(path.read_text(encoding="utf-8")), on_self=False)
                     if private(name))


@cache
def _textual_class_names(klass: type) -> frozenset[str]:
    """The private names one Textual class defines or sets on its objects."""
    names = {name for name in vars(klass) if private(name)}
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return frozenset(names)
    return frozenset(names | {name for name in _defined_here(ast.parse(source)) if private(name)})


@cache
def textual_names_of(cls: type) -> frozenset[str]:
    """The private names the Textual classes among `cls`'s bases define or set on their objects."""
    return frozenset().union(*(_textual_class_names(k) for k in cls.__mro__ if _is_textual(k.__module__)))


@dataclass(frozen=True)
class Touch:
    path: str
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.how} Textual's private {self.name}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(CONSOLE).with_suffix("").parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    return ".".join(("gatepost", *parts))


def _classes(tree: ast.Module, module: object) -> Iterator[tuple[ast.ClassDef, type]]:
    """Each class statement with the class it made (nested ones too)."""
    def walk(body: list[ast.stmt], owner: object) -> Iterator[tuple[ast.ClassDef, type]]:
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                cls = getattr(owner, stmt.name, None)
                if isinstance(cls, type):
                    yield stmt, cls
                    yield from walk(stmt.body, cls)
    yield from walk(tree.body, module)


def _through_self(node: ast.Attribute) -> bool:
    value = node.value
    if isinstance(value, ast.Name):
        return value.id in {"self", "cls"}
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"


def console_own_names(paths: list[Path]) -> frozenset[str]:
    """The private names the console defines itself: its modules' and its classes', and what its objects set on
    themselves; not one a class derived from Textual's takes over from Textual (that is Textual's)."""
    own: set[str] = set()
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        taken = set()
        for statement, cls in _classes(tree, importlib.import_module(_module_name(path))):
            taken |= set(_defined_here(statement)) & textual_names_of(cls)
        own |= {name for name in _defined_here(tree) if private(name) and name not in taken}
    return frozenset(own)


def touches(path: Path, own: frozenset[str], *, strict: bool = False) -> list[Touch]:
    """Where the module at `path` touches a private Textual name (`own`: names the console defines itself).

    `strict` (console/render/, whose classes are mixins put before Textual's at run time): any private name
    Textual defines, whatever the class or the object."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    rel = str(path.relative_to(ROOT))
    textuals = textual_private_names()
    found: list[Touch] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Touch(rel, node.lineno, alias.name, "imports") for alias in node.names
                      if _is_textual(alias.name) and any(private(part) for part in alias.name.split("."))]
        elif isinstance(node, ast.ImportFrom) and _is_textual(node.module):
            module = str(node.module)
            if any(private(part) for part in module.split(".")):
                found.append(Touch(rel, node.lineno, module, "imports"))
            found += [Touch(rel, node.lineno, f"{module}.{alias.name}", "imports") for alias in node.names
                      if private(alias.name)]
    module = importlib.import_module(_module_name(path))
    in_classes: dict[int, type] = {}  # id of a node within a class derived from Textual's: that class
    for statement, cls in _classes(tree, module):
        mine = textual_names_of(cls)
        if not mine:
            continue
        for node in ast.walk(statement):
            in_classes.setdefault(id(node), cls)
        for name in _defined_here(statement):
            if name in mine:
                line = next((n.lineno for n in ast.walk(statement) if getattr(n, "name", None) == name
                             or getattr(n, "attr", None) == name or getattr(n, "id", None) == name),
                            statement.lineno)
                found.append(Touch(rel, line, f"{cls.__name__}.{name}", "overrides or sets"))
    if strict:
        for statement, _cls in _classes(tree, module):
            found += [Touch(rel, statement.lineno, name, "overrides or sets")
                      for name in _defined_here(statement) if name in textuals]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            cls = in_classes.get(id(node))
            if strict:
                if node.attr in textuals:
                    found.append(Touch(rel, node.lineno, node.attr, "uses"))
            elif _through_self(node) and cls is not None:
                if node.attr in textual_names_of(cls) and not isinstance(node.ctx, ast.Store):
                    found.append(Touch(rel, node.lineno, node.attr, "uses"))
            elif node.attr in textuals and node.attr not in own and not _through_self(node):
                found.append(Touch(rel, node.lineno, node.attr, "uses"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in LOOKUPS
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)):
            name = node.args[1].value
            if isinstance(name, str) and private(name) and name in textuals and name not in own:
                found.append(Touch(rel, node.lineno, name, f"uses ({node.func.id})"))
    return found


def _sources(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts and p.name != "__main__.py")


def _outside_render() -> list[Path]:
    return [p for p in _sources(CONSOLE) if RENDER not in p.parents]


def test_no_private_textual_name_outside_console_render():
    outside = _outside_render()
    own = console_own_names(outside)
    found = [str(t) for path in outside for t in touches(path, own)]
    assert found == [], "Textual's private API is console/render/'s alone (console/render/README.md):\n" + \
        "\n".join(found)


def test_every_private_textual_name_console_render_touches_is_listed_with_why():
    listed = {p.name for p in PRIVATE}
    touched = {t.name.rsplit(".", 1)[-1]: t for path in _sources(RENDER)
               for t in touches(path, frozenset(), strict=True)}
    unlisted = [str(t) for name, t in touched.items() if name not in listed]
    assert unlisted == [], "list these in console/render/internals.py PRIVATE, with why:\n" + "\n".join(unlisted)
    stale = sorted(listed - set(touched) - {p.name for p in PRIVATE if not private(p.name)})
    assert stale == [], f"listed in console/render/internals.py but no longer touched: {stale}"
    assert all(p.why.strip() and p.where for p in PRIVATE)


def _instance(cls: type) -> object:
    if cls is App or cls is Screen:
        return cls()
    try:
        return cls()
    except TypeError:
        return None


@pytest.mark.parametrize("owner", sorted({p.owner for p in PRIVATE}))
def test_every_private_textual_name_the_console_uses_exists(owner: str):
    """Each name listed is there in the Textual installed (a class's, its objects', or a module's)."""
    module_name, _, attr = owner.rpartition(".")
    try:
        target: object = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError):
        target = importlib.import_module(owner)
    made = _instance(target) if isinstance(target, type) else None
    names = [p.name for p in PRIVATE if p.owner == owner]
    missing = [n for n in names if not hasattr(target, n) and not (made is not None and hasattr(made, n))]
    assert missing == [], f"this Textual ({textual.__version__}) lacks, on {owner}: {missing}"


# --- the check itself finds what it looks for --------------------------------------------------------------------
def _check_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> list[str]:
    package = tmp_path / "fence_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    module = package / "probe.py"
    module.write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    monkeypatch.setattr(f"{__name__}._module_name", lambda path: "fence_probe.probe")
    return sorted(t.name for t in touches(module, frozenset({"_mine"})))


def test_the_fence_finds_imports_reads_and_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    found = _check_source(tmp_path, monkeypatch, """
        from textual._compositor import Compositor
        from textual.widgets import DataTable
        from textual.screen import Screen

        class Table(DataTable):
            def _render_cell(self, *args):
                return self._row_locations

            def _mine(self):  # a name of its own: not Textual's
                return self.cursor_row

        class Plain:
            def _row_locations(self):  # not derived from Textual's: its own
                return 1

        def frame(screen: Screen) -> object:
            getattr(screen, "_dirty_widgets")
            return screen.app._batch_count, screen._mine
    """)
    assert found == ["Table._render_cell", "_batch_count", "_dirty_widgets", "_row_locations",
                     "textual._compositor"]
