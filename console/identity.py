"""Who the console's person is: --as NAME, else $GATEPOST_REVIEWER, else the OS user.

--as and $GATEPOST_REVIEWER only say whom you claim to be; the store checks the claim (a name bound to an
OS user acts only from a process of that user). The OS user is the OS's word, the effective uid's
password entry: never LOGNAME, USER or getpass, which read variables any caller sets.
"""

import os

from gatepost.store.kernel import os_user


def resolve_person(as_name: str | None = None) -> str:
    if as_name:
        return as_name
    env = os.environ.get("GATEPOST_REVIEWER")
    if env:
        return env
    return os_user() or "reviewer"
