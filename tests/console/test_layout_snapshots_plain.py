"""The layout snapshots again with the console run plain (GATEPOST_PLAIN_RENDER=1: stock Textual, nothing of
console/render/): each screen and dialog must be the picture stored for test_layout_snapshots, byte for byte.
So the render floor changes how much is drawn, never what, and a Textual upgrade that breaks the floor can be
told from one that changes the screens: run this module and test_layout_snapshots (console/render/README.md).

The pictures are stored from the console as it runs (test_layout_snapshots, `--snapshot-update`); this module
only compares with them."""

from pathlib import Path

import pytest
from textual._doc import take_svg_screenshot

from gatepost.render import PLAIN_RENDER
from tests.console.test_layout_snapshots import *  # noqa: F403  (the same tests, collected here too)

# the same 17 pictures drawn again (about as long as test_layout_snapshots): CI runs it, the inner loop
# (`-m "not slow"`) leaves it out
pytestmark = pytest.mark.slow

STORED = Path(__file__).parent / "__snapshots__" / "test_layout_snapshots"


@pytest.fixture(autouse=True)
def plain_render(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PLAIN_RENDER, "1")


@pytest.fixture
def snap_compare(request: pytest.FixtureRequest, tmp_path: Path):  # noqa: ANN201
    """Compares the app's picture with the one stored for the same test of test_layout_snapshots."""
    if request.config.getoption("--snapshot-update", default=False):
        pytest.skip("the pictures are stored by test_layout_snapshots")
    stored = STORED / f"{request.node.name}.raw"

    def compare(app, press=(), terminal_size=(80, 24), run_before=None) -> bool:  # noqa: ANN001
        assert stored.exists(), f"no picture stored for {request.node.name} (run test_layout_snapshots first)"
        drawn = take_svg_screenshot(app=app, press=press, terminal_size=terminal_size, run_before=run_before)
        if drawn == stored.read_text(encoding="utf-8"):
            return True
        (tmp_path / "plain.svg").write_text(drawn, encoding="utf-8")
        print(f"run plain, {request.node.name} differs from {stored}: drawn in {tmp_path / 'plain.svg'}")
        return False

    return compare
