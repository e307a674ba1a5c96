"""Console tests marked `render_floor` check a fast path of console/render/ (what it draws less, or once): with
the console run plain (GATEPOST_PLAIN_RENDER=1) that path is not there, and they are skipped."""

import pytest

from gatepost.render import plain


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not plain():
        return
    skip = pytest.mark.skip(reason="checks a fast path of console/render/: the console runs plain")
    for item in items:
        if item.get_closest_marker("render_floor"):
            item.add_marker(skip)
