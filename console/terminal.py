"""Whether the console can open here: a question asked before the console's modules are loaded."""

import sys

from textual import constants as textual_constants


def without_terminal() -> str | None:
    """Why the console cannot open here, or None when it can.

    Textual's terminal driver reads the keys from stdin. On a stdin that is not a terminal (a file, /dev/null, a
    pipe that ended) every read returns nothing at once and the driver reads again: a core kept busy until the
    process is killed, and no key ever reaches the console. A driver named by Textual's own TEXTUAL_DRIVER (the
    browser's, under `gatepost serve`) reads its keys elsewhere and needs no terminal.
    """
    if textual_constants.DRIVER is not None:
        return None
    stdin = sys.__stdin__
    if stdin is not None and stdin.isatty():
        return None
    return ("stdin: not a terminal; the console reads its keys from one "
            "(open it in a terminal, or in a browser with `gatepost serve`)")
