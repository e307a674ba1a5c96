"""An item's comment thread as detail blocks, and the comment act a screen offers (`C`).

Shared by every screen whose detail shows one item (the four deciding screens and Results' run), so the
thread reads the same everywhere: oldest first, each comment's author, time and text, mentions bold.
"""

from collections.abc import Callable
from typing import Any

from rich.text import Text

from gatepost.safe import literal
from gatepost.store.discussion import COMMENTERS, add_comment
from gatepost.store.kernel import GatepostError
from gatepost.widgets.line_detail import Block
from gatepost.widgets.note_dialog import NoteDialog

COMMENT_KEY = "C"
COMMENT_BINDING = "item.comment"


def thread_text(rows: list[dict[str, Any]]) -> Text:
    """Each comment on its own lines: `ana at 2026-11-20 10:00: the text`, mentions listed after."""
    text = Text()
    for row in rows:
        text.append_text(literal(f"{row['author'] or '?'} at {row['at'][:16].replace('T', ' ')}", style="bold"))
        text.append_text(literal(f": {row['note']}"))
        if row["mentions"]:
            text.append_text(literal(f"  (mentions {', '.join(row['mentions'])})", style="cyan"))
        text.append("\n")
    return text


def thread_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """The thread's title and its comments, to go at the end of an item's detail; nothing while there are none
    (the footer names the key that starts one)."""
    if not rows:
        return []
    return [Block("comments-title", Text(f"Comments ({len(rows)})"), "title", gap=0),
            Block("comments", thread_text(rows))]


def ask_comment(screen: Any, kind: str, key: str | None, *, noun: str, after: Callable[[str], None]) -> None:
    """`C` on a screen (a GatepostScreen): the dialog, then the act on the app's writer; `after(key)` redraws the
    item once the comment is in. Who holds none of COMMENTERS browses and is told so."""
    if key is None:
        screen.notify(f"No {noun} selected.", severity="warning")
        return
    if not any(screen.can(c) for c in COMMENTERS):
        screen.notify(f"{screen.person} holds none of {', '.join(COMMENTERS)}: browsing only, no comments.",
                      title="Browsing only", severity="warning")
        return

    async def write(note: str) -> None:
        try:
            made = await screen.gp_app.write(add_comment, kind, key, note, actor=screen.person)
        except GatepostError as exc:
            screen.notify(str(exc), title="Refused", severity="error", timeout=10)
            return
        mentions = f"; mentions {', '.join(made['mentions'])}" if made["mentions"] else ""
        screen.notify(f"{key}: comment added{mentions}", title="Commented")
        after(key)

    def done(typed: str | None) -> None:
        if typed is not None:
            screen.run_worker(write(typed), group="comment")

    screen.app.push_screen(NoteDialog(f"Comment on {key}", "Comment (@name mentions a person; decides nothing)",
                                      required=True, confirm_label="Comment"), done)
