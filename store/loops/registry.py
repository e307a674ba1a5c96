"""The loop registry: what a loop may change, and the settings no evaluator run can choose.

A loop is registered by a holder of `store.admin` (`gatepost loop add`). Its
settings (surface, task suite by content hash, baseline rule, executor,
independent evaluators and reviewers, the paths it may touch, the evaluation
design) are versioned records: registering a name again is a new version, never
an edit. `case evaluate` reads them from here; an evaluator asking for other
settings is refused unless it may change the loop, and such an override is an
audited event.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from gatepost.store.evaluation import DECISION_RULES, load_suite, read_skill, within_surface
from gatepost.store.kernel import (
    InputError,
    RefusedError,
    all_rows,
    as_found,
    get_actor,
    guarded,
    now_iso,
    observed_at,
    require,
)

from .current import text_hash

ADMIN_CAPABILITY = "store.admin"
BASELINE_CURRENT = "current"
LOOP_SCHEMA = "gatepost.loop/1"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SETTING_KEYS = ("surface", "paths", "suite_path", "suite_hash", "baseline", "baseline_path", "baseline_hash",
                "executor", "mock", "evaluators", "reviewers", "design", "data_revision", "root", "suite_files",
                "executor_files", "judge_command", "judge_files", "decision_rule")
# what runs, by file: (the setting holding {path under the root: sha256}, what it is called in a refusal)
RAN_WITH = (("suite_files", "suite"), ("executor_files", "executor"), ("judge_files", "judge"))


def check_loop_name(name: str) -> str:
    """A loop name is a short identifier (letters, digits, '.', '_', '-')."""
    name = (name or "").strip()
    if not _NAME.fullmatch(name):
        raise InputError(f"loop name: expected letters, digits, '.', '_' or '-' (at most 64), got {name!r}")
    return name


def _names(values: list[str] | tuple[str, ...], option: str) -> list[str]:
    out = []
    for v in values:
        v = (v or "").strip()
        if not v or any(ch.isspace() for ch in v):
            raise InputError(f"{option}: expected a name without spaces, got {v!r}")
        if v not in out:
            out.append(v)
    return out


def _globs(values: list[str] | tuple[str, ...], option: str) -> list[str]:
    out = []
    for v in values:
        v = (v or "").strip()
        if not v:
            raise InputError(f"{option}: expected a path glob such as skills/*/SKILL.md, got an empty value")
        if v.startswith("/") or ".." in v.split("/"):
            raise InputError(f"{option}: {v}: expected a glob relative to the project (no leading '/', no '..')")
        if v not in out:
            out.append(v)
    return out


def file_hash(path: Path) -> str:
    """`sha256:` and the hex sha256 of a file's bytes (what `sha256sum FILE` prints)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def _inside(root: Path, value: str) -> Path | None:
    """The file `value` names, if it is a file inside `root` (relative to the root, or absolute)."""
    candidate = Path(value) if Path(value).is_absolute() else root / value
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError):
        return None
    return resolved if resolved.is_file() and resolved.is_relative_to(root) else None


def command_files(command: str | None, root: Path) -> dict[str, str]:
    """The files inside the root a command names (its script, and any argument or --opt=VALUE that is a file
    there), by path under the root and hash: editing any of them changes what runs."""
    out: dict[str, str] = {}
    for token in (command or "").split():
        value = token.split("=", 1)[1] if token.startswith("-") and "=" in token else token
        found = _inside(root, value)
        if found is not None:
            out[found.relative_to(root).as_posix()] = file_hash(found)
    return out


def suite_files(suite_path: Path, root: Path) -> dict[str, str]:
    """The suite file and every file of its fixtures/ folder, by path under the root and hash."""
    files = [suite_path.resolve()]
    fixtures = suite_path.resolve().parent / "fixtures"
    if fixtures.is_dir():
        files += sorted(p.resolve() for p in fixtures.rglob("*") if p.is_file())
    return {f.relative_to(root).as_posix(): file_hash(f) for f in files if f.is_relative_to(root)}


