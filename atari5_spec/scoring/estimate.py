"""Scoring an agent: the Atari-5 score from raw game scores, with its intervals, notes and citation signature.

The numbers follow SPEC.md and are computed by its reference implementation,
:mod:`atari5_spec.method.reference` (the estimate, the range edge, the
prediction interval from the pinned interval table's half-width combined
with the seed part, the seed bootstrap); this module gathers the inputs (the
input gate, :mod:`.input`; the pinned coefficient version and calibration),
scores the requested subset and every other one the games allow, and
returns a :class:`ScoreResult` that carries the numbers (the table row
behind each interval included) with the sentences that explain them: what
each interval covers and the coverage measured behind it, why an interval is
withheld, games no subset uses. The *seed interval* covers seed-to-seed
variation only; the *prediction interval* is where the agent's 57-game
median lies. :mod:`.relative` divides two agents' scores.

The protocol of the agent's runs (sticky actions, training frames; from
options or from the game ids) is compared with the version's training data,
and the measured shift for agents of that protocol is reported. The estimate
itself is always exactly the version's formula: nothing adjusts it.

This module avoids pandas on purpose: ``atari5-spec score`` must start fast.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple

from ..data.datapackage import package_root
from ..data.errors import InputError
from ..data.ids import game_aliases, game_key
from ..data.paths import package_text_stream, read_package_rows
from ..method import reference
from ..method.calibration import (
    CLAIMED_METHODS,
    Calibration,
    read_calibration,
    read_calibration_intervals,
    sticky_from_game_ids,
)
from ..method.pinned import CoefficientSet, SubsetModel, load_coefficient_set
from ..method.reference import IntervalRow, IntervalTable, bootstrap_means, human_normalised, percentile_interval
from .input import Observation, group_runs, observations_from_object
from .intervals import SEED_ONLY, PredictionInterval, SeedInterval, claim_reason, interval_text, seed_interval
from .protocol_check import ProtocolCheck
from .signature import GATE_ALLOWED, TRANSFORM_LABEL, Signature, data_version_of, parse_signature, signature

__all__ = ["score", "ScoreResult", "SubsetScore", "BootstrapSettings", "PredictionInterval", "SEED_ONLY",
           "ProtocolCheck", "protocol_check", "stated_protocol", "score_runs", "bootstrap_estimates", "check_settings",
           "signature", "Signature", "parse_signature", "model_estimate", "resolve_subset", "runs_from", "as_coefficient_set", "games_table",
           "load_aliases", "REPORTED_SUBSETS", "TRANSFORM_LABEL", "BOOTSTRAP_METHOD", "protocol_messages",
           "withheld_note", "unpinned_table", "published_extremes", "implausible_scores", "bound_problem",
           "fractions_problem"]

# The subsets reported beside the requested one (DQN-7 is the paper's weak
# baseline: computed only when asked for by name).
REPORTED_SUBSETS = ("Atari-1", "Atari-3", "Atari-5", "Atari-10", "Atari-3-Val", "Atari-5-Val")
BOOTSTRAP_METHOD = ("percentile bootstrap over seeds: each game's per-seed raw scores resampled with "
                    "replacement, independently per game; estimate recomputed from the resampled means")
# A score far above anything published is refused by the input gate (reference.upper_bounds, SPEC.md section 1.1); one is
# flagged (computed anyway) when it is below random by more than the human-random gap (Z < -100)
# and below every published score for the game.
IMPLAUSIBLY_LOW_Z = -100.0
# Resamples are drawn in one array per game (resamples x seeds): bound its size.
MAX_BOOTSTRAP = 1_000_000


class BootstrapSettings(NamedTuple):
    """How an interval was made: resamples, random seed, confidence level, and what was resampled."""

    n_resamples: int
    seed: int
    confidence: float
    method: str = BOOTSTRAP_METHOD


class SubsetScore(NamedTuple):
    """The score of one subset: its estimate, seed interval (or None), prediction interval and signature."""

    subset: str
    games: tuple[str, ...]
    estimate: float
    interval: SeedInterval | None       # the seed interval (bootstrap over seeds)
    signature: str
    rel_err_percent: float | None       # the model's cross-validated typical relative error, in %
    prediction_interval: PredictionInterval | None = None
    interval_row: IntervalRow | None = None  # the pinned table's row for this estimate (shown, widened, withheld)

    @property
    def seed_interval(self) -> SeedInterval | None:
        return self.interval

    def __repr__(self) -> str:
        pi = self.prediction_interval
        level = f"{pi.level:.0%} " if pi else ""
        return (f"SubsetScore(subset={self.subset!r}, estimate={self.estimate:.1f}, "
                f"{level}prediction_interval={interval_text(pi)} [57-game median], "
                f"seed_interval={interval_text(self.interval)}{' [seed noise only]' if self.interval else ''})")

    def _repr_html_(self) -> str:
        from .display import result_html

        return result_html(self)

    @property
    def parsed_signature(self) -> Signature | None:
        """The signature as a parsed :class:`~atari5_spec.scoring.signature.Signature` (None without one)."""
        return parse_signature(self.signature) if self.signature else None


class ScoreResult(NamedTuple):
    """Result of :func:`score`.

    ``estimate`` is None when the requested subset's games are not all given
    (``not_computable[subset]`` then lists the missing ones). Per-game fields
    cover every given game that the coefficient version has constants for.
    """

    subset: str
    estimate: float | None              # estimated 57-game median human-normalised score, in %
    interval: SeedInterval | None       # the seed interval (bootstrap over seeds); see seed_interval
    signature: str | None
    games: tuple[str, ...]              # the requested subset's games, in model order
    raw_means: dict[str, float]         # game id -> mean raw score over its seeds
    normalised: dict[str, float]        # game id -> human-normalised score of the mean, in %
    n_seeds: dict[str, int]
    bootstrap: BootstrapSettings | None  # set when at least one interval was computed
    other_subsets: tuple[SubsetScore, ...]
    not_computable: dict[str, tuple[str, ...]]  # subset -> its games that were not given
    coefficients_version: str
    rel_err_percent: float | None
    warnings: tuple[str, ...]
    notes: tuple[str, ...]              # why an interval is missing, games ignored, ...
    prediction_interval: PredictionInterval | None = None
    protocol: ProtocolCheck | None = None
    interval_row: IntervalRow | None = None  # the pinned interval table's row: half-width, claim, evidence counts
    own_median: Any = None  # OwnMedian: the agent's own median over its given games of the 57 (40 or more)
    implausible_allowed: tuple[str, ...] = ()  # what the gate would have refused, scored with allow_implausible
    log: Any = None  # LogReading (scoring.logs): the log or episode table read, which episodes, what was inferred

    @property
    def seed_interval(self) -> SeedInterval | None:
        """The interval over seeds only (not where the 57-game median lies: see prediction_interval)."""
        return self.interval

    def _repr_html_(self) -> str:
        """The estimate, both intervals (what each covers), other subsets, signature and notes as a table."""
        from .display import result_html

        return result_html(self)

    def __repr__(self) -> str:
        """One line a notebook user can read: the estimate, both intervals (what each covers), the version."""
        if self.estimate is None:
            missing = ", ".join(self.not_computable.get(self.subset, ()))
            return f"ScoreResult(subset={self.subset!r}, estimate=None, missing games: {missing})"
        pi = self.prediction_interval
        level = f"{pi.level:.0%} " if pi else ""
        seeds = sorted(set(self.n_seeds[g] for g in self.games if g in self.n_seeds))
        return (f"ScoreResult(subset={self.subset!r}, estimate={self.estimate:.1f}, "
                f"{level}prediction_interval={interval_text(pi)} [57-game median], "
                f"seed_interval={interval_text(self.interval) if self.interval else 'unknown (needs 2+ seeds per game)'}"
                f"{' [seed noise only]' if self.interval else ''}, "
                f"seeds per game={'/'.join(map(str, seeds))}, coefficients={self.coefficients_version!r})")

    @property
    def parsed_signature(self) -> Signature | None:
        """The signature as a parsed :class:`~atari5_spec.scoring.signature.Signature` (None without one)."""
        return parse_signature(self.signature) if self.signature else None


# --- the package's game table, aliases, published extremes (csv only) -----------------------------------------

def games_table(root: Path | None = None) -> list[dict[str, str]]:
    """Rows of data/games.csv as dicts of strings."""
    return read_package_rows(package_root(root) / "data" / "games.csv", package_root(root))


def load_aliases(root: Path | None = None) -> dict[str, str]:
    """Every accepted spelling key -> game id (see :mod:`atari5_spec.data.ids`)."""
    return game_aliases(games_table(root))


def published_extremes(root: Path | None = None) -> dict[str, tuple[float, float]]:
    """Per game, the lowest and highest raw score anywhere in data/scores.csv."""
    extremes: dict[str, tuple[float, float]] = {}
    path = package_root(root) / "data" / "scores.csv"
    if not os.path.lexists(path):  # present but not a plain file: the read gate names it, never skipped
        return extremes
    values: dict[str, list[float]] = {}
    # a plain reader, not DictReader: this runs on every `score` call
    rows = csv.reader(package_text_stream(path, package_root(root)))
    header = next(rows)
    game_at, score_at = header.index("game_id"), header.index("score")
    for row in rows:
        try:
            values.setdefault(row[game_at], []).append(float(row[score_at]))
        except (IndexError, ValueError):
            continue
    for game, scores in values.items():
        finite = [v for v in scores if math.isfinite(v)]
        if finite:
            extremes[game] = (min(finite), max(finite))
    return extremes


# --- the formula ---------------------------------------------------------------------------------------------

def _normalised(raw, game: str, constants: Mapping[str, tuple[float, float]]):
    random, human = constants[game]
    return human_normalised(raw, random, human)


def model_estimate(raw_means: Mapping[str, Any], model: SubsetModel,
                    constants: Mapping[str, tuple[float, float]]):
    """:func:`atari5_spec.method.reference.subset_estimate` with a pinned version's subset model."""
    return reference.subset_estimate(raw_means, model.games, model.coefficients, constants)


