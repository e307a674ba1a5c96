"""`gatepost loop`: register loops and their settings; `gatepost current`: what is current per path."""

from pathlib import Path

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store import loops
from gatepost.store.evaluation import DECISION_RULES, load_suite, rule_words
from gatepost.store.kernel import read_input


@click.group("loop")
def loop() -> None:
    """Registered loops: their surface, task suite, baseline, executor, evaluators and reviewers.

    \b
    A loop's settings come from here, not from the run that evaluates its cases:
      gatepost loop add skill-writer --surface 'skills/*' --suite suite.yaml \\
          --mock --evaluator run-52 --reviewer ana --as admin
      gatepost case new --loop skill-writer --path skills/x/prompt.txt --content-file new.txt --as run-41
      gatepost case evaluate ID --producer run-52 --as run-52
    """


@loop.command("add")
@click.argument("name")
@click.option("--surface", multiple=True, required=True, metavar="GLOB",
              help="Paths the loop may change by itself (repeat; `*` crosses folders).")
@click.option("--path", "paths", multiple=True, metavar="GLOB",
              help="Paths the loop may touch at all (repeat; default: its surface). Outside the surface a "
                   "case can only be proposed to a person.")
@click.option("--suite", "suite_file", required=True, type=click.Path(dir_okay=False),
              help="The task suite YAML (v1.0) every evaluation uses; stored by its content hash.")
@click.option("--baseline", default=loops.BASELINE_CURRENT, show_default=True, metavar="current|FILE",
              help="The baseline rule: `current` (the current content of the case's path) or a SKILL.md file "
                   "(stored by its content hash).")
@click.option("--executor", "executor_cmd", default=None, metavar="'CMD'",
              help="The AI under test every evaluation uses (argv, no shell).")
@click.option("--mock", is_flag=True, help="Evaluations use gatepost's built-in deterministic executor.")
@click.option("--judge-command", default=None, metavar="'CMD'",
              help="The rubric judge every evaluation uses (argv, no shell); its files are registered by hash.")
@click.option("--root", default=None, type=click.Path(file_okay=False, exists=True), metavar="DIR",
              help="The project folder every registered path is relative to (default: the working folder).")
@click.option("--evaluator", "evaluators", multiple=True, required=True, metavar="RUN",
              help="An independent evaluator run (producer) whose evidence counts (repeat).")
@click.option("--reviewer", "reviewers", multiple=True, metavar="PERSON",
              help="A person whose reviews count as independent (repeat).")
@click.option("--design", default=None, metavar="LABEL",
              help="The evaluation design label cases are made on (default: NAME-design@<suite hash>).")
@click.option("--data-revision", default="unversioned", show_default=True, metavar="LABEL",
              help="The data revision cases are made on (case new may name another).")
@click.option("--decision-rule", type=click.Choice(DECISION_RULES), default=None,
              help="How its comparisons are decided (default: the suite's decision_rule, else significant); "
                   "strict lets noise pass. Changing it is a new version of the loop (store.admin).")
@click.option("--note", default=None, help="Why (kept with the event).")
@click.option("--json", "as_json", is_flag=True, help="Print the loop as JSON (schema gatepost.loop/1).")
@as_option
@click.pass_context
def loop_add(ctx: click.Context, name: str, surface: tuple[str, ...], paths: tuple[str, ...], suite_file: str,
             baseline: str, executor_cmd: str | None, mock: bool, judge_command: str | None, root: str | None,
             evaluators: tuple[str, ...],
             reviewers: tuple[str, ...], design: str | None, data_revision: str, decision_rule: str | None,
             note: str | None, as_json: bool, as_name: str | None) -> None:
    """Register loop NAME, or a new version of its settings (needs store.admin; refused: exit 3).

    What runs is registered by file hash: the suite and its fixtures/, the files the --executor and
    --judge-command commands name inside --root. An evaluation whose files differ is refused (exit 3)
    until the loop is registered again with them. Says what the suite can decide at its alpha (the
    smallest change its tuning tasks decide, whether its held-out tasks can see a regression of its
    max_regression) and warns below the suite's floor.
    """
    settings = loops.make_settings(suite=suite_file, surface=surface, paths=paths, baseline=baseline,
                                   executor=executor_cmd, mock=mock, evaluators=evaluators, reviewers=reviewers,
                                   design=design, data_revision=data_revision, name=loops.check_loop_name(name),
                                   root=root, judge_command=judge_command, decision_rule=decision_rule)
    found = loops.add_loop(open_ctx_store(ctx), name, settings, actor=person(as_name), note=note)
    power = load_suite(Path(found["root"]) / found["suite_path"]).power()
    if as_json:
        echo_json({**found, "power": power})
        return
    output.line(f"loop {found['name']} v{found['version']}: surface {' '.join(found['surface'])} · suite "
                f"sha256:{found['suite_hash'][:12]} · evaluators {' '.join(found['evaluators'])}")
    output.line(f"decision rule: {rule_words(found['decision_rule'], power['alpha'])} · "
                f"{power['tuning']['words']} · {power['heldout']['words']}")
    for warning in power["warnings"]:
        output.line(f"warning: {warning}")


