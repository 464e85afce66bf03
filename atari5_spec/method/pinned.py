"""Reading pinned coefficient versions for scoring, without pandas.

A version is a directory ``coefficients/<name>/`` (written by
:mod:`atari5_spec.method.coefficients`); ``coefficients/index.yaml`` names the
default. Scoring needs only three small files of it, read here with the csv
module so that ``atari5-spec score`` starts quickly:

* ``subset_coefficients.csv``: subset, position, game_id, coefficient
  (log10(1 + median) ~= sum_i coefficient_i * phi(Z_i), no intercept);
* ``subset_models.csv``: subset, games, n, cv_mse, cv_mae, cv_r2, rel_err_percent;
* ``normalisation.csv``: game_id, random_score, human_score, the constants the
  version was fitted with. Scoring with a version always uses its own
  constants, so a pinned version gives the same number forever.

The per-game models (``per_game_models.csv``, ``per_game_metrics.csv``) are
read on demand by :func:`read_per_game_models`.

When the version's ``manifest.yaml`` lists file hashes, the files scoring
reads are checked against them: an edited pinned version is refused rather
than silently giving different numbers under the same name.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping, NamedTuple

from ..data.paths import read_package_bytes

from ..data.datapackage import package_root
from ..data.errors import InputError

__all__ = ["CoefficientSet", "SubsetModel", "PerGameModel", "load_coefficient_set", "read_per_game_models",
           "coefficients_dir", "default_version", "known_versions", "TABLE12_LABEL"]

# Label of the normalisation constants when they are the paper's Table 12
# (random and average-human scores from the Agent57 paper).
TABLE12_LABEL = "agent57-human"
SCORING_FILES = ("subset_coefficients.csv", "subset_models.csv", "normalisation.csv")


class SubsetModel(NamedTuple):
    """One subset model of a version: its games in order, weights, and cross-validated accuracy."""

    name: str
    games: tuple[str, ...]
    coefficients: tuple[float, ...]
    n: int | None                      # training algorithms with all the subset's games
    cv_r2: float | None
    rel_err_percent: float | None      # ln(10) x CV mean absolute error in log space, in %


class CoefficientSet(NamedTuple):
    """What scoring needs from one pinned version."""

    version: str                       # directory name, e.g. "paper-2023"
    path: Path
    subsets: dict[str, SubsetModel]    # in file order
    constants: dict[str, tuple[float, float]]  # game_id -> (random, human)
    digest: str                        # 8 hex digits of sha256 over the scoring files
    normalisation_label: str           # TABLE12_LABEL, or "custom-<8 hex>" for other constants


class PerGameModel(NamedTuple):
    """A per-game model: phi(Z_target) = intercept + sum_j weight_j * phi(Z_j) over the subset's games."""

    target: str
    intercept: float
    weights: dict[str, float]
    r2: float | None
    n: int | None


def coefficients_dir(root: Path | None = None) -> Path:
    """The coefficients/ directory of the data package (``root``: package directory, default installed)."""
    return package_root(root) / "coefficients"


def _read_rows(path: Path) -> list[dict[str, str]]:
    from ..data.paths import read_package_rows

    return read_package_rows(path)


def read_yaml(path: Path):
    """A pinned YAML file (index.yaml, manifest.yaml) as ``yaml.safe_load`` reads it, with libyaml's parser where
    installed (the same constructor: the same values, several times quicker; verify reads manifests often)."""
    import yaml

    from ..data.paths import read_package_text

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(read_package_text(path), Loader=loader)


def known_versions(directory: Path) -> list[str]:
    """Version names listed in index.yaml (or, without an index, the subdirectories)."""
    index = Path(directory) / "index.yaml"
    if index.is_file():
        return [str(v) for v in (read_yaml(index) or {}).get("versions", [])]
    return sorted(p.name for p in Path(directory).iterdir() if (p / "subset_coefficients.csv").is_file())


def default_version(directory: Path) -> str:
    """The version index.yaml names as ``default``."""
    index = Path(directory) / "index.yaml"
    if not index.is_file():
        raise InputError(f"{index} does not exist: no default coefficient version (pass --coefficients)")
    return str(read_yaml(index)["default"])


def _looks_like_path(version: str | os.PathLike) -> bool:
    """A version given as a directory path rather than a name (names never contain a separator)."""
    text = os.fspath(version)
    return isinstance(version, os.PathLike) or "/" in text or os.sep in text or text in (".", "..")


def _version_path(version: str | os.PathLike | None, root: Path | None) -> Path:
    """Directory of ``version``: a name under coefficients/ (default: the index's), or a directory path."""
    if version is not None and _looks_like_path(version):
        path = Path(version)
        if not (path / "subset_coefficients.csv").is_file():
            raise InputError(f"{path} is not a coefficient version directory (no subset_coefficients.csv)")
        return path
    directory = coefficients_dir(root)
    name = default_version(directory) if version is None else str(version)
    if version is None or not _looks_like_path(name):  # a name, maybe from index.yaml: it stays in the package
        from ..data.paths import package_file

        package_file(directory, name, "coefficients/index.yaml: the version")
    path = directory / name
    listed = known_versions(directory) if (directory / "index.yaml").is_file() else None
    if not (path / "subset_coefficients.csv").is_file() or (listed is not None and name not in listed):
        known = ", ".join(known_versions(directory)) if directory.is_dir() else ""
        unlisted = " (its folder exists but coefficients/index.yaml does not list it)" if path.is_dir() else ""
        raise InputError(f"no coefficient version {name!r}{unlisted} (known: {known or 'none'}; "
                         "or pass a path to a version directory)")
    return path


