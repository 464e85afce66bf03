"""One path policy for every file of the package the tool reads (issue 47 item 4): coefficients/, calibration/,
conformance/, schemas/ and data/ files are regular files inside the package, bounded in size before they are read,
and refused otherwise with the file named -- a link to /dev/zero once took `validate --package` to 22.5 GB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import copy_package

from atari5_spec.cli import main
from atari5_spec.data.errors import InputError
from atari5_spec.data.paths import MAX_PACKAGE_FILE_BYTES, read_package_bytes, read_package_text

FIVE = ["--score", "battle_zone=20000", "--score", "double_dunk=-5", "--score", "name_this_game=8000",
        "--score", "phoenix=5000", "--score", "qbert=10000"]


@pytest.fixture()
def package(tmp_path):
    return copy_package(tmp_path / "package")


def _replace(path: Path, make) -> None:
    path.unlink()
    make(path)


def test_a_regular_file_inside_the_package_is_read(package):
    assert read_package_bytes(package / "coefficients" / "index.yaml", package) == \
        (package / "coefficients" / "index.yaml").read_bytes()


@pytest.mark.parametrize("kind, reason", [
    ("link to /dev/zero", "leads outside the package"),
    ("named pipe", "is a named pipe"),
    ("folder", "is a folder"),
    ("sparse file over the bound", f"more than the limit of {MAX_PACKAGE_FILE_BYTES:,} bytes"),
])
def test_a_package_file_that_is_not_a_bounded_regular_file_inside_it_is_refused_by_name(package, kind, reason):
    index = package / "coefficients" / "index.yaml"
    make = {"link to /dev/zero": lambda p: p.symlink_to("/dev/zero"),
            "named pipe": os.mkfifo,
            "folder": Path.mkdir,
            "sparse file over the bound": lambda p: (p.write_bytes(b""), os.truncate(p, MAX_PACKAGE_FILE_BYTES + 1))}
    _replace(index, make[kind])
    with pytest.raises(InputError) as refused:
        read_package_bytes(index, package)
    assert str(refused.value).startswith("coefficients/index.yaml: ") and reason in str(refused.value)


def test_a_link_that_stays_inside_the_package_is_followed(package):
    (package / "coefficients" / "copy.yaml").symlink_to("index.yaml")
    assert read_package_text(package / "coefficients" / "copy.yaml", package).startswith(
        (package / "coefficients" / "index.yaml").read_text(encoding="utf-8")[:20])


def test_validate_names_an_index_linked_to_dev_zero_instead_of_reading_it(package, capsys):
    _replace(package / "coefficients" / "index.yaml", lambda p: p.symlink_to("/dev/zero"))
    from atari5_spec.data.registry import registry_problems

    code = main(["validate", "--package", str(package)])
    out = capsys.readouterr().out
    assert code == 1 and "Traceback" not in out
    assert [p.file for p in registry_problems(package)] == ["coefficients/index.yaml"]


def test_verify_stops_at_a_conformance_file_linked_outside(package, capsys, tmp_path):
    outside = tmp_path / "vectors.json"
    outside.write_bytes((package / "conformance" / "vectors.json").read_bytes())
    _replace(package / "conformance" / "vectors.json", lambda p: p.symlink_to(outside))
    with pytest.raises(InputError, match="conformance/vectors.json: leads outside the package"):
        from atari5_spec.method.conformance import read_vectors

        read_vectors(package)


def test_score_names_a_pinned_interval_table_that_is_a_named_pipe(package, capsys, monkeypatch):
    table = package / "calibration" / "intervals" / "paper-2023.formula.3.csv"
    _replace(table, os.mkfifo)
    monkeypatch.chdir(package)
    code = main(["score", *FIVE])
    captured = capsys.readouterr()
    assert code == 1
    assert "calibration/intervals/paper-2023.formula.3.csv:" in captured.err  # the file, named
    assert "Traceback" not in captured.out + captured.err


def test_score_names_a_data_table_that_is_a_named_pipe(package, capsys, monkeypatch):
    # data/scores.csv gives the per-game bounds of the input gate: a pipe there was skipped (no bounds) by an
    # is_file test; now the read gate names it
    _replace(package / "data" / "scores.csv", os.mkfifo)
    monkeypatch.chdir(package)
    code = main(["score", *FIVE])
    captured = capsys.readouterr()
    assert code == 1 and "data/scores.csv:" in captured.err and "Traceback" not in captured.out + captured.err
