"""``atari5-spec verify``: the package still reproduces every pinned and published number.

For a release to go out, all of these must hold:

1. the package is valid (:func:`atari5_spec.data.validation.validate_package`);
2. for every pinned coefficient version: its files are the ones its manifest
   hashed; its training rows still exist in data/scores.csv with the same
   numbers; and every model recomputed from those rows of the data equals the
   pinned values (absolute tolerance 1e-9);
3. the paper's version reproduces the paper's printed Tables 2, 3, 8, 9, 10, 11
   and 12 at the printed precision;
4. the conformance vectors of SPEC.md (conformance/vectors.json) give their
   expected outputs with the reference, from the pinned parameters, by the
   spec's own rule (numbers within 1e-9 relative, printed strings and nulls
   exactly: numpy's log10 and powers differ in the last bits between CPUs);
5. every installed extension's checks (entry point group ``atari5_spec_verify``). The maintainers'
   distribution adds the pinned calibrations recomputed from the data, their interval tables recomputed
   from the pinned errors, and the subset searches rerun (:mod:`atari5_spec_maintainers.pinning.checks`);
   the calibration and interval files are otherwise held to their hashes by the package's validation.

Each check reports what it compared and every mismatch by version, model and
value, so that a failing release says exactly what no longer reproduces.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Callable, NamedTuple

import pandas as pd

from ..data.datapackage import package_root
from ..data.paths import read_package_bytes
from ..data.published import as_printed, decimals, published_rows
from . import coefficients as coef
from . import reproduction, training

__all__ = ["Check", "verify", "format_report", "PINNED_TOLERANCE"]

PINNED_TOLERANCE = 1e-9
MAX_LISTED = 12  # mismatches listed per check; the count says how many there are in all


class Check(NamedTuple):
    name: str
    compared: int
    mismatches: list  # human-readable lines
    max_abs_diff: float | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatches


# --- comparisons ---------------------------------------------------------------

def compare_numbers(label: str, pinned: pd.DataFrame, computed: pd.DataFrame, keys: list[str],
                    columns: list[str], tolerance: float = PINNED_TOLERANCE) -> Check:
    """Pinned vs recomputed values, joined on ``keys``, within an absolute tolerance."""
    merged = pinned.merge(computed, on=keys, how="outer", suffixes=("_pinned", "_computed"), indicator=True)
    mismatches, worst, compared = [], 0.0, 0
    for row in merged.to_dict("records"):
        key = ", ".join(str(row[k]) for k in keys)
        if row["_merge"] != "both":
            side = "pinned only" if row["_merge"] == "left_only" else "computed only"
            mismatches.append(f"{label} [{key}]: {side}")
            continue
        for column in columns:
            a, b = row[f"{column}_pinned"], row[f"{column}_computed"]
            compared += 1
            if isinstance(a, str) or isinstance(b, str):
                if str(a) != str(b):
                    mismatches.append(f"{label} [{key}] {column}: pinned {a!r}, computed {b!r}")
                continue
            diff = abs(float(a) - float(b))
            worst = max(worst, diff) if math.isfinite(diff) else math.inf
            if not diff <= tolerance:
                mismatches.append(f"{label} [{key}] {column}: pinned {float(a)!r}, computed {float(b)!r} "
                                  f"(diff {diff:.3g})")
    return Check(label, compared, mismatches, worst)


# How each published table is compared: join keys, and per column how the
# printed text is reproduced. Table 3 prints integers truncated (1975.8 -> 1,975).
PUBLISHED = {
    "table02_subsets": (["subset"], {"games": "text", "r2": "round", "rel_err_percent": "round"}),
    "table03_atari5_scores": (["algorithm_id"], {"median": "truncate", "atari5": "truncate",
                                                 "rel_err_percent": "round"}),
    "table08_algorithms": (["algorithm_id"], {"games": "round", "median": "round"}),
    "table09_subset_coefficients": (["subset", "position"], {"game_id": "text", "coefficient": "round"}),
    "table10_atari5_per_game": (["target_game_id", "term"], {"coefficient": "round"}),
    "table11_atari10_per_game": (["target_game_id", "term"], {"coefficient": "round"}),
    "table12_normalisation": (["game_id"], {"random": "exact", "human": "exact"}),
}


def compare_published(stem: str, computed: pd.DataFrame, root: Path) -> Check:
    """Computed table vs the paper's printed one, at the printed precision."""
    keys, columns = PUBLISHED[stem]
    printed = published_rows(stem, root)
    index = {tuple(str(v) for v in row): i for i, row in
             enumerate(computed[keys].astype(str).itertuples(index=False, name=None))}
    mismatches, compared = [], 0
    for row in printed:
        key = tuple(row[k] for k in keys)
        if key not in index:
            mismatches.append(f"{stem} [{', '.join(key)}]: not computed")
            continue
        values = computed.iloc[index[key]]
        for column, mode in columns.items():
            compared += 1
            text, value = row[column], values[column]
            if mode == "text":
                got = str(value)
            elif mode == "exact":
                got = text if float(value) == float(text) else repr(float(value))
            else:
                got = as_printed(float(value), decimals(text), truncate=(mode == "truncate"))
            if got != text:
                mismatches.append(f"{stem} [{', '.join(key)}] {column}: printed {text}, computed {got}"
                                  + ("" if mode in ("text", "exact") else f" ({float(value)!r})"))
    if len(index) != len(printed):
        mismatches.append(f"{stem}: {len(index)} rows computed, {len(printed)} printed")
    return Check(f"published {stem}", compared, mismatches)


