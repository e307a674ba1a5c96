"""`gatepost suite add-task`: a reviewed failure drafted into its suite as a new task, as a case for the owner."""

import click

from gatepost import output
from gatepost.commands._common import as_option, echo_json, open_ctx_store, person
from gatepost.store.failures import add_to_suite


@click.command("add-task")
@click.option("--suite", "suite_path", default=None, metavar="FILE",
              help="The suite file the task goes into (default: the suite the run ran). It is read, never written.")
@click.option("--run", "run_id", default=None, metavar="RUN", help="The run whose failed task becomes a task.")
@click.option("--task", "task_id", default=None, metavar="TASK", help="With --run: the failed task.")
@click.option("--skill", default=None, metavar="NAME", help="A skill whose newest failing output becomes a task.")
@click.option("--prompt", default=None, help="The new task's prompt (default: the prompt the run asked).")
@click.option("--expected", multiple=True, metavar="TEXT",
              help="An answer the output must contain (a contains judge; repeat for more). Without it the note "
                   "becomes an llm-rubric judge.")
@click.option("--id", "new_id", default=None, help="The new task's id (default: TASK-regression or NAME-failure).")
@click.option("--owner", required=True, metavar="NAME",
              help="The suite's owner: the case's comment mentions them, so their Overview lists it.")
@click.option("--note", required=True, help="What the failure shows; kept with the case, on its thread.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON {case_id, revision, suite_path, task, source}.")
@as_option
@click.pass_context
def add_task(ctx: click.Context, suite_path: str | None, run_id: str | None, task_id: str | None, skill: str | None,
             prompt: str | None, expected: tuple[str, ...], new_id: str | None, owner: str, note: str,
             as_json: bool, as_name: str | None) -> None:
    """Draft a new task from a failure into a suite file, as a case for the suite's owner.

    The suite file is not changed: the suite with the task appended is the case's candidate, so it lands only
    through the gate (the owner decides; you, its author, never do), and `gatepost case applied` records where.
    """
    made = add_to_suite(open_ctx_store(ctx), suite_path, owner=owner, actor=person(as_name), note=note,
                        run_id=run_id, task_id=task_id, skill=skill, prompt=prompt, expected=list(expected),
                        new_id=new_id)
    if as_json:
        echo_json(made)
        return
    output.line(f"case {made['case_id']}: task {made['task']['id']} for {made['suite_path']}, asked of "
                f"@{made['owner']} on its thread (gatepost case show {made['case_id']})")


COMMANDS = [add_task]
