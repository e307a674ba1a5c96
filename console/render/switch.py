"""The plain-render switch: `GATEPOST_PLAIN_RENDER=1` runs the console on stock Textual.

Set, nothing of console/render/ runs: every table is a stock DataTable, every screen draws through Textual's
own compositor with Textual's own frame timing, no screen is kept out of Python's collections, and Textual
draws at its own frame rate. What a person sees is the same, byte for byte (the snapshot tests run both ways);
only the time it takes differs. Read when the app, a screen or a table is made, so a test may set it for one
app.
"""

import os
from typing import TypeVar

PLAIN_RENDER = "GATEPOST_PLAIN_RENDER"

T = TypeVar("T", bound=type)


def plain() -> bool:
    """Whether the console runs on stock Textual (the switch set to anything but "" or "0")."""
    return os.environ.get(PLAIN_RENDER, "") not in ("", "0")


_made: dict[tuple[type, type], type] = {}


def fast(cls: T, paths: type) -> T:
    """`cls` with `paths` (a class of render's overrides) before it, or `cls` itself when the console runs plain.

    Made once per pair, named as `cls`: Textual's CSS type selectors, queries and isinstance see `cls`."""
    if plain():
        return cls
    made = _made.get((cls, paths))
    if made is None:
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__}
        made = _made[(cls, paths)] = type(cls)(cls.__name__, (paths, cls), namespace)
    return made  # type: ignore[return-value]
