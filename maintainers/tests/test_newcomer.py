"""What a new user meets first: which package a command works on, --version, --help, --json."""

from __future__ import annotations

import json

import pytest

from atari5_spec._version import __version__
from atari5_spec.cli import build_parser, main
from atari5_spec.data.datapackage import enclosing_package, installed_package, package_root


def break_a_score(root):
    """Change one score's text without re-recording its hash: both validators must notice."""
    path = root / "data" / "scores.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[1] = lines[1].replace(",6635,6635,", ",6636,6635,", 1)
    path.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.slow
def test_validate_without_a_path_checks_the_package_you_stand_in(package_copy, monkeypatch, capsys):
    break_a_score(package_copy)
    (package_copy / "data" / "deeper").mkdir()
    monkeypatch.chdir(package_copy / "data" / "deeper")  # like git: the nearest package above
    assert enclosing_package() == package_copy.resolve()
    code = main(["validate"])
    out = capsys.readouterr().out
    assert code == 1 and f"package: {package_copy.resolve()}" in out and "the package you are in" in out
    assert "data/scores.csv" in out


@pytest.mark.slow
def test_outside_any_package_the_installed_copy_is_used_and_named(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert enclosing_package() is None and package_root() == installed_package()
    assert main(["validate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] and out["package"] == str(installed_package())


def test_another_projects_datapackage_is_not_taken_for_this_one(tmp_path, monkeypatch):
    (tmp_path / "datapackage.json").write_text(json.dumps({"name": "someone-elses", "resources": []}))
    monkeypatch.chdir(tmp_path)
    assert enclosing_package() is None


def test_writing_commands_never_default_to_the_installed_copy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "--name", "never-written"]) == 1
    assert "--package PATH" in capsys.readouterr().err
    assert not (installed_package() / "coefficients" / "never-written").exists()


def test_one_option_name_for_the_package_everywhere():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # argparse keeps subcommands here
    for name, command in commands.items():
        options = {o for action in command._actions for o in action.option_strings}
        listed = {o for action in command._actions if action.help != "==SUPPRESS==" for o in action.option_strings}
        if "--path" in options:
            assert "--package" in listed and "--path" not in listed, name


def test_version_names_code_data_and_coefficient_versions(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    out = capsys.readouterr().out
    data_version = json.loads((package_root() / "datapackage.json").read_text(encoding="utf-8"))["version"]
    assert stop.value.code == 0
    assert f"atari5-spec {__version__}" in out and f"data package {data_version}" in out
    assert "paper-2023 (default)" in out


def test_every_command_has_a_description():
    commands = build_parser()._subparsers._group_actions[0].choices
    for name, command in commands.items():
        assert command.description, f"`atari5-spec {name} --help` has no description"


# `verify --json` on the shipped package: tests/test_verification.py's
# test_verify_passes_on_the_shipped_package_including_the_search (one verify of the shipped package per test run).


REPOSITORY = __import__("pathlib").Path(__file__).resolve().parents[2]
TEXT_FILES = ["README.md", "CONTRIBUTING.md", "CITATION.cff", "pyproject.toml", "datapackage.json",
              "published/README.md", "docs/differences.md", "docs/out-of-sample.md"]


def test_no_placeholder_address_and_an_spdx_licence():
    for name in TEXT_FILES + [str(p.relative_to(REPOSITORY)) for p in (REPOSITORY / "schemas").glob("*.json")]:
        assert "github.com/atari5-spec" not in (REPOSITORY / name).read_text(encoding="utf-8"), name
    pyproject = (REPOSITORY / "pyproject.toml").read_text(encoding="utf-8")  # (tomllib needs Python 3.11)
    assert 'license = "MIT AND CC-BY-SA-4.0"' in pyproject and "\n[project.urls]\n" in pyproject
    assert "pip install atari5-spec" not in (REPOSITORY / "README.md").read_text(encoding="utf-8")


def test_papers_are_named_by_authors_and_year_not_by_seed_number(capsys):
    import re

    pattern = re.compile(r"seed[ _]?00\d|shared/seeds", re.IGNORECASE)
    for name in TEXT_FILES:
        assert not pattern.search((REPOSITORY / name).read_text(encoding="utf-8")), name
    commands = build_parser()._subparsers._group_actions[0].choices
    for name, command in commands.items():
        assert not pattern.search(command.format_help()), name
    descriptor = json.loads((REPOSITORY / "datapackage.json").read_text(encoding="utf-8"))
    assert not any(pattern.search(r["name"] + r["path"]) for r in descriptor["resources"])


@pytest.mark.slow
def test_the_fast_run_says_what_it_left_out_and_how_to_run_it(tmp_path):
    # A fresh pytest on one file with slow tests: the last lines name the count and `pytest --full`.
    import subprocess
    import sys
    from pathlib import Path

    tests = Path(__file__).resolve().parents[2] / "tests"  # the standard's tests, which hold slow ones
    done = subprocess.run([sys.executable, "-m", "pytest", str(tests / "test_public_api.py"), "-q",
                           "-p", "no:cacheprovider", "--rootdir", str(tests.parent)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    slow = sum(1 for line in (tests / "test_public_api.py").read_text().splitlines() if "mark.slow" in line)
    assert slow >= 1
    assert "slow tests left out" in done.stdout and "`pytest --full` runs them" in done.stdout, done.stdout[-800:]
