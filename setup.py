"""Packages of the gatepost distribution, found rather than listed.

The source tree keeps the user's layout (`console/`, `store/` at the top); installed, it is one
namespace: `console/` is the `gatepost` package (CLI and console) and `store/` is
`gatepost.store`. Every folder with an `__init__.py` under either is found here, so a new
sub-package can never be silently missing from the wheel. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

ROOTS = {"gatepost": "console", "gatepost.store": "store"}

packages = [
    f"{name}.{sub}" if sub else name
    for name, folder in ROOTS.items()
    for sub in ["", *find_packages(folder)]
]

setup(packages=packages, package_dir=ROOTS)
