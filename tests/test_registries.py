"""Registries and files never disagree: versions and calibrations the index or descriptor do not list are
reported by validate/verify and never used by score."""

import shutil

import pytest

from atari5_spec.data.registry import registered_bytes, registry_problems
from atari5_spec.data.validation import validate_package
from atari5_spec.method.calibration import read_calibration
from atari5_spec.method.pinned import load_coefficient_set


def test_the_shipped_package_has_no_disagreement(package_copy):
    assert registry_problems(package_copy) == []


def test_an_unlisted_version_folder_is_reported_and_never_scored(package_copy):
    shutil.copytree(package_copy / "coefficients" / "paper-2023", package_copy / "coefficients" / "sneaky")
    problems = registry_problems(package_copy)
    assert [p.file for p in problems] == ["coefficients/sneaky"] and "does not list" in problems[0].message
    with pytest.raises(ValueError, match="index.yaml does not list it"):
        load_coefficient_set("sneaky", root=package_copy)


def test_a_listed_version_without_its_folder_is_reported(package_copy):
    index = package_copy / "coefficients" / "index.yaml"
    index.write_text(index.read_text() + "- ghost\n")
    assert any("'ghost', which has no folder" in p.message for p in registry_problems(package_copy))


def test_an_unlisted_calibration_is_reported_and_never_used(package_copy):
    shutil.copy(package_copy / "calibration" / "paper-2023.csv", package_copy / "calibration" / "extra.csv")
    assert [p.file for p in registry_problems(package_copy)] == ["calibration/extra.csv"]


def test_a_calibration_whose_bytes_differ_from_the_descriptor_is_never_used(package_copy):
    version = package_copy / "coefficients" / "paper-2023"
    assert read_calibration(version) is not None
    for path in (package_copy / "calibration").glob("paper-2023*.csv"):  # every method's file
        path.write_text(path.read_text() + "\n")
        assert registered_bytes(package_copy, f"calibration/{path.name}") is None
    assert read_calibration(version) is None
    assert read_calibration(version, "pooled") is None


@pytest.mark.slow
def test_validate_reports_an_unlisted_version(package_copy):
    shutil.copytree(package_copy / "coefficients" / "paper-2023", package_copy / "coefficients" / "sneaky")
    assert "coefficients/sneaky" in [p.file for p in validate_package(package_copy)]
