"""The conformance vectors of SPEC.md (conformance/vectors.json): run each case with the reference, compare.

A vectors file holds the parameters its cases use (one coefficient version's constants and weights; the rows
of interval tables) and the cases: scores in, full-precision numbers and printed strings out, or a refusal and its
reason code (``{"refused": {"reason": ..., "games": [...]}}``, SPEC.md section 12). :func:`run_case` computes a case's outputs with :mod:`.reference` alone; :func:`vector_problems` (what
``atari5-spec verify`` runs) checks that every case gives its expected outputs as SPEC.md section 12 asks of any
implementation (numbers within :data:`TOLERANCE` relative, printed strings and nulls exactly) and that the
parameters are exactly the pinned files' (so the vectors cannot drift from the data). The reference is held to
the spec's rule, not to the bits of the machine that wrote the file: numpy computes float64 log10 and powers with
CPU-dependent code (AVX-512 machines take other routines than glibc's), one or two units in the last place apart. scripts/make_conformance_vectors.py wrote the
file once from the reference; tests/test_conformance.py also runs every case through ``atari5_spec.score`` and
a port written from SPEC.md alone (conformance/port.py), and the site's scorer runs them in the browser.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..data.errors import InputError
from ..data.paths import read_package_text
from . import reference

__all__ = ["VECTORS_PATH", "TOLERANCE", "read_vectors", "run_case", "vector_problems", "differences",
           "parameters_from_package", "TABLE_FIELDS"]

VECTORS_PATH = "conformance/vectors.json"
TOLERANCE = 1e-9  # SPEC.md section 12: each expected number reproduced within TOLERANCE x max(1, |expected|)
TABLE_FIELDS = ("interval", "subset", "range", "level", "status", "half_width", "factor")  # what a scorer needs


def read_vectors(root: Path) -> dict:
    return json.loads(read_package_text(Path(root) / VECTORS_PATH, root))


def _table(vectors: dict, name: str) -> reference.IntervalTable:
    rows = {}
    for r in vectors["interval_tables"][name]:
        row = reference.IntervalRow(r["interval"], r["subset"], r["range"], r["level"], r["status"],
                                    r["half_width"], r["factor"], 0, "", 0, 0, 0, 0, 0, 0, None, None, "")
        rows[(row.interval, row.subset, row.range, row.level)] = row
    return reference.IntervalTable(name, rows)


def _refused(vectors: dict, subset: str, scores: dict[str, list]) -> dict | None:
    """The case's refusal (SPEC.md sections 1, 1.1 and 4) as the vectors give it, or None; the input rules
    (section 1.1) with the file's ``input_rules.best_published``."""
    games = vectors["coefficients"]["games"]
    constants = {g: (c["random"], c["human"]) for g, c in games.items()}
    best = vectors.get("input_rules", {}).get("best_published", {})  # spec 1.1 files have no input rules
    found = reference.refusal(scores, games, vectors["coefficients"]["subsets"][subset]["games"],
                              constants if "input_rules" in vectors else None,
                              reference.upper_bounds(constants, best) if best else None)
    return None if found is None else {"reason": found[0], "games": found[1]}


def _estimate(vectors: dict, subset: str, scores: dict[str, list]) -> tuple[dict, dict, float]:
    coefficients = vectors["coefficients"]
    model = coefficients["subsets"][subset]
    constants = {g: (c["random"], c["human"]) for g, c in coefficients["games"].items()}
    means = reference.seed_means({g: [reference.read_score(x) for x in v] for g, v in scores.items()
                                  if g in model["games"]})
    normalised = {g: float(reference.human_normalised(m, *constants[g])) for g, m in means.items()}
    return means, normalised, float(reference.subset_estimate(means, model["games"], model["weights"], constants))


def _pair(pair) -> list | None:
    return None if pair is None else [float(pair[0]), float(pair[1])]


def _printed(pair, what: str) -> list | None:
    return None if pair is None else [reference.printed(pair[0], what), reference.printed(pair[1], what)]


def _agent(vectors: dict, case: dict, agent: dict) -> dict[str, Any]:
    means, normalised, estimate = _estimate(vectors, case["subset"], agent["scores"])
    table = _table(vectors, case["calibration"])
    row = reference.interval_row(table, "agent", case["subset"], estimate, case["level"])
    interval = reference.prediction_interval(estimate, row, agent.get("seed_interval"))
    return {"means": means, "normalised": normalised, "estimate": estimate,
            "range": reference.range_of(estimate, table.pooled), "status": row.status if row else None,
            "half_width": row.half_width if row else None, "prediction_interval": _pair(interval),
            "printed": {"estimate": reference.printed(estimate), "prediction_interval": _printed(interval, "interval")}}


