"""The app's side of the render floor: mode switches drawn at once when nothing is built, and the frame rate.

`ConsoleApp` is the console app's base. On stock Textual (the console run plain) its overrides pass straight to
Textual's own, and Textual draws at its own frame rate.
"""

import os
from typing import Any

import textual.constants
import textual.screen
from textual.app import App
from textual.widget import AwaitMount

from gatepost.render.frames import unfreeze_heap
from gatepost.render.switch import plain

# Textual draws at most MAX_FPS frames a second (60 unless TEXTUAL_FPS says). A cursor move draws two frames, the
# row at once and then the detail read for it, and Textual's screen timer ticks next one to two periods after a
# frame: at 60 the detail's frame waited up to 33 ms, a move's whole budget in a terminal. At 120 it waits
# 8.3-16.7 ms; an idle console draws nothing either way. A TEXTUAL_FPS set by the person wins.
FRAME_RATE = 120

_textuals: tuple[object, object] | None = None  # Textual's own (MAX_FPS, UPDATE_PERIOD), before any console set them


def set_frame_rate() -> None:
    """The console's frame rate, set as it starts (never on import, never in the environment): Textual read
    TEXTUAL_FPS when first imported and times each screen from screen.UPDATE_PERIOD, read when the screen first
    draws. A person's TEXTUAL_FPS is left as Textual read it; run plain, Textual's own rate."""
    global _textuals
    if "TEXTUAL_FPS" in os.environ:
        return
    if _textuals is None:
        _textuals = (textual.constants.MAX_FPS, textual.screen.UPDATE_PERIOD)
    fps, period = _textuals if plain() else (FRAME_RATE, 1 / FRAME_RATE)
    setattr(textual.constants, "MAX_FPS", fps)  # noqa: B010  (Final to the type checker: rebound on purpose)
    setattr(textual.screen, "UPDATE_PERIOD", period)  # noqa: B010


class ConsoleApp(App[Any]):
    """The console's app base: its frame rate, and a screen shown again drawn at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        set_frame_rate()
        super().__init__(*args, **kwargs)

    _shown_again = False  # within switch_mode: the screen switched to already exists

    def switch_mode(self, mode: str) -> AwaitMount:
        """Textual holds every screen update back 50 ms on a switch, to hide a new screen being built; a screen
        shown again is already built and is drawn at once (its revisit waited those 50 ms for nothing)."""
        if plain():
            return super().switch_mode(mode)
        self._shown_again = mode != self.current_mode and mode in self._screen_stacks
        try:
            return super().switch_mode(mode)
        finally:
            self._shown_again = False

    def delay_update(self, delay: float = 0.05) -> None:
        if not self._shown_again:
            super().delay_update(delay)

    def on_unmount(self) -> None:
        unfreeze_heap()  # what the screens froze (FrameControl.first_page_drawn) is collectable again