def resolve_subset(name: str, available: Iterable[str]) -> str:
    """The subset called ``name`` ignoring case and punctuation ('atari5' -> 'Atari-5'), or InputError."""
    available = list(available)
    for candidate in available:
        if game_key(candidate) == game_key(name):
            return candidate
    raise InputError(f"unknown subset {name!r}; this coefficient version has: {', '.join(available)}")


# --- checks on the values -------------------------------------------------------------------------------------

def plausibility_warnings(raw_means: Mapping[str, float], constants: Mapping[str, tuple[float, float]],
                          extremes: Mapping[str, tuple[float, float]]) -> list[str]:
    """Warnings for scores far below anything published (they are still scored; far above, the gate refuses)."""
    warnings = []
    for game, raw in raw_means.items():
        if game not in constants or game not in extremes:
            continue
        z = float(_normalised(raw, game, constants))
        low, high = extremes[game]
        if z < IMPLAUSIBLY_LOW_Z and raw < low:
            random, human = constants[game]
            warnings.append(f"{game}: {raw:g} is {random - raw:g} points below random play ({random:g}), "
                            f"{(random - raw) / (human - random):.1f} times the human-random gap, and below every "
                            f"published score (lowest {low:g}); a policy can score below random, so this is only "
                            "worth a look if the agent was not expected to")
    return warnings


