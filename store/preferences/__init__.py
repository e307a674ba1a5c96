"""Pairwise preferences: a person's side-by-side judgment of a task's candidate and baseline outputs in a run.

A preference is recorded always (the `preferences` record, one `preference.recorded` event) and counts only
where the protocol says: when the run belongs to a case whose protocol lists the `preference` evidence kind,
the same act records it as that case's evidence too, and the claims built on it move.

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from typing import TYPE_CHECKING

from gatepost.store.kernel import lazy_exports

if TYPE_CHECKING:
    from .acts import (
        CHOICES,
        KIND,
        PREFERRERS,
        counting_words,
        pairwise,
        preferences_of,
        preferred,
        record_preference,
        side_name,
    )
    from .records import PREFERENCES_APPEND_ONLY

__all__ = ["CHOICES", "KIND", "PREFERENCES_APPEND_ONLY", "PREFERRERS", "counting_words", "pairwise", "preferences_of",
           "preferred", "record_preference", "side_name"]

# at run time, each name's module is imported when the name is first asked for (store/kernel/lazy.py)
if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, {
        ".acts": ("CHOICES", "KIND", "PREFERRERS", "counting_words", "pairwise", "preferences_of", "preferred",
                  "record_preference", "side_name"),
        ".records": ("PREFERENCES_APPEND_ONLY",),
    })
