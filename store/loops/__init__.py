"""Registered loops (their settings no evaluator run can choose) and what is current per path.

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from typing import TYPE_CHECKING

from gatepost.store.kernel import lazy_exports

if TYPE_CHECKING:
    from .current import (
        APPLY_CAPABILITIES,
        CURRENT_SCHEMA,
        EMPTY_HASH,
        HASH_PREFIX,
        Landing,
        applications_of,
        base_status,
        check_path,
        content_text,
        current_document,
        current_hash,
        current_of,
        link_case,
        loop_case,
        record_applied,
        set_current,
        text_hash,
    )
    from .records import LOOPS_APPEND_ONLY
    from .registry import (
        ADMIN_CAPABILITY,
        BASELINE_CURRENT,
        LOOP_SCHEMA,
        RAN_WITH,
        SETTING_KEYS,
        absolute_command,
        add_loop,
        check_loop_name,
        check_override,
        command_files,
        drift,
        file_hash,
        get_loop,
        inside_surface,
        list_loops,
        loop_document,
        make_settings,
        may_touch,
        outside_registration,
        owners,
        require_admin,
        suite_files,
    )

__all__ = [
    "LOOPS_APPEND_ONLY",
    "ADMIN_CAPABILITY",
    "APPLY_CAPABILITIES",
    "BASELINE_CURRENT",
    "CURRENT_SCHEMA",
    "EMPTY_HASH",
    "HASH_PREFIX",
    "LOOP_SCHEMA",
    "Landing",
    "SETTING_KEYS",
    "RAN_WITH",
    "absolute_command",
    "add_loop",
    "applications_of",
    "base_status",
    "check_loop_name",
    "check_override",
    "command_files",
    "drift",
    "file_hash",
    "check_path",
    "content_text",
    "current_document",
    "current_hash",
    "current_of",
    "get_loop",
    "inside_surface",
    "link_case",
    "list_loops",
    "loop_case",
    "loop_document",
    "make_settings",
    "may_touch",
    "outside_registration",
    "owners",
    "record_applied",
    "require_admin",
    "set_current",
    "suite_files",
    "text_hash",
]

# at run time, each name's module is imported when the name is first asked for (store/kernel/lazy.py)
if not TYPE_CHECKING:
    __getattr__ = lazy_exports(__name__, {
        ".records": ("LOOPS_APPEND_ONLY",),
        ".current": ("APPLY_CAPABILITIES", "CURRENT_SCHEMA", "EMPTY_HASH", "HASH_PREFIX", "Landing",
            "applications_of", "base_status", "check_path", "content_text", "current_document",
            "current_hash", "current_of", "link_case", "loop_case", "record_applied", "set_current",
            "text_hash"),
        ".registry": ("ADMIN_CAPABILITY", "BASELINE_CURRENT", "LOOP_SCHEMA", "RAN_WITH",
            "SETTING_KEYS", "absolute_command", "add_loop", "check_loop_name", "check_override",
            "command_files", "drift", "file_hash", "get_loop", "inside_surface", "list_loops",
            "loop_document", "make_settings", "may_touch", "outside_registration", "owners",
            "require_admin", "suite_files"),
    })