# --- scoring -------------------------------------------------------------------------------------------------

def runs_from(scores: Any, aliases: Mapping[str, str]) -> dict[str, tuple[float, ...]]:
    """Per game id, its per-seed raw scores, from any accepted input (or a list of Observation)."""
    if isinstance(scores, list) and scores and all(isinstance(o, Observation) for o in scores):
        return group_runs(scores, aliases)
    return group_runs(observations_from_object(scores), aliases)


def as_coefficient_set(coefficients) -> CoefficientSet:
    """A loaded CoefficientSet from a version name, a version directory, a CoefficientSet, or None (default)."""
    return coefficients if isinstance(coefficients, CoefficientSet) else load_coefficient_set(coefficients)


def check_settings(n_bootstrap: int, confidence: float, seed: int) -> None:
    if int(n_bootstrap) != n_bootstrap or not 0 <= n_bootstrap <= MAX_BOOTSTRAP:
        raise InputError(f"the number of bootstrap resamples must be a whole number from 0 to {MAX_BOOTSTRAP:,}, "
                         f"not {n_bootstrap!r}")
    if not 0.0 < confidence < 1.0:
        raise InputError(f"the confidence level must be between 0 and 1 (e.g. 0.95), not {confidence!r}")
    if int(seed) != seed or seed < 0:
        raise InputError(f"the bootstrap seed must be a whole number >= 0, not {seed!r}")


def bootstrap_estimates(model: SubsetModel, runs, constants, n_bootstrap: int, seed: int, stream: int = 0):
    """Bootstrap resamples of a subset's estimate, or None when a game has a single seed."""
    if n_bootstrap == 0 or any(len(runs[g]) < 2 for g in model.games):
        return None
    samples = {g: bootstrap_means(runs[g], n_bootstrap, seed, g, stream) for g in model.games}
    return model_estimate(samples, model, constants)


def _seed_part(model: SubsetModel, runs, interval, combined: bool = False) -> str:
    fewest = min(len(runs[g]) for g in model.games)
    if interval is not None:
        text = ("seed-to-seed variation from the bootstrap over seeds (the seed interval), combined with the model "
                "error as the root of the sum of squares of the log half-widths, per side" if combined else
                "seed-to-seed variation from the bootstrap over seeds (the seed interval), widened by the model error")
        return text + ("; with 2 seeds for some game that part is unreliable" if fewest == 2 else "")
    if fewest == 1:
        return ("unknown: one seed for some game, so seed-to-seed variation is not in the interval (run 3 or more "
                "seeds per game to include it)")
    return "not included: no bootstrap was asked for (--bootstrap 0)"


def _evidence(row: IntervalRow, prefix: str = ""):
    """The row's pinned evidence as :class:`~atari5_spec.method.calibration.Evidence` (what it prints): its own
    counts, or those of ``prefix`` (``also``, ``sticky``, ``unsticky``); None when the row has none of them."""
    from ..method.reference import Evidence

    cell = (lambda name: getattr(row, f"{prefix}_{name}")) if prefix else (lambda name: getattr(row, name))
    if cell("agents") is None:
        return None
    low, high = cell("coverage_low"), cell("coverage_high")
    return Evidence(cell("agents_covered"), cell("agents"), cell("runs"), cell("papers"), cell("runs_covered"),
                    low if low is not None else math.nan, high if high is not None else math.nan)