def absolute_command(command: str | None, root: Path) -> str | None:
    """The command with every file it names inside the root made absolute: it runs the same files whatever
    the evaluator's working folder."""
    if not command:
        return command
    words = []
    for token in command.split():
        found = _inside(root, token)
        words.append(str(found) if found is not None else token)
    return " ".join(words)


def drift(loop: dict[str, Any], settings: tuple[str, ...] = ("suite_files", "executor_files", "judge_files")) -> list[str]:
    """How the files that run differ from what the loop registered: one line per file changed, gone or new."""
    if not loop.get("root"):
        return [f"loop {loop['name']} v{loop['version']} was registered without the hashes of what runs"]
    root = Path(loop["root"])
    now = {"suite_files": suite_files(root / loop["suite_path"], root) if (root / loop["suite_path"]).is_file()
           else {}, "executor_files": command_files(loop.get("executor"), root),
           "judge_files": command_files(loop.get("judge_command"), root)}
    lines = []
    for key, what in RAN_WITH:
        if key not in settings:
            continue
        registered, current = loop.get(key) or {}, now[key]
        for path in sorted(set(registered) | set(current)):
            was, is_ = registered.get(path), current.get(path)
            if was == is_:
                continue
            if is_ is None:
                lines.append(f"{what} file {path} is gone (registered {was})")
            elif was is None:
                lines.append(f"{what} file {path} is new since loop {loop['name']} v{loop['version']} was registered")
            else:
                lines.append(f"{what} file {path} is {is_[:19]}…, but loop {loop['name']} v{loop['version']} "
                             f"registered {was[:19]}…")
    return lines


def make_settings(*, suite: str, surface: list[str] | tuple[str, ...], paths: list[str] | tuple[str, ...] = (),
                  baseline: str = BASELINE_CURRENT, executor: str | None = None, mock: bool = False,
                  evaluators: list[str] | tuple[str, ...] = (), reviewers: list[str] | tuple[str, ...] = (),
                  design: str | None = None, data_revision: str = "unversioned", name: str = "loop",
                  root: str | None = None, judge_command: str | None = None,
                  decision_rule: str | None = None) -> dict[str, Any]:
    """Check and gather a loop's settings; the suite and a baseline file are read and stored by content hash.

    The decision rule is the one asked for, else the suite's: recorded either way, so the registry shows it.
    What runs is registered by file: the suite with its fixtures, the files the executor's command names
    inside the root, and the judge command's; paths are stored relative to `root` (default: the working
    folder), the one folder they all resolve against.
    """
    if decision_rule is not None and decision_rule not in DECISION_RULES:
        raise InputError(f"--decision-rule: expected one of {', '.join(DECISION_RULES)}, got {decision_rule!r}")
    base = Path(root or os.getcwd()).resolve()
    if not base.is_dir():
        raise InputError(f"--root: {root}: expected the project folder the loop's files are under")
    loaded = load_suite(suite)
    suite_at = Path(loaded.path).resolve()
    if not suite_at.is_relative_to(base):
        raise InputError(f"--suite: {suite_at} is outside the loop's root {base} (--root): registered paths are "
                         "relative to it")
    surface_globs = _globs(surface, "--surface")
    if not surface_globs:
        raise InputError("--surface: expected at least one glob of the paths the loop may change by itself")
    path_globs = _globs(paths, "--path") or list(surface_globs)
    if bool(executor) == bool(mock):
        raise InputError("--executor/--mock: expected exactly one: the executor every evaluation of this loop uses")
    baseline_path = baseline_hash = None
    if baseline != BASELINE_CURRENT:
        baseline_path, text = read_skill(baseline, option="--baseline")
        baseline_hash = text_hash(text)
    evaluator_names = _names(evaluators, "--evaluator")
    reviewer_names = _names(reviewers, "--reviewer")
    if not evaluator_names:
        raise InputError("--evaluator: expected at least one independent evaluator run (a producer other than the loop)")
    design = (design or "").strip() or f"{name}-design@{loaded.id[:12]}"
    data_revision = (data_revision or "").strip() or "unversioned"
    judge_command = " ".join((judge_command or "").split()) or None
    return {"root": str(base), "surface": surface_globs, "paths": path_globs,
            "suite_path": suite_at.relative_to(base).as_posix(), "suite_files": suite_files(suite_at, base),
            "executor_files": command_files(executor, base), "judge_command": judge_command,
            "judge_files": command_files(judge_command, base), "suite_hash": loaded.id, "baseline": BASELINE_CURRENT if baseline == BASELINE_CURRENT else "file",
            "baseline_path": baseline_path, "baseline_hash": baseline_hash, "executor": executor or None,
            "mock": bool(mock), "evaluators": evaluator_names, "reviewers": reviewer_names, "design": design,
            "data_revision": data_revision, "decision_rule": decision_rule or loaded.decision_rule}


