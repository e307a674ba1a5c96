"""Talk about items short of deciding them: comment threads on cases, proposals, drafts, skills and runs,
and the mentions that bring a thread to a person's Overview.

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from typing import TYPE_CHECKING

from gatepost.store.kernel import lazy_exports

if TYPE_CHECKING:
    from .comments import (
        COMMENT_CAPABILITY,
        COMMENTERS,
        ITEMS,
        MAX_CHARS,
        add_comment,
        item_subject,
        mention_count,
        mentioned,
        mentions_of,
        parse_item,
        thread,
        unknown_mentions,
    )
    from .records import DISCUSSION_APPEND_ONLY

__all__ = [
    "DISCUSSION_APPEND_ONLY",
    "COMMENTERS",
    "COMMENT_CAPABILITY",
    "ITEMS",
    "MAX_CHARS",
    "add_comment",
    "item_subject",
    "mention_count",
    "mentioned",
    "mentions_of",
    "parse_item",
    "thread",
    "unknown_mentions",
]

# at run time, each name's module is imported when the name is first asked for (store/kernel/lazy.py)
if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, {
        ".records": ("DISCUSSION_APPEND_ONLY",),
        ".comments": ("COMMENT_CAPABILITY", "COMMENTERS", "ITEMS", "MAX_CHARS", "add_comment",
            "item_subject", "mention_count", "mentioned", "mentions_of", "parse_item", "thread",
            "unknown_mentions"),
    })
