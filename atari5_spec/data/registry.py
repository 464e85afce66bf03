"""Registries and files never disagree: coefficient versions and calibrations on disk versus their listings.

Two registries name the pinned artefacts of a package: ``coefficients/index.yaml``
(the coefficient versions) and ``datapackage.json`` (every file, with its
sha256). A version folder the index does not list, a listed version without its
folder, a ``calibration/*.csv`` the descriptor does not list, a listed
calibration whose version the index does not know or whose name is not
``<version>[.<method>][.<edition>]``, or a listed edition N >= 2 whose edition
N - 1 is not listed (a new edition never replaces the old one), is an
inconsistency:
``validate`` and ``verify`` report it (:func:`registry_problems`), and scoring
uses only listed files whose bytes match the recorded hash
(:func:`registered_bytes`); a pinned file whose bytes differ is named with both
hashes and the fix by :func:`hash_mismatch` (an edited interval table is refused).

Pure standard library plus yaml: the fast ``score`` path imports it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from .errors import InputError
from .paths import read_package_bytes, read_package_text

__all__ = ["registry_problems", "registered_bytes", "hash_mismatch", "listed_versions", "split_calibration_name"]

DESCRIPTOR = "datapackage.json"
# A calibration's name: <coefficient version>[.<method>][.<edition>]. Version names never hold a dot
# (VERSION_NAME_PATTERN); the first edition has no number, a later one is an integer >= 2.
_CALIBRATION_NAME = re.compile(r"^(?P<version>[A-Za-z0-9][A-Za-z0-9_-]*)(?:\.(?P<method>[a-z][a-z0-9-]*))?"
                               r"(?:\.(?P<edition>[2-9]|[1-9][0-9]+))?$")


def split_calibration_name(name: str) -> tuple[str, str, int] | None:
    """(coefficient version, method suffix without its dot ('' for the first method), edition) of a calibration
    name such as ``paper-2023``, ``paper-2023.in-range`` or ``paper-2023.in-range.2``; None when it is not one."""
    match = _CALIBRATION_NAME.match(name)
    if match is None:
        return None
    return match["version"], match["method"] or "", int(match["edition"] or 1)


def _descriptor_paths(root: Path) -> dict[str, dict]:
    try:
        descriptor = json.loads(read_package_text(root / DESCRIPTOR, root))
        return {r["path"]: r for r in descriptor.get("resources", []) if isinstance(r, dict)
                and isinstance(r.get("path"), str)}
    except (OSError, ValueError, AttributeError, InputError):
        return {}


def index_problem(root: Path) -> str | None:
    """Why coefficients/index.yaml cannot be read as a file of the package (None when it can, or is absent)."""
    index = Path(root) / "coefficients" / "index.yaml"
    if not os.path.lexists(index):
        return None
    try:
        read_package_bytes(index, root)
    except InputError as error:
        return str(error)
    return None


def listed_versions(root: Path) -> list[str] | None:
    """The versions coefficients/index.yaml lists (None when there is no readable index)."""
    import yaml

    try:
        index = yaml.safe_load(read_package_text(Path(root) / "coefficients" / "index.yaml", root))
    except (OSError, yaml.YAMLError, InputError):
        return None
    versions = index.get("versions") if isinstance(index, dict) else None
    return [str(v) for v in versions] if isinstance(versions, list) else None


def hash_mismatch(relative: str, recorded: str, data: bytes) -> str | None:
    """The sentence saying package file ``relative`` (its bytes ``data``) differs from the sha256 datapackage.json
    records for it (``recorded``, ``sha256:<hex>``): expected, found, and how to fix it; None when they agree."""
    found = "sha256:" + hashlib.sha256(data).hexdigest()
    if found == recorded:
        return None
    return (f"{relative}: the file differs from the hash datapackage.json pinned for it (expected {recorded}, "
            f"found {found}): it was edited after it was pinned, and a pinned file is never used edited. Fix: "
            f"restore the pinned file (git checkout -- {relative}, or reinstall the package), or pin the change as "
            "a new version (a new edition beside the old one, with a CHANGELOG entry), never in place")


def registered_bytes(root: Path, relative: str, pinned: bool = False, refuse_edited: bool = False) -> bytes | None:
    """The bytes of package file ``relative`` if datapackage.json lists it with this exact sha256, else None.

    A listed file without a recorded hash is returned too, unless ``pinned`` asks for a recorded hash. A listed
    file whose bytes differ from its recorded hash is None, or with ``refuse_edited`` an :class:`InputError` naming
    the mismatch (:func:`hash_mismatch`). A listed file that is not a regular file inside the package, or is
    larger than the bound, is an :class:`InputError` naming it (:func:`atari5_spec.data.paths.read_package_bytes`).
    """
    root = Path(root)
    resource = _descriptor_paths(root).get(relative)
    if resource is None or (pinned and not resource.get("hash")):
        return None
    try:  # a file the policy refuses (a pipe, a device, a link out, too large) is an InputError naming it
        data = read_package_bytes(root / relative, root)
    except OSError:
        return None
    recorded = resource.get("hash")
    mismatch = hash_mismatch(relative, recorded, data) if recorded else None
    if mismatch is not None:
        if refuse_edited:
            raise InputError(mismatch)
        return None
    return data


def registry_problems(root: Path) -> list:
    """Every disagreement between the registries and the files, as validation Problems."""
    from .problems import Problem

    root = Path(root)
    problems = []
    unreadable = index_problem(root)
    if unreadable:
        problems.append(Problem("coefficients/index.yaml", None, None, unreadable.split(": ", 1)[-1],
                                "restore the index as the package shipped it: a plain YAML file inside the package "
                                "(git checkout -- coefficients/index.yaml)"))
    listed = listed_versions(root)
    paths = _descriptor_paths(root)
    coefficients = root / "coefficients"
    if listed is not None and coefficients.is_dir():
        folders = sorted(p.name for p in coefficients.iterdir() if p.is_dir() and not p.name.startswith("."))
        for name in folders:
            if name not in listed:
                problems.append(Problem(f"coefficients/{name}", None, None,
                                        "a coefficient version folder that coefficients/index.yaml does not list "
                                        "(scoring never uses it)",
                                        "a version is added only by `atari5-spec fit --name`: remove the folder, or "
                                        "list it in index.yaml and datapackage.json as a versioned change"))
            elif not any(p.startswith(f"coefficients/{name}/") for p in paths):
                problems.append(Problem(f"coefficients/{name}", None, None,
                                        "a listed coefficient version whose files datapackage.json does not list",
                                        "register its files (with their hashes) in datapackage.json"))
        for name in listed:
            if name not in folders:
                problems.append(Problem("coefficients/index.yaml", None, None,
                                        f"lists the coefficient version {name!r}, which has no folder",
                                        f"restore coefficients/{name}/ or remove it from the index"))
    calibration = root / "calibration"
    on_disk = sorted(p.name for p in calibration.iterdir() if not p.name.startswith(".") and not p.is_dir()) \
        if calibration.is_dir() else []
    tables = calibration / "intervals"  # interval tables (calibration/intervals/<name>.csv), one per calibration
    on_disk += sorted(f"intervals/{p.name}" for p in tables.iterdir() if not p.name.startswith(".")) \
        if tables.is_dir() else []
    for name in on_disk:
        relative = f"calibration/{name}"
        if relative not in paths:
            problems.append(Problem(relative, None, None,
                                    "a calibration file datapackage.json does not list (scoring never uses it)",
                                    "a calibration is added only by `atari5-spec evaluate --pin-calibration`: "
                                    "remove the file, or run that command"))
    listed_calibrations = {}
    for relative in paths:
        if relative.startswith("calibration/intervals/"):
            if f"calibration/{relative.removeprefix('calibration/intervals/')}" not in paths:
                problems.append(Problem(relative, None, None, "the interval table of a calibration datapackage.json "
                                        "does not list", "remove the table, or restore its calibration"))
        elif relative.startswith("calibration/") and relative.endswith(".csv"):
            name = relative.removeprefix("calibration/").removesuffix(".csv")
            parts = split_calibration_name(name)
            if parts is None:
                problems.append(Problem(relative, None, None,
                                        "not a calibration name (<version>[.<method>][.<edition>], the edition a "
                                        "whole number from 2; the first edition has none)",
                                        "a calibration is named only by `atari5-spec evaluate --pin-calibration`"))
                continue
            listed_calibrations[parts] = relative
            if listed is not None and parts[0] not in listed:
                problems.append(Problem(relative, None, None,
                                        f"calibrates the coefficient version {parts[0]!r}, which "
                                        "coefficients/index.yaml does not list",
                                        "list the version in the index or remove the calibration"))
    for (version, method, edition), relative in sorted(listed_calibrations.items()):
        if edition >= 2 and (version, method, edition - 1) not in listed_calibrations:
            problems.append(Problem(relative, None, None,
                                    f"edition {edition} of a calibration whose edition {edition - 1} "
                                    "datapackage.json does not list (a pinned edition is kept when a new one is made)",
                                    "restore the earlier edition's file and its listing"))
    return problems