def add_loop(db: Database, name: str, settings: dict[str, Any], *, actor: str | None, note: str | None = None,
             at: str | None = None) -> dict[str, Any]:
    """Register a loop, or a new version of its settings (needs store.admin); returns the loop."""
    name = check_loop_name(name)
    unknown = sorted(set(settings) - set(SETTING_KEYS))
    if unknown:
        raise InputError(f"loop {name}: {unknown[0]}: unknown setting (expected {', '.join(SETTING_KEYS)})")
    when = observed_at(at) or now_iso()
    with guarded(db, f"loop add {name}", actor=actor, capability=ADMIN_CAPABILITY) as act:
        for person in settings.get("reviewers", []):
            found = get_actor(db, person)
            if found and found["kind"] != "person":
                raise InputError(f"--reviewer: {person} is a {found['kind']}, expected a person")
        for producer in settings.get("evaluators", []):
            found = get_actor(db, producer)
            if found and found["kind"] != "producer":
                raise InputError(f"--evaluator: {producer} is a {found['kind']}, expected a producer (agent run, CI)")
        existing = _row(db, name)
        version = (existing["version"] + 1) if existing else 1
        if existing and existing["settings"] == settings:
            return get_loop(db, name)
        kind = "loop.changed" if existing else "loop.added"
        payload: dict[str, Any] = {"version": version, "settings": settings, "capability": ADMIN_CAPABILITY}
        before = existing["settings"].get("decision_rule") if existing else None
        if existing and settings.get("decision_rule") != before:  # a store.admin act, named in the audit
            payload["decision_rule_changed"] = {"from": before, "to": settings.get("decision_rule")}
        seq = act.event(kind, subject_type="loop", subject_id=name, note=note, at=when,
                        revision=settings["suite_hash"], payload=payload)
        text = json.dumps(settings, ensure_ascii=False, sort_keys=True)
        db.table("loop_versions").insert({"name": name, "version": version, "settings": text, "actor": act.actor,
                                    "at": when, "event_seq": seq})
        db.table("loops").upsert({"name": name, "version": version, "settings": text,
                            "created_at": existing["created_at"] if existing else when, "updated_at": when,
                            "event_seq": seq}, pk="name")
    return get_loop(db, name)


def _row(db: Database, name: str) -> dict[str, Any] | None:
    rows = list(db["loops"].rows_where("name = ?", [name]))
    if not rows:
        return None
    row = dict(rows[0])
    row["settings"] = json.loads(row["settings"])
    return row


def get_loop(db: Database, name: str) -> dict[str, Any]:
    """A registered loop: name, version, settings; an unknown name is bad input."""
    row = _row(db, name)
    if row is None:
        raise InputError(f"loop {name}: no such loop in this store (gatepost loop list)")
    return loop_document(row)


