"""Evidence from any run: JUnit XML reports and Inspect AI `.eval` logs read as evaluation runs.

Both are read with the standard library only, bounded:
- JUnit XML (every CI system's test report): a `<testsuites>` or `<testsuite>` root, one task per
  `<testcase>` (`classname.name`), failed when it holds `<failure>` or `<error>`, its `time` (seconds)
  the duration; a `<skipped>` test is not counted (said in the run's warnings). A document with a
  DOCTYPE or an entity declaration is refused before it is parsed (no entity is ever expanded), and a
  `<testsuite>`'s `tests` / `failures` / `errors` / `skipped` must agree with its test cases.
- Inspect AI's log format (`.eval`, log version 2): a zip of `header.json` (the eval, its status and
  scorers), `samples/*.json` (one sample and epoch each: its scores, timing and error) and
  `reductions.json` (each scorer's reduced score per sample); or the same log as JSON (`inspect log
  convert --to json`). One task per sample id, one attempt per epoch; an attempt passes when the
  header's first scorer's value counts as correct (`C`, true, or a number of at least 1; Inspect's
  `value_to_float`: `P` 0.5, `I` and `N` 0), so a task passes when any epoch did (pass@k, as gatepost's own
  runs count). A log of another version, a member larger than the file limit (or unpacking to more than it
  said), more members than a log needs, a sample without the first scorer's score and a reduction of a
  sample no member holds are refused with one line. Inspect from 0.3.2xx compresses members with zstd
  (zip method 93), which Python's zipfile reads only from 3.14: such a log is refused with a line that says
  how to convert it.
Each file becomes a stored run of the candidate side only (a standalone run), so its pass rate comes
with its Wilson interval and `case compare` can weigh two such runs against each other.
"""

import hashlib
import io
import os
import re
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from sqlite_utils import Database

from gatepost.store.kernel import MAX_FILE_BYTES, InputError, now_iso, open_regular, parse_json

from .artifacts import STANDALONE_PASS
from .runs import store_run

FORMATS = ("junit", "inspect")
INSPECT_LOG_VERSION = 2
MAX_MEMBERS = 200_000  # a log's samples and epochs, with room; a zip with more is not a log
MAX_UNPACKED_BYTES = 16 * MAX_FILE_BYTES  # every member together, read bounded (a zip bomb stops here)
REASON_CHARS = 500
_INSPECT_JSON = re.compile(rb'\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')  # matched on the head, stripped
_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_CORRECT = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}  # inspect_ai.scorer: CORRECT, PARTIAL, INCORRECT, NOANSWER


def detect_format(path: str | Path) -> str:
    """`inspect` (a zip, or JSON opening with `"version"` then `"status"`), `junit` (XML) or `artifact` (other
    JSON), from the file's first bytes."""
    try:
        with open_regular(path, what="artifact") as stream:  # a FIFO or a device is never waited on
            head = stream.read(512)
    except (OSError, InputError):
        return "artifact"  # the artifact reader says what is wrong with it, in its words
    if head.startswith(b"PK\x03\x04"):
        return "inspect"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return "junit"
    if _INSPECT_JSON.match(head.lstrip(b"\xef\xbb\xbf \t\r\n")):  # an Inspect log as JSON opens with its version, then its status
        return "inspect"
    return "artifact"


def _bounded(path: Path, what: str) -> bytes:
    with open_regular(path, what=what) as stream:  # a FIFO, a device or a folder: one line, never a wait
        size = os.fstat(stream.fileno()).st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"{path}: {size:,} bytes is larger than the {MAX_FILE_BYTES:,}-byte limit for a {what}")
        return stream.read(MAX_FILE_BYTES + 1)


