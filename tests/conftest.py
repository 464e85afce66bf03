"""Shared fixtures: the installed data package, and writable copies of it."""

import shutil

import pytest

import atari5_spec
from atari5_spec.datapackage import package_root

PACKAGE_PARTS = ("datapackage.json", "data", "schemas", "coefficients", "published", "calibration")


@pytest.fixture(scope="session")
def dataset():
    return atari5_spec.load()


@pytest.fixture()
def package_copy(tmp_path):
    """A writable copy of the data package (the installed one is never modified)."""
    root = package_root()
    target = tmp_path / "package"
    target.mkdir()
    for part in PACKAGE_PARTS:
        source = root / part
        if source.is_dir():
            shutil.copytree(source, target / part)
        elif source.exists():
            shutil.copy2(source, target / part)
    return target
