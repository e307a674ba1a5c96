"""What a screen's thread worker read, sent back to the screen as a message: the one way a screen drops a stale read.

A screen keeps, for each kind of read, the Worker of its newest request (Textual's worker: `self.x = self._read_x(…)`,
a `@work` method returning it). The worker posts a `Read` from its thread with itself in it; the screen uses it only
while that worker is still the one it waits on (`newest()`). Asking again, or setting the attribute to None (the
person moved on, or what it was for was drawn another way), makes every read under way stale. Read messages of
one kind waiting in the queue replace each other (`can_replace`, as toolong does): only the newest is handled.
"""

from typing import Any, ClassVar

from textual.message import Message
from textual.worker import Worker


class Read(Message):
    """What `worker` read for `screen`. A kind of read names the screen's attribute holding its newest request
    (`WAITING`)."""

    bubble = False
    WAITING: ClassVar[str] = ""

    def __init__(self, screen: Any, worker: Worker[Any] | None) -> None:
        super().__init__()
        self.screen, self.worker = screen, worker

    def newest(self) -> bool:
        """This read answers the screen's newest request of its kind (the worker it waits on, not a counter)."""
        return self.worker is not None and self.worker is getattr(self.screen, self.WAITING)

    def can_replace(self, message: Message) -> bool:
        return type(message) is type(self) and isinstance(message, Read) and message.newest()
