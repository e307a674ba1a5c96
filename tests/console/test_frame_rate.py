"""The console asks Textual for up to 120 frames a second: a cursor move's second frame (its detail) waited for
Textual's next 1/60 s tick, up to 16.7 ms of a move's 33 ms in a terminal (issue 15). A person's own
TEXTUAL_FPS still wins. Checked in a fresh interpreter: Textual reads the setting once, when first imported."""

import os
import subprocess
import sys

PROBE = "import gatepost.app, textual.constants as c; print(c.MAX_FPS)"


def _fps(env_fps: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    if env_fps is not None:
        env["TEXTUAL_FPS"] = env_fps
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def test_the_console_draws_up_to_120_frames_a_second_unless_the_person_says_otherwise() -> None:
    assert _fps(None) == "120"
    assert _fps("30") == "30"
