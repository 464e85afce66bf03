"""Pinning a version's out-of-sample errors as calibration/<name>.csv, and checking them again.

The prediction interval ``atari5-spec score`` prints is only as good as the
errors it is calibrated on, so they are pinned like coefficients: each file is
written once (a versioned data event: minor version bump and a CHANGELOG line)
and never rewritten; ``atari5-spec verify`` recomputes every edition from the
data for exactly the agents it lists. New evidence (more held-out agents)
becomes the method's next edition, ``<version>[.<method>].<N>`` beside the old
file, with ``--pin-calibration`` again.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from atari5_spec.data.datapackage import bump_version, descriptor_text, package_root, read_descriptor, table_resource
from atari5_spec.data.errors import InputError
from atari5_spec.data.writing import frame_csv_text
from atari5_spec.method.calibration import CALIBRATION_COLUMNS, CALIBRATION_METHODS, IN_RANGE_COLUMNS, IN_RANGE_MIN, RESELECTED_COLUMNS, calibration_editions, calibration_name, pinned_calibration_names, split_name

__all__ = ["calibration_text", "pin_calibration", "calibration_mismatches", "calibration_names", "CALIBRATION_SCHEMA",
           "IN_RANGE_SCHEMA", "pinned_calibration_names", "intervals_resource", "interval_table_files",
           "interval_table_mismatches", "algorithm_sources"]

CALIBRATION_SCHEMA = "schemas/calibration.schema.json"
IN_RANGE_SCHEMA = "schemas/calibration-in-range.schema.json"
RESELECTED_SCHEMA = "schemas/calibration-reselected.schema.json"
SCHEMAS = {"pooled": CALIBRATION_SCHEMA, "in-range": IN_RANGE_SCHEMA, "reselected": RESELECTED_SCHEMA,
           "formula": RESELECTED_SCHEMA}  # formula: the reselected columns (held-out rows record the pinned games)
FOLD_METHODS = ("formula", "reselected")  # errors from the fold searches (method/evaluation/reselection.py)
FORMULA_KINDS = {"formula": ("held-out",)}  # method -> kinds of agent scored by the pinned formula, not a fold
CHECKED_COLUMNS = ("estimate", "true_median", "log_error", "ratio")


def with_range(errors: pd.DataFrame) -> pd.DataFrame:
    """The errors with the in-range method's ``range`` column (estimate >= 40: 'in range', else 'extrapolation')."""
    return errors.assign(range=["in range" if e >= IN_RANGE_MIN else "extrapolation" for e in errors["estimate"]])


def calibration_text(errors: pd.DataFrame, method: str = "pooled") -> str:
    ordered = errors.sort_values(["subset", "kind", "agent"], kind="stable")
    if method in FOLD_METHODS:
        return frame_csv_text(ordered, RESELECTED_COLUMNS)
    if method == "in-range":
        return frame_csv_text(with_range(ordered), IN_RANGE_COLUMNS)
    return frame_csv_text(ordered, CALIBRATION_COLUMNS)


def calibration_names(version: str) -> dict[str, str]:
    """method -> first edition's calibration name (``paper-2023``, ``paper-2023.in-range``) of a coefficient
    version."""
    return {method: calibration_name(version, method) for method in CALIBRATION_METHODS}


def _resource(version: str, method: str = "pooled", edition: int = 1) -> dict:
    name = calibration_name(version, method, edition)
    what = ("prediction-interval calibration" if method == "pooled"
            else f"prediction-interval calibration, method {method}: {CALIBRATION_METHODS[method][1]}")
    if edition > 1:
        what += f"; edition {edition}, pinned beside the earlier editions, which are kept"
    return table_resource(f"calibration-{name}", f"calibration/{name}.csv", SCHEMAS[method],
                          f"Out-of-sample errors of {version} ({what})")


def intervals_resource(name: str) -> dict:
    """The datapackage.json resource of calibration/intervals/<name>.csv (docs/design/interval-tables.md)."""
    from atari5_spec.method.interval_table import INTERVALS_SCHEMA

    return table_resource(f"calibration-intervals-{name}", f"calibration/intervals/{name}.csv", INTERVALS_SCHEMA,
                          f"Pinned interval half-widths of calibration {name}: per interval, subset, range and "
                          "level, the model half-width in log10, the claim and its out-of-sample evidence")