def unpinned_table(calibration: Calibration) -> IntervalTable:
    """The interval table of a calibration held in memory only (not pinned: tests, what-ifs), made by the same
    writer as a pinned table (:func:`atari5_spec.method.interval_table.interval_table`)."""
    from ..method.interval_table import interval_table_text

    return reference.read_interval_table(interval_table_text(calibration).encode("utf-8"), calibration.name)


def _prediction_interval(model: SubsetModel, runs, estimate: float, interval, calibration: Calibration | None,
                         level: float, table: IntervalTable | None = None) -> PredictionInterval | None:
    """The prediction interval from the calibration's pinned interval table (SPEC.md section 7): the half-width of
    the row for the subset and the estimate's range, combined with the seed part; None when withheld."""
    if calibration is None:
        return None
    table = table if table is not None else unpinned_table(calibration)
    row = reference.interval_row(table, "agent", model.name, estimate, level)
    pair = reference.prediction_interval(estimate, row, interval)
    if pair is None:
        return None
    combined = row.range != "pooled"
    measured = _evidence(row)
    if row.range == "pooled":
        coverage = (f"held-out agents: {measured.text()}, at this level, each calibrated without its own paper's "
                    "agents" if measured.n else "not measured (no held-out agents)")
        claimed = False
    else:
        where = ("in range (estimate at or above 40, the inclusion rule)" if row.range == "in range" else
                 "below the range (estimate under 40): an EXTRAPOLATION, the model was not fitted there")
        claimed = calibration.method in CLAIMED_METHODS
        also = _evidence(row, "also")
        widened = f"widened x{row.factor:g}, " if row.status == "widened" else ""
        if claimed and row.population == "never-selected":  # first: the pinned formula, never-selected
            coverage = (f"{where}; {widened}measured leave-one-paper-out on agents the selection never used, scored "
                        f"by the pinned formula: {measured.text()}; on every agent of the calibration (those the "
                        f"selection used scored by their paper's fold): {also.text()}")
        elif claimed:  # the held-out breakdown of the table's evidence, from the pinned errors
            coverage = (f"{where}; {widened}measured leave-one-paper-out with the games chosen again without each "
                        f"paper (the error of the selection procedure): {measured.text()}; held-out agents: "
                        f"{also.text()}")
        else:
            coverage = (f"{where}; measured leave-one-paper-out on the agents {row.range}: {measured.text()}; "
                        f"held-out agents: {also.text()}" if measured.n else f"{where}; not measured")
    extra = {} if not claimed else dict(claim=row.status, claim_reason=claim_reason(row), widening=row.factor,
                                          evidence=measured.as_dict())
    return PredictionInterval(pair[0], pair[1], level, f"{calibration.name}@{calibration.digest}", row.errors,
                              row.half_width, _seed_part(model, runs, interval, combined), coverage,
                              range=row.range, method=calibration.rule, population=row.population, row=row,
                              **extra)


def withheld_note(model: SubsetModel, estimate: float, calibration: Calibration | None, level: float,
                  table: IntervalTable | None = None) -> str | None:
    """'Atari-10: no prediction interval: ...' when the table withholds the subset's interval (one line)."""
    if calibration is None:
        return None
    table = table if table is not None else unpinned_table(calibration)
    row = reference.interval_row(table, "agent", model.name, estimate, level)
    if row is None or row.status != "withheld":
        return None
    where = "in range" if row.range == "in range" else "below 40, an extrapolation"
    if row.reason == "too-few-agents":
        minimum = math.ceil(1.0 / (1.0 - level) - 1e-9)
        why = (f"only {row.agents} agents ({row.papers} papers) measured {row.range}: a {level:.0%} coverage needs "
               f"at least {minimum}")
    else:
        why = claim_reason(row)
    return f"{model.name}: no {level:.0%} prediction interval (estimate {where}): {why}"


def _subset_score(model: SubsetModel, runs, means, coefficients: CoefficientSet,
                  settings: BootstrapSettings, calibration: Calibration | None = None,
                  data_version: str | None = None, table: IntervalTable | None = None
                  ) -> tuple[SubsetScore, tuple[str, ...]]:
    """A computable subset's score, and notes when an interval was wanted but is impossible or withheld."""
    constants = coefficients.constants
    samples = bootstrap_estimates(model, runs, constants, settings.n_resamples, settings.seed)
    interval = seed_interval(percentile_interval(samples, settings.confidence) if samples is not None else None,
                             settings.confidence)
    note = None
    if interval is None and settings.n_resamples and any(len(runs[g]) > 1 for g in model.games):
        single = [g for g in model.games if len(runs[g]) < 2]
        note = (f"{model.name}: no interval, {', '.join(single)} {'has' if len(single) == 1 else 'have'} "
                "a single seed (every game needs two or more)")
    n_seeds = [len(runs[g]) for g in model.games]
    estimate = float(model_estimate(means, model, constants))
    usable = calibration if table is not None else None  # a calibration without its pinned table gives no interval
    predicted = _prediction_interval(model, runs, estimate, interval, usable, settings.confidence, table)
    withheld = withheld_note(model, estimate, usable, settings.confidence, table) if predicted is None else None
    row = reference.interval_row(table, "agent", model.name, estimate, settings.confidence) if table else None
    notes = tuple(n for n in (note, withheld) if n)
    return SubsetScore(subset=model.name, games=model.games, estimate=estimate,
                       interval=interval, rel_err_percent=model.rel_err_percent,
                       signature=signature(model.name, coefficients, n_seeds, settings if interval else None,
                                           calibration=predicted.calibration if predicted else None,
                                           data_version=data_version),
                       prediction_interval=predicted, interval_row=row), notes


