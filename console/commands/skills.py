"""`gatepost skills`: record runs of installed skills, evaluate them, show their regression states."""

from datetime import datetime, timedelta
from typing import Any

import click

from gatepost import output
from gatepost.commands._common import (
    answer_option,
    answers_given,
    as_option,
    echo_json,
    open_ctx_store,
    person,
    person_acts,
    quiet_option,
    rubric_answer_lines,
)
from gatepost.store import glyphs, skills
from gatepost.store.kernel import InputError, parse_iso, read_input
from gatepost.store.skills import regressions

STATES = regressions.STATES


@click.group("skills")
def skills_group() -> None:
    """Installed skills: their runs, their evals against a manifest, their regression states.

    \b
    Typical loop:
      gatepost manifest import evals.yaml --as ana
      gatepost skills record token-movers --output out.md --as run-52
      gatepost skills eval
      gatepost skills show
    """


@skills_group.command("record")
@click.argument("skill")
@click.option("--output", "output_file", required=True, type=click.Path(dir_okay=False),
              help="File holding the run's output (UTF-8 text; '-' reads stdin).")
@click.option("--run-id", default=None, metavar="ID",
              help="The run's id (default: SKILL-NNNN). An id already recorded is refused.")
@click.option("--at", "at", default=None, metavar="ISO_TIME",
              help="When the run happened, ISO 8601 (default: now). Naive times are UTC.")
@click.option("--status", type=click.Choice(skills.RUN_STATUSES), default="ok", show_default=True,
              help="ok: the skill produced its output; error: it failed (its eval fails, bootstrap skips it).")
@as_option
@click.pass_context
def record(ctx: click.Context, skill: str, output_file: str, run_id: str | None, at: str | None, status: str,
           as_name: str | None) -> None:
    """Store one run's output of SKILL (needs evidence.record)."""
    text = _read_text(output_file)
    db = open_ctx_store(ctx)
    run = skills.record_run(db, skill, text, actor=person(as_name), run_id=run_id, at=at, status=status)
    output.line(f"recorded {run['id']} of {skill}: {run['status']}, {run['word_count']} words, at {run['at']}")


def _read_text(path: str) -> str:
    return read_input(path, what="run output")  # '-' is stdin, with a file's size, UTF-8 and NUL checks


UNCOVERED = "UNCOVERED"  # a skill with no manifest: nothing checks it, which CI may fail on


def _fail_on(value: str | None) -> set[str]:
    if not value:
        return set()
    states = {s.strip().upper() for s in value.split(",") if s.strip()}
    known = (*STATES, skills.STALE, UNCOVERED)
    unknown = sorted(states - set(known))
    if unknown:
        raise click.BadParameter(f"unknown state {unknown[0]}; expected some of {','.join(known)}",
                                 param_hint="--fail-on")
    return states


@skills_group.command("eval")
@click.option("--skill", default=None, metavar="NAME", help="Evaluate only this skill (default: every skill "
              "with an active manifest).")
@click.option("--manifest", "manifest_file", default=None, type=click.Path(dir_okay=False),
              help="aeon's own evals.json ({\"version\", \"skills\"}): judge the newest output matching each "
                   "skill's output_pattern under --root, as aeon does (PASS, FAIL, WARN, NO_OUTPUT, STALE, "
                   "QUALITY_DEGRADED with aeon's root causes), store each output as a run and its checks as an "
                   "eval (needs evidence.record), and print aeon's diff against the previous eval (NEW_FAIL, "
                   "FIXED, STILL_FAIL, NEW_PASS, NEW_NO_COVERAGE, STABLE). An output is dated by the date in "
                   "its file name, else its modification time.")
@click.option("--no-store", "no_store", is_flag=True,
              help="With --manifest: judge only; store nothing (no store needed, no diff).")
@click.option("--root", "root", default=".", show_default=True, type=click.Path(file_okay=False),
              help="With --manifest: the folder output_patterns are relative to (aeon's repository root).")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: per skill, each assertion's pass/fail/message and the new state.")
