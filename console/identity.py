"""Who the console's person is: --as NAME, else $GATEPOST_REVIEWER, else the OS user."""

import getpass
import os


def resolve_person(as_name: str | None = None) -> str:
    if as_name:
        return as_name
    env = os.environ.get("GATEPOST_REVIEWER")
    if env:
        return env
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "reviewer"