def _unused_games_notes(runs, subsets: Iterable[SubsetModel], coefficients: CoefficientSet) -> list[str]:
    """Notes on given games that no score uses."""
    notes = []
    no_constants = sorted(set(runs) - set(coefficients.constants))
    if no_constants:
        notes.append(f"ignored (no normalisation constants in {coefficients.version}): {', '.join(no_constants)}")
    used = {g for model in subsets for g in model.games}
    unused = sorted(set(runs) - used - set(no_constants))
    if unused:
        notes.append(f"not used by any subset: {', '.join(unused)}")
    return notes


def protocol_check(subset: str, calibration: Calibration | None, version: str,
                   sticky: float | None, frames: int | None, source: str) -> ProtocolCheck:
    """The agent's protocol against the version's training data, with the measured shift for agents like it."""
    messages = []
    if sticky is not None and calibration is not None:
        group = "sticky" if sticky > 0 else "no sticky"
        counts = calibration.training_protocols(subset)
        total = sum(counts.values())
        same = counts.get(group, 0)
        shift = calibration.shift(subset, group)
        text = (f"sticky-action probability {sticky:g} ({source}); of the {total} agents {version} was fitted on, "
                f"{same} {'is' if same == 1 else 'are'} known to share this setting ({counts.get('not stated', 0)} do not say)")
        if shift:
            text += f"; {subset}: " + shift.text(f"{'with' if sticky > 0 else 'without'} sticky actions")
        messages.append(text + ". The estimate is not adjusted for this.")
    if frames is not None and calibration is not None:
        shift = calibration.budget_shift(subset, frames)
        if shift:
            messages.append(f"at {frames:,} training frames, {subset}: " + shift.text("at that budget")
                            + ". The estimate is not adjusted for this.")
        else:
            messages.append(f"at {frames:,} training frames: no held-out agent at that budget; the shift there is "
                            "not measured")
    return ProtocolCheck(sticky, frames, source, tuple(messages))


def score_runs(runs: Mapping[str, tuple[float, ...]], subset: str, coefficients: CoefficientSet,
                n_bootstrap: int, confidence: float, seed: int, extremes,
                protocol: ProtocolCheck | None = None) -> ScoreResult:
    """Score the requested subset and every other reported subset the games allow."""
    constants = coefficients.constants
    calibration = read_calibration(coefficients.path)
    table = read_calibration_intervals(coefficients.path, calibration) if calibration is not None else None
    subset = resolve_subset(subset, coefficients.subsets)
    models = [coefficients.subsets[subset]] + [coefficients.subsets[s] for s in REPORTED_SUBSETS
                                               if s in coefficients.subsets and s != subset]
    usable = {g: v for g, v in runs.items() if g in constants}
    means = reference.seed_means(usable)
    settings = BootstrapSettings(int(n_bootstrap), int(seed), float(confidence))
    scores, not_computable, notes = {}, {}, []
    data_version = data_version_of(coefficients)  # read once: every subset's signature carries it
    for model in models:
        missing = tuple(g for g in model.games if g not in means)
        if missing:
            not_computable[model.name] = missing
            continue
        scores[model.name], subset_notes = _subset_score(model, usable, means, coefficients, settings, calibration,
                                                         data_version, table)
        notes += list(subset_notes)
    notes += _unused_games_notes(runs, models, coefficients)
    if calibration is None:
        notes.append(f"no prediction interval: coefficient version {coefficients.version} has no pinned "
                     "out-of-sample errors (calibration/<version>.csv; atari5-spec evaluate --pin-calibration)")
    elif table is not None and not any(key[3] == settings.confidence for key in table.rows):
        levels = ", ".join(f"{v:g}" for v in sorted({key[3] for key in table.rows}))
        notes.append(f"no prediction interval at level {settings.confidence:g}: the interval table of "
                     f"{calibration.name} pins half-widths at {levels} only (SPEC.md section 7)")
    elif table is None:
        notes.append(f"no prediction interval: calibration {calibration.name} has no pinned interval table "
                     f"(calibration/intervals/{calibration.name}.csv; python scripts/pin_interval_tables.py)")
    main = scores.get(subset)
    return ScoreResult(
        subset=subset, estimate=main.estimate if main else None, interval=main.interval if main else None,
        signature=main.signature if main else None, games=coefficients.subsets[subset].games,
        raw_means=means, normalised={g: float(_normalised(m, g, constants)) for g, m in means.items()},
        n_seeds={g: len(v) for g, v in usable.items()},
        bootstrap=settings if any(s.interval for s in scores.values()) else None,
        other_subsets=tuple(scores[m.name] for m in models[1:] if m.name in scores), not_computable=not_computable,
        coefficients_version=coefficients.version, rel_err_percent=coefficients.subsets[subset].rel_err_percent,
        warnings=tuple(plausibility_warnings(means, constants, extremes)), notes=tuple(notes),
        prediction_interval=main.prediction_interval if main else None,
        interval_row=main.interval_row if main else None,
        protocol=_with_group_coverage(
            protocol_check(subset, calibration, coefficients.version, protocol.sticky_action_probability,
                           protocol.training_frames, protocol.source), calibration, subset,
            main.estimate if main else None, settings.confidence, table) if protocol else None)


