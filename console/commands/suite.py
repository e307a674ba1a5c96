"""Task suites: validate a suite, run it for a candidate skill against a baseline, import artifacts."""

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from gatepost import output
from gatepost.cli import LazyGroup
from gatepost.commands._common import (
    ReportingExecutor,
    as_option,
    baseline_option,
    cache_dir_option,
    check_target,
    echo_json,
    executor_option,
    force_option,
    judge_command_option,
    mock_option,
    open_ctx_store,
    pass_k_option,
    person,
    quiet_option,
    store_path,
    suite_option,
    write_file,
)
from gatepost.store.evaluation import (
    DEFAULT_EVAL_THRESHOLD,
    FOREIGN_FORMATS,
    SPLIT_CHOICES,
    JudgeSettings,
    RunSettings,
    baseline_skill,
    candidate_skill,
    detect_format,
    evaluate,
    export_artifact,
    flaky_words,
    import_artifacts,
    import_foreign,
    load_suite,
    make_executor,
    pipeline_fields,
    rate_summary,
    rate_words,
    read_ranking,
    read_skill,
    record_unrun,
    reporting_import,
    split_command,
    validate_suite,
)
from gatepost.store.kernel import InputError, parse_json, read_text


@click.group(cls=LazyGroup)  # its subcommands from other modules: gatepost.cli.SUBCOMMANDS
def suite() -> None:
    """Task suites (YAML v1.0): validate them and run a candidate skill against its baseline."""


@suite.command("validate")
@click.argument("file", type=click.Path(dir_okay=False))
def suite_validate(file: str) -> None:
    """Check the suite FILE by the evaluator's load-time rules; print every problem (exit 2 if any).

    A valid suite is told what it can decide at its alpha: the smallest change its tuning tasks decide
    and whether its held-out tasks can see a regression of its max_regression, with a warning below the
    floor it sets (must_detect, max_regression; docs/statistics.md)."""
    errors = validate_suite(file)
    if errors:
        for error in errors:
            output.line(error, err=True)
        output.line(f"{len(errors)} problem{'s' if len(errors) != 1 else ''} in {Path(file).name}", err=True)
        sys.exit(2)
    loaded = load_suite(file)
    splits = {s: len(loaded.tasks_in(s)) for s in ("tuning", "heldout")}
    output.line(f"{Path(file).name}: valid (skill {loaded.skill_id}, {len(loaded.tasks)} tasks: "
               f"{splits['tuning']} tuning, {splits['heldout']} held-out)")
    power = loaded.power()
    output.line(f"decision rule {power['decision_rule']}: {power['tuning']['words']}; {power['heldout']['words']}")
    for warning in power["warnings"]:
        output.line(f"warning: {warning}")


def judge_settings(judge_command: str | None, mock: bool) -> JudgeSettings:
    argv = split_command(judge_command, option="--judge-command") if judge_command else None
    return JudgeSettings(rubric_argv=argv, mock=mock)


def default_artifact_dir(ctx: click.Context) -> Path:
    """Artifacts go to evaluations/ beside the store unless --output says otherwise."""
    return store_path(ctx).resolve().parent / "evaluations"


def _summary(artifact: dict[str, Any]) -> list[str]:
    lines = [f"{artifact['run_id']}  {artifact['skill_id']}  split {artifact['split']}  pass@{artifact['pass_k']}"
             + ("  [mock]" if artifact["mock"] else ""),
             f"candidate {artifact['execution_pass_rate']:.4g}  baseline {artifact['baseline_pass_rate']:.4g}  "
             f"delta {artifact['delta']:+.4g}  verdict {artifact['verdict']}"]
    lines.extend(statistics_lines(artifact.get("statistics")))
    for c, b in zip(artifact["candidate_results"], artifact["baseline_results"], strict=False):

        def mark(r: dict[str, Any]) -> str:
            return "pass" if r["passed"] else ("not judged" if not r["judged"] else "FAIL")

        line = f"  {c['task_id']:<28} candidate {mark(c):<10} baseline {mark(b):<10}"
        if not c["passed"] and c.get("reason"):
            line += f"  ({' '.join(c['reason'].split())[:80]})"
        lines.append(line)
    for warning in artifact["warnings"]:
        lines.append(f"warning: {warning}")
    if artifact.get("truth_anchor"):
        lines.append(f"artifact: {artifact['truth_anchor']}")
    return lines


