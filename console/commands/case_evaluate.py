"""`gatepost case evaluate`: the protocol's candidate.evaluate action, run and recorded as evidence."""

import click

from gatepost import output
from gatepost.commands._common import (
    FiniteFloat,
    ReportingExecutor,
    as_option,
    baseline_option,
    cache_dir_option,
    echo_json,
    executor_option,
    judge_command_option,
    mock_option,
    open_ctx_store,
    pass_k_option,
    person,
    quiet_option,
)
from gatepost.commands.suite import default_artifact_dir, judge_settings
from gatepost.store.evaluation import (
    DECISION_RULES,
    MAX_REGRESSION,
    RunSettings,
    load_suite,
    make_executor,
    read_skill,
    rule_words,
)
from gatepost.store.flows import COMPARISON_KINDS, compare_case, evaluate_case, loop_evaluation
from gatepost.store.kernel import InputError

MOCK_NOTE = ("mock: this evidence is stored and never counts (gatepost's built-in mock, not a real AI); "
             "evaluate with --executor for evidence that counts")

suite_option = click.option(
    "--suite", "suite_file", default=None, type=click.Path(dir_okay=False),
    help="The task suite YAML (v1.0); its tasks with split: heldout are the held-out ones.")


@click.command("evaluate")
@click.argument("case_id", metavar="ID")
@suite_option
@executor_option
@mock_option
@click.option("--producer", required=True, metavar="NAME",
              help="Who produces this evidence (an agent run or CI job); it counts only if the case lists "
                   "it as independent.")
@click.option("--surface", "surface", multiple=True, metavar="GLOB",
              help="A glob of paths the loop may change (repeat for several; `*` crosses folders). "
                   "Without any, the candidate cannot be shown inside the surface: the guard says outside.")
@baseline_option
@judge_command_option
@pass_k_option
@cache_dir_option
@click.option("--decision-rule", type=click.Choice(DECISION_RULES), default=None,
              help="significant (the default, or the suite's decision_rule): a comparison counts only when "
                   "decided at --alpha; strict: a higher pass rate is better, a tie passes (noise may pass).")
@click.option("--alpha", type=FiniteFloat(0, 1, min_open=True, max_open=True), default=None, metavar="LEVEL",
              help="The level of the significant rule (default: the suite's alpha, else 0.05).")
@click.option("--json", "as_json", is_flag=True, help="Print the evidence recorded and the runs as JSON.")
@quiet_option
@as_option
@click.pass_context
def evaluate(ctx: click.Context, case_id: str, suite_file: str, executor_cmd: str | None, mock: bool,
             producer: str, surface: tuple[str, ...], baseline_path: str | None, judge_command: str | None,
             pass_k: int, cache_dir: str | None, decision_rule: str | None, alpha: float | None, as_json: bool,
             quiet: bool, as_name: str | None) -> None:
    """Evaluate case ID's current candidate and record the evidence, by --producer.

    Records a guard_check (outside / leaked / clean), a tuning_comparison from
    two tuning runs (reproduced / not_reproduced / not_better) and a
    heldout_comparison from one held-out run (held / regressed), each about
    the case's current revision. Under the default decision rule
    (significant) a tuning comparison the exact test does not decide, or a
    held-out set too small to detect the suite's max_regression, records
    nothing (the case says why); see docs/statistics.md. With --mock the
    evidence is stored and never counts. The case's candidate content is the skill
    under test. Every run is stored and its artifact written to evaluations/.

    A loop's case (case new --loop) takes its suite, surface, executor and
    baseline from the loop's registry; the suite and baseline are checked
    against the case's basis. Other settings are refused (exit 3) unless you
    hold store.admin (then the override is an audited event).

    Exits 1 when the guard finds an expected answer leaked into the candidate
    (each task and string named); a suite's guard_allow: lists the expected
    answers a candidate may legitimately contain.
    """
    db = open_ctx_store(ctx)
    who = person(as_name)
    registered = loop_evaluation(db, case_id, suite=suite_file, surface=list(surface) or None,
                                 executor=executor_cmd, mock=mock, baseline=baseline_path,
                                 judge_command=judge_command, actor=who,
                                 decision_rule=decision_rule, alpha=alpha, pass_k=pass_k)
    ran_with = None
    if registered is not None:  # a loop's case: its settings come from the loop's registry
        loaded, surface = registered["suite"], tuple(registered["surface"])
        executor_cmd, mock = registered["executor"], registered["mock"]
        base_path, base_text = registered["baseline_path"], registered["baseline_text"]
        judge_command, ran_with = registered["judge_command"], registered["ran_with"]
        decision_rule, alpha, pass_k = registered["decision_rule"], registered["alpha"], registered["pass_k"]
    else:
        if not suite_file:
            raise InputError("--suite: missing (expected the task suite YAML; a loop's case takes its loop's)")
        loaded = load_suite(suite_file)
        base_path, base_text = read_skill(baseline_path, option="--baseline") if baseline_path else (None, "")
    executor = make_executor(executor_cmd, mock=mock)
    judges = judge_settings(judge_command, mock)
    per_side = 2 * len(loaded.tasks_in("tuning")) + len(loaded.tasks_in("heldout"))  # two tuning runs, a held-out
    total = None if cache_dir else 2 * per_side
    with output.Progress(f"case evaluate {output.field(case_id)}", total, quiet=quiet) as progress:
        # ReportingExecutor wraps the executor and passes every call through (it is an evaluation.Executor); the
        # baseline is the text read above, the candidate the case's content
        reporting = ReportingExecutor(executor, progress, per_side=per_side,
                                      side_of=lambda text: "baseline" if text == base_text else "candidate")
        settings = RunSettings(executor=reporting, judges=judges, pass_k=pass_k,
                               cache_dir=cache_dir, artifact_dir=default_artifact_dir(ctx),
                               decision_rule=decision_rule, alpha=alpha)
        report = evaluate_case(db, case_id, loaded, settings=settings, producer=producer, surface=list(surface),
                               baseline_text=base_text, baseline_path=base_path, actor=who, ran_with=ran_with)
    if registered is not None:
        report["loop"], report["overridden"] = registered["loop"], registered["overridden"]
    if executor.mock:
        report["mock"] = MOCK_NOTE
    leaks = [(task, text) for e in report["evidence"] if e["kind"] == "guard_check" and e["result"] == "leaked"
             for text, tasks in sorted((e["details"].get("tasks") or {}).items()) for task in tasks]
    if as_json:
        echo_json(report)
        if leaks:
            ctx.exit(1)
        return
    output.line(f"case {case_id} at {report['revision'][:12]}, evidence by {producer} "
                f"(decision rule {report['decision_rule']}: "
                f"{rule_words(report['decision_rule'], report['alpha'])}):")
    if executor.mock:
        output.line(f"  {MOCK_NOTE}")
    for e in report["evidence"]:
        output.line(f"  {e['kind']}: {e['result']}" + (f"  ({e['details']['why']})" if e["details"].get("why") else ""))
    for r in report["runs"]:
        output.line(f"  run {r['run_id']} {r['purpose']}: candidate {r['execution_pass_rate']:.4g} baseline "
                   f"{r['baseline_pass_rate']:.4g} delta {r['delta']:+.4g}")
        output.line(f"    {r['comparison']['words']}")
    for note in report["undecided"]:
        output.line(f"  settled nothing: {note}")
    for s in report["skipped"]:
        output.line(f"  not recorded: {s}")
    if leaks:  # a check found what it looks for: exit 1, naming each task and the string
        for task, text in leaks:
            output.line(f"leaked: task {task} expects {text!r} and the candidate contains it (a suite may "
                        "allow it: guard_allow)")
        ctx.exit(1)


