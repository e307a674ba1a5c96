"""Failures become tasks: a reviewed failure drafted into its suite as a new task, as a case for the suite's owner.

From a task result (a run's task that failed) or a skill's failing output, "add to suite" drafts a task (the
prompt the run asked, or the reviewer's; a `contains` judge from the expected answer, else an `llm-rubric`
judge from the reviewer's note) and appends it to the suite file's text. Nothing writes the file: the suite
with the new task is a case (`eval.gated_change/1`), imported by the reviewer (its author), who asks the suite's
owner on its thread (`@owner`: their Overview lists it), so the suite changes only through the gate (decided, proposed, accepted, recorded applied), and
the reviewer who drafted it never decides it (self-dealing).
"""

import json
import re
from pathlib import Path
from typing import Any

import yaml
from sqlite_utils import Database

from gatepost.store import cases
from gatepost.store.discussion import add_comment
from gatepost.store.evaluation import parse_suite, read_suite_text
from gatepost.store.kernel import InputError, check_name, find_actor, transaction
from gatepost.store.loops import text_hash

PROTOCOL = "eval.gated_change/1"
DESIGN = "suite-task/1"  # the basis' design: a task drafted from a reviewed failure
_ID = re.compile(r"[^A-Za-z0-9._-]+")
_ITEM = re.compile(r"^( *)- +id *:", re.MULTILINE)


def _task_prompt(db: Database, run_id: str, task_id: str) -> tuple[str, str | None, str | None]:
    """The prompt the run asked for `task_id` (from the suite text the run points at), the run's suite path and
    the task's split."""
    row = db.execute("SELECT r.suite_id, s.yaml, s.path FROM evaluation_runs r LEFT JOIN task_suites s ON"
                     " s.id = r.suite_id WHERE r.id = ?", [run_id]).fetchone()
    if row is None:
        raise InputError(f"--run: no evaluation run {run_id!r} in this store")
    if not db.execute("SELECT 1 FROM task_results WHERE run_id = ? AND task_id = ? LIMIT 1",
                      [run_id, task_id]).fetchone():
        raise InputError(f"--task: run {run_id} holds no task {task_id!r}")
    if row[1] is None:
        return "", None, None
    data = yaml.safe_load(row[1]) or {}
    for task in data.get("tasks") or []:
        if isinstance(task, dict) and task.get("id") == task_id:
            return str(task.get("prompt") or ""), row[2], task.get("split")
    return "", row[2], None


def _skill_failure(db: Database, skill: str) -> str:
    """The skill's newest failing output (what the reviewer saw), or InputError when it has none."""
    row = db.execute("SELECT r.output FROM skill_evals e JOIN skill_runs r ON r.id = e.run_id WHERE e.skill = ?"
                     " AND e.passed = 0 ORDER BY e.id DESC LIMIT 1", [skill]).fetchone()
    if row is None:
        raise InputError(f"--skill: {skill} has no failing evaluation in this store (gatepost skills eval)")
    return str(row[0] or "")


def draft_task(db: Database, *, note: str, run_id: str | None = None, task_id: str | None = None,
               skill: str | None = None, prompt: str | None = None, expected: list[str] | None = None,
               new_id: str | None = None) -> dict[str, Any]:
    """The new task (a suite task mapping) and where it came from: {task, source, suite_path}."""
    note = (note or "").strip()
    if not note:
        raise InputError("--note: expected what the failure shows (it becomes the judge's rubric without --expected)")
    if (run_id is None) == (skill is None):
        raise InputError("--run RUN --task TASK or --skill NAME: expected one failure to draft a task from")
    suite_path, split = None, None
    if run_id is not None:
        if not task_id:
            raise InputError("--task: expected the task of the run whose failure becomes a task")
        asked, suite_path, split = _task_prompt(db, run_id, task_id)
        source = {"run": run_id, "task": task_id}
        base_id = f"{task_id}-regression"
    else:
        assert skill is not None
        output = _skill_failure(db, skill)
        asked = ""
        source = {"skill": skill, "failing_output": output[:2000]}
        base_id = f"{skill}-failure"
    text = (prompt or asked or "").strip()
    if not text:
        raise InputError("--prompt: expected the task's prompt (the failure carries none: a skill's output, or a run "
                         "imported without its suite)")
    wanted = [e.strip() for e in expected or [] if e and e.strip()]
    judge: dict[str, Any] = ({"type": "contains", "expected": wanted} if wanted
                             else {"type": "llm-rubric", "rubric": note, "pass_threshold": 0.7})
    task = {"id": _ID.sub("-", (new_id or base_id).strip()).strip("-") or "task", "description": note[:200],
            "prompt": text, "judge": judge, **({"split": split} if isinstance(split, str) and split else {})}
    return {"task": task, "source": source, "suite_path": suite_path}


