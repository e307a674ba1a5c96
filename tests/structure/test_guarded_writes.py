"""Nothing writes the store's state outside the guarded pipeline (issue 11 item 1).

Every INSERT / UPDATE / DELETE / REPLACE in store/ (an SQL string, or a sqlite-utils table write on the
store) must stand in the body of a `with guarded(...)` act (or of a function that returns one, such as
`_review` or `_triage`), or in a function listed below with why it may. A function listed as a helper
writes part of an act's record or projection: every call of it, in store/ and console/, must itself be
inside an act or inside another listed function, so a helper cannot become a back door later.
The source is parsed (ast); the checker itself is tested on small sources at the end of this file.
"""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "store"
CONSOLE = ROOT / "console"

# Whole modules that write outside the acts, and why that is not an act's write.
EXEMPT_MODULES = {
    "store/kernel/schema.py": "the migrations: they make and convert the tables, before any act",
    "store/kernel/migrations.py": "the migrations: they make and convert the tables, before any act",
    "store/evaluation/schema.py": "the migrations: they make and convert the tables, before any act",
    "store/schema.py": "the migrations: they make and convert the tables, before any act",
    "store/kernel/chain.py": "event append internals: insert_chained is how Act.event writes an event",
    "store/kernel/signing.py": "event append internals: sign_event stores the signature of the event append_event "
                               "just wrote, in that act",
}
# Functions that write part of an act's record or projection; each is only ever called inside an act.
HELPERS = {
    "store/cases/acts.py::_store_revision": "a candidate revision of import_case / revise_candidate",
    "store/cases/derived.py::_project": "the case's projection columns, after each case act",
    "store/kernel/actors.py::_insert": "the actor row of add_actor / ensure_producer",
    "store/kernel/actors.py::_grant": "a capability row of add_actor / grant",
    "store/rubrics/queues.py::record_answers": "a decision's rubric answers, inside the proposal / draft / "
                                               "regression act that decided",
    "store/skills/manifests.py::ensure_skill": "a skill registered on first sight inside a run / manifest / state act",
    "store/skills/manifests.py::_add_version": "a manifest version of import_manifest / approve_draft",
    "store/skills/manifests.py::_set_status": "a draft's status inside approve / reject / edit",
    "store/skills/regressions.py::write_state": "the regression-state projection of an evaluation or a state import",
    "store/skills/runs.py::_insert_run": "a skill run of record_run / record_aeon_results, inside their act",
    "store/skills/runs.py::_write_eval": "one skill's eval, from evaluate's act (_evaluate_one) and record_aeon_results'",
    "store/skills/runs.py::_evaluate_one": "one skill's evaluation, the body of evaluate's act",
    "store/evaluation/runs.py::record_suite": "the suite text a stored run points at, inside store_run's act",
    "store/loops/current.py::_land": "the landing record and current_content of record_applied / set_current",
    "store/loops/current.py::link_case": "which loop made a case, inside new_case's act",
    "store/evaluation/task_order.py::refresh_task_order": "a run's review order (a projection), in the run's act",
    "store/evaluation/task_order.py::_store_order": "a run's review order built and stored, from refresh_task_order",
    "store/evaluation/task_order.py::_write": "the stored review order, written by _store_order",
    "store/evaluation/task_order.py::_forget": "drops a stored review order, from refresh_task_order",
    "store/evaluation/task_order.py::_write_figures": "a run's statistics counts, stored with its review order",
    "store/evaluation/task_order.py::_write_counts": "a run's counts per split, from _write",
}
# Functions that write outside any act, and why they may.
EXEMPT = {
    "store/evaluation/task_order.py::backfill_task_order": "a migration's step: the order of runs stored before it existed",
    "store/evaluation/task_order.py::backfill_figures": "a migration's step: the counts of runs stored before it existed",
    "store/evaluation/task_order.py::compact_stored_orders": "a migration's step: orders stored before the compact "
                                                            "form, written in it",
    "store/cases/counts.py::create_case_counts": "a migration's step: the case lists' totals counted from the cases "
                                                 "stored before they were kept (triggers on cases keep them after)",
    "store/evaluation/task_order.py::_fill_tasks": "a large run's tasks in a temporary table (this connection's, "
                                                   "not the store's), to be ordered in bounded memory",
    "store/evaluation/task_order.py::order_differences": "verify's check: a run's order written again into temporary "
                                                     "tables of the same names, in a savepoint rolled back after",
    "store/flows.py::mark_seen": "a person's read receipt (seen_marks): changes nothing anyone else sees, no event",
}

SQL_WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)
TABLE_WRITES = {"insert", "insert_all", "upsert", "upsert_all", "update", "delete", "delete_where"}
STORE_RECEIVER = re.compile(r"^(self\.|act\.)?db(\.|\[)")


@dataclass(frozen=True)
class Site:
    where: str  # path::function (path::<module> at top level)
    line: int
    what: str
    guarded: bool


