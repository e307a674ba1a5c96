"""The ai-memory scorer gate: a proposal JSON on stdin, {passed, score_before, score_after, reason} on stdout.

It follows ai-memory's `[auto_improve.eval]` contract: the command is split
on whitespace and run directly (no shell); a proposal is gated when its path
equals a target or starts with `target + "/"` (targets default to `_rules`
and `procedures`, as ai-memory's); command errors, timeouts, invalid JSON, a
missing or non-boolean `passed`, a non-string `reason`, `passed = false` and a
score delta below `min_delta` all fail closed, each with its reason. As ai-memory (auto_improve.rs, apply_eval_gate_with_before_bodies
and run_eval_for_proposal): the delta is `score_after - score_before` in f64, unrounded, against
`min_delta`; the answer must be valid UTF-8 (serde_json::from_slice); unknown keys of the table are
ignored (config.rs: "`deny_unknown_fields` is intentionally NOT set"), with a warning here; `enabled =
true` with an empty command warns and rejects only targeted proposals. A batch gates each proposal on
its own: one failing closed does not stop the others.

Where an operator runs it (deliberate differences, docs/formats.md): the
command runs in the config file's folder, so relative paths in it mean what
they mean beside the config; a scorer that does not exist there is a broken
setup (exit 2), never a recorded rejection.
"""

import json
import math
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from sqlite_utils import Database

from gatepost.store import kernel
from gatepost.store.evaluation import run_bounded, split_command
from gatepost.store.kernel import (
    InputError,
    guarded,
    now_iso,
    parse_json,
    read_text,
    transaction,
)

from .proposal import (
    add_proposal,
    proposal_request,
    proposal_subject,
    read_proposal_file,
    validate_proposal,
)

DEFAULT_TIMEOUT_SECS = 120
DEFAULT_TARGETS = ("_rules", "procedures")  # ai-memory's default_auto_improve_eval_targets()
_SCRIPT_SUFFIXES = (".py", ".sh", ".js", ".rb", ".pl", ".bash")
REASON_CAP = 500  # characters of a scorer's reason kept (ai-memory caps eval evidence too)
STDOUT_CAP = 64 * 1024


@dataclass(frozen=True)
class GateConfig:
    enabled: bool = False
    command: str = ""
    timeout_secs: float = DEFAULT_TIMEOUT_SECS
    targets: list[str] = field(default_factory=lambda: list(DEFAULT_TARGETS))
    min_delta: float = 0.0
    source: str = ""
    folder: str = ""  # the config file's folder: where the command runs and relative paths resolve
    warnings: tuple[str, ...] = ()  # what ai-memory accepts but an operator should hear about

    def targets_path(self, path: str) -> bool:
        """As ai-memory's eval_targets_path: the path equals a target or lies under it (`target/...`);
        a target's surrounding spaces and trailing slashes are ignored, an empty one gates nothing."""
        for target in self.targets:
            target = target.strip().rstrip("/")
            if target and (path == target or path.startswith(target + "/")):
                return True
        return False

    def argv(self) -> list[str]:
        """The command split on whitespace; a relative program path resolves against the config's folder."""
        argv = (self.command or "").split()
        if not argv:
            raise InputError("auto_improve.eval.command: expected a command, got an empty string")
        if self.folder and "/" in argv[0] and not Path(argv[0]).is_absolute():
            argv[0] = str(Path(self.folder) / argv[0])
        return argv

    def check_scorer(self) -> None:
        """Refuse (InputError, exit 2) a scorer that cannot run from here: a missing program, or a script
        argument that does not exist beside the config. Only when enabled: a disabled gate runs nothing."""
        if not self.enabled:
            return
        where = f"{Path(self.source).name or 'gate config'}: auto_improve.eval.command"
        argv = self.argv()
        program = argv[0]
        if "/" in program:
            if not (Path(program).is_file() and os.access(program, os.X_OK)):
                raise InputError(f"{where}: {program}: no such executable program (relative paths resolve "
                                 f"against the config file's folder {self.folder or '.'})")
        elif shutil.which(program) is None:
            raise InputError(f"{where}: {program}: not found on PATH")
        base = Path(self.folder or ".")
        for arg in argv[1:]:
            if arg.startswith("-") or not ("/" in arg or arg.endswith(_SCRIPT_SUFFIXES)):
                continue
            if not (base / arg).exists():
                raise InputError(f"{where}: {arg}: no such file (relative paths resolve against the config "
                                 f"file's folder {base})")


class _Scores(TypedDict):
    """The fields every outcome of a scorer's answer carries (GateOutcome's keywords)."""

    score_before: float | None
    score_after: float | None
    duration_ms: int


