"""Every place a version is written agrees with the rule of docs/data.md "Versioning".

Two versions: the code version (the same everywhere it is written) and the data
package version (datapackage.json; everything else reads it at run time). The
code's major version is the data's major version. The last release section of
CHANGELOG.md names the code version and date, and the data package it shipped.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

import atari5_spec
from atari5_spec._version import __release_date__, __version__
from atari5_spec.cli.main import version_text
from atari5_spec.scoring import citation as cite
from atari5_spec.scoring.estimate import score

REPOSITORY = Path(__file__).resolve().parents[1]
SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def _semver(text: str) -> tuple[int, int, int]:
    match = SEMVER.match(text)
    assert match, f"not MAJOR.MINOR.PATCH: {text!r}"
    return tuple(int(part) for part in match.groups())


def _last_release() -> tuple[str, str, str]:
    changelog = (REPOSITORY / "CHANGELOG.md").read_text(encoding="utf-8")
    match = re.search(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})\n\nData package at this release: (\S+) ",
                      changelog, re.M)
    assert match, "CHANGELOG.md: no release section headed by its data package version"
    return match.groups()


def test_the_code_version_is_the_same_everywhere():
    pyproject = re.search(r'^version = "([^"]+)"$', (REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    cff = yaml.safe_load((REPOSITORY / "CITATION.cff").read_text(encoding="utf-8"))
    zenodo = json.loads((REPOSITORY / ".zenodo.json").read_text(encoding="utf-8"))
    released, date, _ = _last_release()
    signature = score({"battle_zone": 30000, "double_dunk": -1, "name_this_game": 12000, "phoenix": 8000,
                       "qbert": 15000}).parsed_signature
    cli = subprocess.run([sys.executable, "-m", "atari5_spec.cli", "--version"], capture_output=True, text=True,
                         check=True).stdout.splitlines()[0]
    found = {"_version.py": __version__, "atari5_spec.__version__": atari5_spec.__version__,
             "pyproject.toml": pyproject.group(1), "CITATION.cff": str(cff["version"]), ".zenodo.json": zenodo["version"],
             "CHANGELOG.md last release": released, "signature v:": signature.code_version,
             "--version": cli.split()[1], "cite": json.loads(cite.as_json(cite.citation()))["software"]["version"]}
    assert set(found.values()) == {__version__}, found
    _semver(__version__)
    dates = {"_version.py": __release_date__, "CITATION.cff": str(cff["date-released"]),
             ".zenodo.json": zenodo["publication_date"], "CHANGELOG.md": date}
    assert set(dates.values()) == {__release_date__}, dates


def test_the_data_version_is_read_from_datapackage_json_everywhere():
    data = json.loads((REPOSITORY / "datapackage.json").read_text(encoding="utf-8"))["version"]
    signature = score({"battle_zone": 30000, "double_dunk": -1, "name_this_game": 12000, "phoenix": 8000,
                       "qbert": 15000}).parsed_signature
    found = {"signature data:": signature.data_version, "--version": version_text().splitlines()[1].split()[2],
             "cite": cite.citation().data_version}
    assert set(found.values()) == {data}, found


def test_code_major_is_data_major_and_the_release_shipped_an_earlier_or_equal_data_version():
    data = _semver(json.loads((REPOSITORY / "datapackage.json").read_text(encoding="utf-8"))["version"])
    assert _semver(__version__)[0] == data[0], "docs/data.md 'Versioning': the code's major version is the data's"
    _, _, shipped = _last_release()
    assert _semver(shipped) <= data  # data merged after the release moves the data version on, never back
    assert "warning" not in version_text()


def test_pinned_manifests_name_earlier_code_and_data_versions():
    """A pinned manifest is never edited: created_with and data_version say what fitted it, never later."""
    data = _semver(json.loads((REPOSITORY / "datapackage.json").read_text(encoding="utf-8"))["version"])
    manifests = sorted((REPOSITORY / "coefficients").glob("*/manifest.yaml"))
    assert manifests
    for path in manifests:
        manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert _semver(manifest["created_with"].removeprefix("atari5-spec ")) <= _semver(__version__), path
        assert _semver(str(manifest["data_version"])) <= data, path


def _cut_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("cut_release", REPOSITORY / "scripts" / "cut_release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_release_cut_moves_unreleased_and_a_recut_merges_later_entries():
    cut = _cut_script().cut_changelog
    text = ("# Changelog\n\n## [Unreleased]\n\n### Migrating from 0.1.0\n- imports moved\n\n### Added\n- a\n\n"
            "### Fixed\n- b\n\n## [0.1.0] - 2026-01-01\n\n### Added\n- first\n")
    once = cut(text, "1.0.0", "2026-02-02", "1.10.0")
    assert once.startswith("# Changelog\n\n## [Unreleased]\n\n## [1.0.0] - 2026-02-02\n\n"
                           "Data package at this release: 1.10.0 ")
    assert once.index("### Migrating") < once.index("### Added\n- a") < once.index("### Fixed\n- b") < once.index("[0.1.0]")
    assert cut(once, "1.0.0", "2026-02-02", "1.10.0") == once  # running it again changes nothing
    # entries merged under [Unreleased] after the cut (issue 20's data, say) join the release on a re-cut
    later = once.replace("## [Unreleased]\n\n", "## [Unreleased]\n\n### Added\n- Data 1.11.0: c\n\n", 1)
    again = cut(later, "1.0.0", "2026-02-03", "1.11.0")
    assert "## [1.0.0] - 2026-02-03\n\nData package at this release: 1.11.0 " in again
    assert "### Added\n- a\n- Data 1.11.0: c\n" in again and again.count("## [1.0.0]") == 1
    assert again.split("## [1.0.0]")[0].endswith("## [Unreleased]\n\n")