def suite_with_task(suite_text: str, task: dict[str, Any], *, path: str) -> tuple[str, dict[str, Any]]:
    """The suite's text with `task` appended (a fresh id if it is taken), checked as a whole; and the task."""
    suite, errors = parse_suite(suite_text, path=Path(path))  # (a pytest judge's file is looked for beside it)
    if errors or suite is None:
        raise InputError(f"--suite: {errors[0] if errors else path + ': not a valid suite'}")
    taken = {t.id for t in suite.tasks}
    task = dict(task)
    base, n = task["id"], 2
    while task["id"] in taken:
        task["id"], n = f"{base}-{n}", n + 1
    block = yaml.safe_dump([task], allow_unicode=True, sort_keys=False, width=100)
    items = _ITEM.findall(suite_text)  # the file's own indentation of its tasks' items
    lead = items[-1] if items else "  "
    indented = "".join(f"{lead}{line}" if line.strip() else line for line in block.splitlines(keepends=True))
    new_text = suite_text.rstrip("\n") + "\n" + indented
    checked, problems = parse_suite(new_text, path=Path(path))
    if problems or checked is None or task["id"] not in {t.id for t in checked.tasks}:
        raise InputError(f"--suite: {path}: the task cannot be appended to its tasks list "
                         f"({problems[0] if problems else 'the file does not end with its tasks list'})")
    return new_text, task


def _repository_path(path: str) -> str:
    """The suite's path as a case names its candidate: relative to the working folder (the repository)."""
    given = Path(path)
    if not given.is_absolute():
        return given.as_posix()
    try:
        return given.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        raise InputError(f"--suite: {path} is outside the working folder; run from the repository the suite is "
                         "in, or give its path relative to it") from None


def add_to_suite(db: Database, suite_path: str | None, *, owner: str, actor: str | None, note: str,
                 run_id: str | None = None, task_id: str | None = None, skill: str | None = None,
                 prompt: str | None = None, expected: list[str] | None = None,
                 new_id: str | None = None, suite_text: str | None = None) -> dict[str, Any]:
    """Draft a task from a failure into its suite file as a case for `owner`: imported by `actor` (its author,
    who never decides it), with a comment mentioning `owner` (their Overview lists it; the author cannot assign
    their own case), in one transaction. The suite file is read, never written. Returns {case_id, revision,
    suite_path, task, source, owner}."""
    found = find_actor(db, check_name(owner, field="--owner"))
    if found is None or found["kind"] != "person":
        raise InputError(f"--owner: {owner} is not a person of this store (gatepost actors add)")
    owner = found["name"]
    drafted = draft_task(db, note=note, run_id=run_id, task_id=task_id, skill=skill, prompt=prompt,
                         expected=expected, new_id=new_id)
    path = (suite_path or drafted["suite_path"] or "").strip()
    if not path:
        raise InputError("--suite: expected the suite file the task goes into (the failure names none)")
    # `suite_text`: an in-process caller's copy of the file (the demo's suites live in the store only)
    current = suite_text if suite_text is not None else read_suite_text(path)[1]
    repo_path = _repository_path(path)
    new_text, task = suite_with_task(current, drafted["task"], path=path)
    where = drafted["source"]
    origin = f"run {where['run']} task {where['task']}" if "run" in where else f"skill {where['skill']}"
    data = {"protocol": PROTOCOL, "title": f"add task {task['id']} to {Path(path).name} (from {origin})",
            "author": actor,
            "candidate": {"path": repo_path, "content": new_text,
                          "basis": {"baseline": text_hash(current), "question_set": text_hash(current),
                                    "data_revision": json.dumps(where, sort_keys=True)[:500], "design": DESIGN}},
            "independent": {cases.AUTHOR_DIMENSION: [owner]}}
    with transaction(db):
        case_id = cases.import_case(db, data, actor=actor)
        # the author cannot assign their own case (self-dealing): they ask its owner, by name, on its thread
        add_comment(db, "case", case_id, f"@{owner} a task for {Path(path).name}, drafted from {origin}: {note}",
                    actor=actor)
        revision = cases.get_case(db, case_id)["current_revision"]
    return {"case_id": case_id, "revision": revision, "suite_path": repo_path, "task": task, "source": where,
            "owner": owner}
