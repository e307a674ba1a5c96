"""The "add to suite" key of any screen: the dialog, then the failure drafted into a suite as a task through the store's
one act (failures.add_to_suite), a case for the suite's owner; what was drafted, or why it was refused, told."""

from typing import Any

from gatepost.screens.base import GatepostScreen
from gatepost.store.failures import add_to_suite
from gatepost.store.kernel import GatepostError
from gatepost.widgets.add_task import AddTaskDialog


def draft_task(screen: GatepostScreen, dialog: AddTaskDialog, **where: Any) -> None:
    """Show `dialog`; on its note, draft the task as the screen's person. `where`: the failure (run_id and task_id
    of a task result, or skill); a dialog that asks the source (`ask_source`) gives the suite and the prompt."""

    async def write(note: str) -> None:
        source = {"prompt": dialog.prompt} if dialog.ask_source else {}
        try:
            made = await screen.gp_app.write(add_to_suite, dialog.suite if dialog.ask_source else None,
                                             owner=dialog.owner, actor=screen.person, note=note,
                                             expected=[dialog.expected] if dialog.expected else None,
                                             **source, **where)
        except GatepostError as exc:
            screen.notify(str(exc), title="Refused", severity="error", timeout=10)
            return
        screen.notify(f"case {made['case_id']}: task {made['task']['id']} for {made['suite_path']}, asked of "
                      f"{made['owner']}", title="Drafted")

    def done(note: str | None) -> None:
        if note is not None:
            screen.run_worker(write(note), group="add-task")

    screen.app.push_screen(dialog, done)
