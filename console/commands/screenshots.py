"""`gatepost screenshots`: the README's pictures, regenerated from the demo store."""

import tempfile
from pathlib import Path

import click


@click.command()
@click.option("--out", type=click.Path(file_okay=False), default="screenshots", show_default=True,
              help="Folder to write the SVG files into.")
@click.option("--seed", type=int, default=7, show_default=True, help="Seed of the demo store.")
@click.option("--as", "as_name", default="ana", show_default=True, metavar="NAME",
              help="The person the console is shown for (the demo makes them a full reviewer).")
def screenshots(out: str, seed: int, as_name: str) -> None:
    """Build a demo store in a temporary folder and save an SVG of every screen and dialog."""
    from gatepost.screenshots import take_screenshots
    from gatepost.store.demo import build_demo

    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "demo.db"
        build_demo(db_path, seed=seed, person=as_name)
        for path in take_screenshots(db_path, as_name, Path(out)):
            click.echo(str(path))


COMMANDS = [screenshots]
