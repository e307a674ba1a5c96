"""`gatepost screenshots`: the README's pictures, regenerated from the demo store.

Two runs give byte-identical SVGs: the clock is frozen at the demo's "now" (kernel.clock)
and the console is shown the store as `demo.db`, never the temporary folder it lives in.
"""

import os
import tempfile
from pathlib import Path

import click

from gatepost import output
from gatepost.commands._common import SEQ
from gatepost.store.kernel import freeze


@click.command()
@click.option("--out", type=click.Path(file_okay=False), default="screenshots", show_default=True,
              help="Folder to write the SVG files into.")
@click.option("--seed", type=SEQ, default=7, show_default=True, help="Seed of the demo store.")
@click.option("--as", "as_name", default="ana", show_default=True, metavar="NAME",
              help="The person the console is shown for (the demo makes them a full reviewer).")
def screenshots(out: str, seed: int, as_name: str) -> None:
    """Build a demo store in a temporary folder and save an SVG of every screen and dialog."""
    from gatepost.screenshots import take_screenshots
    from gatepost.store.demo import DEMO_NOW, build_demo

    out_dir = Path(out).resolve()
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp, freeze(DEMO_NOW):
        os.chdir(tmp)  # the console names the store `demo.db`, not a random temporary path
        try:
            build_demo(Path("demo.db"), seed=seed, person=as_name)
            saved = take_screenshots(Path("demo.db"), as_name, out_dir)
        finally:
            os.chdir(here)
    for path in saved:
        output.line(str(Path(out) / path.name))
