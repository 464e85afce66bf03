"""Pinned coefficient versions: fitting one from the data, writing it, reading it back.

A version is a directory ``coefficients/<name>/`` that papers cite. It holds
everything needed to recompute it, forever, whatever is added to the data
later:

* ``manifest.yaml``: method settings, the subsets, the training set (algorithm
  ids in fold order) and the sha256 of every file of the version;
* ``training_rows.csv``: the exact training rows (score_id, algorithm_id,
  game_id, score) — verification looks these ids up in data/scores.csv;
* ``normalisation.csv``: the random/human constants the version was fitted with;
* ``subset_models.csv`` / ``subset_coefficients.csv``: every subset model at
  full precision with its metrics (N, CV MSE/MAE, CV R^2, relative error);
* ``per_game_models.csv`` / ``per_game_metrics.csv``: the per-game models
  (paper Tables 10 and 11) with their R^2 and N.

``coefficients/index.yaml`` lists the versions and names the default one used
by scoring; changing the default is an explicit, changelogged decision.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import yaml

from ..data.writing import frame_csv_text
from . import fitting, training
from .pinned import read_yaml

__all__ = ["FittedVersion", "fit_version", "version_tables", "write_version", "read_version_tables",
           "read_index", "DQN7", "PAPER_VERSION", "METHOD", "manifest"]

PAPER_VERSION = "paper-2023"
SUBSET_ORDER = ["Atari-1", "Atari-3", "Atari-5", "Atari-10", "Atari-3-Val", "Atari-5-Val", "DQN-7"]
# The DQN paper's seven games: the paper's fixed baseline subset (Table 2), not searched.
DQN7 = ["beam_rider", "breakout", "enduro", "pong", "qbert", "seaquest", "space_invaders"]
PER_GAME_SUBSETS = ["Atari-5", "Atari-10"]

# Every setting that changes a number. Written into each manifest.
METHOD = {
    "normalisation": "Z = 100 (x - random) / (human - random), constants in normalisation.csv",
    "transform": "phi(z) = log10(1 + max(0, z))",
    "target": "phi(median of Z over the algorithm's canonical games)",
    "subset_model": "ordinary least squares without intercept on phi(Z) of the subset's games; "
                    "only algorithms with all the subset's games",
    "per_game_model": "ordinary least squares with intercept predicting a game's phi(Z) from the subset's phi(Z)",
    "cross_validation": {"scheme": "KFold", "n_splits": 10, "shuffle": True, "seed": 1982,
                         "row_order": "algorithms by published name, code-point order",
                         "mse": "mean over folds of the fold's mean squared error"},
    "metrics": {"cv_r2": "1 - CV MSE / Var(target) (population variance)",
                "rel_err_percent": "ln(10) x CV mean absolute error x 100"},
    "search": {"excluded_games": ["surround"], "admissible": "no negative coefficient",
               "staging": "Atari-5 over all 5-game subsets; Atari-3 inside Atari-5; Atari-1 inside Atari-3; "
                          "Atari-3-Val outside Atari-5; Atari-5-Val = Atari-3-Val + 2 outside Atari-5; "
                          "Atari-10 = Atari-5 + 5 outside Atari-5-Val"},
}


class FittedVersion(NamedTuple):
    """Every model of a coefficient version, as tidy frames."""

    subset_models: pd.DataFrame        # subset, games, n, cv_mse, cv_mae, cv_r2, rel_err_percent
    subset_coefficients: pd.DataFrame  # subset, position, game_id, coefficient
    per_game_models: pd.DataFrame      # subset, target_game_id, term, coefficient
    per_game_metrics: pd.DataFrame     # subset, target_game_id, n, r2
    normalisation: pd.DataFrame        # game_id, random_score, human_score
    training_rows: pd.DataFrame        # score_id, algorithm_id, game_id, score
    algorithms: list                   # training algorithm ids in fold order


def fit_version(rows: pd.DataFrame, games: pd.DataFrame, algorithms: pd.DataFrame,
                subsets: dict[str, list[str]]) -> FittedVersion:
    """Fit every subset model and the per-game models on the training ``rows``."""
    X, y = training.training_matrix(rows, games, algorithms)
    model_rows, coefficient_rows = [], []
    for name in [s for s in SUBSET_ORDER if s in subsets] + [s for s in subsets if s not in SUBSET_ORDER]:
        model = fitting.fit_subset_model(X, y, subsets[name])
        model_rows.append(dict(subset=name, games=" ".join(model.games), n=model.n, cv_mse=model.cv_mse,
                               cv_mae=model.cv_mae, cv_r2=model.cv_r2, rel_err_percent=model.rel_err_percent))
        coefficient_rows += [dict(subset=name, position=i + 1, game_id=g, coefficient=float(c))
                             for i, (g, c) in enumerate(zip(model.games, model.coefficients))]
    per_game, metrics = [], []
    for name in [s for s in PER_GAME_SUBSETS if s in subsets]:
        models = fitting.per_game_models(X, subsets[name]).rename(columns={"target_game": "target_game_id"})
        per_game.append(models.assign(subset=name))
        metrics.append(models.drop_duplicates("target_game_id").assign(subset=name))
    constants = games[games["in_57"].astype(bool)][["game_id", "random_score", "human_score"]]
    return FittedVersion(
        subset_models=pd.DataFrame(model_rows),
        subset_coefficients=pd.DataFrame(coefficient_rows),
        per_game_models=(pd.concat(per_game)[["subset", "target_game_id", "term", "coefficient"]]
                         if per_game else pd.DataFrame(columns=["subset", "target_game_id", "term", "coefficient"])),
        per_game_metrics=(pd.concat(metrics)[["subset", "target_game_id", "n", "r2"]]
                          if metrics else pd.DataFrame(columns=["subset", "target_game_id", "n", "r2"])),
        normalisation=constants.sort_values("game_id").reset_index(drop=True),
        training_rows=rows[training.TRAINING_ROW_COLUMNS].sort_values("score_id").reset_index(drop=True),
        algorithms=list(X.index),
    )


TABLE_FILES = {
    "subset_models": "subset_models.csv",
    "subset_coefficients": "subset_coefficients.csv",
    "per_game_models": "per_game_models.csv",
    "per_game_metrics": "per_game_metrics.csv",
    "normalisation": "normalisation.csv",
    "training_rows": "training_rows.csv",
}


def version_tables(fitted: FittedVersion) -> dict[str, str]:
    """The CSV text of every table of a version (deterministic)."""
    return {file: frame_csv_text(getattr(fitted, field), list(getattr(fitted, field).columns))
            for field, file in TABLE_FILES.items()}


def _sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest(name: str, fitted: FittedVersion, subsets: dict, description: str, package_version: str,
             data_version: str, rule: training.InclusionRule, candidates: str, tables: dict[str, str],
             reproduces: str | None = None) -> dict:
    return {
        "name": name,
        "description": description,
        **({"reproduces": reproduces} if reproduces else {}),
        "created_with": f"atari5-spec {package_version}",
        "data_version": data_version,
        "method": METHOD,
        "inclusion_rule": {"min_games": rule.min_games, "median_above": rule.min_median,
                           "candidates": candidates},
        "subsets": {k: list(v) for k, v in subsets.items()},
        "training": {
            "algorithms": fitted.algorithms,
            "n_algorithms": len(fitted.algorithms),
            "n_rows": len(fitted.training_rows),
            "rows_file": "training_rows.csv",
            "rows_sha256": training.rows_digest(fitted.training_rows),
        },
        "files": {file: _sha256(text) for file, text in sorted(tables.items())},
    }


def manifest_text(content: dict) -> str:
    return yaml.safe_dump(content, sort_keys=False, allow_unicode=True, width=100)


def stage_version(coefficients_dir: Path, name: str, tables: dict[str, str], content: dict) -> Path:
    """Write a version's files into a hidden staging directory next to where it will live."""
    staging = Path(tempfile.mkdtemp(dir=coefficients_dir, prefix=f".{name}."))
    staging.chmod(0o755)  # mkdtemp makes it private; a published version is readable by all
    try:
        for file, text in tables.items():
            (staging / file).write_text(text, encoding="utf-8", newline="")
        (staging / "manifest.yaml").write_text(manifest_text(content), encoding="utf-8", newline="")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def write_version(coefficients_dir: Path, name: str, fitted: FittedVersion, content: dict) -> Path:
    """Write a new version directory atomically; an existing version is never overwritten."""
    target = Path(coefficients_dir) / name
    if target.exists():
        raise FileExistsError(f"coefficient version {name!r} already exists: pinned versions are never rewritten")
    staging = stage_version(Path(coefficients_dir), name, version_tables(fitted), content)
    try:
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def read_index(coefficients_dir: Path) -> dict:
    return read_yaml(Path(coefficients_dir) / "index.yaml")