@dataclass(frozen=True)
class GateOutcome:
    """What the gate did with one proposal; `status` is passed, failed, not_targeted or disabled."""

    status: str
    reason: str
    score_before: float | None = None
    score_after: float | None = None
    duration_ms: int = 0

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def targeted(self) -> bool:
        return self.status in ("passed", "failed")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load_gate_config(path: str | Path) -> GateConfig:
    """Read the `[auto_improve.eval]` table of a TOML file, with ai-memory's defaults."""
    path = Path(path)
    name = path.name
    data = kernel.parse_toml(read_text(path, what="gate config file"), source=name)  # TOML loads only here
    table = data.get("auto_improve", {})
    table = table.get("eval") if isinstance(table, dict) else None
    if not isinstance(table, dict):
        raise InputError(f"{name}: auto_improve.eval: expected an [auto_improve.eval] table")
    where = f"{name}: auto_improve.eval"
    known = {"enabled", "command", "timeout_secs", "targets", "min_delta"}
    # ai-memory's config.rs: "`deny_unknown_fields` is intentionally NOT set" (serde ignores the rest)
    warnings = [f"{where}.{key}: unknown key, ignored as ai-memory ignores it (known: {', '.join(sorted(known))})"
                for key in sorted(set(table) - known)]
    enabled = table.get("enabled", False)
    if not isinstance(enabled, bool):
        raise InputError(f"{where}.enabled: expected true or false")
    command = table.get("command", "")
    if not isinstance(command, str):
        raise InputError(f"{where}.command: expected a string (a command split on whitespace)")
    if enabled and not command.split():
        # auto_improve.rs, apply_eval_gate_with_before_bodies: the same warning, then only targeted proposals fail
        warnings.append(f"{where}.command: auto-improve eval gate enabled without a command; targeted proposals"
                        " rejected")
    timeout = table.get("timeout_secs", DEFAULT_TIMEOUT_SECS)
    if not _number(timeout) or timeout <= 0:
        raise InputError(f"{where}.timeout_secs: expected a positive number of seconds, got {timeout!r}")
    targets = table.get("targets", list(DEFAULT_TARGETS))
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise InputError(f"{where}.targets: expected a list of path prefixes (strings)")
    min_delta = table.get("min_delta", 0.0)
    if not _number(min_delta):
        raise InputError(f"{where}.min_delta: expected a number, got {min_delta!r}")
    return GateConfig(enabled=enabled, command=" ".join(command.split()), timeout_secs=float(timeout),
                      targets=[t.strip() for t in targets], min_delta=float(min_delta), source=str(path.resolve()),
                      folder=str(path.resolve().parent), warnings=tuple(warnings))