def algorithm_sources(root: Path) -> dict[str, str]:
    """algorithm id -> source id from data/algorithms.csv (the interval tables' ``sources`` column)."""
    import csv

    with (Path(root) / "data" / "algorithms.csv").open(newline="", encoding="utf-8") as handle:
        return {r["algorithm_id"]: r["source_id"] for r in csv.DictReader(handle)}


def _calibration_from_text(name: str, text: str):
    """The :class:`~atari5_spec.method.calibration.Calibration` a calibration file's text holds."""
    import csv
    import hashlib

    from atari5_spec.method.calibration import Calibration

    version, method, edition = split_name(name)
    return Calibration(version, tuple(csv.DictReader(text.splitlines())),
                       hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], method, edition)


def interval_table_files(root: Path, names: list[str], pending: dict[str, str] | None = None) -> dict[str, str]:
    """calibration/intervals/<name>.csv -> text for each calibration ``name`` (its errors file as written, or as
    ``pending`` holds it: relative path -> text)."""
    from atari5_spec.method.interval_table import interval_table_text

    pending = pending or {}
    sources = algorithm_sources(root)
    out = {}
    for name in names:
        relative = f"calibration/{name}.csv"
        text = pending.get(relative)
        if text is None:
            text = (Path(root) / relative).read_text(encoding="utf-8")
        out[f"calibration/intervals/{name}.csv"] = interval_table_text(_calibration_from_text(name, text), sources)
    return out


def interval_table_mismatches(root: Path, name: str) -> tuple[int, list[str]]:
    """(rows compared, problems): calibration/intervals/<name>.csv against the table recomputed from the pinned
    errors file: every cell as text, except that two numbers may differ in their last digits (relative 1e-12: the
    Clopper-Pearson bisection and the same-setup sums round differently across Python and numpy releases); a
    missing table is a problem."""
    relative = f"calibration/intervals/{name}.csv"
    expected = interval_table_files(root, [name])[relative]
    path = Path(root) / relative
    if not path.is_file():
        return 0, [f"{relative}: missing (python scripts/pin_interval_tables.py writes it)"]
    pinned = path.read_text(encoding="utf-8")
    if pinned == expected:
        return pinned.count("\n") - 1, []
    pinned_lines, expected_lines = pinned.splitlines(), expected.splitlines()
    if len(pinned_lines) != len(expected_lines) or pinned_lines[:1] != expected_lines[:1]:
        return len(pinned_lines) - 1, [f"{relative}: differs from the recomputed table (row count or header)"]
    differ = [f"{relative} line {i + 2}: pinned {a!r}, recomputed {b!r}" for i, (a, b) in
              enumerate(zip(pinned_lines[1:], expected_lines[1:])) if not _same_row(a, b)]
    return len(pinned_lines) - 1, differ


def _same_cell(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=0.0)
    except ValueError:
        return False


def _same_row(a: str, b: str) -> bool:
    """Two interval-table lines (no quoted commas: the table's cells are codes and numbers) agree cell by cell."""
    cells_a, cells_b = a.split(","), b.split(",")
    return len(cells_a) == len(cells_b) and all(_same_cell(x, y) for x, y in zip(cells_a, cells_b))


def method_errors(dataset, version: str, method: str, progress=None) -> pd.DataFrame:
    """The errors a ``method`` calibration of ``version`` pins, from the data as it is now (reselected: every fold's
    staged search is run (bounded: about half a second of CPU per paper of the search set, on up to two
    processes))."""
    if method in FOLD_METHODS:
        from atari5_spec_research.evaluation.reselection import fold_selections, reselected_errors

        return reselected_errors(dataset, version, fold_selections(dataset, version, progress=progress),
                                 by_formula=FORMULA_KINDS.get(method, ()))
    from atari5_spec_research.evaluation import version_errors

    return version_errors(dataset, version)[1]


