"""gatepost's people's side: the CLI and the Textual console. Never writes SQL."""

import os

# Textual draws at most TEXTUAL_FPS frames a second (its default, 60, is read when Textual is first imported).
# A cursor move draws two frames, the row at once and then the detail read for it, and the second waited for
# Textual's next 1/60 s tick: up to 16.7 ms of a move's 33 ms budget in a terminal (issue 15). At 120 it waits
# at most 8.3 ms; an idle console draws nothing either way. A TEXTUAL_FPS set by the person wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