def _bounded_reason(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = " ".join(value.split())
    return text if len(text) <= REASON_CAP else text[: REASON_CAP - 1] + "…"


def run_gate(config: GateConfig, proposal: dict[str, Any]) -> GateOutcome:
    """Run the scorer on one proposal (the request contract) and judge its answer, failing closed."""
    path = proposal.get("path") or ""
    if not config.enabled:
        return GateOutcome("disabled", "gate disabled (enabled = false): the scorer was not run")
    if not config.targets_path(path):
        return GateOutcome("not_targeted", f"{path} matches no target ({', '.join(config.targets) or 'none'}):"
                                           " the scorer was not run")
    if not config.command.split():
        return GateOutcome("failed", "command error: eval command is empty")  # run_eval_for_proposal's words
    try:
        argv = split_command(" ".join(config.argv()), option="auto_improve.eval.command")  # exists, runnable
    except InputError as exc:
        return GateOutcome("failed", f"command error: {exc}")

    request = json.dumps(proposal_request(proposal), ensure_ascii=False).encode("utf-8")
    result = run_bounded(argv, request, timeout=config.timeout_secs, cap=STDOUT_CAP, cwd=config.folder or None)
    if result.error:
        return GateOutcome("failed", f"command error: {result.error}", duration_ms=result.duration_ms)
    if result.timed_out:
        return GateOutcome("failed", f"timeout: the scorer ran over {config.timeout_secs:g} s and was killed",
                           duration_ms=result.duration_ms)
    if result.truncated:
        return GateOutcome("failed", f"command error: the scorer printed more than {STDOUT_CAP:,} bytes",
                           duration_ms=result.duration_ms)
    if result.returncode != 0:
        return GateOutcome("failed", f"command error: {result.failure(config.timeout_secs)}",
                           duration_ms=result.duration_ms)
    return judge_answer(result.stdout, config, duration_ms=result.duration_ms)


def judge_answer(raw: str | bytes, config: GateConfig, *, duration_ms: int = 0) -> GateOutcome:
    """The gate's reading of a scorer's stdout: passed only for {"passed": true} with enough delta."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            # ai-memory parses the bytes with serde_json::from_slice, which rejects invalid UTF-8: fail closed
            return GateOutcome("failed", f"invalid JSON from the scorer: invalid UTF-8 at byte {exc.start}",
                               duration_ms=duration_ms)
    else:
        text = raw
    try:
        answer = parse_json(text, source="scorer answer")  # strict: a duplicate "passed" fails closed
    except (ValueError, InputError):
        shown = " ".join(text.split())[:80]
        return GateOutcome("failed", f"invalid JSON from the scorer: {shown!r}", duration_ms=duration_ms)
    if not isinstance(answer, dict):
        return GateOutcome("failed", "invalid JSON from the scorer: expected one object", duration_ms=duration_ms)
    scores: dict[str, float | None] = {}
    for key in ("score_before", "score_after"):
        value = answer.get(key)
        if value is not None and not _number(value):
            return GateOutcome("failed", f"invalid {key}: expected a number, got {value!r}", duration_ms=duration_ms)
        scores[key] = float(value) if value is not None else None
    before, after = scores["score_before"], scores["score_after"]
    if answer.get("reason") is not None and not isinstance(answer["reason"], str):
        # ai-memory reads reason as Option<String>: anything else is invalid eval JSON, so it fails closed
        return GateOutcome("failed", f"invalid reason: expected a string, got {answer['reason']!r}"[:REASON_CAP],
                           score_before=before, score_after=after, duration_ms=duration_ms)
    reason = _bounded_reason(answer.get("reason"))
    common: _Scores = {"score_before": before, "score_after": after, "duration_ms": duration_ms}
    if "passed" not in answer:
        return GateOutcome("failed", "missing passed: the scorer's answer has no passed field", **common)
    if not isinstance(answer["passed"], bool):
        return GateOutcome("failed", f"invalid passed: expected true or false, got {answer['passed']!r}", **common)
    if answer["passed"] is False:
        return GateOutcome("failed", "passed = false" + (f": {reason}" if reason else ""), **common)
    if before is not None and after is not None:
        # auto_improve.rs: `.map(|(before, after)| after - before)` then `value >= eval.min_delta`, in f64 and
        # unrounded: 0.3 - 0.1 is 0.19999999999999998, below a min_delta of 0.2
        delta = after - before
        if not delta >= config.min_delta:
            # the short form unless it would read as enough (0.25 for 0.24999999999999994): then every digit
            shown = f"{delta:g}" if float(f"{delta:g}") < config.min_delta else repr(delta)
            return GateOutcome("failed", f"insufficient score delta: {after:g} - {before:g} = {shown},"
                                         f" below min_delta {config.min_delta:g}", **common)
    return GateOutcome("passed", reason or "the scorer passed it", **common)


def gate_proposal(db: Database, config: GateConfig, payload: dict[str, Any], *, actor: str | None,
                  source: str | None = None, at: str | None = None) -> dict[str, Any]:
    """Record the proposal (if new), run the gate on it and record the result; returns both."""

    proposal = validate_proposal(payload, name=source or "proposal")
    outcome = run_gate(config, proposal)  # the scorer runs before the write transaction, never inside it
    at = at or now_iso()
    with transaction(db):
        proposal_id, created = add_proposal(db, proposal, actor=actor, source=source, at=at)
        # The gate's record is the scorer's answer, not a judgment: no capability, and a loop may gate its own
        # proposal (ai-memory's loop does); a person's lease on the proposal does not hold a machine check back.
        with guarded(db, f"gate {proposal_id}", actor=actor, known=False, subject=proposal_subject(proposal_id),
                     must_be_open=False, lease=False, self_dealing=False) as act:
            seq = act.event("proposal.gated", note=f"{outcome.status}: {outcome.reason}", at=at,
                            payload={"status": outcome.status, "score_before": outcome.score_before,
                                     "score_after": outcome.score_after, "command": config.command,
                                     "config": config.source, "passed": outcome.passed, "reason": outcome.reason,
                                     "targeted": outcome.targeted, "duration_ms": outcome.duration_ms})
            db.table("gate_results").insert({
                "proposal_id": proposal_id, "passed": int(outcome.passed), "score_before": outcome.score_before,
                "score_after": outcome.score_after, "reason": outcome.reason, "command": config.command or None,
                "targeted": int(outcome.targeted), "duration_ms": outcome.duration_ms, "at": at, "event_seq": seq,
            })
    return {"proposal_id": proposal_id, "new_proposal": created, "status": outcome.status, "passed": outcome.passed,
            "targeted": outcome.targeted, "reason": outcome.reason, "score_before": outcome.score_before,
            "score_after": outcome.score_after, "duration_ms": outcome.duration_ms, "command": config.command,
            "min_delta": config.min_delta}


JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")


def read_gate_proposals(paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The proposals of a batch, each with where it came from, all checked before any is gated.

    A file named `*.jsonl` or `*.ndjson` holds one proposal per line (blank lines skipped), each
    named `FILE:LINE`; any other file holds one proposal.
    """
    batch: list[tuple[str, dict[str, Any]]] = []
    for name in paths:
        if not name.lower().endswith(JSON_LINES_SUFFIXES):
            batch.append((name, read_proposal_file(name)))
            continue
        lines = read_text(name, what="JSON Lines file of proposals").splitlines()
        before = len(batch)
        for number, text in enumerate(lines, start=1):
            if text.strip():
                where = f"{name}:{number}"
                batch.append((where, validate_proposal(parse_json(text, source=where), name=where)))
        if len(batch) == before:
            raise InputError(f"{name}: no proposals, expected one JSON object per line")
    return batch


def gate_status(row: Mapping[str, Any]) -> str:
    """The status word of a stored gate result row."""
    if not row.get("targeted"):
        return "disabled" if (row.get("reason") or "").startswith("gate disabled") else "not_targeted"
    return "passed" if row.get("passed") else "failed"