def _cap(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def _artifact(run_id: str, fmt: str, name: str, results: list[dict[str, Any]], *, warnings: list[str],
              source: Path, started: str | None, skill: str | None, executor: str, extra: dict[str, Any]) -> dict[str, Any]:
    """A run of the candidate side only, in the fields store_run stores, as an upstream standalone run (its
    verdict too: pass at a pass rate of 0.5 or more, so the run exports and imports again as upstream's)."""
    tasks = len(results)
    passed = sum(1 for r in results if any(a["passed"] for a in r["attempt_details"]))
    rate = round(passed / tasks, 4) if tasks else 0.0
    if not tasks:
        raise InputError(f"{name}: no {'test case' if fmt == 'junit' else 'sample'} to count: nothing to store")
    at = now_iso()
    return {"run_id": run_id, "format": fmt, "shape": fmt, "skill_id": skill, "executor": executor, "mock": False,
            "candidate": {"path": None, "sha256": None}, "baseline": {"path": None, "sha256": None},
            "candidate_results": results, "baseline_results": [], "execution_pass_rate": rate,
            "baseline_pass_rate": None, "delta": None, "verdict": "pass" if rate >= STANDALONE_PASS else "fail",
            "warnings": warnings, "baseline_health": {}, "purpose": "imported", "pass_k": None, "split": None,
            "case_id": None, "started_at": started or at, "finished_at": at, "imported_from": str(source.resolve()),
            "total_tasks": tasks, "passed": passed, "failed": tasks - passed, **extra}


# --- JUnit XML ------------------------------------------------------------------------------------------
def _seconds(value: str | None, where: str) -> int | None:
    if value is None or not value.strip():
        return None
    try:
        seconds = float(value.replace(",", ""))
    except ValueError:
        raise InputError(f"{where}: time: expected seconds, got {value!r}") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise InputError(f"{where}: time: expected seconds, got {value!r}")
    return round(seconds * 1000)


def _count_attr(suite: ElementTree.Element, key: str, found: int, where: str) -> None:
    value = suite.get(key)
    if value is None:
        return
    try:
        said = int(value)
    except ValueError:
        raise InputError(f"{where}: {key}: expected a whole number, got {value!r}") from None
    if said != found:
        raise InputError(f"{where}: {key}=\"{value}\" contradicts its test cases ({found})")


def read_junit(path: str | Path) -> dict[str, Any]:
    """A JUnit XML report as a run (see the module's docstring); InputError naming the file otherwise."""
    path = Path(path)
    name = path.name
    data = _bounded(path, "JUnit XML file")
    if _DOCTYPE.search(data):
        raise InputError(f"{name}: a DOCTYPE or entity declaration: refused (a JUnit report needs neither, and "
                         "gatepost expands no entities)")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise InputError(f"{name}: not well-formed XML ({exc})") from None
    if root.tag not in ("testsuites", "testsuite"):
        raise InputError(f"{name}: expected a JUnit report (<testsuites> or <testsuite>), got <{root.tag}>")
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    results: list[dict[str, Any]] = []
    seen: set[str] = set()
    skipped = 0
    for index, suite in enumerate(suites):
        where = f"{name}: testsuite {suite.get('name') or index + 1}"
        cases = suite.findall("testcase")
        kinds = {"failures": 0, "errors": 0, "skipped": 0}
        for case in cases:
            test = case.get("name")
            if not test:
                raise InputError(f"{where}: a testcase without a name")
            classname = case.get("classname") or ""
            task = f"{classname}.{test}" if classname else test
            if task in seen:
                task = f"{suite.get('name') or index + 1}/{task}"
            if task in seen:
                raise InputError(f"{where}: testcase {task} is listed twice")
            failure, error, skip = case.find("failure"), case.find("error"), case.find("skipped")
            kinds["failures"] += failure is not None
            kinds["errors"] += error is not None
            if skip is not None and failure is None and error is None:
                kinds["skipped"] += 1
                skipped += 1
                continue
            seen.add(task)
            bad = failure if failure is not None else error
            reason = None
            if bad is not None:
                label = "failure" if bad is failure else "error"
                reason = _cap(f"{label}: {bad.get('message') or bad.get('type') or (bad.text or '').strip()}")
            duration = _seconds(case.get("time"), f"{where}: testcase {task}")
            results.append({"task_id": task, "split": None, "attempt_details": [{
                "attempt": 1, "passed": bad is None, "judged": True, "score": 1.0 if bad is None else 0.0,
                "duration_ms": duration or 0, "output": "", "reason": reason, "mock": False}]})
        if cases:
            _count_attr(suite, "tests", len(cases), where)
            for key, found in kinds.items():
                _count_attr(suite, key, found, where)
    warnings = [f"{skipped} skipped test{'s' if skipped != 1 else ''} not counted"] if skipped else []
    first = suites[0] if suites else root
    run_id = "imp-" + hashlib.sha256(data).hexdigest()[:12]
    return _artifact(run_id, "junit", name, results, warnings=warnings, source=path,
                     started=first.get("timestamp"), skill=root.get("name") or first.get("name"),
                     executor="junit", extra={"skipped": skipped})


# --- Inspect AI .eval logs ------------------------------------------------------------------------------
def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, budget: list[int]) -> Any:
    """One member's JSON, read bounded: its declared size, then what it really unpacks to."""
    if info.file_size > MAX_FILE_BYTES:
        raise InputError(f"{name}: {info.filename}: {info.file_size:,} bytes unpacked, over the "
                         f"{MAX_FILE_BYTES:,}-byte limit of one member")
    with archive.open(info) as stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    budget[0] -= len(data)
    if len(data) > MAX_FILE_BYTES or budget[0] < 0:
        raise InputError(f"{name}: {info.filename}: unpacks to more than the zip said, or the log to more than "
                         f"{MAX_UNPACKED_BYTES:,} bytes in all: refused")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: {info.filename}: not UTF-8 JSON") from None
    return parse_json(text, source=f"{name}: {info.filename}")