@click.option("--fail-on", "fail_on", default=None, metavar="STATES",
              help="Comma-separated states, e.g. NEW_FAIL,STABLE_FAIL,CHRONIC,STALE,UNCOVERED: exit 1 when any skill "
                   "checked (evaluated now, or unchanged since its last eval) is in one of them (for CI); STALE "
                   "counts skills older than --max-age, UNCOVERED skills with no manifest. A failure acknowledged "
                   "(until its expiry) is left out. Without it, eval exits 0 whatever the states.")
@click.option("--max-age", "max_age", default=None, metavar="AGE",
              help="A skill whose newest output is older than AGE (15m, 36h, 2d) is STALE, whatever its state. "
                   "With --manifest the default is aeon's fall-back cadence, 14d; a skill whose entry has "
                   "expected_cadence is STALE past twice it instead.")
@click.option("--as-of", "as_of", default=None, metavar="TIME",
              help="With --manifest: judge the outputs' age as of TIME (ISO 8601, default now), to replay a past "
                   "run of aeon's. It moves no record's time.")
@quiet_option
@as_option
@click.pass_context
def eval_cmd(ctx: click.Context, skill: str | None, manifest_file: str | None, no_store: bool, root: str,
             as_json: bool, fail_on: str | None, max_age: str | None, as_of: str | None, quiet: bool,
             as_name: str | None) -> None:
    """Check each skill's latest run against its active manifest and update its regression state.

    Every assertion result is stored. A run already evaluated against the
    active manifest is not evaluated again (reported as unchanged). On a terminal, the skill being
    evaluated (of how many) is shown on stderr.

    \b
    Exit codes: 0 done; 1 a skill ended in a --fail-on state; 2 bad input.
    """
    if manifest_file is not None:
        parsed = skills.parse_max_age(max_age) if max_age else None  # a given age parses or raises
        window = 14 * 86400 if parsed is None else parsed
        _eval_aeon(ctx, manifest_file, root, skill=skill, max_age=window / 86400, as_json=as_json, fail_on=fail_on,
                   store=not no_store, as_name=as_name, as_of=as_of, quiet=quiet)
        return
    if as_of is not None:
        raise InputError("--as-of: only with --manifest (aeon's outputs are judged as of a time; stored runs are not)")
    wanted = _fail_on(fail_on)
    seconds = skills.parse_max_age(max_age)
    db = open_ctx_store(ctx)
    with output.Progress("skills eval", None, quiet=quiet, unit="parts") as progress:
        results = skills.evaluate(db, actor=person(as_name), skill=skill, progress=progress.begun("skill"))
    for r in results:
        r["stale"] = skills.output_staleness(db, r["skill"], seconds)
        r["acknowledged"] = skills.acknowledged_until(db, r["skill"])
    if as_json:
        echo_json([_json(r) for r in results])
    else:
        _print(results)
    hit = [r["skill"] for r in results
           if (r.get("state") in wanted and r["status"] in ("evaluated", "unchanged") and not r["acknowledged"])
           or (skills.STALE in wanted and r["stale"])
           or (UNCOVERED in wanted and r["status"] == "no_manifest")]
    if hit:
        if not as_json:
            output.line(f"--fail-on: {len(hit)} skill(s) in {','.join(sorted(wanted))}: {', '.join(hit)}", err=True)
        ctx.exit(1)


