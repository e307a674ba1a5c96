"""The console asks Textual for up to 120 frames a second once it starts: a cursor move's second frame (its
detail) waited for Textual's next 1/60 s tick, up to 16.7 ms of a move's 33 ms in a terminal. A person's own
TEXTUAL_FPS still wins, and the console run plain (GATEPOST_PLAIN_RENDER=1) draws at Textual's own rate. Importing
gatepost (the store, the CLI, the app) or running a command changes nothing in the process's environment, which
the commands a person runs from it inherit. Each checked in a fresh interpreter: Textual reads TEXTUAL_FPS once,
when first imported."""

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import os, sys
before = dict(os.environ)
import textual.constants, textual.screen
from gatepost.app import GatepostApp
imported = dict(os.environ)
GatepostApp(sys.argv[1], person="ana")
print(textual.constants.MAX_FPS, round(1 / textual.screen.UPDATE_PERIOD), imported == before, dict(os.environ) == before)
"""

UNTOUCHED = """
import os, sys
before = dict(os.environ)
import gatepost.store, gatepost.store.views
assert dict(os.environ) == before, "importing gatepost.store changed the environment"
from gatepost.cli import main
try:
    main(["--db", sys.argv[1], "actors", "list"], standalone_mode=False)
finally:
    changed = {k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k)}
    print("changed:", sorted(changed))
"""


def _run(code: str, store: Path, **env: str | None) -> str:
    environ = {k: v for k, v in os.environ.items() if k not in {"TEXTUAL_FPS", "GATEPOST_PLAIN_RENDER"}}
    environ.update({k: v for k, v in env.items() if v is not None})
    done = subprocess.run([sys.executable, "-c", code, str(store)], capture_output=True, text=True, env=environ,
                          check=True)
    return done.stdout.strip().splitlines()[-1]


def test_the_console_draws_up_to_120_frames_a_second_once_it_starts(demo_copy: Path) -> None:
    assert _run(PROBE, demo_copy) == "120 120 True True"


def test_a_persons_textual_fps_wins(demo_copy: Path) -> None:
    assert _run(PROBE, demo_copy, TEXTUAL_FPS="30") == "30 30 True True"


def test_the_console_run_plain_draws_at_textuals_own_rate(demo_copy: Path) -> None:
    assert _run(PROBE, demo_copy, GATEPOST_PLAIN_RENDER="1") == "60 60 True True"


def test_importing_the_store_or_running_a_command_leaves_the_environment_as_it_was(demo_copy: Path) -> None:
    assert _run(UNTOUCHED, demo_copy) == "changed: []"