def _text(node: ast.AST, consts: dict[str, str]) -> str | None:
    """The text of a string expression as far as it is literal (f-string holes become {})."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return (_text(node.left, consts) or "") + (_text(node.right, consts) or "")
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    return None


def _called(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else \
        node.func.attr if isinstance(node.func, ast.Attribute) else ""


def _guard_wrappers(tree: ast.Module) -> set[str]:
    """Functions that return a guarded(...) act (`_review`, `_triage`): a `with` on them is an act."""
    names = {"guarded"}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Call) and _called(sub.value) == "guarded":
                    names.add(node.name)
    return names


def scan(source: str, rel: str) -> tuple[list[Site], list[Site]]:
    """(the writes, the calls) of one module, each with whether it stands inside an act."""
    tree = ast.parse(source)
    consts = {n.targets[0].id: t for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], ast.Name) and (t := _text(n.value, {})) is not None}
    wrappers = _guard_wrappers(tree)
    writes: list[Site] = []
    calls: list[Site] = []

    def walk(node: ast.AST, func: str, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            name, act = func, inside
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and func == "<module>":
                name = child.name  # a nested function keeps its enclosing function and act (a closure of the body)
            if isinstance(child, ast.With | ast.AsyncWith) and any(
                    isinstance(item.context_expr, ast.Call) and _called(item.context_expr) in wrappers
                    for item in child.items):
                act = True
            if isinstance(child, ast.Call):
                where = f"{rel}::{func}"
                calls.append(Site(where, child.lineno, _called(child), inside))
                text = _text(child.args[0], consts) if child.args else None
                if text is not None and SQL_WRITE.match(text):
                    writes.append(Site(where, child.lineno, " ".join(text.split()[:3]), inside))
                elif isinstance(child.func, ast.Attribute) and child.func.attr in TABLE_WRITES and \
                        STORE_RECEIVER.match(ast.unparse(child.func.value)):
                    writes.append(Site(where, child.lineno, ast.unparse(child.func)[:60], inside))
            walk(child, name, act)

    walk(tree, "<module>", False)
    return writes, calls


def offences(sources: dict[str, str], *, helpers: dict[str, str], exempt: dict[str, str],
             exempt_modules: dict[str, str]) -> list[str]:
    """Every write outside an act and outside the lists, and every call of a helper outside an act."""
    allowed = set(helpers) | set(exempt)
    found: list[str] = []
    all_calls: list[Site] = []
    for rel, source in sources.items():
        writes, calls = scan(source, rel)
        all_calls += calls
        if rel in exempt_modules:
            continue
        found += [f"{w.where} line {w.line}: {w.what} is written outside guarded(...)"
                  for w in writes if not w.guarded and w.where not in allowed]
    helper_names = {h.split("::")[1]: h for h in helpers}
    for call in all_calls:
        helper = helper_names.get(call.what)
        if helper and not call.guarded and call.where not in allowed \
                and call.where.split("::")[0] not in exempt_modules:
            found.append(f"{call.where} line {call.line}: calls {helper} (it writes) outside guarded(...)")
    return found


def _sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for folder in (STORE, CONSOLE) for p in sorted(folder.rglob("*.py")) if "__pycache__" not in p.parts}


def test_every_state_write_is_inside_the_guarded_pipeline():
    found = offences(_sources(), helpers=HELPERS, exempt=EXEMPT, exempt_modules=EXEMPT_MODULES)
    assert not found, "writes outside the guarded pipeline (route them through guarded(...), or list them " \
                      "here with why they may):\n" + "\n".join(found)


def test_every_listed_function_still_exists_and_writes():
    """A stale entry would let a new function of the same name write unchecked."""
    sources = _sources()
    helper_names = {h.split("::")[1] for h in HELPERS}
    for entry in [*HELPERS, *EXEMPT]:
        rel = entry.split("::")[0]
        writes, calls = scan(sources[rel], rel)
        assert any(w.where == entry for w in writes) or \
            any(c.where == entry and c.what in helper_names for c in calls), \
            f"{entry} is listed but writes nothing (itself or through a helper): drop it from the list"


# --- the checker can fail ----------------------------------------------------------------------------------
BYPASS = '''
def sneak(db):
    db.execute("UPDATE cases SET status = 'closed' WHERE id = ?", ["case-1"])
'''
GUARDED = '''
def decide(db, actor):
    with guarded(db, "decide", actor=actor) as act:
        db.execute("UPDATE cases SET status = 'closed' WHERE id = ?", ["case-1"])
        db.table("decisions").insert({"case_id": "case-1"})
'''
WRAPPED = '''
def _review(db, actor):
    return guarded(db, "review", actor=actor)

def approve(db, actor):
    with _review(db, actor) as act:
        db["manifest_drafts"].update("d-1", {"status": "approved"})
'''
HELPER = '''
def _project(db):
    db.execute(f"UPDATE {TABLE} SET x = 1")

def good(db, actor):
    with guarded(db, "x", actor=actor):
        _project(db)

def bad(db):
    _project(db)
'''


def test_the_checker_finds_a_write_outside_an_act():
    found = offences({"store/x.py": BYPASS}, helpers={}, exempt={}, exempt_modules={})
    assert found == ["store/x.py::sneak line 3: UPDATE cases SET is written outside guarded(...)"]
    table = offences({"store/x.py": "def f(db):\n    db.table('leases').upsert({}, pk='id')\n"}, helpers={},
                     exempt={}, exempt_modules={})
    assert len(table) == 1 and "leases" in table[0]


def test_the_checker_accepts_writes_inside_an_act_or_its_wrapper():
    for source in (GUARDED, WRAPPED):
        assert offences({"store/x.py": source}, helpers={}, exempt={}, exempt_modules={}) == []


def test_the_checker_finds_a_helper_called_outside_an_act():
    found = offences({"store/x.py": HELPER}, helpers={"store/x.py::_project": "test"}, exempt={}, exempt_modules={})
    assert found == ["store/x.py::bad line 10: calls store/x.py::_project (it writes) outside guarded(...)"]
