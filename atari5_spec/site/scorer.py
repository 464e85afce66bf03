"""The browser scorer's constants and interval rules, taken from the Python objects at build time.

score.html computes ``atari5-spec score`` for one value per game in the
browser. Nothing here is typed in: the games, weights and normalisation
constants come from the pinned coefficient version; the interval's half-width,
its range label, the calibration's coverage sentence and the signature come
from :func:`atari5_spec.scoring.estimate.score_runs` itself, run on probe
scores whose estimate lies in each of the calibration's ranges; the protocol
sentences come from :func:`~atari5_spec.scoring.estimate.protocol_check` for
every sticky-action probability and training budget in the data. The script
then only evaluates the pinned formula and ``phi^-1(phi(estimate) -+ q)`` with
the band's ``q``; tests/test_site_browser.py compares it with the Python API
and the command line over many inputs.
"""

from __future__ import annotations

import math
from typing import Any

from ..data.frames import format_frames
from ..method.calibration import IN_RANGE_MIN, read_calibration
from ..method.reference import log_transform
from ..method.pinned import CoefficientSet
from ..scoring.estimate import REPORTED_SUBSETS, ProtocolCheck, score_runs, subset_estimate

__all__ = ["scorer_data", "subset_bands", "band_interval", "score_one_seed", "MAIN_SUBSET", "LEVEL"]

MAIN_SUBSET = "Atari-5"
LEVEL = 0.95  # the level `atari5-spec score` prints by default


def score_one_seed(runs, subset: str, coefficients: CoefficientSet, extremes=None, sticky: float | None = None,
                   frames: int | None = None):
    """``score_runs`` as `atari5-spec score` calls it for one value per game (no bootstrap, the default level),
    with ``--sticky-actions`` / ``--frames`` when given."""
    protocol = (ProtocolCheck(sticky, frames, "as given", ()) if sticky is not None or frames is not None
                else None)
    return score_runs(runs, subset, coefficients, n_bootstrap=0, confidence=LEVEL, seed=0, extremes=extremes or {},
                      protocol=protocol)


def _protocol_messages(runs, model, coefficients: CoefficientSet, options) -> dict[str, Any]:
    """What `score` prints as protocol lines at the probe ``runs`` (they may depend on the estimate's range): per
    sticky-action option, per frames option, and where the frames lines go when both are given (``insert_at``:
    measured on the first frames option, checked on it, so the page composes both as `score` does)."""
    only = coefficients._replace(subsets={model.name: model})

    def lines(sticky=None, frames=None):
        result = score_one_seed(runs, model.name, only, sticky=sticky, frames=frames)
        return list(result.protocol.messages) if result.protocol else []

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
                                     "each option; update atari5_spec/site/scorer.py and static/site.js together")
        insert_at.append(k)
    return {"sticky": sticky, "frames": frames, "insert_at": insert_at}


def _runs_for_estimate(model, constants, target: float) -> dict[str, tuple[float]]:
    """One raw score per game, every game at the same normalised score, whose estimate is ``target``."""
    def raw(z):
        return {g: (constants[g][0] + (constants[g][1] - constants[g][0]) * z / 100.0,) for g in model.games}

    def estimate(z):
        return float(subset_estimate({g: v[0] for g, v in raw(z).items()}, model, constants))

    low, high = 0.0, 1.0
    while estimate(high) < target and high < 1e12:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        low, high = (middle, high) if estimate(middle) < target else (low, middle)
    return raw(high)


def _band_edges(calibration) -> list[float]:
    """The estimates where the calibration's range changes (in-range rule: the inclusion rule's 40)."""
    if calibration is None:
        return []
    below = math.nextafter(IN_RANGE_MIN, -math.inf)
    return [IN_RANGE_MIN] if calibration.group(IN_RANGE_MIN) != calibration.group(below) else []


def subset_bands(model, coefficients: CoefficientSet) -> list[dict[str, Any]]:
    """The bands of ``model`` under the calibration `score` uses (see :func:`_bands`)."""
    return _bands(model, coefficients, read_calibration(coefficients.path))


def band_interval(estimate: float, bands: list[dict[str, Any]]) -> tuple[dict[str, Any], float | None, float | None]:
    """(band, low, high): the prediction interval of a one-seed-per-game ``estimate``, phi^-1(phi(estimate) -+ h)
    with the band's half-widths h below and above, as score.html computes it (None, None without an interval; -inf, inf when the
    calibration has too few errors for the level). Callers check it against ``score_runs`` (pages.py)."""
    band = next(b for b in bands if b["from"] is None or estimate >= b["from"])
    if band["range"] is None:
        return band, None, None
    centre = float(log_transform(estimate))
    low = -math.inf if band["below"] is None else 10.0 ** (centre - band["below"]) - 1.0
    high = math.inf if band["above"] is None else 10.0 ** (centre + band["above"]) - 1.0
    return band, low, high