def _score_value(value: Any, where: str) -> float:
    """Inspect's value_to_float: C 1, P 0.5, I and N 0, booleans 1/0, numbers as they are."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)) and value == value and abs(value) != float("inf"):
        return float(value)
    if isinstance(value, str) and value in _CORRECT:
        return _CORRECT[value]
    raise InputError(f"{where}: value: expected C, I, P, N, a boolean or a number, got {value!r}")


def _zip_parts(data: bytes, name: str) -> tuple[Any, list[tuple[str, Any]], Any]:
    """header.json, each samples/*.json (in name order) and reductions.json (None if absent) of a log zip."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise InputError(f"{name}: not an Inspect .eval log (a zip): {exc}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise InputError(f"{name}: {len(infos):,} members, more than an Inspect log holds ({MAX_MEMBERS:,})")
        members = {i.filename: i for i in infos}
        if "header.json" not in members:
            raise InputError(f"{name}: no header.json: not an Inspect .eval log")
        budget = [MAX_UNPACKED_BYTES]
        try:
            header = _member(archive, members["header.json"], name, budget)
            samples = [(f"{name}: {filename}", _member(archive, members[filename], name, budget))
                       for filename in sorted(members)
                       if filename.startswith("samples/") and filename.endswith(".json")]
            reductions = (_member(archive, members["reductions.json"], name, budget)
                          if "reductions.json" in members else None)
        except NotImplementedError:
            methods = sorted({i.compress_type for i in infos} - {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
            raise InputError(f"{name}: compressed with zip method {', '.join(map(str, methods))} "
                             f"({'zstd' if 93 in methods else 'not deflate'}), which this Python's zipfile cannot "
                             "read (zstd needs Python 3.14); `inspect log convert --to json` writes the same log "
                             "as JSON, which gatepost reads (--format inspect)") from None
    return header, samples, reductions


def _json_parts(data: bytes, name: str) -> tuple[Any, list[tuple[str, Any]], Any]:
    """The same three parts of an Inspect log written as JSON (`inspect log convert --to json`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: neither an Inspect .eval log (a zip) nor a JSON log (UTF-8)") from None
    doc = parse_json(text, source=name)
    if not isinstance(doc, dict):
        raise InputError(f"{name}: expected an Inspect log object (version, eval, samples, ...)")
    samples = doc.get("samples") or []
    if not isinstance(samples, list):
        raise InputError(f"{name}: samples: expected a list")
    return doc, [(f"{name}: samples[{i}]", sample) for i, sample in enumerate(samples)], doc.get("reductions")


def read_inspect(path: str | Path) -> dict[str, Any]:
    """An Inspect AI log (version 2), its `.eval` zip or its JSON form, as a run (see the module's docstring)."""
    path = Path(path)
    name = path.name
    data = _bounded(path, "Inspect log")
    header, samples, reductions = (_zip_parts if data.startswith(b"PK\x03\x04") else _json_parts)(data, name)
    if not isinstance(header, dict):
        raise InputError(f"{name}: header.json: expected an object")
    version = header.get("version")
    if version != INSPECT_LOG_VERSION:
        raise InputError(f"{name}: header.json: version: Inspect log version {version!r}; gatepost reads "
                         f"version {INSPECT_LOG_VERSION}")
    spec: dict[str, Any] = header["eval"] if isinstance(header.get("eval"), dict) else {}
    results_block: dict[str, Any] = header["results"] if isinstance(header.get("results"), dict) else {}
    headline = [s for s in (results_block.get("scores") or []) if isinstance(s, dict) and isinstance(s.get("name"), str)]
    scorer: str | None = headline[0]["name"] if headline else None
    attempts: dict[str, list[dict[str, Any]]] = {}
    for where, sample in samples:
        if not isinstance(sample, dict) or "id" not in sample:
            raise InputError(f"{where}: expected a sample object with an id")
        if isinstance(sample["id"], bool) or not isinstance(sample["id"], (str, int)):
            raise InputError(f"{where}: id: expected a string or a whole number, got {sample['id']!r}")
        epoch = sample.get("epoch", 1)
        if type(epoch) is not int or epoch < 1:
            raise InputError(f"{where}: epoch: expected a whole number from 1, got {epoch!r}")
        scores = sample.get("scores") or {}
        if not isinstance(scores, dict):
            raise InputError(f"{where}: scores: expected an object of scorer name to score")
        error = sample.get("error")
        if scorer is None and scores:
            scorer = sorted(scores)[0]
        if scores and scorer not in scores:
            raise InputError(f"{where}: scores: no score of {scorer} (the header's first scorer)")
        score = scores.get(scorer) if scorer else None
        if error is None and not isinstance(score, dict):
            raise InputError(f"{where}: scores.{scorer}: expected a score object with a value")
        value = _score_value(score.get("value"), f"{where}: scores.{scorer}") if isinstance(score, dict) else 0.0
        passed = error is None and value >= 1.0
        reason = None
        if error is not None:
            message = error.get("message") if isinstance(error, dict) else error
            reason = _cap(f"error: {message}")
        elif not passed and isinstance(score, dict):
            explanation = score.get("explanation")
            reason = _cap(f"{scorer}: {score.get('value')!r}"
                          + (f": {explanation}" if isinstance(explanation, str) and explanation else ""))
        seconds = sample.get("total_time")
        duration = round(seconds * 1000) if isinstance(seconds, (int, float)) and seconds >= 0 else 0
        attempts.setdefault(str(sample["id"]), []).append({
            "attempt": epoch, "passed": passed, "judged": error is None, "score": value,
            "duration_ms": duration, "output": "", "reason": reason, "mock": False})
    if reductions is not None:
        if not isinstance(reductions, list):
            raise InputError(f"{name}: reductions.json: expected a list of each scorer's reductions")
        for index, reduction in enumerate(reductions):
            where = f"{name}: reductions.json[{index}]"
            if not isinstance(reduction, dict) or not isinstance(reduction.get("samples"), list):
                raise InputError(f"{where}: expected {{scorer, reducer, samples: [...]}}")
            for item in reduction["samples"]:
                sample_id = str(item.get("sample_id")) if isinstance(item, dict) else None
                if sample_id not in attempts:
                    raise InputError(f"{where}: sample {sample_id}: reduced, but no sample holds it")
    results: list[dict[str, Any]] = []
    for task, tried in sorted(attempts.items()):
        tried.sort(key=lambda a: a["attempt"])
        if len({a["attempt"] for a in tried}) != len(tried):
            raise InputError(f"{name}: sample {task}: an epoch is given twice")
        results.append({"task_id": task, "split": None, "attempt_details": tried})
    status = header.get("status")
    warnings = [] if status in (None, "success") else [f"Inspect log status {status!r}: the eval did not finish"]
    stats: dict[str, Any] = header["stats"] if isinstance(header.get("stats"), dict) else {}
    metrics = {f"{s['name']}.{k}": m.get("value") for s in headline
               for k, m in (s.get("metrics") or {}).items() if isinstance(m, dict)}
    model = spec.get("model") if isinstance(spec.get("model"), str) else None
    epochs = max((len(r["attempt_details"]) for r in results), default=0)
    artifact = _artifact("imp-" + hashlib.sha256(data).hexdigest()[:12], "inspect", name, results,
                         warnings=warnings, source=path,
                         started=stats.get("started_at") if isinstance(stats.get("started_at"), str) else None,
                         skill=spec.get("task") if isinstance(spec.get("task"), str) else None,
                         executor=f"inspect:{model}" if model else "inspect",
                         extra={"model": model, "scorer": scorer, "epochs": epochs, "inspect_metrics": metrics,
                                "inspect_run_id": spec.get("run_id"), "inspect_task_id": spec.get("task_id")})
    artifact["pass_k"] = epochs or None
    return artifact


def read_foreign(path: str | Path, fmt: str) -> dict[str, Any]:
    """A JUnit report or an Inspect log as a run's artifact (not stored)."""
    if fmt == "junit":
        return read_junit(path)
    if fmt == "inspect":
        return read_inspect(path)
    raise InputError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


def import_foreign(db: Database, path: str | Path, fmt: str | None = None, *,
                   actor: str | None = None) -> tuple[str, bool, dict[str, Any]]:
    """Store a JUnit report or an Inspect log (`fmt`, else detected) as an evaluation run, in one transaction;
    returns (run id, newly stored, the run's artifact). The same bytes again are not stored twice."""
    fmt = fmt or detect_format(path)
    artifact = read_foreign(path, fmt)
    if db.execute("SELECT 1 FROM evaluation_runs WHERE id = ?", [artifact["run_id"]]).fetchone():
        return artifact["run_id"], False, artifact
    store_run(db, None, artifact, actor=actor)
    return artifact["run_id"], True, artifact


__all__ = ["FORMATS", "INSPECT_LOG_VERSION", "detect_format", "import_foreign", "read_foreign", "read_inspect",
           "read_junit"]