def statistics_lines(figures: dict[str, Any] | None) -> list[str]:
    """The rates with their intervals, pass^k beside pass@k, the paired delta in words, the flaky tasks."""
    if not figures:
        return []
    k = figures["pass_k"]
    lines = []
    for side in ("candidate", "baseline"):
        rate = figures[side]
        hat = rate["pass_hat_k"]
        extra = ""
        if k > 1:
            extra = (f"  pass@{k} {rate['pass_at_k']:.0%}  pass^{k} " +
                     (f"{hat:.0%}" if hat is not None else "not measured (attempts stop at a pass: --all-attempts)"))
        lines.append(f"{side:<9} {rate['words']}{extra}")
    lines.append(f"delta     {figures['comparison']['words']}")
    flaky = figures.get("flaky") or []
    if flaky:
        lines.append(f"flaky     {len(flaky)} task{'s' if len(flaky) != 1 else ''} passed and failed on the same inputs:")
        lines.extend(f"  {flaky_words(item)}" for item in flaky)
    return lines


def _our_artifact(path: Path) -> bool:
    """An artifact gatepost wrote at this very path (its truth_anchor names it): refreshing it needs no --force."""
    try:
        data = parse_json(read_text(path, what="artifact"), source=str(path))
    except InputError:
        return False
    return isinstance(data, dict) and data.get("truth_anchor") == str(path) and "run_id" in data


@suite.command("run")
@suite_option
@click.option("--skill", "skill_path", default=None, type=click.Path(),
              help="The candidate skill: a SKILL.md file or a folder holding one (or --input and --candidate-id).")
@click.option("--input", "ranking_file", default=None, type=click.Path(dir_okay=False),
              help="Pipeline mode, as upstream's evaluate.py: the discriminator's ranking artifact JSON; the "
                   "candidate is --candidate-id in its scored_candidates, the baseline its target's SKILL.md.")
@click.option("--candidate-id", default=None, metavar="ID", help="Pipeline mode: the candidate to evaluate.")
@click.option("--eval-threshold", type=float, default=DEFAULT_EVAL_THRESHOLD, show_default=True,
              help="Pipeline mode: a candidate scored below this is not run; the artifact says verdict skipped.")
@baseline_option
@executor_option
@mock_option
@judge_command_option
@pass_k_option
@click.option("--split", type=click.Choice(SPLIT_CHOICES), default="all", show_default=True,
              help="Which tasks to run: the tuning split, the held-out split, or all.")
@cache_dir_option
@click.option("--output", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Where to write the artifact JSON (default: evaluations/<run-id>.json beside the store); "
                   "refuses the store, a SQLite file, or an existing file without --force.")
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the artifact JSON instead of a summary.")
@click.option("--all-attempts", "every_attempt", is_flag=True,
              help="With --pass-k: run all k attempts even after one passes, so pass^k (every attempt passes) "
                   "is measured beside pass@k.")
@click.option("--fail-on-regression", is_flag=True,
              help="Exit with status 1 when the verdict is fail (the candidate's pass rate is below the "
                   "baseline's); a tie passes. For CI.")
