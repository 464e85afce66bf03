"""Two agents' measured medians compared, when both have 40 or more of the 57 games: the ratio and a seed bootstrap.

When both sides of ``score --relative-to`` (:func:`atari5_spec.relative_score`) give at least 40 of the 57
games (the paper's inclusion rule for a true median, as :mod:`.own_median`), the quantity the Atari-5 ratio
predicts can be measured: the median human-normalised score over the games of the 57 both sides have, the
agent's divided by the baseline's. It is *measured*, not estimated; the Atari-5 ratio is kept beside it.

Normalisation is the reference's (:func:`atari5_spec.method.reference.human_normalised` of each game's seed
mean, the coefficient version's constants), as the agent's :attr:`ScoreResult.normalised` holds it.

Seed noise: where both sides have per-seed scores (two or more seeds for every compared game; for an entry
of the package, its rows of data/seed_scores.csv, whose means must be its published numbers), a percentile
bootstrap: :data:`RESAMPLES` resamples, each game's seeds resampled with replacement within that game and
independently per agent, by :func:`atari5_spec.method.reference.bootstrap_means` with the pinned seed
:data:`SEED` (numpy's PCG64 seeded with (0, crc32(game), stream 2 for the agent, 3 for the baseline)), the
medians and their ratio taken per resample; the interval is the resampled ratios' percentile interval at the
comparison's level (it can sit off-centre around the measured ratio: a median's bootstrap is lumpy). It covers
seed noise only (not the games left out nor a difference of protocol); a direction ("higher", "lower") is
stated only when it excludes 1 (on the side of the measured ratio).

No pandas (``score`` must start fast).
"""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

import numpy as np

from ..method import reference
from .own_median import MIN_GAMES

__all__ = ["MeasuredComparison", "measured_comparison", "MIN_GAMES", "RESAMPLES", "SEED"]

RESAMPLES = 2000   # the bootstrap's resamples: fixed, whatever --bootstrap says
SEED = 0           # the bootstrap's pinned seed: fixed, whatever --seed says
STREAMS = (2, 3)   # the agent's and the baseline's random streams (the Atari-5 ratio's seed interval uses 0 and 1)
AGREEMENT = 1e-9   # how close (relative) a package entry's seed means must be to its published numbers


class MeasuredComparison(NamedTuple):
    """The agent's measured median over the games both sides have, divided by the baseline's."""

    ratio: float | None                 # agent median / baseline median; None when the baseline's is at or below 0
    agent_median: float                 # human-normalised, in %, over ``games``
    baseline_median: float
    games: tuple[str, ...]              # the games compared: of the 57, given by both sides (order of the 57)
    agent_games: int                    # games of the 57 the agent gave
    baseline_games: int                 # games of the 57 the baseline has
    atari5_ratio: float | None          # the Atari-5 ratio of the same comparison, beside it
    interval: tuple[float, float] | None  # the seed bootstrap's percentile interval for ``ratio``
    level: float
    n_resamples: int | None             # RESAMPLES when there is an interval
    bootstrap_seed: int | None          # SEED when there is an interval
    decision: str | None                # higher, lower, cannot tell (the interval holds 1); None without interval
    agent_seeds: str                    # where the agent's per-seed scores came from
    baseline_seeds: str
    note: str = ""                      # why there is no seed interval (or no ratio); '' when there is one

    @property
    def n_games(self) -> int:
        return len(self.games)

    @property
    def label(self) -> str:
        """'57-game medians' with all 57 games on both sides, else 'medians over the 44 games both have'."""
        return "57-game medians" if self.n_games == 57 else f"medians over the {self.n_games} games both have"

    def as_dict(self) -> dict:
        return dict(self._asdict(), games=list(self.games), n_games=self.n_games, label=self.label,
                    interval=list(self.interval) if self.interval else None)


def canonical_games() -> list[str]:
    """The 57 games (data/games.csv, ``in_57``), in the table's order."""
    from .estimate import games_table

    return [row["game_id"] for row in games_table() if row.get("in_57", "").lower() == "true"]


