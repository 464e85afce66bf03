"""Registries and files never disagree: coefficient versions and calibrations on disk versus their listings.

Two registries name the pinned artefacts of a package: ``coefficients/index.yaml``
(the coefficient versions) and ``datapackage.json`` (every file, with its
sha256). A version folder the index does not list, a listed version without its
folder, a ``calibration/*.csv`` the descriptor does not list, or a listed
calibration whose version the index does not know, is an inconsistency:
``validate`` and ``verify`` report it (:func:`registry_problems`), and scoring
uses only listed files whose bytes match the recorded hash
(:func:`registered_bytes`).

Pure standard library plus yaml: the fast ``score`` path imports it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

__all__ = ["registry_problems", "registered_bytes", "listed_versions"]

DESCRIPTOR = "datapackage.json"


def _descriptor_paths(root: Path) -> dict[str, dict]:
    try:
        descriptor = json.loads((root / DESCRIPTOR).read_text(encoding="utf-8"))
        return {r["path"]: r for r in descriptor.get("resources", []) if isinstance(r, dict)
                and isinstance(r.get("path"), str)}
    except (OSError, ValueError, AttributeError):
        return {}


def listed_versions(root: Path) -> list[str] | None:
    """The versions coefficients/index.yaml lists (None when there is no readable index)."""
    import yaml

    try:
        index = yaml.safe_load((Path(root) / "coefficients" / "index.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    versions = index.get("versions") if isinstance(index, dict) else None
    return [str(v) for v in versions] if isinstance(versions, list) else None


def registered_bytes(root: Path, relative: str) -> bytes | None:
    """The bytes of package file ``relative`` if datapackage.json lists it with this exact sha256, else None."""
    root = Path(root)
    resource = _descriptor_paths(root).get(relative)
    if resource is None:
        return None
    try:
        data = (root / relative).read_bytes()
    except OSError:
        return None
    recorded = resource.get("hash")
    if recorded and recorded != "sha256:" + hashlib.sha256(data).hexdigest():
        return None
    return data


def registry_problems(root: Path) -> list:
    """Every disagreement between the registries and the files, as validation Problems."""
    from .validation import Problem

    root = Path(root)
    problems = []
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
    on_disk = sorted(p.name for p in calibration.iterdir() if not p.name.startswith(".")) if calibration.is_dir() else []
    for name in on_disk:
        relative = f"calibration/{name}"
        if relative not in paths:
            problems.append(Problem(relative, None, None,
                                    "a calibration file datapackage.json does not list (scoring never uses it)",
                                    "a calibration is added only by `atari5-spec evaluate --pin-calibration`: "
                                    "remove the file, or run that command"))
    for relative in paths:
        if relative.startswith("calibration/") and relative.endswith(".csv") and listed is not None:
            # calibration/<version>[.<method>].csv: version names never hold a dot (VERSION_NAME_PATTERN)
            version = relative.removeprefix("calibration/").removesuffix(".csv").split(".", 1)[0]
            if version not in listed:
                problems.append(Problem(relative, None, None,
                                        f"calibrates the coefficient version {version!r}, which "
                                        "coefficients/index.yaml does not list",
                                        "list the version in the index or remove the calibration"))
    return problems