# --- one pinned version ------------------------------------------------------------

def check_files(name: str, directory: Path, content: dict) -> Check:
    mismatches = []
    for file, digest in content["files"].items():
        text = read_package_bytes(directory / file)
        if "sha256:" + hashlib.sha256(text).hexdigest() != digest:
            mismatches.append(f"{name}/{file}: content differs from the hash in manifest.yaml")
    return Check(f"{name}: pinned files", len(content["files"]), mismatches)


def check_training_rows(name: str, pinned_rows: pd.DataFrame, scores: pd.DataFrame) -> tuple[Check, pd.DataFrame]:
    """The pinned training rows, looked up by score_id in the current data."""
    current = scores.set_index("score_id")
    mismatches = []
    missing = pinned_rows[~pinned_rows["score_id"].isin(current.index)]
    mismatches += [f"{name}: training row score_id {r.score_id} ({r.algorithm_id}/{r.game_id}) is gone from data/scores.csv"
                   for r in missing.itertuples()]
    present = pinned_rows[pinned_rows["score_id"].isin(current.index)]
    now = current.loc[present["score_id"]]
    for pinned, (algorithm_id, game_id, score) in zip(present.itertuples(),
                                                      now[["algorithm_id", "game_id", "score"]].itertuples(index=False)):
        if (pinned.algorithm_id, pinned.game_id) != (algorithm_id, game_id) or pinned.score != score:
            mismatches.append(f"{name}: training row score_id {pinned.score_id} ({pinned.algorithm_id}/{pinned.game_id}) "
                              f"is {score!r} in data/scores.csv, pinned {pinned.score!r}")
    rows = now.reset_index()
    return Check(f"{name}: training rows in data", len(pinned_rows), mismatches), rows


def verify_version(dataset, name: str, coefficients_dir: Path, root: Path, reads=None) -> tuple[list[Check], dict]:
    """Every check of one pinned version (``reads``: a :class:`~.pinned_reads.PinnedReads` of ``dataset``, whose
    coefficients folder is ``coefficients_dir``, that the version's tables are read through)."""
    content, tables = (coef.read_version_tables(coefficients_dir, name) if reads is None
                       else reads.version_tables(name))
    checks = [check_files(name, coefficients_dir / name, content)]
    rows_check, rows = check_training_rows(name, tables["training_rows"], dataset.scores)
    checks.append(rows_check)
    games = dataset.games.drop(columns=["random_score", "human_score"]).merge(
        tables["normalisation"], on="game_id", how="left")
    refit = coef.fit_version(rows, games, dataset.algorithms, content["subsets"])
    checks += [
        compare_numbers(f"{name}: subset models", tables["subset_models"], refit.subset_models,
                        ["subset"], ["games", "n", "cv_mse", "cv_mae", "cv_r2", "rel_err_percent"]),
        compare_numbers(f"{name}: subset coefficients", tables["subset_coefficients"], refit.subset_coefficients,
                        ["subset", "position"], ["game_id", "coefficient"]),
        compare_numbers(f"{name}: per-game models", tables["per_game_models"], refit.per_game_models,
                        ["subset", "target_game_id", "term"], ["coefficient"]),
        compare_numbers(f"{name}: per-game metrics", tables["per_game_metrics"], refit.per_game_metrics,
                        ["subset", "target_game_id"], ["n", "r2"]),
    ]
    if content.get("reproduces") == "paper":
        # The published tables are compared with what the data gives now, not with the pinned files.
        computed = reproduction.reproduce_tables(dataset, refit._asdict(), rows)
        checks += [compare_published(stem, frame, root) for stem, frame in computed.items()]
    return checks, {"content": content, "tables": tables, "rows": rows}


def check_conformance(root: Path) -> Check:
    """conformance/vectors.json: every case recomputed by the reference gives its expected outputs (SPEC.md section
    12's rule), and its parameters are exactly the pinned files'."""
    from .conformance import vector_problems

    compared, problems = vector_problems(root)
    return Check("conformance vectors (SPEC.md)", compared, problems)