def measured_comparison(agent_normalised: Mapping[str, float], baseline_normalised: Mapping[str, float],
                        canonical: Sequence[str], constants: Mapping[str, tuple[float, float]],
                        agent_runs: Mapping[str, Sequence[float]] | None,
                        baseline_runs: Mapping[str, Sequence[float]] | None, level: float,
                        atari5_ratio: float | None = None, agent_seeds: str = "its given scores",
                        baseline_seeds: str = "its given scores", no_seeds: str = "") -> MeasuredComparison | None:
    """The measured comparison, or None when either side gives fewer than MIN_GAMES of the ``canonical`` games,
    or they have fewer than MIN_GAMES in common.

    ``*_normalised``: game -> human-normalised score of the seed mean (a ScoreResult's ``normalised``);
    ``*_runs``: game -> per-seed raw scores for the bootstrap (None: no per-seed scores, ``no_seeds`` says why).
    """
    agent_given = [g for g in canonical if g in agent_normalised]
    baseline_given = [g for g in canonical if g in baseline_normalised]
    games = tuple(g for g in agent_given if g in baseline_normalised)
    if len(agent_given) < MIN_GAMES or len(baseline_given) < MIN_GAMES or len(games) < MIN_GAMES:
        return None
    agent_median = float(np.median([agent_normalised[g] for g in games]))
    baseline_median = float(np.median([baseline_normalised[g] for g in games]))
    base = dict(agent_median=agent_median, baseline_median=baseline_median, games=games,
                agent_games=len(agent_given), baseline_games=len(baseline_given), atari5_ratio=atari5_ratio,
                level=float(level), agent_seeds=agent_seeds, baseline_seeds=baseline_seeds)
    none = dict(interval=None, n_resamples=None, bootstrap_seed=None, decision=None)
    if baseline_median <= 0:
        return MeasuredComparison(None, **base, **none,
                                  note="the baseline's measured median is at or below random play: a ratio to it "
                                       "is meaningless")
    ratio = agent_median / baseline_median
    why = _no_bootstrap(games, agent_runs, baseline_runs, no_seeds)
    if why:
        return MeasuredComparison(ratio, **base, **none, note=why)
    samples = [_median_samples(games, runs, constants, stream) for runs, stream in
               ((agent_runs, STREAMS[0]), (baseline_runs, STREAMS[1]))]
    if not np.all(samples[1] > 0):
        return MeasuredComparison(ratio, **base, **none,
                                  note="the baseline's median is at or below random play in some seed resamples")
    low, high = reference.percentile_interval(samples[0] / samples[1], level)
    # a direction only when the interval excludes 1 on the side of the measured ratio (a percentile interval of a
    # median can sit off-centre; one that excluded 1 on the other side would contradict the measurement)
    decision = "higher" if low > 1.0 and ratio > 1.0 else "lower" if high < 1.0 and ratio < 1.0 else "cannot tell"
    return MeasuredComparison(ratio, **base, interval=(low, high), n_resamples=RESAMPLES, bootstrap_seed=SEED,
                              decision=decision)


def _no_bootstrap(games, agent_runs, baseline_runs, no_seeds: str) -> str:
    """Why the seed bootstrap cannot be run ('' when it can): a side without per-seed scores, or with a single
    seed for some compared game."""
    if agent_runs is None or baseline_runs is None:
        return no_seeds or f"{'the agent' if agent_runs is None else 'the baseline'} has no per-seed scores"
    for who, runs in (("the agent", agent_runs), ("the baseline", baseline_runs)):
        single = [g for g in games if len(runs.get(g, ())) < 2]
        if single:
            if len(single) == len(games):
                return f"{who} has one score per game (no seeds)"
            return (f"{who} has a single seed for {len(single)} of the {len(games)} games "
                    f"({', '.join(single[:3])}{', ...' if len(single) > 3 else ''})")
    return ""


def _median_samples(games, runs, constants, stream: int) -> np.ndarray:
    """RESAMPLES medians over ``games`` of the normalised seed means, each game's seeds resampled with
    replacement (reference.bootstrap_means, seed SEED, ``stream``)."""
    normalised = np.empty((len(games), RESAMPLES))
    for i, game in enumerate(games):
        random, human = constants[game]
        means = reference.bootstrap_means(runs[game], RESAMPLES, SEED, game, stream)
        normalised[i] = reference.human_normalised(means, random, human)
    return np.median(normalised, axis=0)


def entry_seed_runs(entry, games: Sequence[str]) -> tuple[dict[str, tuple[float, ...]] | None, str]:
    """(per-seed scores, '') of a package entry over ``games`` from data/seed_scores.csv, or (None, why not): the
    rows must cover every game, and each game's seed mean must be the entry's published number."""
    from .baselines import seed_runs

    runs = seed_runs(entry.algorithm_id)
    if not runs:
        return None, f"data/seed_scores.csv has no seeds for {entry.algorithm_id}"
    lacking = [g for g in games if g not in runs]
    if lacking:
        return None, (f"data/seed_scores.csv lacks {entry.algorithm_id}'s seeds for "
                      f"{len(lacking)} of the games ({', '.join(lacking[:3])}"
                      f"{', ...' if len(lacking) > 3 else ''})")
    for g in games:
        mean, published = float(np.mean(runs[g])), entry.scores[g]
        if abs(mean - published) > AGREEMENT * max(1.0, abs(published)):
            return None, (f"{entry.algorithm_id}'s seeds in data/seed_scores.csv average {mean:g} at {g}, "
                          f"not its published {published:g}")
    return {g: runs[g] for g in games}, ""
