"""Shared fixtures: the installed data package, and writable copies of it; the fast and the full run.

``pytest`` runs the fast tests (under half a minute on 2 cores); tests marked
``slow`` (each a few seconds or more: whole-package validations, verify with
the search, the report, Dask clusters, nested cross-validation) are skipped,
saying so. ``pytest --full`` runs everything; CI does.
"""

import shutil

import pytest

import atari5_spec
from atari5_spec.data.datapackage import package_root

PACKAGE_PARTS = ("datapackage.json", "data", "schemas", "coefficients", "published", "calibration", "conformance")


@pytest.fixture(scope="session", autouse=True)
def _state_folder(tmp_path_factory):
    """Each run's own state folder: the key that seals write journals (atari5_spec.data.transaction.ownership)
    is made there, never in the user's home; subprocesses inherit it."""
    import os

    previous = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if previous is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = previous


@pytest.fixture(scope="session")
def dataset():
    return atari5_spec.load(scores="all")


def copy_package(target, extra_parts: tuple[str, ...] = ()):
    """Copy the installed data package's parts (and ``extra_parts``, such as CHANGELOG.md) into a new ``target``."""
    root = package_root()
    target.mkdir(parents=True)
    for part in PACKAGE_PARTS + tuple(extra_parts):
        source = root / part
        if source.is_dir():
            shutil.copytree(source, target / part)
        elif source.exists():
            shutil.copy2(source, target / part)
    return target


@pytest.fixture()
def package_copy(tmp_path):
    """A writable copy of the data package (the installed one is never modified)."""
    return copy_package(tmp_path / "package")


@pytest.fixture()
def package_git(package_copy):
    """``package_copy`` as a git repository with one commit ("base"); returns git(*args) run in it."""
    from git_helpers import git_in

    def git(*args):
        return git_in(package_copy, *args)

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "base")
    return git


@pytest.fixture()
def run(capsys):
    """Run the CLI in-process: (exit status, stdout, stderr)."""
    from atari5_spec.cli import main

    def invoke(*arguments):
        status = main(list(arguments))
        out, err = capsys.readouterr()
        return status, out, err
    return invoke


def filled_in_template() -> dict:
    """contributions/_template/metadata.yaml with its made-up example values replaced, as a contributor would."""
    from pathlib import Path

    import yaml

    from atari5_spec.contributions.metadata import TEMPLATE_VALUES

    template = Path(__file__).resolve().parents[1] / "contributions" / "_template" / "metadata.yaml"
    meta = yaml.safe_load(template.read_text(encoding="utf-8"))
    real = {("name",): "RealAgent", ("paper", "doi"): "10.1234/real.2024.7", ("paper", "arxiv"): "2401.12345",
            ("paper", "url"): "https://example.org/realagent.pdf", ("contributor", "name"): "Grace Hopper",
            ("contributor", "github"): "grace-hopper"}
    assert set(real) == set(TEMPLATE_VALUES)
    for path, value in real.items():
        *parents, key = path
        target = meta
        for parent in parents:
            target = target[parent]
        target[key] = value
    return meta


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="also run the tests marked slow (the full run CI uses)")


SLOW_REASON = "slow: `pytest --full` runs it (CI does)"


# The floors job of .ci/run (the oldest Python with the lowest allowed versions, .ci/floors.txt) runs the tests
# whose outcome can depend on those versions: every test but these (and the browser tests), which exercise the
# project's own machinery (processes, files, git, a browser, Dask's scheduling), not numpy, pandas, pandera,
# frictionless, jsonschema, yaml or scipy behaviour. The main job runs every test. A new test belongs to the
# floors job unless it is listed here: a module, or module::test.
FLOORS_INDEPENDENT = {
    "test_faults.py": "fault injection: kills, I/O errors and locks around the package transaction",
    "test_review_workflow.py": "the review bot: the privileged workflow run on hostile git branches",
    "test_architecture.py": "import layering, read from the source with ast",
    "test_paths.py": "the path policy and limits, on file names",
    "test_search_scale.py::test_local_processes_give_identical_numbers": "local worker processes",
    "test_search_scale.py::test_dask_gives_identical_numbers": "Dask scheduling",
    "test_search_scale.py::test_search_size_6_on_a_local_cluster_matches_the_local_run": "Dask and processes",
    "test_search_scale.py::test_missing_dask_is_a_one_line_error": "Dask missing",
    "test_search_scale.py::test_scheduler_needs_size": "Dask command-line options",
    "test_search_scale.py::test_stability_is_the_same_resumed_on_processes_and_on_dask": "Dask and processes",
    "test_search_scale.py::test_stability_command_on_the_paper_matrix": "local worker processes",
    "test_search_scale.py::test_the_local_search_needs_no_dask": "Dask missing, local processes",
}


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by -m
def pytest_collection_modifyitems(config, items):
    independent = pytest.mark.floors_independent
    for item in items:
        module = item.path.name
        if module in FLOORS_INDEPENDENT or f"{module}::{item.originalname}" in FLOORS_INDEPENDENT:
            item.add_marker(independent)
    if config.getoption("--full"):
        return
    skip = pytest.mark.skip(reason=SLOW_REASON)
    left_out = 0
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
            left_out += 1
    config.stash[_LEFT_OUT] = left_out


_LEFT_OUT = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say why the fast run skips tests, and how to run them (a bare "164 skipped" says neither)."""
    left_out = config.stash.get(_LEFT_OUT, 0)
    other = sum(1 for report in terminalreporter.stats.get("skipped", [])
                if not (isinstance(report.longrepr, tuple) and report.longrepr[2].endswith(SLOW_REASON)))
    if left_out:
        terminalreporter.write_line(
            f"fast run: {left_out} slow tests left out (each takes seconds: whole-package validation, verify with "
            f"the search, the report, Dask, nested cross-validation); `pytest --full` runs them, as CI does"
            + (f"; {other} other skipped test(s) say why with `pytest -rs`" if other else ""))


@pytest.fixture(scope="session")
def site_folder(tmp_path_factory):
    """The site of the installed package, written once by `atari5-spec site --out` (test_site*.py)."""
    from atari5_spec.cli import main

    folder = tmp_path_factory.mktemp("site") / "site"
    assert main(["site", "--out", str(folder)]) == 0
    return folder


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory):
    """The site of a package copy holding an algorithm with a hostile name (site_helpers.HOSTILE_NAME)."""
    from atari5_spec.site.build import build_site
    from site_helpers import add_hostile_algorithm

    root = add_hostile_algorithm(copy_package(tmp_path_factory.mktemp("hostile") / "package"))
    return build_site(root.parent / "site", root).folder