@quiet_option
@as_option
@click.pass_context
def suite_run(ctx: click.Context, suite_file: str, skill_path: str | None, ranking_file: str | None,
              candidate_id: str | None, eval_threshold: float, baseline_path: str | None,
              executor_cmd: str | None, mock: bool, judge_command: str | None, pass_k: int, split: str,
              cache_dir: str | None, out_file: str | None, force: bool, as_json: bool, every_attempt: bool,
              fail_on_regression: bool, quiet: bool, as_name: str | None) -> None:
    """Run the suite for a candidate skill and its baseline; store the run and write the artifact.

    Prints the pass rates, the delta (candidate - baseline) and the verdict
    (pass when delta >= 0), task by task. Exit 0 unless --fail-on-regression
    and the verdict is fail (exit 1); bad input exits 2.

    Pipeline mode (--input ranking.json --candidate-id ID), as upstream's
    evaluate.py: a candidate scored below --eval-threshold is not run (verdict
    skipped, exit 0); one with no skill text to run is verdict error (exit 1);
    the artifact carries the ranking's run id, lane and target.
    """
    if out_file is not None:
        out_file = str(check_target(out_file, store=store_path(ctx), force=force, ours=_our_artifact))  # before the runs, not after
    if (ranking_file is None) == (skill_path is None) or (ranking_file is None) != (candidate_id is None):
        raise InputError("--skill: expected the candidate skill, or --input RANKING and --candidate-id ID (pipeline "
                         "mode), not both")
    loaded = load_suite(suite_file)
    executor = make_executor(executor_cmd, mock=mock)
    judges = judge_settings(judge_command, mock)
    fields = None
    if ranking_file is not None:
        assert candidate_id is not None
        picked = read_ranking(ranking_file, candidate_id)
        found = candidate_skill(picked)
        if picked["score"] < eval_threshold or found is None:
            verdict = "skipped" if picked["score"] < eval_threshold else "error"
            reason = (f"score {picked['score']} < threshold {eval_threshold}" if verdict == "skipped" else
                      f"Cannot find SKILL.md content for candidate or at {picked['target'].get('path', '')}")
            db = open_ctx_store(ctx, create=True)
            artifact = record_unrun(db, loaded, picked, verdict=verdict, reason=reason, output=out_file,
                                    artifact_dir=default_artifact_dir(ctx), actor=person(as_name))
            if as_json:
                echo_json(artifact)
            else:
                output.line(f"run {artifact['run_id']}: candidate {candidate_id}: {verdict}: {reason}")
                output.line(f"artifact: {artifact['truth_anchor']}")
            if verdict == "error":
                ctx.exit(1)
            return
        cand_path, cand_text = found
        base_path, base_text = baseline_skill(picked) or (None, "")
        if baseline_path:
            base_path, base_text = read_skill(baseline_path, option="--baseline")
        fields = pipeline_fields(picked)
    else:
        assert skill_path is not None
        cand_path, cand_text = read_skill(skill_path, option="--skill")
        base_path, base_text = read_skill(baseline_path, option="--baseline") if baseline_path else (None, "")
    db = open_ctx_store(ctx, create=True)
    tasks = len(loaded.tasks_in(split))
    total = None if cache_dir or every_attempt else 2 * tasks
    with output.Progress("suite run", total, quiet=quiet) as progress:
        # ReportingExecutor wraps the executor and passes every call through (it is an evaluation.Executor); each
        # side is named as it runs (a baseline with the candidate's very text runs as the candidate would)
        reporting = ReportingExecutor(executor, progress, per_side=tasks,
                                      side_of=lambda text: "candidate" if text == cand_text else "baseline")
        artifact = evaluate(db, loaded, candidate_text=cand_text, candidate_path=cand_path, baseline_text=base_text,
                            baseline_path=base_path,
                            settings=RunSettings(executor=reporting, judges=judges,
                                                 pass_k=pass_k, every_attempt=every_attempt, cache_dir=cache_dir,
                                                 artifact_dir=default_artifact_dir(ctx)),
                            split=split, output=out_file, actor=person(as_name), fields=fields)
    if as_json:
        echo_json(artifact)
    else:
        for text in _summary(artifact):
            output.line(text)
    if fail_on_regression and artifact["verdict"] == "fail":
        sys.exit(1)


@suite.command("import-artifact")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(("auto", "artifact", *FOREIGN_FORMATS)), default="auto",
              show_default=True,
              help="artifact: an evaluator artifact JSON; junit: a JUnit XML report; inspect: an Inspect AI .eval "
                   "log (version 2). auto tells them apart by their first bytes.")