def run_case(vectors: dict, case: dict) -> dict[str, Any]:
    """A case's outputs computed by the reference (the shape of its ``expected``): ``{"refused": {"reason",
    "games"}}`` (with ``"side"``, agent or baseline, for a ratio) when SPEC.md refuses its inputs."""
    if case["kind"] == "score":
        refused = _refused(vectors, case["subset"], case["scores"])
        return {"refused": refused} if refused else _agent(vectors, case, case)
    for side in ("agent", "baseline"):
        refused = _refused(vectors, case["subset"], case[side]["scores"])
        if refused:
            return {"refused": {**refused, "side": side}}
    agent, baseline = _agent(vectors, case, case["agent"]), _agent(vectors, case, case["baseline"])
    if baseline["estimate"] <= 0:  # SPEC.md section 9: no ratio to a baseline at (or below) random play
        return {"refused": {"reason": "baseline-at-random", "games": [], "side": "baseline"}}
    ratio = agent["estimate"] / baseline["estimate"]
    interval = None
    if agent["prediction_interval"] is not None and baseline["prediction_interval"] is not None \
            and agent["estimate"] > 0:
        if case["same_setup"]:
            row = _table(vectors, case["calibration"]).rows.get(("ratio-same-setup", case["subset"], "in range",
                                                                 case["level"]))
            interval = reference.same_setup_ratio_interval(agent["estimate"], baseline["estimate"], row,
                                                           case.get("ratio_seed_interval"))
        else:
            interval = reference.ratio_interval(agent["estimate"], baseline["estimate"],
                                                agent["prediction_interval"], baseline["prediction_interval"])
    margin = reference.pinned_margin(_table(vectors, case["calibration"]),
                           "ratio-same-setup" if case["same_setup"] else "ratio-two-papers",
                           case["subset"], case["level"])
    return {"agent": agent, "baseline": baseline, "ratio": ratio, "ratio_interval": _pair(interval),
            "decision": reference.ratio_decision(interval, ratio, margin) if interval else None,
            "printed": {"ratio": reference.printed(ratio, "ratio"),
                        "ratio_interval": _printed(interval, "ratio interval")}}


def differences(expected: Any, got: Any, where: str, tolerance: float = 0.0) -> list[str]:
    """Every place where ``got`` is not ``expected``: numbers within ``tolerance`` x max(1, |expected|) (0: exactly),
    everything else (strings, nulls, keys either side, lengths) exactly."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = [f"{where}.{k}: missing" for k in expected if k not in got]
        out += [f"{where}.{k}: not expected" for k in got if k not in expected]
        return out + [d for k in expected if k in got
                      for d in differences(expected[k], got[k], f"{where}.{k}", tolerance)]
    if isinstance(expected, list) and isinstance(got, list) and len(expected) == len(got):
        return [d for i, (e, g) in enumerate(zip(expected, got)) for d in differences(e, g, f"{where}[{i}]", tolerance)]
    if isinstance(expected, float) and isinstance(got, float) and (
            expected == got or (math.isnan(expected) and math.isnan(got))
            or abs(expected - got) <= tolerance * max(1.0, abs(expected))):
        return []
    return [] if expected == got else [f"{where}: expected {expected!r}, computed {got!r}"]


def parameters_from_package(root: Path, coefficients: str, tables: list[str], games: list[str] | None = None
                            ) -> dict[str, Any]:
    """The parameters a vectors file carries, read from the pinned files (constants, weights, table rows)."""
    import csv

    from .calibration import read_calibration_intervals, read_named_calibration
    from .pinned import load_coefficient_set

    version = load_coefficient_set(coefficients, root)
    used = games or sorted({g for m in version.subsets.values() for g in m.games})
    params = {"coefficients": {
        "name": version.version, "digest": version.digest,
        "games": {g: {"random": version.constants[g][0], "human": version.constants[g][1]} for g in used},
        "subsets": {m.name: {"games": list(m.games), "weights": list(m.coefficients)}
                    for m in version.subsets.values()}}, "interval_tables": {}}
    for name in tables:
        calibration = read_named_calibration(version.path, name)
        table = read_calibration_intervals(version.path, calibration) if calibration else None
        if table is None:
            raise InputError(f"calibration/intervals/{name}.csv: not pinned here (datapackage.json does not list it "
                             "or its calibration)")
        package = Path(version.path).parent.parent
        text = read_package_text(package / "calibration" / "intervals" / f"{name}.csv", package)
        params["interval_tables"][name] = [
            {k: (float(r[k]) if k in ("level", "half_width", "factor") and r[k] != "" else None if r[k] == "" else r[k])
             for k in TABLE_FIELDS} for r in csv.DictReader(text.splitlines())]
    return params


def vector_problems(root: Path) -> tuple[int, list[str]]:
    """(cases run, problems): every case of conformance/vectors.json recomputed by the reference must give its
    expected outputs by SPEC.md section 12's rule (:func:`differences` within :data:`TOLERANCE`), and the file's
    parameters must be exactly the pinned files'."""
    path = Path(root) / VECTORS_PATH
    if not path.is_file():
        return 0, [f"{VECTORS_PATH}: missing (python scripts/make_conformance_vectors.py writes it)"]
    vectors = read_vectors(root)
    problems = []
    if vectors.get("spec_version") != reference.SPEC_VERSION:
        problems.append(f"{VECTORS_PATH}: spec_version {vectors.get('spec_version')!r}, the reference implements "
                        f"{reference.SPEC_VERSION}")
    try:
        pinned = parameters_from_package(root, vectors["coefficients"]["name"], list(vectors["interval_tables"]),
                                         list(vectors["coefficients"]["games"]))
    except InputError as error:  # a pinned file edited by hand: a failing check naming it, never a traceback
        problems.append(f"{VECTORS_PATH} parameters: {error}")
    else:
        for key in ("coefficients", "interval_tables"):
            problems += [f"{VECTORS_PATH} parameters: {d}" for d in differences(pinned[key], vectors[key], key)]
    for case in vectors["cases"]:
        problems += differences(case["expected"], run_case(vectors, case), case["id"], TOLERANCE)
    return len(vectors["cases"]), problems
