"""A store package's face, loaded on first use: each name it offers is imported when someone asks for it.

A package `__init__` names what other packages may use: its `__all__`, and the same names imported under
`if TYPE_CHECKING:` so that mypy and readers see each one's module and type. At run time the package
imports none of its modules up front; `lazy_exports` gives it a module `__getattr__` (PEP 562) that
imports the module defining a name the first time the name is asked for, so a command pays only for
the modules it uses (`gatepost case list` loads a tenth of the store: benchmarks/cli_startup.py).
Nothing hides a cycle this way: every module still imports what it needs at its top, and
tests/structure/test_lazy_imports.py checks that each package's table matches its imports.

A module that needs a costly name only on some path imports the package face at its top and uses the name
through it at call time (`kernel.parse_yaml(...)`, `evaluation.load_suite(...)`), as store/flows.py reaches
every domain: importing the module then loads nothing more. No name a face offers is also a module of its
package (kernel's `guarded` lives in pipeline.py): a sibling's import of that module would bind the module
there first, and the lazy lookup would never run.
"""

import sys
from collections.abc import Callable, Mapping


def lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], object]:
    """The module `__getattr__` of `package`, whose names live in `modules` (`.acts` -> names, `x as y` for
    an import renamed on the way). A name's module is imported once; then all that module's names are bound
    on the package, so later lookups never come back here."""
    where: dict[str, tuple[str, str]] = {}
    for module, names in modules.items():
        for entry in names:
            original, _, alias = entry.partition(" as ")
            where[alias or original] = (module, original)

    def __getattr__(name: str) -> object:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name = where[name][0]
        # the import statement's own path (not importlib.import_module), so `python -X importtime` lists it
        __import__(package + module_name)
        module = sys.modules[package + module_name]
        face = sys.modules[package]
        for exported, (source, original) in where.items():
            if source == module_name:
                setattr(face, exported, getattr(module, original))
        return getattr(face, name)

    return __getattr__