def _with_group_coverage(check: ProtocolCheck, calibration: Calibration | None, subset: str,
                         estimate: float | None, level: float, table: IntervalTable | None = None) -> ProtocolCheck:
    """The protocol check plus how the subset's interval held for measured agents of the stated sticky-action
    group (reselected calibration, in range): the claim is made for all agents, this says how much evidence
    stands behind it for agents like this one (the pinned row's ``sticky_*`` or ``unsticky_*`` cells)."""
    if (check.sticky_action_probability is None or calibration is None or calibration.method not in CLAIMED_METHODS
            or estimate is None or calibration.group(estimate) != "in range"):
        return check
    table = table if table is not None else unpinned_table(calibration)
    row = table.rows.get(("agent", subset, "in range", level))
    sticky = check.sticky_action_probability > 0
    measured = None if row is None else _evidence(row, "sticky" if sticky else "unsticky")
    if measured is None:
        return check
    who = "with sticky actions" if sticky else "without sticky actions or not saying"
    text = (f"{subset}'s {level:.0%} interval, measured leave-one-paper-out on in-range agents {who}: "
            f"{measured.text()}")
    return check._replace(messages=check.messages + (text,))


def protocol_messages(subset: str, calibration: Calibration | None, version: str, sticky: float | None,
                      frames: int | None, estimate: float | None, level: float, source: str = "as given",
                      table: IntervalTable | None = None) -> list[str]:
    """The protocol lines `score` prints for these options around ``estimate`` (none without an option)."""
    if sticky is None and frames is None:
        return []
    check = protocol_check(subset, calibration, version, sticky, frames, source)
    return list(_with_group_coverage(check, calibration, subset, estimate, level, table).messages)


def _observations(scores: Any) -> list[Observation]:
    if isinstance(scores, list) and scores and all(isinstance(o, Observation) for o in scores):
        return scores
    return observations_from_object(scores)


def _log_reading(scores: Any, log_format: str | None, last: int | None):
    """The LogReading behind ``scores``: given (the command's), read from a path (scoring.logs), else None."""
    from .logs import LogReading, read_log

    if isinstance(scores, LogReading):
        reading = scores
    elif isinstance(scores, (str, os.PathLike)) and not isinstance(scores, bytes):
        reading = read_log(os.fspath(scores), log_format, last)
    elif log_format is not None or last is not None:
        raise InputError("log_format and last read a log: give its path")
    else:
        return None
    return reading


def stated_protocol(observations: list[Observation], sticky_action_probability: float | None,
                    training_frames: int | None, log=None) -> ProtocolCheck:
    """The protocol as given (options win), else as the log read says it (``log``, a LogReading: the protocol
    its episode table names, or EnvPool ids), else as the game ids imply it."""
    if sticky_action_probability is not None:
        if not (isinstance(sticky_action_probability, (int, float)) and 0 <= sticky_action_probability <= 1):
            raise InputError(f"the sticky-action probability must be between 0 and 1, not {sticky_action_probability!r}")
        sticky, source = float(sticky_action_probability), "as given"
    elif log is not None and log.sticky_action_probability is not None:
        sticky = log.sticky_action_probability
        source = (f"from the protocol {log.protocol_id} the episode table names (data/protocols.csv)"
                  if log.protocol_id else "from the EnvPool env ids (EnvPool's default)")
    else:
        sticky, source = sticky_from_game_ids([o.game for o in observations])
        source = f"from the {source}" if source else "not given"
    if training_frames is not None and (int(training_frames) != training_frames or training_frames < 1):
        raise InputError(f"training frames must be a positive whole number, not {training_frames!r}")
    return ProtocolCheck(sticky, None if training_frames is None else int(training_frames), source, ())


