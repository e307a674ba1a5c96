"""The render floor: the one place of the console that touches Textual's private API.

Everything here makes the console draw less or sooner than stock Textual would, never differently: a partial
update rendered on its rows only (compositor.py), a page table that keeps what it rendered (table.py), a
screen's frames held, put off or left out (frames.py), a screen shown again drawn at once and the frame rate
(app.py), a detail's height set without a layout and its scrollbar's lines kept (widgets.py). Each private name used is listed, with why, in
internals.py; tests/structure/test_textual_internals.py fails on one used outside this package, or used here
and not listed. `GATEPOST_PLAIN_RENDER=1` runs the console without any of it (switch.py). Upgrading Textual:
README.md beside this file.
"""

from gatepost.render.app import FRAME_RATE, ConsoleApp, set_frame_rate
from gatepost.render.compositor import RowsCompositor
from gatepost.render.frames import (
           YOUNG_OBJECTS,
           FrameControl,
           freeze_heap,
           new_screen,
           unfreeze_heap,
)
from gatepost.render.switch import PLAIN_RENDER, fast, plain
from gatepost.render.table import FastRows, one_line_cell
from gatepost.render.widgets import (
           KeptScrollBar,
           kept_vertical_scrollbar,
           keymap_of,
           set_virtual_size,
           steady_cursor,
)

__all__ = ["FRAME_RATE", "PLAIN_RENDER", "YOUNG_OBJECTS", "ConsoleApp", "FastRows", "FrameControl", "KeptScrollBar", "RowsCompositor",
           "fast", "freeze_heap", "kept_vertical_scrollbar", "keymap_of", "new_screen", "one_line_cell", "plain", "set_frame_rate", "set_virtual_size",
           "steady_cursor", "unfreeze_heap"]
