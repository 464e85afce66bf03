"""The browser scorer's parameters: the pinned formula's constants and the pinned interval table, read at build time.

score.html computes ``atari5-spec score`` for one value per game in the
browser, with the JavaScript port of SPEC.md in static/site.js (tests run it
on conformance/vectors.json). Nothing here is typed in or probed: the games,
weights and normalisation constants come from the pinned coefficient version;
each range band's half-width and claim from the calibration's interval table
(calibration/intervals/<name>.csv); the sentences beside them (coverage,
why an interval is withheld, the protocol lines, the below-random line) are
rendered by the same Python functions `score` prints with, from the same
numbers, at one estimate inside the band (they do not depend on where in the
band). The script then evaluates ``phi^-1(phi(estimate) -+ h)`` with the
band's ``h``; tests/test_site_browser.py compares it with the Python API and
the command line over many inputs.
"""

from __future__ import annotations

from typing import Any

from atari5_spec.data.frames import format_frames
from atari5_spec.data.limits import MAX_ABS_SCORE
from atari5_spec.method.reference import BOUND_FACTOR, FRACTION_LIMIT, MIN_GAMES_FOR_FRACTIONS, upper_bounds
from atari5_spec.method import reference
from atari5_spec.method.calibration import read_calibration, read_calibration_intervals
from atari5_spec.method.pinned import CoefficientSet
from atari5_spec.scoring.estimate import REPORTED_SUBSETS, ProtocolCheck, _prediction_interval, protocol_messages, score_runs, withheld_note
from atari5_spec.scoring.signature import data_version_of, signature

__all__ = ["scorer_data", "subset_bands", "band_interval", "score_one_seed", "MAIN_SUBSET", "LEVEL"]

MAIN_SUBSET = "Atari-5"
LEVEL = 0.95  # the level `atari5-spec score` prints by default
INSIDE = {"in range": 2.0 * reference.IN_RANGE_MIN, "extrapolation": reference.IN_RANGE_MIN / 2.0,
          "pooled": 2.0 * reference.IN_RANGE_MIN}  # an estimate inside each range, where a band's sentences are made


def score_one_seed(runs, subset: str, coefficients: CoefficientSet, extremes=None, sticky: float | None = None,
                   frames: int | None = None):
    """``score_runs`` as `atari5-spec score` calls it for one value per game (no bootstrap, the default level),
    with ``--sticky-actions`` / ``--frames`` when given."""
    protocol = (ProtocolCheck(sticky, frames, "as given", ()) if sticky is not None or frames is not None
                else None)
    return score_runs(runs, subset, coefficients, n_bootstrap=0, confidence=LEVEL, seed=0, extremes=extremes or {},
                      protocol=protocol)


def _protocol_lines(model, coefficients: CoefficientSet, calibration, estimate: float, options) -> dict[str, Any]:
    """What `score` prints as protocol lines around ``estimate``: per sticky-action option, per frames option, and
    where the frames lines go when both are given (``insert_at``, found by comparing the lists of lines)."""
    def lines(sticky=None, frames=None):
        return protocol_messages(model.name, calibration, coefficients.version, sticky, frames, estimate, LEVEL)

    sticky = [lines(sticky=o["value"]) for o in options["sticky"]]
    frames = [lines(frames=o["value"]) for o in options["frames"]]
    insert_at = []
    for i, option in enumerate(options["sticky"]):
        k = len(sticky[i])
        if options["frames"]:
            both = lines(sticky=option["value"], frames=options["frames"][0]["value"])
            k = next((k for k in range(len(sticky[i]) + 1) if sticky[i][:k] + frames[0] + sticky[i][k:] == both), None)
            if k is None:
                raise AssertionError(f"{model.name}: `score`'s protocol lines with both options are not the lines of "
                                     "each option; update maintainers/atari5_spec_maintainers/site/scorer.py and static/site.js together")
        insert_at.append(k)
    return {"sticky": sticky, "frames": frames, "insert_at": insert_at}


def subset_bands(model, coefficients: CoefficientSet) -> list[dict[str, Any]]:
    """The bands of ``model`` under the calibration `score` uses (see :func:`_bands`)."""
    calibration = read_calibration(coefficients.path)
    table = read_calibration_intervals(coefficients.path, calibration) if calibration else None
    return _bands(model, coefficients, calibration, table)


def band_interval(estimate: float, bands: list[dict[str, Any]]) -> tuple[dict[str, Any], float | None, float | None]:
    """(band, low, high): the prediction interval of a one-seed-per-game ``estimate`` with its band's half-width
    (SPEC.md section 7; None, None when withheld), as score.html computes it."""
    band = next(b for b in bands if b["from"] is None or estimate >= b["from"])
    pair = reference.prediction_interval(estimate, band["row"]) if band["row"] else None
    return (band, None, None) if pair is None else (band, pair[0], pair[1])