def read_version_tables(coefficients_dir: Path, name: str) -> tuple[dict, dict[str, pd.DataFrame]]:
    """(manifest, tables) of a pinned version, every table typed by its schema (fitting, verification,
    evaluation); scoring reads only the formula, with :func:`atari5_spec.method.pinned.load_coefficient_set`."""
    from ..data.paths import package_file

    directory = package_file(coefficients_dir, name, "the coefficient version")  # never a folder outside
    if not (directory / "manifest.yaml").is_file():
        known = ", ".join(read_index(coefficients_dir).get("versions", []))
        raise FileNotFoundError(f"no coefficient version {name!r} (known: {known})")
    content = read_yaml(directory / "manifest.yaml")
    # Typed by each file's Table Schema and parsed exactly as written: pinned numbers come back bit for bit.
    from ..data.loading import read_table

    schemas = Path(coefficients_dir).parent / "schemas"
    from ..data.paths import read_package_text

    tables = {field: read_table(directory / file, json.loads(
                  read_package_text(schemas / f"{_RESOURCE_SCHEMAS[file][1]}.schema.json")))
              for field, file in TABLE_FILES.items()}
    return content, tables


_RESOURCE_SCHEMAS = {
    "subset_models.csv": ("subset-models", "coefficients-subset-models", "Subset models and their metrics"),
    "subset_coefficients.csv": ("subset-coefficients", "coefficients-subset-coefficients", "Subset model coefficients"),
    "per_game_models.csv": ("per-game-models", "coefficients-per-game-models", "Per-game models (Tables 10, 11)"),
    "per_game_metrics.csv": ("per-game-metrics", "coefficients-per-game-metrics", "Per-game model R^2 and N"),
    "normalisation.csv": ("normalisation", "coefficients-normalisation", "Normalisation constants of the version"),
    "training_rows.csv": ("training-rows", "coefficients-training-rows", "Exact training rows of the version"),
}


def version_resources(name: str) -> list[dict]:
    """datapackage.json resources describing the tables of version ``name``."""
    from ..data.datapackage import table_resource

    return [table_resource(f"coefficients-{name}-{stem}", f"coefficients/{name}/{file}",
                           f"schemas/{schema}.schema.json", f"{title} ({name})")
            for file, (stem, schema, title) in _RESOURCE_SCHEMAS.items()]


def register_version(descriptor: dict, name: str) -> dict:
    """Add version ``name``'s resources to a descriptor (hashes are filled by refresh_resource_stats)."""
    known = {r["name"] for r in descriptor["resources"]}
    descriptor["resources"] += [r for r in version_resources(name) if r["name"] not in known]
    return descriptor


def index_text(default: str, versions: list[str]) -> str:
    return yaml.safe_dump({"default": default, "versions": list(versions)}, sort_keys=False)
