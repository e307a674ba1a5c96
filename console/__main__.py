"""`python -m console` runs the gatepost CLI (the same as the `gatepost` command)."""

from gatepost.cli import run

run()