def pin_calibration(path, version: str, method: str = "pooled", progress=None) -> tuple[Path, str]:
    """Pin the version's ``method`` calibration from the current data; (path written, new data version).

    The first time: calibration/<version>[.<method>].csv. When the method is pinned already and the data now
    give other errors: the next edition, calibration/<version>[.<method>].<N>.csv, beside the earlier ones,
    which are never rewritten. When the newest edition holds exactly these errors: InputError ("nothing new").
    All files or none (one transaction)."""
    from atari5_spec.data.loading import load
    from atari5_spec.data.transaction import finished_by_recovery, package_transaction
    from atari5_spec_maintainers.versioning import changelog_with_entry, descriptor_with_stats

    if method not in CALIBRATION_METHODS:
        raise InputError(f"unknown calibration method {method!r}; known: {', '.join(CALIBRATION_METHODS)}")
    root = package_root(path, reader=False)  # writes: finishes an interrupted change under the lock
    coefficients = root / "coefficients" / version
    command = f"evaluate --pin-calibration {version} ({method})"
    # The lock is held from the first read to the commit: a concurrent writer waits.
    with package_transaction(root, command) as change:
        editions = calibration_editions(coefficients, method)
        if finished_by_recovery(root, command):  # this very command was killed mid-commit and is now complete
            return root / "calibration" / f"{calibration_name(version, method, editions[-1])}.csv", \
                read_descriptor(root)["version"]
        dataset = load(root)
        errors = method_errors(dataset, version, method, progress)
        text = calibration_text(errors, method)
        newest = calibration_name(version, method, editions[-1]) if editions else None
        if newest is not None and (root / "calibration" / f"{newest}.csv").read_text(encoding="utf-8") == text:
            raise InputError(f"nothing new: {newest} already holds these errors")
        edition = editions[-1] + 1 if editions else 1
        name = calibration_name(version, method, edition)
        relative = f"calibration/{name}.csv"
        table = interval_table_files(root, [name], {relative: text})  # written with the errors, derived from them
        descriptor = read_descriptor(root)
        descriptor["version"] = bump_version(descriptor["version"], "minor")
        if not any(r["name"] == f"calibration-{name}" for r in descriptor["resources"]):
            descriptor["resources"].append(_resource(version, method, edition))
        if not any(r["name"] == f"calibration-intervals-{name}" for r in descriptor["resources"]):
            descriptor["resources"].append(intervals_resource(name))
        descriptor = descriptor_with_stats(root, descriptor, {relative: text, **table})
        held = errors[(errors["kind"] == "held-out") & (errors["subset"] == "Atari-5")]
        changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8") if (root / "CHANGELOG.md").exists() else "# Changelog\n"
        counts = (f"{len(held)} held-out agents and "
                  f"{int((errors['kind'] != 'held-out').sum() / errors['subset'].nunique())} leave-one-paper-out "
                  "training agents per subset on average")
        if newest is None:
            line = (f"Data {descriptor['version']}: pinned the out-of-sample errors of `{version}` "
                    + (f"for the `{method}` calibration " if method != "pooled" else "") +
                    f"(`{relative}`: {counts}), the calibration of `score`'s prediction interval.")
        else:
            line = (f"Data {descriptor['version']}: calibration `{name}`, edition {edition} of `{version}`'s "
                    f"`{method}` calibration (`{relative}`: {counts}), from the data as it is now; `{newest}` "
                    "and earlier editions are kept unchanged and still verified.")
        change.commit({relative: text, **table, "datapackage.json": descriptor_text(descriptor),
                       "CHANGELOG.md": changelog_with_entry(changelog, "Added", line)})
    return root / relative, descriptor["version"]


def _recorded_selections(pinned: pd.DataFrame, method: str) -> dict:
    """paper -> {subset: games}: the games each fold chose, as a fold calibration's rows (``pinned``) record them."""
    from atari5_spec_research.evaluation.reselection import selections_from_rows

    return selections_from_rows(pinned[pinned["kind"].notna()].to_dict("records"), folds_only=method == "formula")


def _pinned_calibration(dataset, name: str) -> pd.DataFrame:
    import json

    from atari5_spec.data.loading import read_table

    parts = split_name(name)
    if parts is None:
        raise InputError(f"calibration/{name}.csv: not a calibration name (<version>[.<method>][.<edition>])")
    schema = json.loads((dataset.root / SCHEMAS[parts[1]]).read_text(encoding="utf-8"))
    return read_table(dataset.root / "calibration" / f"{name}.csv", schema)


def recorded_selections(dataset, name: str) -> dict:
    """The games each fold chose, as the fold calibration ``name``'s file records them (read from it)."""
    return _recorded_selections(_pinned_calibration(dataset, name), split_name(name)[1])