@click.command("compare")
@click.argument("case_id", metavar="ID")
@click.option("--candidate", "candidates", multiple=True, required=True, metavar="RUN",
              help="A stored run of the candidate (gatepost suite import-artifact: JUnit XML, Inspect .eval, an "
                   "evaluator artifact; or a run of suite run). Twice for a tuning_comparison.")
@click.option("--baseline", "baselines", multiple=True, required=True, metavar="RUN",
              help="A stored run of the baseline over the same tasks, one per --candidate, in the same order.")
@click.option("--kind", required=True, type=click.Choice(tuple(COMPARISON_KINDS)),
              help="tuning_comparison: two pairs, the improvement then its reproduction (reproduced / "
                   "not_reproduced / not_better); heldout_comparison: one pair (held / regressed).")
@click.option("--producer", required=True, metavar="NAME",
              help="Who produces this evidence (the CI job or agent run that ran the evaluation); it counts only "
                   "if the case lists it as independent.")
@click.option("--decision-rule", type=click.Choice(DECISION_RULES), default=None,
              help="significant (the default): better or worse only when the exact test decides it at --alpha, a "
                   "held-out drop only where the tasks can see --max-regression; strict: noise may pass.")
@click.option("--alpha", type=float, default=None, metavar="LEVEL", help="The significant rule's level (0.05).")
@click.option("--max-regression", type=click.FloatRange(0, 1, min_open=True), default=MAX_REGRESSION,
              show_default=True, metavar="FRACTION",
              help="The held-out drop the held-out runs must be able to detect before held counts (0.1 = 10 pp).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison and the evidence recorded as JSON.")
@as_option
@click.pass_context
def compare(ctx: click.Context, case_id: str, candidates: tuple[str, ...], baselines: tuple[str, ...], kind: str,
            producer: str, decision_rule: str | None, alpha: float | None, max_regression: float, as_json: bool,
            as_name: str | None) -> None:
    """Record case ID's comparison from two stored runs of the same tasks, by --producer.

    The same statistics and decision rule as `case evaluate` (a paired delta
    over the tasks, its interval and exact test), for an evaluation that ran
    elsewhere: a JUnit report or an Inspect log imported with `suite
    import-artifact` is evidence the protocol counts like any other.
    """
    if len(candidates) != len(baselines):
        raise InputError(f"--baseline: one per --candidate, in the same order (got {len(candidates)} "
                         f"candidates, {len(baselines)} baselines)")
    db = open_ctx_store(ctx)
    report = compare_case(db, case_id, kind=kind, pairs=list(zip(candidates, baselines, strict=True)),
                          producer=producer, actor=person(as_name), decision_rule=decision_rule, alpha=alpha,
                          max_regression=max_regression)
    if as_json:
        echo_json(report)
        return
    output.line(f"case {case_id} at {report['revision'][:12]}, {kind} by {producer}:")
    for r in report["runs"]:
        output.line(f"  {r['candidate_run']} {r['candidate']['rate']:.4g} vs {r['baseline_run']} "
                    f"{r['baseline']['rate']:.4g}: delta {r['delta']:+.4g}")
        output.line(f"    {r['comparison']['words']}")
    if report["evidence"]:
        output.line(f"  {kind}: {report['evidence']['result']}")
    else:
        output.line(f"  settled nothing: {report['undecided']}")