def _bands(model, coefficients: CoefficientSet, calibration, table, protocol_options=None) -> list[dict[str, Any]]:
    """Highest first: from which estimate on the band applies (None: every lower estimate), its table row (range,
    status, half-width) and what `score` prints with it (calibration, coverage, signature, notes)."""
    ranges = (["pooled"] if table is not None and table.pooled else ["in range", "extrapolation"]
              if table is not None else [None])
    runs = {g: (0.0,) for g in model.games}  # one seed per game: only the count of seeds enters the sentences
    data_version = data_version_of(coefficients)
    bands = []
    for group in ranges:
        estimate = INSIDE.get(group, 2.0 * reference.IN_RANGE_MIN)
        row = reference.interval_row(table, "agent", model.name, estimate, LEVEL) if table is not None else None
        pi = _prediction_interval(model, runs, estimate, None, calibration, LEVEL, table) if table else None
        note = withheld_note(model, estimate, calibration, LEVEL, table) if table and pi is None else None
        bands.append({
            "from": reference.IN_RANGE_MIN if group == "in range" else None,
            "row": row, "range": pi.range if pi else None, "status": row.status if row else None,
            "half_width": pi.log_half_width if pi else None,
            "signature": signature(model.name, coefficients, [1] * len(model.games), None,
                                   calibration=pi.calibration if pi else None, data_version=data_version),
            "notes": [note] if note else [],
            "calibration": pi.calibration if pi else None, "n_errors": pi.n_errors if pi else None,
            "coverage": pi.coverage if pi else None, "seed_part": pi.seed_part if pi else None,
            "level": pi.level if pi else None, "level_label": f"{pi.level * 100:g}" if pi else None})
        if protocol_options is not None:
            bands[-1]["protocol"] = _protocol_lines(model, coefficients, calibration, estimate, protocol_options)
    return bands


def _protocol_options(dataset, coefficients: CoefficientSet, calibration) -> dict[str, Any]:
    """The sticky-action probabilities and training budgets found in the data (the scorer's protocol options; the
    lines `score` prints for each are in each band of the main subset)."""
    algorithms = dataset.algorithms
    sticky = sorted({float(v) for v in algorithms["sticky_action_probability"].dropna()})
    frames = {int(v) for v in algorithms["training_frames"].dropna()}
    if calibration is not None:
        frames |= {int(float(r["budget"])) for r in calibration.rows if r.get("budget")}
    options = {"sticky": [{"value": p, "label": f"{p:g}"} for p in sticky],
               "frames": [{"value": f, "label": format_frames(f)} for f in sorted(frames)], "episode_cap": []}
    try:
        from atari5_spec.scoring.protocol_conditions import episode_cap_message
    except ImportError:  # a `score` without --max-episode-frames
        return options
    if "max_episode_frames" in algorithms:
        for cap in sorted({int(v) for v in algorithms["max_episode_frames"].dropna()}):
            # the line `score --max-episode-frames N` adds (it does not depend on the estimate)
            message = episode_cap_message(cap, calibration, MAIN_SUBSET, dataset.root)
            options["episode_cap"].append({"value": cap, "label": f"{cap:,}",
                                           "messages": [message] if message else []})
    return options


def _below_random_line(dataset, model, coefficients: CoefficientSet, calibration) -> dict[str, Any] | None:
    """The protocol line `score` adds when some of the subset's games are below random play, as the parts `score`
    renders it from (:func:`~atari5_spec.scoring.protocol_conditions.below_random_template`)."""
    from atari5_spec.scoring.protocol_conditions import below_random_template

    return below_random_template(calibration, model.name, model.games, dataset.root, coefficients.constants)


def scorer_data(dataset, coefficients: CoefficientSet) -> dict[str, Any]:
    """Everything score.html needs, as plain JSON-able values."""
    calibration = read_calibration(coefficients.path)
    table = read_calibration_intervals(coefficients.path, calibration) if calibration else None
    main = coefficients.subsets[MAIN_SUBSET]
    names = dataset.games.set_index("game_id")["name"].astype(str)
    options = _protocol_options(dataset, coefficients, calibration)
    subsets = []
    for name in [MAIN_SUBSET] + [s for s in REPORTED_SUBSETS if s != MAIN_SUBSET]:
        model = coefficients.subsets.get(name)
        if model is None or not set(model.games) <= set(main.games):
            continue
        subsets.append({"name": name, "games": list(model.games), "coefficients": list(model.coefficients),
                        "bands": [{k: v for k, v in b.items() if k != "row"} for b in
                                  _bands(model, coefficients, calibration, table,
                                         options if name == MAIN_SUBSET else None)]})
    best = {g: float(v) for g, v in dataset.scores.groupby("game_id")["score"].max().items()}
    bounds = upper_bounds(coefficients.constants, best)  # the input gate's numbers (SPEC.md section 1.1, input rules)
    return {
        "games": [{"id": g, "name": names.get(g, g), "random": coefficients.constants[g][0],
                   "human": coefficients.constants[g][1], "bound": bounds.get(g), "best": best.get(g)}
                  for g in main.games],
        "gate": {"max_abs": MAX_ABS_SCORE, "bound_factor": BOUND_FACTOR, "fraction_limit": FRACTION_LIMIT,
                 "min_games_for_fractions": MIN_GAMES_FOR_FRACTIONS},
        "subsets": subsets,
        "coefficients": f"{coefficients.version}@{coefficients.digest}",
        "protocol": options,
        "below_random": _below_random_line(dataset, main, coefficients, calibration),
    }