@quiet_option
@as_option
@click.pass_context
def suite_import_artifact(ctx: click.Context, files: tuple[str, ...], fmt: str, quiet: bool, as_name: str | None
                          ) -> None:
    """Store FILES as evaluation runs: evaluator artifacts (gatepost's or the upstream evaluator's), JUnit XML
    reports and Inspect AI logs (each test or sample a task: its result, score and duration).

    Each file is its own transaction, in the order given; a file stored before is named, not stored again.
    The first bad file stops the command (exit 2), naming it; the files before it stay stored.
    A JUnit or Inspect run prints its pass rate with its 95 % interval. On a terminal, the bytes and
    rows read so far and the time left are shown on stderr (not with --quiet, nor when output is piped).
    """
    db = open_ctx_store(ctx, create=True)
    who = person(as_name)
    kinds = [fmt if fmt != "auto" else detect_format(f) for f in files]
    sizes = [_size(f) for f in files]
    with output.Progress("suite import-artifact", sum(sizes) or None, quiet=quiet, unit="bytes") as progress:
        shown = _ImportShown(progress, files, sizes)
        with reporting_import(shown.reading):
            if all(kind == "artifact" for kind in kinds):
                for index, (_, run_id, created) in enumerate(import_artifacts(db, files, actor=who)):
                    shown.stored(index)
                    named = f" ({files[index]})" if len(files) > 1 else ""
                    output.line(f"{'imported' if created else 'already imported'}: {run_id}{named}")
                return
            for index, (file, kind) in enumerate(zip(files, kinds, strict=True)):  # one at a time, in order
                named = f" ({file})" if len(files) > 1 else ""
                if kind == "artifact":
                    for _, run_id, created in import_artifacts(db, [file], actor=who):
                        shown.stored(index)
                        output.line(f"{'imported' if created else 'already imported'}: {run_id}{named}")
                    continue
                run_id, created, artifact = import_foreign(db, file, kind, actor=who)
                shown.reading(None, artifact["total_tasks"])
                shown.stored(index)
                rate = rate_words(rate_summary(artifact["passed"], artifact["total_tasks"]))
                noted = "".join(f"; {w}" for w in artifact["warnings"])
                output.line(f"{'imported' if created else 'already imported'}: {run_id}{named}: {kind}, pass rate "
                            f"{rate}{noted}")


def _size(file: str) -> int:
    try:
        return os.stat(file).st_size
    except OSError:
        return 0  # named by the import's own error


class _ImportShown:
    """An import's progress: the bytes of the files stored and of the one being read, and the rows read."""

    def __init__(self, progress: output.Progress, files: tuple[str, ...], sizes: list[int]) -> None:
        self.progress, self.files, self.sizes = progress, files, sizes
        self.bytes_done = self.rows_done = 0  # of the files stored
        self.current = 0  # the index of the file being read
        self.rows = 0  # read of it

    def reading(self, bytes_read: int | None, rows: int) -> None:
        """What the store reports of the file it reads."""
        self.rows = rows
        inside = min(bytes_read, self.sizes[self.current]) if bytes_read is not None else 0
        name = self.files[self.current] if len(self.files) > 1 else None
        self.progress.reach(self.bytes_done + inside, rows=self.rows_done + rows, current=name)

    def stored(self, index: int) -> None:
        """File `index` is stored: its bytes and rows are done, the next file is read."""
        self.bytes_done += self.sizes[index]
        self.rows_done += self.rows
        self.rows, self.current = 0, min(index + 1, len(self.files) - 1)
        self.progress.reach(self.bytes_done, rows=self.rows_done)


@suite.command("export-artifact")
@click.argument("run_id")
@click.option("--output", "-o", "out_file", type=click.Path(dir_okay=False), default=None,
              help="Write the artifact here (default: print it); refuses the store, a SQLite file, or an "
                   "existing file without --force.")
@force_option
@quiet_option
@click.pass_context
def suite_export_artifact(ctx: click.Context, run_id: str, out_file: str | None, force: bool, quiet: bool) -> None:
    """Write stored run RUN_ID as an artifact in the upstream evaluator's shape (its gate reads
    `evaluation.verdict`); gatepost's own fields stay beside upstream's. A run of many tasks takes
    seconds: on a terminal, whether it is being read or written is shown on stderr."""
    db = open_ctx_store(ctx)
    with output.Progress(f"suite export-artifact {output.field(run_id)}", None, quiet=quiet,
                         unit="parts") as progress:
        progress.show("reading the run")
        artifact = export_artifact(db, run_id)
        if out_file is not None:
            target = Path(out_file).expanduser().resolve()
            artifact["truth_anchor"] = str(target)
            progress.show(f"writing {target}")
            write_file(target, json.dumps(artifact, indent=2, ensure_ascii=False) + "\n", store=store_path(ctx),
                       force=force)
    if out_file is None:
        echo_json(artifact)
        return
    output.line(f"written: {target}")
