"""gatepost's people's side: the CLI and the Textual console. Never writes SQL."""

import os

# Textual draws at most TEXTUAL_FPS frames a second (its default, 60, is read when Textual is first imported).
# A cursor move draws two frames, the row at once and then the detail read for it, and Textual's screen timer
# ticks next one to two periods after a frame: at 60 the detail's frame waited up to 33 ms, a move's whole
# budget in a terminal. At 120 it waits 8.3-16.7 ms; an idle console draws nothing either way.
# A TEXTUAL_FPS set by the person wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