def score(scores: Any, subset: str = "Atari-5", coefficients=None, n_bootstrap: int = 10000,
          confidence: float = 0.95, seed: int = 0, sticky_action_probability: float | None = None,
          training_frames: int | None = None, partial: bool = False,
          max_episode_frames: int | None = None, allow_implausible: bool = False,
          log_format: str | None = None, last: int | None = None) -> ScoreResult:
    """The Atari-5 (or another subset's) score of an agent from its raw game scores.

    ``scores``: dict game -> score, dict game -> list of per-seed scores, an
    iterable of records (game, score, optional seed) or a DataFrame with those
    columns; games in any common spelling. ``coefficients``: a pinned version
    name, a version directory, or a loaded CoefficientSet (default: the
    package's default version). With two or more seeds for every game of a
    subset, an interval at ``confidence`` from ``n_bootstrap`` resamples
    (``n_bootstrap=0``: none) with random ``seed``.

    Every other subset the given games allow is scored too; subsets whose
    games are missing are listed in ``not_computable``. Raises InputError for
    unknown games, scores that are not finite numbers, and repeated games.

    ``prediction_interval`` (at ``confidence``) is where the 57-game median
    lies, from the version's pinned out-of-sample errors and the seed
    bootstrap. ``sticky_action_probability`` and ``training_frames`` describe
    the runs (the probability is otherwise read from ``ALE/*-v5`` or ``*-v4`` game
    ids); ``protocol`` then reports how the version's estimate shifted for
    held-out agents of that protocol. The estimate is never adjusted.
    ``max_episode_frames`` states the evaluation's episode cap; the protocol
    then says whether the version's errors hold agents with that cap, and
    games below random play and game ids that disagree about the protocol
    are reported (:mod:`.protocol_conditions`).

    Scores that cannot be raw game scores are refused by the gate of :mod:`atari5_spec.data.limits` (a per-game bound,
    human-normalised fractions) naming the place; ``allow_implausible=True`` scores them knowingly:
    ``implausible_allowed`` then says what was let through and every signature carries
    ``gate:implausible-allowed``.

    When the requested subset's games are not all given, raises InputError
    naming them (as ``atari5-spec score`` exits 1); with ``partial=True`` the
    result is returned anyway, ``estimate`` None and the subsets that could be
    computed in ``other_subsets``.

    A path is read by :func:`atari5_spec.scoring.logs.read_log`: a scores file, the episode table
    ``atari5-spec play`` writes, or a log (Stable-Baselines3 Monitor files, CleanRL TensorBoard runs, a W&B CSV
    export, a JSON-lines episode list; ``log_format`` forces the kind, ``last`` the number of final episodes
    averaged per run). Each run's episodes are averaged into one score per seed; ``log`` then says what was read
    and which episodes were used, and the protocol an episode table names is in ``protocol.protocol_id`` and
    every signature (``protocol:``), its sticky-action probability and episode cap used unless given.
    """
    check_settings(n_bootstrap, confidence, seed)
    coefficient_set = as_coefficient_set(coefficients)
    log = _log_reading(scores, log_format, last)
    observations = _observations(log.observations if log is not None else scores)
    log = log if log is not None and log.kind != "scores" else None
    aliases = load_aliases()
    runs = group_runs(observations, aliases)
    protocol = stated_protocol(observations, sticky_action_probability, training_frames, log)
    if max_episode_frames is None and log is not None:
        max_episode_frames = log.max_episode_frames
    extremes = published_extremes()
    allowed = implausible_scores(observations, runs, aliases, coefficient_set.constants, extremes, allow_implausible)
    if log is not None:
        from .logs import clipped_reasons

        allowed += _clipped_allowed(clipped_reasons(log, aliases), allow_implausible)
    result = score_runs(runs, subset, coefficient_set, n_bootstrap, confidence, seed, extremes, protocol)
    from .protocol_conditions import check_episode_frames, with_conditions

    result = with_conditions(result, [o.game for o in observations], sticky_action_probability,
                             check_episode_frames(max_episode_frames), coefficient_set,
                             {row["game_id"]: row["name"] for row in games_table()})
    if result.estimate is None and not partial:
        raise InputError(not_computable_message(result) + (" (partial=True returns them)" if result.other_subsets
                                                           else ""))
    from .own_median import median_over

    canonical = [row["game_id"] for row in games_table() if row.get("in_57", "").lower() == "true"]
    result = result._replace(own_median=median_over(canonical, result.normalised, result.estimate,
                                                    result.prediction_interval))
    if log is not None:
        result = with_log(result, log)
    return with_gate_allowed(result, allowed) if allowed else result


def _clipped_allowed(reasons: tuple[str, ...], allow: bool) -> tuple[str, ...]:
    """Clipped returns: InputError with the first reason, or with ``allow`` the reasons, recorded as the gate's."""
    from ..data.limits import ALLOW_OPTION

    if reasons and not allow:
        raise InputError(f"{reasons[0]} (or {ALLOW_OPTION} to score them knowingly)")
    return reasons