def loop_document(row: dict[str, Any]) -> dict[str, Any]:
    """The `loop show --json` document."""
    return {"schema": LOOP_SCHEMA, "name": row["name"], "version": row["version"], **row["settings"],
            "created_at": row["created_at"], "updated_at": row["updated_at"], "event_seq": row["event_seq"]}


def list_loops(db: Database) -> list[dict[str, Any]]:
    """Every registered loop, by name."""
    # plain SQL: sqlite-utils' table lookup reads the schema first (most of the cost, before every act on a case)
    return [loop_document(dict(r, settings=json.loads(r["settings"])))
            for r in all_rows(db.execute("SELECT * FROM loops ORDER BY name"))]


def may_touch(loop: dict[str, Any], path: str) -> tuple[bool, str]:
    """Whether a loop may make a case for `path` at all (its registered paths)."""
    inside, _why = within_surface(path, loop["paths"])
    if inside:
        return True, f"{path} matches the loop's paths"
    return False, f"{path} matches none of loop {loop['name']}'s paths ({', '.join(loop['paths'])})"


def owners(db: Database, path: str) -> list[str]:
    """The registered loops whose paths include `path`, by name."""
    return [loop["name"] for loop in list_loops(db) if may_touch(loop, path)[0]]


def outside_registration(db: Database, path: str | None, loop_name: str | None) -> str | None:
    """Why a case on `path` breaks the registry (None when it does not): a path a registered loop owns
    belongs to that loop, so a case on it comes through `case new --loop` and stays inside that loop's
    paths; a case of no loop may only be on paths no loop owns."""
    if not path:
        return None
    # read once for all the rehearsals of a case's decisions (kernel.as_found)
    return as_found(db, ("outside registration", path, loop_name), lambda: _outside(db, path, loop_name))


def _outside(db: Database, path: str, loop_name: str | None) -> str | None:
    if loop_name is not None:
        loop = get_loop(db, loop_name)
        allowed, why = may_touch(loop, path)
        return None if allowed else why
    owned_by = owners(db, path)
    if not owned_by:
        return None
    return (f"{path} belongs to registered loop {', '.join(owned_by)}; a case on it comes through "
            f"gatepost case new --loop {owned_by[0]}")


def inside_surface(loop: dict[str, Any], path: str) -> bool:
    """Whether a path is inside the loop's surface (what it may change by itself)."""
    return within_surface(path, loop["surface"])[0]


def require_admin(db: Database, actor: str | None, *, doing: str) -> None:
    """Refuse unless `actor` holds store.admin (until the guarded pipeline lands, through kernel.require)."""
    require(db, actor, ADMIN_CAPABILITY, doing=doing)


def check_override(db: Database, loop: dict[str, Any], asked: dict[str, Any], *, actor: str | None, case_id: str) -> list[str]:
    """Settings an evaluation asked for that differ from the loop's registered ones.

    Refused unless `actor` may change the loop (store.admin); an allowed override is an audited
    event on the loop. Returns the names of the settings overridden.
    """
    differing = sorted(k for k, v in asked.items() if v is not None and v != loop.get(k))
    if not differing:
        return []
    doing = f"case evaluate {case_id}"
    who = get_actor(db, actor) if actor else None
    if not who or ADMIN_CAPABILITY not in who["capabilities"]:
        shown = ", ".join(differing)
        raise RefusedError(f"{doing}: refused: loop-settings: {shown} of loop {loop['name']} come from its registry "
                           f"(gatepost loop show {loop['name']}); only a holder of {ADMIN_CAPABILITY} may override "
                           "them")
    with guarded(db, doing, actor=actor, capability=ADMIN_CAPABILITY) as act:
        act.event("loop.overridden", subject_type="loop", subject_id=loop["name"],
                  payload={"case_id": case_id, "settings": {k: asked[k] for k in differing},
                           "registered": {k: loop.get(k) for k in differing}, "capability": ADMIN_CAPABILITY})
    return differing