@loop.command("list")
@click.option("--json", "as_json", is_flag=True, help='Print {"schema": "gatepost.loops/1", "loops": [...]}.')
@click.pass_context
def loop_list(ctx: click.Context, as_json: bool) -> None:
    """List registered loops: name, version, surface, evaluators."""
    rows = loops.list_loops(open_ctx_store(ctx))
    if as_json:
        echo_json({"schema": "gatepost.loops/1", "loops": rows})
        return
    if not rows:
        output.line("no loops yet: gatepost loop add NAME --surface GLOB --suite FILE --mock --evaluator RUN")
    for r in rows:
        output.line(f"{r['name']:<20} v{r['version']:<3} surface {' '.join(r['surface'])}  evaluators "
                    f"{' '.join(r['evaluators'])}")


@loop.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the loop as JSON (schema gatepost.loop/1).")
@click.pass_context
def loop_show(ctx: click.Context, name: str, as_json: bool) -> None:
    """Show loop NAME's registered settings."""
    found = loops.get_loop(open_ctx_store(ctx), name)
    if as_json:
        echo_json(found)
        return
    output.line(f"loop {found['name']} v{found['version']} (since {found['created_at']}, changed {found['updated_at']})")
    for key in ("surface", "paths", "evaluators", "reviewers"):
        output.line(f"{key}: {' '.join(found[key]) or '—'}")
    if found.get("root"):
        output.line(f"root: {found['root']}")
    output.line(f"suite: {found['suite_path']} (sha256:{found['suite_hash']})")
    baseline = found["baseline"] if found["baseline"] == loops.BASELINE_CURRENT else \
        f"{found['baseline_path']} ({found['baseline_hash']})"
    output.line(f"baseline: {baseline}")
    output.line(f"executor: {'mock (built-in)' if found['mock'] else found['executor']}")
    if found.get("judge_command"):
        output.line(f"judge: {found['judge_command']}")
    output.line(f"design: {found['design']} · data revision: {found['data_revision']}")
    for key, what in loops.RAN_WITH:
        for path, digest in sorted((found.get(key) or {}).items()):
            output.line(f"registered {what} file: {path} {digest}")
    if found.get("decision_rule"):
        output.line(f"decision rule: {found['decision_rule']}"
                    + (" (noise may pass)" if found["decision_rule"] == "strict" else ""))


@click.command("current")
@click.argument("path")
@click.option("--set", "set_file", default=None, type=click.Path(dir_okay=False), metavar="FILE",
              help="Record FILE's content as the current content of PATH (content that landed outside "
                   "gatepost; needs store.admin). '-' reads stdin.")
@click.option("--ref", default=None, metavar="REF", help="With --set: where it landed (a commit, a tag).")
@click.option("--content", "show_content", is_flag=True, help="Print the current content itself.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema gatepost.current/1).")
@as_option
@click.pass_context
def current(ctx: click.Context, path: str, set_file: str | None, ref: str | None, show_content: bool,
            as_json: bool, as_name: str | None) -> None:
    """What is current at PATH: the content kept or accepted and recorded applied, and where it landed.

    A case or proposal made on another base is stale: it cannot be kept or accepted until rebased.
    """
    db = open_ctx_store(ctx)
    if set_file is not None:
        text = read_input(set_file, what="content file")
        doc = loops.set_current(db, path, text, ref=ref, actor=person(as_name))
    else:
        doc = loops.current_document(db, path)
    if as_json:
        echo_json(doc)
        return
    if show_content:
        output.block(doc["content"] or "", nl=False)
        return
    if not doc["recorded"]:
        output.line(f"{doc['path']}: nothing recorded applied (current content is empty, {doc['content_hash'][:19]}…)")
        return
    src = doc["source"]
    output.line(f"{doc['path']}: {doc['content_hash']} from {src['subject_type']} {src['subject_id']}"
                + (f" at {src['ref']}" if src["ref"] else "") + f" by {src['actor']} ({src['at']}, event #{src['event_seq']})")
