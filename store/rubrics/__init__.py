"""The rubrics the deciding queues without a protocol carry: proposals, manifest drafts and regressions.

A queue's rubric is the store's data, set by its administrator (`rubric.set` events, projected into
`queue_rubrics`); every decision on the queue answers it, inside the decision's own guarded act, and the
answers are kept beside the decision (`rubric_answers`). A case's rubric is its protocol's (store/protocol).

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from typing import TYPE_CHECKING

from gatepost.store.kernel import lazy_exports

if TYPE_CHECKING:
    from .queues import (
        CLEARED,
        QUEUES,
        SET,
        Answers,
        QueueRubric,
        answer,
        answers_on,
        check_queue,
        clear_queue_rubric,
        questions_data,
        queue_rubric,
        queue_rubrics,
        read_rubric_file,
        record_answers,
        set_queue_rubric,
    )
    from .records import RUBRIC_APPEND_ONLY

__all__ = ["CLEARED", "QUEUES", "SET", "Answers", "QueueRubric", "answer", "answers_on", "check_queue",
           "clear_queue_rubric", "queue_rubric", "queue_rubrics", "questions_data", "read_rubric_file",
           "record_answers", "set_queue_rubric", "RUBRIC_APPEND_ONLY"]

# at run time, each name's module is imported when the name is first asked for (store/kernel/lazy.py)
if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, {".queues": tuple(__all__[:-1]), ".records": ("RUBRIC_APPEND_ONLY",)})