def searched_selections(dataset, version: str, searched: dict | None = None) -> dict:
    """paper -> {subset: games}: what each fold's staged search chooses on ``version``'s search set, rerun now
    (``searched``: as for :func:`calibration_mismatches`; a future in it is waited for)."""
    from atari5_spec_research.evaluation.reselection import fold_selections, search_version

    searched = {} if searched is None else searched
    key = search_version(dataset, version)
    if key not in searched:
        searched[key] = fold_selections(dataset, version)
    if hasattr(searched[key], "result"):  # a future: wait for it, bounded (a hung worker is named, not waited on)
        from atari5_spec.data.limits import WORKER_ANSWER_SECONDS
        from atari5_spec.data.processes import wait_for

        searched[key] = wait_for(searched[key], WORKER_ANSWER_SECONDS, f"the fold searches of {key}")
    return searched[key]


def selection_mismatches(name: str, recorded: dict, chosen: dict) -> list[str]:
    """The fold calibration ``name``'s recorded games (:func:`recorded_selections`) against the games the searches
    choose (:func:`searched_selections`), one line per difference."""
    problems = []
    for paper, games_of in sorted(chosen.items()):
        for subset, games in recorded.get(paper, {}).items():
            if subset in games_of and tuple(games_of[subset]) != tuple(games):
                problems.append(f"{name} {subset} without {paper!r}: the search chooses "
                                f"{' '.join(games_of[subset])}, pinned {' '.join(games)}")
    return problems


def _row_mismatches(name: str, merged: pd.DataFrame, tolerance: float, texts: tuple[str, ...]) -> list[str]:
    """One line per row of ``merged`` (pinned and computed errors of calibration ``name``) no longer computable, and
    per column whose computed value differs from the pinned one: numbers beyond ``tolerance``, the ``texts`` at all
    (a missing text differs), in row order. Each comparison is made column by column, once; only the rows that
    differ become dicts for their lines (turning every row into one was most of a check's time)."""
    missing = (merged["_merge"] != "both").to_numpy()
    differs = {c: ~(np.abs(merged[c].to_numpy(float) - merged[f"{c}_computed"].to_numpy(float)) <= tolerance)
               for c in CHECKED_COLUMNS}
    differs.update({c: (merged[c] != merged[f"{c}_computed"]).fillna(True).to_numpy(bool) for c in texts})
    flagged = np.flatnonzero(missing | np.logical_or.reduce(list(differs.values())))
    problems = []
    for i, row in zip(flagged, merged.iloc[flagged].to_dict("records")):
        where = f"{name} {row['subset']} {row['agent']}"
        if missing[i]:
            problems.append(f"{where}: pinned, but no longer computable from the data")
            continue
        problems += [f"{where} {c}: pinned {row[c]!r}, computed {row[f'{c}_computed']!r}"
                     for c, differ in differs.items() if differ[i]]
    return problems


def calibration_mismatches(dataset, name: str, tolerance: float, search: bool = False,
                           searched: dict | None = None, agents=None, reads=None) -> tuple[int, list[str]]:
    """(rows compared, mismatches) between calibration/<name>.csv (``<version>[.<method>][.<edition>]``) and the
    errors recomputed from the data, for the agents the file lists. A reselected calibration's errors are
    recomputed from the games its rows record; with ``search`` each fold's staged search is rerun too and must
    choose those games (``searched``: a dict that keeps each search set's fold selections for the next call, so
    versions that share a search set search once; a value may be a future of them, started earlier by the caller
    so that the searches run beside other work; ``agents``: ``agent_scores(dataset)``, when the caller has it;
    ``reads``: a :class:`~atari5_spec.method.pinned_reads.PinnedReads`, the versions' tables read once)."""
    from atari5_spec_research.evaluation import version_errors

    pinned = _pinned_calibration(dataset, name)           # refuses a name that is not a calibration's
    version, method, _ = split_name(name)
    problems = []
    if method in FOLD_METHODS:
        from atari5_spec_research.evaluation.reselection import reselected_errors

        recorded = _recorded_selections(pinned, method)
        if search:
            problems += selection_mismatches(name, recorded, searched_selections(dataset, version, searched))
        errors = reselected_errors(dataset, version, recorded, agents, by_formula=FORMULA_KINDS.get(method, ()),
                                   reads=reads)
    else:
        _, errors = version_errors(dataset, version, agents, reads)
    if method == "in-range":
        errors = with_range(errors)
    merged = pinned.merge(errors, on=["subset", "agent"], how="left", suffixes=("", "_computed"), indicator=True)
    texts = ("range", "games") if method in FOLD_METHODS else ("range",) if method == "in-range" else ()
    problems += _row_mismatches(name, merged, tolerance, texts)
    return len(pinned), problems