def _eval_aeon(ctx: click.Context, manifest_file: str, root: str, *, skill: str | None, max_age: float,
               as_json: bool, fail_on: str | None, store: bool, as_name: str | None, as_of: str | None,
               quiet: bool) -> None:
    """aeon's dialect: judge files under ROOT by aeon's rules (store/skills/aeon.py), store them as runs and
    evals, and say aeon's diff against the previous eval."""
    wanted = {s.strip().upper() for s in (fail_on or "").split(",") if s.strip()}
    known = (*skills.AEON_STATUSES, *STATES, *skills.AEON_DIFFS) if store else skills.AEON_STATUSES
    unknown = sorted(wanted - set(known))
    if unknown:
        raise click.BadParameter(f"unknown status {unknown[0]}; expected some of {','.join(dict.fromkeys(known))}",
                                 param_hint="--fail-on")
    specs = skills.read_aeon_manifest(manifest_file)
    when = datetime.fromisoformat(parse_iso(as_of, field="--as-of").replace("Z", "+00:00")) if as_of else None
    with output.Progress("skills eval", None, quiet=quiet, unit="parts") as progress:
        progress.show(f"judging the outputs under {root}")
        results = skills.judge_manifest(specs, root, skill=skill, max_age=timedelta(days=max_age), now=when)
        if store:
            db = open_ctx_store(ctx)
            stored = skills.record_aeon_results(db, results, actor=person(as_name), manifest=manifest_file,
                                                progress=progress.begun("skill"))
    rows = [r.as_dict() for r in results]
    if store:
        for row, kept in zip(rows, stored, strict=True):
            acknowledged = skills.acknowledged_until(db, row["skill"])
            row.update({"diff": kept["diff"], "previous_status": kept["previous_status"], "stored": kept["status"],
                        "run_id": kept["run_id"], "state": kept["state"],
                        "severity": kept["severity"] if kept["state"] == "NEW_FAIL" else None,
                        "acknowledged_until": (acknowledged or {}).get("until")})
        if skill is None:  # a skill aeon judged before and the manifest no longer lists
            judged = {r.skill for r in results}
            rows += [{"skill": name, "status": None, "diff": "NEW_NO_COVERAGE"}
                     for name in skills.aeon_skills(db) if name not in judged]
    if as_json:
        echo_json(rows)
    else:
        for row in rows:
            output.line(_aeon_line(row))
        if store:
            output.line(_aeon_diff_line(rows))
    hit = [row["skill"] for row in rows
           if row["status"] in wanted or row.get("diff") in wanted
           or (row.get("state") in wanted and not row.get("acknowledged_until"))]
    if hit:
        if not as_json:
            output.line(f"--fail-on: {len(hit)} skill(s) in {','.join(sorted(wanted))}: {', '.join(hit)}", err=True)
        ctx.exit(1)


def _aeon_line(row: dict[str, Any]) -> str:
    if row["status"] is None:
        return f"- {row['skill']}: {row['diff']} (judged before, not in the manifest now)"
    words = f" · {row['words']} words" if row["words"] is not None else ""
    where = ""
    if row["output"]:
        dated = "its file name" if row["dated_by"] == skills.DATED_BY_NAME else "its modification time"
        where = f" · {row['output']} (dated {row['output_at'][:10]} by {dated})"
    cause = f": {'; '.join(row['root_causes'])}" if row["root_causes"] else ""
    line = f"{row['status']} {row['skill']}{cause}{words}{where}"
    if "diff" in row:
        sev = f" ({row['severity']})" if row.get("severity") else ""
        tail = ", unchanged" if row["stored"] == "unchanged" else ""
        line += f" · {row['diff']} · state {row['state']}{sev}{tail}"
    return line


def _aeon_diff_line(rows: list[dict[str, Any]]) -> str:
    """aeon's article line: `**Diff:** N new fail · N fixed · N still failing · N stable`, then any other."""
    count = {d: sum(1 for r in rows if r.get("diff") == d) for d in skills.AEON_DIFFS}
    line = (f"Diff: {count['NEW_FAIL']} new fail · {count['FIXED']} fixed · {count['STILL_FAIL']} still failing · "
            f"{count['STABLE']} stable")
    if count["NEW_PASS"]:
        line += f" · {count['NEW_PASS']} new"
    if count["NEW_NO_COVERAGE"]:
        line += f" · {count['NEW_NO_COVERAGE']} no longer covered"
    return line


def _json(r: dict[str, Any]) -> dict[str, Any]:
    return {"skill": r["skill"], "status": r["status"], "run_id": r.get("run_id"),
            "manifest_version": r.get("manifest_version"), "passed": r.get("passed"),
            "assertions": r.get("assertions", []), "state": r.get("state"),
            "severity": r.get("severity") if r.get("state") == "NEW_FAIL" else None,
            "covered": r["status"] != "no_manifest", "stale": bool(r.get("stale")), "stale_why": r.get("stale"),
            "acknowledged_until": (r.get("acknowledged") or {}).get("until"),
            **({"why": r["why"]} if r.get("why") else {})}