def _bands(model, coefficients: CoefficientSet, calibration, protocol_options=None) -> list[dict[str, Any]]:
    """Highest first: from which estimate on the band applies (None: every lower estimate), and what the Python
    scorer gives there (range label, half-widths in log10(1 + z), calibration, coverage, signature, notes such as
    why an interval is withheld)."""
    edges = _band_edges(calibration)
    starts = sorted(edges, reverse=True) + [None]
    bands = []
    for i, start in enumerate(starts):
        upper = starts[i - 1] if i else None
        if start is None:
            probe = (upper / 2.0) if upper is not None else 100.0
        else:
            probe = start * 2.0 if upper is None else (start + upper) / 2.0
        runs = _runs_for_estimate(model, coefficients.constants, probe)
        result = score_one_seed(runs, model.name, coefficients)
        pi = result.prediction_interval
        # The half-widths the Python interval has at the probe (model part, widened where the calibration says so;
        # with one seed per game they do not depend on the estimate within a band).
        below, above = pi.half_widths(result.estimate) if pi else (None, None)
        bands.append({
            "from": start, "signature": result.signature,
            "range": pi.range if pi else None,
            "below": below if below is not None and math.isfinite(below) else None,
            "above": above if above is not None and math.isfinite(above) else None,
            "notes": [n for n in result.notes if n.startswith(f"{model.name}:")],
            "calibration": pi.calibration if pi else None, "n_errors": pi.n_errors if pi else None,
            "coverage": pi.coverage if pi else None, "seed_part": pi.seed_part if pi else None,
            "level": pi.level if pi else None, "level_label": f"{pi.level * 100:g}" if pi else None})
        if protocol_options is not None:
            bands[-1]["protocol"] = _protocol_messages(runs, model, coefficients, protocol_options)
        if start is not None:  # the edge itself belongs to this band, the number below it to the next
            for value, expected in ((start, pi.range if pi else None), (math.nextafter(start, -math.inf), None)):
                check = score_one_seed(_runs_for_estimate(model, coefficients.constants, value), model.name,
                                        coefficients).prediction_interval
                if expected is not None and check is not None and check.range != expected:
                    raise AssertionError(f"{model.name}: the calibration's range at {value} is {check.range}, "
                                         f"not {expected}")
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
        from ..scoring.protocol_conditions import episode_cap_message
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
    """The protocol line `score` adds when some of the subset's games are below random play, as a template:
    written by the Python function itself for sentinel games (one, then two), so that the page only puts each
    game's name and z (at the precision the line prints, measured on the sentinel) into it. None when this
    install's `score` has no such line."""
    try:
        from ..scoring.protocol_conditions import below_random_message
    except ImportError:
        return None
    one, two, z1, z2 = "\u0001", "\u0002", -1.2345, -6.789

    def line(below):
        return below_random_message(below, calibration, model.name, model.games, {one: one, two: two},
                                    dataset.root, coefficients.constants)

    single, double = line({one: z1}), line({one: z1, two: z2})
    prefix = single[:single.index(one)]
    tail = single[len(prefix) + 1:]                      # between, z, after_z, suffix
    places = max((p for p in range(7) if (i := tail.find(f"{z1:.{p}f}")) >= 0
                  and not tail[i + len(f"{z1:.{p}f}"):][:1].isdigit()), default=None)
    if places is None:
        raise AssertionError("`score`'s below-random line does not print z; update atari5_spec/site/scorer.py")
    t1, t2 = f"{z1:.{places}f}", f"{z2:.{places}f}"
    between = tail[:tail.index(t1)]
    after_z_and_suffix = tail[tail.index(t1) + len(t1):]
    second = double.index(one + between + t1) + len(one + between + t1)
    after_z_and_separator = double[second:double.index(two)]
    after_z = ""
    while (len(after_z) < min(len(after_z_and_suffix), len(after_z_and_separator))
           and after_z_and_suffix[len(after_z)] == after_z_and_separator[len(after_z)]):
        after_z += after_z_and_suffix[len(after_z)]
    separator, suffix = after_z_and_separator[len(after_z):], after_z_and_suffix[len(after_z):]
    if double != prefix + one + between + t1 + after_z + separator + two + between + t2 + after_z + suffix:
        raise AssertionError("`score`'s below-random line is not a list of games with z; update "
                             "atari5_spec/site/scorer.py and static/site.js together")
    return {"prefix": prefix, "between": between, "after_z": after_z, "places": places, "separator": separator,
            "suffix": suffix}


def scorer_data(dataset, coefficients: CoefficientSet) -> dict[str, Any]:
    """Everything score.html needs, as plain JSON-able values."""
    calibration = read_calibration(coefficients.path)
    main = coefficients.subsets[MAIN_SUBSET]
    names = dataset.games.set_index("game_id")["name"].astype(str)
    options = _protocol_options(dataset, coefficients, calibration)
    subsets = []
    for name in [MAIN_SUBSET] + [s for s in REPORTED_SUBSETS if s != MAIN_SUBSET]:
        model = coefficients.subsets.get(name)
        if model is None or not set(model.games) <= set(main.games):
            continue
        subsets.append({"name": name, "games": list(model.games), "coefficients": list(model.coefficients),
                        "bands": _bands(model, coefficients, calibration, options if name == MAIN_SUBSET else None)})
    return {
        "games": [{"id": g, "name": names.get(g, g), "random": coefficients.constants[g][0],
                   "human": coefficients.constants[g][1]} for g in main.games],
        "subsets": subsets,
        "coefficients": f"{coefficients.version}@{coefficients.digest}",
        "protocol": options,
        "below_random": _below_random_line(dataset, main, coefficients, calibration),
    }
