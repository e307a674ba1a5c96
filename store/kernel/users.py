"""The OS user this process runs as: what a name bound to an OS user is checked against, and whom a person is
taken to be when no name is given (a report's default reader, the console's person)."""

from __future__ import annotations

import os
import pwd


def os_user() -> str:
    """The OS user this process runs as: the OS's word (its effective uid), never the environment's.

    LOGNAME, USER and getpass read variables any caller sets; a binding checked against them binds nothing.
    A uid with no password entry is named by its number.
    """
    uid = os.geteuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)