def _print(results: list[dict[str, Any]]) -> None:
    if not results:
        output.line("no skill has an active manifest: gatepost manifest import FILE, or gatepost bootstrap --skill NAME")
        return
    for r in results:
        if r.get("stale"):
            output.line(f"⌛ {r['skill']}: STALE: {r['stale']}")
        if r["status"] in ("no_manifest", "no_runs"):
            output.line(f"- {r['skill']}: not evaluated: {r['why']}")
            continue
        sev = f" ({r['severity']})" if r.get("state") == "NEW_FAIL" else ""
        mark = glyphs.REGRESSION.get(r["state"], glyphs.UNKNOWN)
        tail = " · unchanged" if r["status"] == "unchanged" else ""
        output.line(f"{mark} {r['skill']}: {r['state']}{sev} · run {r['run_id']} · manifest v{r['manifest_version']}"
                   f"{tail}")
        if r.get("acknowledged"):
            ack = r["acknowledged"]
            output.line(f"    acknowledged by {ack['actor']} until {ack['until'][:19]}Z: {ack['note']}")
        for a in r["assertions"]:
            if not a["passed"]:
                output.line(f"    {glyphs.FAIL} {a['assertion']}: {a['message']}")
        if r["state"] == "CHRONIC":
            output.line("    recommendation: operator review — fix the skill or relax the assertion (no new filing)")
        elif r["state"] == "STABLE_FAIL":
            output.line(f"    the manifest may mismatch: gatepost skills mismatch {r['skill']} --note … starts a draft")


@skills_group.command("show")
@click.option("--skill", default=None, metavar="NAME", help="Show only this skill.")
@click.option("--state", type=click.Choice(STATES), default=None, help="Show only skills in this state.")
@click.option("--json", "as_json", is_flag=True,
              help="Print JSON: skill, state, severity (NEW_FAIL only, else null), fail_streak, pass_streak, "
                   "last_run, failing.")
@click.pass_context
def show(ctx: click.Context, skill: str | None, state: str | None, as_json: bool) -> None:
    """Print every skill's regression state, most urgent first; with --skill, the answers its triage decisions
    gave to the regressions' rubric too."""
    db = open_ctx_store(ctx)
    rows = skills.show_states(db, skill=skill, state=state)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        output.line("no skills yet: gatepost skills record SKILL --output FILE")
    for r in rows:
        state_text = r["state"] or "not evaluated"
        sev = f" ({r['severity']})" if r["severity"] else ""
        mark = glyphs.REGRESSION.get(r["state"], glyphs.UNCHECKED)
        failing = f"  failing: {', '.join(r['failing'])}" if r["failing"] else ""
        output.line(f"{mark} {r['skill']:<28} {state_text + sev:<20} fails {r['fail_streak']:>2}  passes "
                   f"{r['pass_streak']:>3}  last run {r['last_run'] or '—'}{failing}")
        if skill is not None:
            for text in rubric_answer_lines(db, "skill", r["skill"]):
                output.line(f"  {text}")


@skills_group.command("acknowledge")
@click.argument("skill")
@click.option("--note", required=True, help="What you saw and what happens next (required).")
@click.option("--until", default=None, metavar="DATE",
              help="Until when (ISO date or time, UTC): `skills eval --fail-on` leaves this failure out until then "
                   "(default: 7 days from now, as an acknowledgement made in the console).")
@answer_option("the regressions' rubric")
@as_option
@click.pass_context
def acknowledge(ctx: click.Context, skill: str, note: str, until: str | None, answers: tuple[str, ...],
                as_name: str | None) -> None:
    """Record that you have seen SKILL's failure and own it (needs regression.triage)."""
    seq = regressions.acknowledge(open_ctx_store(ctx), skill, actor=person(as_name), note=note, until=until,
                                  answers=answers_given(answers))
    output.line(f"acknowledged {skill} (event #{seq})")


@skills_group.command("mismatch")
@click.argument("skill")
@answer_option("the regressions' rubric")
@person_acts("Why the manifest, not the skill, looks wrong (required).")
def mismatch(ctx: click.Context, skill: str, note: str, answers: tuple[str, ...], as_name: str | None) -> None:
    """Flag that SKILL's manifest mismatches its output, and start a bootstrap draft (regression.triage)."""
    seq, draft, why = regressions.flag_mismatch(open_ctx_store(ctx), skill, actor=person(as_name), note=note,
                                                answers=answers_given(answers))
    if draft:
        output.line(f"flagged {skill} (event #{seq}); bootstrap draft {draft['id']} waits for review")
    else:
        output.line(f"flagged {skill} (event #{seq}); no draft: {why}")