def with_log(result: ScoreResult, log) -> ScoreResult:
    """``result`` with the log it was read from; the protocol the log names in ``protocol`` and every signature."""
    from dataclasses import replace

    if log.protocol_id is None:
        return result._replace(log=log)

    def marked(text: str | None) -> str | None:
        return None if text is None else str(replace(parse_signature(text), protocol=log.protocol_id))

    others = tuple(s._replace(signature=marked(s.signature)) for s in result.other_subsets)
    protocol = result.protocol._replace(protocol_id=log.protocol_id) if result.protocol is not None else None
    return result._replace(signature=marked(result.signature), other_subsets=others, protocol=protocol, log=log)


def implausible_scores(observations: list[Observation], runs: Mapping[str, tuple[float, ...]],
                       aliases: Mapping[str, str], constants: Mapping[str, tuple[float, float]],
                       extremes: Mapping[str, tuple[float, float]], allow: bool = False) -> tuple[str, ...]:
    """The gate of :mod:`atari5_spec.data.limits` on an agent's scores: InputError naming the first place it refuses, or,
    with ``allow``, what it would have refused (empty when nothing)."""
    from ..data.ids import resolve_game

    best = {g: high for g, (_, high) in extremes.items()}
    bounds = reference.upper_bounds(constants, best)
    problems = []
    resolved: dict[str, str] = {}
    for observation in observations:
        game = resolved.get(observation.game) or resolved.setdefault(observation.game,
                                                                     resolve_game(observation.game, aliases))
        problem = bound_problem(game, float(observation.score), bounds, best)
        if problem:
            if not allow:
                raise InputError(f"{observation.where}: {problem}")
            problems.append(f"{observation.where}: {problem}")
    fractions = fractions_problem(reference.seed_means({g: v for g, v in runs.items() if g in constants}), constants)
    if fractions:
        if not allow:
            where = observations[0].where if observations else "the scores"
            first = "the --score values" if where.startswith("--score") else where.split(",")[0]
            raise InputError(f"{first}: {fractions}")
        problems.append(fractions)
    return tuple(problems)


def bound_problem(game: str, value: float, bounds: Mapping[str, float], best: Mapping[str, float]) -> str | None:
    """Why ``value`` cannot be a raw score of ``game`` (SPEC.md section 1.1: above its bound), or None."""
    from ..data.limits import ALLOW_OPTION

    bound = bounds.get(game)
    if bound is None or value <= bound:
        return None
    return (f"{game} {value:g} is above {bound:g}, the largest raw score the gate accepts for it "
            f"({reference.BOUND_FACTOR:g} times the best published score's distance above random play; the best "
            f"published is {best[game]:g}): check the game, the units (the episode's raw game score) and the digits, "
            f"or give {ALLOW_OPTION} to score it knowingly (the output and the signature then record it)")


def fractions_problem(means: Mapping[str, float], constants: Mapping[str, tuple[float, float]]) -> str | None:
    """Why an agent's per-game means look like human-normalised fractions (SPEC.md section 1.1), or None."""
    from ..data.limits import ALLOW_OPTION

    below = reference.normalised_looking(means, constants)
    if not below:
        return None
    usable = sum(1 for g in means if g in constants)
    return (f"every score is within {reference.FRACTION_LIMIT:g} of zero and {len(below)} of {usable} games are at "
            f"or below random play ({', '.join(below)}): these look like human-normalised fractions (0 = random, "
            "1 = human), not raw game scores; give the raw score of each game (random play scores "
            f"{constants[below[0]][0]:g} at {below[0]}), or {ALLOW_OPTION} if they are raw")


def with_gate_allowed(result: ScoreResult, allowed: tuple[str, ...]) -> ScoreResult:
    """``result`` with what the gate let through recorded: the list, and ``gate:implausible-allowed`` in every
    signature (a number scored past the gate is never cited as one that passed it)."""
    from dataclasses import replace

    from ..data.limits import ALLOW_OPTION

    def marked(text: str | None) -> str | None:
        return None if text is None else str(replace(parse_signature(text), gate=GATE_ALLOWED))

    others = tuple(s._replace(signature=marked(s.signature)) for s in result.other_subsets)
    return result._replace(signature=marked(result.signature), other_subsets=others, implausible_allowed=allowed,
                           warnings=result.warnings + tuple(f"scored past the gate ({ALLOW_OPTION}): {a}"
                                                            for a in allowed))


def not_computable_message(result: ScoreResult) -> str:
    """'Atari-5 needs qbert, phoenix (not given); computed instead: Atari-1, Atari-3'."""
    return (f"{result.subset} needs {', '.join(result.not_computable[result.subset])} (not given)"
            + (f"; computed instead: {', '.join(s.subset for s in result.other_subsets)}"
               if result.other_subsets else ""))