def _check_manifest_hashes(path: Path) -> None:
    """Refuse files that differ from the hashes their manifest recorded."""
    manifest = path / "manifest.yaml"
    if not manifest.is_file():
        return
    recorded = (read_yaml(manifest) or {}).get("files", {}) or {}
    for name in SCORING_FILES:
        expected = recorded.get(name)
        if expected and (path / name).is_file():
            actual = "sha256:" + hashlib.sha256(read_package_bytes(path / name)).hexdigest()
            if actual != expected:
                raise InputError(f"{path / name} differs from the hash in its manifest: "
                                 "a pinned version must not be edited (make a new version instead)")


def _optional_float(text: str | None) -> float | None:
    return float(text) if text not in (None, "") else None


def _subset_models(path: Path) -> dict[str, SubsetModel]:
    games: dict[str, list[tuple[int, str, float]]] = {}
    for row in _read_rows(path / "subset_coefficients.csv"):
        games.setdefault(row["subset"], []).append((int(row["position"]), row["game_id"], float(row["coefficient"])))
    metrics = {}
    if (path / "subset_models.csv").is_file():
        metrics = {row["subset"]: row for row in _read_rows(path / "subset_models.csv")}
    models = {}
    for name, terms in games.items():
        terms.sort()
        row = metrics.get(name, {})
        models[name] = SubsetModel(
            name=name, games=tuple(g for _, g, _ in terms), coefficients=tuple(c for _, _, c in terms),
            n=int(row["n"]) if row.get("n") else None, cv_r2=_optional_float(row.get("cv_r2")),
            rel_err_percent=_optional_float(row.get("rel_err_percent")))
    return models


def _constants(path: Path) -> dict[str, tuple[float, float]]:
    return {row["game_id"]: (float(row["random_score"]), float(row["human_score"]))
            for row in _read_rows(path / "normalisation.csv")}


def _normalisation_label(constants: Mapping[str, tuple[float, float]], root: Path | None) -> str:
    """TABLE12_LABEL when the constants are the paper's Table 12 (exactly), else a content label.

    Table 12 is a published, immutable file, so the label of a pinned
    version's constants never changes.
    """
    try:
        table12 = {row["game_id"]: (float(row["random"]), float(row["human"]))
                   for row in _read_rows(package_root(root) / "published" / "table12_normalisation.csv")}
    except FileNotFoundError:
        table12 = {}
    if table12 and dict(constants) == table12:
        return TABLE12_LABEL
    text = "\n".join(f"{g},{r!r},{h!r}" for g, (r, h) in sorted(constants.items()))
    return "custom-" + hashlib.sha256(text.encode()).hexdigest()[:8]


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    for name in SCORING_FILES:
        if (path / name).is_file():
            h.update(name.encode() + b"\0" + read_package_bytes(path / name))
    return h.hexdigest()[:8]


def load_coefficient_set(version: str | os.PathLike | None = None, root: Path | None = None) -> CoefficientSet:
    """The scoring part of a pinned version.

    ``version`` is a version name under coefficients/ (default: index.yaml's
    ``default``) or a path to a version directory. Raises InputError for an
    unknown version or files that differ from their manifest's hashes.
    """
    path = _version_path(version, root)
    _check_manifest_hashes(path)
    constants = _constants(path)
    return CoefficientSet(version=path.name, path=path, subsets=_subset_models(path), constants=constants,
                          digest=_digest(path), normalisation_label=_normalisation_label(constants, root))


def read_per_game_models(coefficients: CoefficientSet, subset: str) -> dict[str, PerGameModel]:
    """The per-game models fitted on ``subset``'s games (Atari-5 or Atari-10), by target game."""
    path = coefficients.path / "per_game_models.csv"
    if not path.is_file():
        raise InputError(f"coefficient version {coefficients.version!r} has no per-game models")
    terms: dict[str, dict[str, float]] = {}
    for row in _read_rows(path):
        if row["subset"] == subset:
            terms.setdefault(row["target_game_id"], {})[row["term"]] = float(row["coefficient"])
    if not terms:
        available = sorted({row["subset"] for row in _read_rows(path)})
        raise InputError(f"no per-game models for {subset!r} in version {coefficients.version!r} "
                         f"(available: {', '.join(available)})")
    metrics = {}
    if (coefficients.path / "per_game_metrics.csv").is_file():
        metrics = {row["target_game_id"]: row for row in _read_rows(coefficients.path / "per_game_metrics.csv")
                   if row["subset"] == subset}
    models = {}
    for target, weights in terms.items():
        row = metrics.get(target, {})
        intercept = weights.pop("intercept", 0.0)
        models[target] = PerGameModel(target=target, intercept=intercept, weights=weights,
                                      r2=_optional_float(row.get("r2")),
                                      n=int(float(row["n"])) if row.get("n") else None)
    return models