EXTENSIONS_GROUP = "atari5_spec_verify"  # entry points: checks another distribution adds (docs/architecture.md)


class Context(NamedTuple):
    """What an extension's ``start`` receives: the package folder, its dataset (None when a table does not parse),
    whether the slow searches run, verify's worker pool (its processes, forked before any thread started) and the
    progress callback."""
    root: Path
    dataset: object
    search: bool
    workers: object
    progress: Callable | None


def installed_extensions() -> list:
    """The ``start`` functions of every installed ``atari5_spec_verify`` entry point, by name: each takes a
    :class:`Context`, starts its slow work on the workers and returns a function giving its checks."""
    from importlib.metadata import entry_points

    return [point.load() for point in sorted(entry_points(group=EXTENSIONS_GROUP), key=lambda p: p.name)]


def verify(path: str | Path | None = None, search: bool = True, validate: bool = True,
           progress: Callable | None = None, extensions: list | None = None) -> list[Check]:
    """Recompute every pinned number from the data; the release is good when every returned check is ok.

    Parameters
    ----------
    path : str or Path, optional
        The package folder (default: the one you are in, else the installed copy).
    search : bool, default True
        Let the extensions rerun the subset searches (the slowest checks).
    validate : bool, default True
        Also validate the package (:func:`atari5_spec.validate`).
    progress : callable, optional
        Called with progress messages.
    extensions : list, optional
        The extensions' ``start`` functions (default: every installed ``atari5_spec_verify`` entry point; the
        maintainers' distribution adds the calibrations, interval tables and searches recomputed).

    Returns
    -------
    list of Check
        One per check (validation, every pinned coefficient version at
        absolute tolerance 1e-9, the paper's printed tables, the conformance
        vectors, then each extension's), each with ``ok`` and what differs.

    Notes
    -----
    The version checks run even when validation fails (e.g. a changed score
    breaks its file's hash), so that the report names what no longer reproduces.
    """
    from ..data.limits import WORKER_ANSWER_SECONDS, WORKER_EXIT_SECONDS
    from ..data.loading import load
    from ..data.processes import WorkerTimeout, close_pool, wait_for, worker_pool
    from ..data.validation import frictionless_problems, validate_package

    root = package_root(path)
    starts = installed_extensions() if extensions is None else extensions
    # The workers are forked first, while this process runs one thread (else spawned): Frictionless's row checks,
    # then the extensions' slow work, run there beside every other check. Every wait on them is bounded, and so is
    # closing the pool: a hung worker fails the run with its name instead of holding it.
    workers = worker_pool(2 if starts and search else 1)
    try:
        if validate:
            rows_checked = workers.submit(frictionless_problems, root)
            structure = lambda: wait_for(rows_checked, WORKER_ANSWER_SECONDS, "Frictionless's row checks")  # noqa: E731
        else:
            structure = None
        try:
            dataset = load(root)
        except ValueError:
            dataset = None  # validation below says which cells do not parse
        context = Context(root, dataset, search, workers, progress)
        finishes = [start(context) for start in starts]
        checks = []
        if dataset is not None:
            coefficients_dir = root / "coefficients"
            for name in coef.read_index(coefficients_dir)["versions"]:
                checks += verify_version(dataset, name, coefficients_dir, root)[0]
            checks.append(check_conformance(root))
        if validate:  # late: Frictionless's row checks ran beside all the above, in their own process
            problems = validate_package(root, structure=structure, data=dataset)
            checks.insert(0, Check("package valid (frictionless + pandera)", 1, [str(p) for p in problems]))
        for finish in finishes:
            checks += finish()
    except WorkerTimeout as hung:
        return [Check("verify's worker pool", 0, [f"{hung}; the worker was killed and nothing was verified: "
                                                  "run `atari5-spec verify` again"])]
    finally:
        close_pool(workers, WORKER_EXIT_SECONDS)
    return checks


def format_report(checks: list[Check]) -> str:
    """A short table of what was checked, then every mismatch."""
    width = max(len(c.name) for c in checks)
    lines = [f"{'check':<{width}}  {'compared':>8}  {'max |diff|':>10}  result", "-" * (width + 32)]
    for c in checks:
        diff = "" if c.max_abs_diff is None else f"{c.max_abs_diff:.1e}"
        lines.append(f"{c.name:<{width}}  {c.compared:>8}  {diff:>10}  {'ok' if c.ok else f'FAIL ({len(c.mismatches)})'}")
    failed = [c for c in checks if not c.ok]
    for c in failed:
        lines.append("")
        lines.append(f"FAIL {c.name}:")
        lines += [f"  {m}" for m in c.mismatches[:MAX_LISTED]]
        if len(c.mismatches) > MAX_LISTED:
            lines.append(f"  ... and {len(c.mismatches) - MAX_LISTED} more")
    return "\n".join(lines)
