"""`python -m console` runs the gatepost CLI (the same as the `gatepost` command)."""

from .cli import main

main()
