"""When a ratio interval may state a direction: the decision margin, chosen leave-one-paper-out (issue 33).

The printed ratio interval stays the 95% one. A direction ("higher", "lower") is stated only when the interval
whose log10 half-widths are multiplied by a margin ``k`` excludes 1. The rule (docs/comparisons.md, "A direction
only with a measured guarantee", written before the margins were measured): ``k`` is the smallest value of
:data:`MARGINS` with no wrong-way decision (the widened interval excludes 1 on the side the true ratio is not
on) among the pairs of every population the design serves, each pair's half-width calibrated without its papers;
none when no margin of the grid gives none. Because that choice is made on the pairs it is then counted on, it
is also run nested (:func:`nested_wrong_way`): each pair's margin is chosen on the pairs that share none of its
papers, and its decision counted with that margin; the nested count is the out-of-sample guarantee.

Pairs are ``(first, second, half)`` with :class:`.pairs.PairAgent` agents and the 95% model half-width (log10)
the design gives the pair; everything here is plain numpy, no pandas (``score`` reads the chosen margin from the
pinned interval table, never this module).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from .pairs import (PairAgent, agent_codes, pair_population, population_evidence, same_paper_pair_half_widths,
                    same_paper_positions, two_paper_pair_half_widths, two_paper_positions)

__all__ = ["MARGINS", "Pair", "PairSet", "pair_set", "index_pair_set", "two_paper_pair_set", "never_selected_pair_set",
           "same_paper_pair_set",
           "same_setup_pair_set", "direction_margin", "pinned_margin", "decisions", "choose_margin", "nested_wrong_way", "MarginResult", "margin_results", "DIRECTION_INTERVALS"]

BANDS = (("1.3-2x", 1.3, 2.0), ("2-3x", 2.0, 3.0), (">3x", 3.0, math.inf))  # bands of true ratio
MARGINS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
from .reference import DIRECTION_INTERVALS, pinned_margin  # noqa: E402,F401 (the table's reads)


class Pair(NamedTuple):
    first: PairAgent
    second: PairAgent
    half: float          # the design's 95% model half-width for this pair (log10), calibrated without its papers


class PairSet(NamedTuple):
    """One population of pairs a design serves, as arrays: pair i is ``agents[first[i]], agents[second[i]]``."""

    name: str
    agents: tuple[PairAgent, ...]
    first: np.ndarray
    second: np.ndarray
    estimated: np.ndarray    # log10(estimate_first / estimate_second)
    true: np.ndarray         # log10(true_first / true_second)
    half: np.ndarray
    papers: np.ndarray       # (n, 2): the papers of each pair's two agents, as positions in paper_names
    paper_names: list[str]

    @property
    def pairs(self) -> tuple[Pair, ...]:
        """The pairs as :class:`Pair` objects (built on each call: the measurements use the arrays)."""
        return tuple(map(Pair, [self.agents[i] for i in self.first.tolist()],
                         [self.agents[j] for j in self.second.tolist()], self.half.tolist()))


def pair_set(name: str, halves: Sequence[tuple[PairAgent, PairAgent, float]]) -> PairSet:
    """The :class:`PairSet` ``name`` of (a, b, half-width) pairs (``pairs.two_paper_pair_halves``,
    ``pairs.same_paper_pair_halves``)."""
    return _pair_set(name, [Pair(a, b, h) for a, b, h in halves])


def _pair_set(name: str, pairs: Sequence[Pair]) -> PairSet:
    n = len(pairs)
    return index_pair_set(name, [p.first for p in pairs] + [p.second for p in pairs], np.arange(n),
                          np.arange(n, 2 * n), np.array([p.half for p in pairs], float))


def _log10_ratios(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """log10(numerator / denominator) per element, by ``math.log10`` (numpy's log10 may round a last bit otherwise,
    and the decisions compare these with the half-widths)."""
    return np.array(list(map(math.log10, (numerator / denominator).tolist())), float)


def index_pair_set(name: str, agents: Sequence[PairAgent], first: np.ndarray, second: np.ndarray, half: np.ndarray
                   ) -> PairSet:
    """The :class:`PairSet` ``name`` of the pairs ``agents[first[i]], agents[second[i]]`` with half-widths ``half``
    (arrays: ``pairs.two_paper_positions``, ``pairs.same_paper_positions``)."""
    estimate = np.array([a.estimate for a in agents], float)
    true = np.array([a.true_median for a in agents], float)
    codes = agent_codes(agents)
    return PairSet(name, tuple(agents), first, second, _log10_ratios(estimate[first], estimate[second]),
                   _log10_ratios(true[first], true[second]), np.asarray(half, float),
                   np.stack([codes.paper[first], codes.paper[second]], axis=1), codes.papers)


def two_paper_pair_set(agents: Sequence[PairAgent], level: float = 0.95, name: str = "two papers",
                       keep=None) -> PairSet:
    """Every pair of ``agents`` from two papers (``keep``: an optional set of agent names both must be in), with the
    two-paper half-width sqrt(a^2 + b^2), a and b calibrated without each agent's own paper."""
    first, second = two_paper_positions(agents, keep)
    return index_pair_set(name, agents, first, second, two_paper_pair_half_widths(agents, level, first, second))


def never_selected_pair_set(agents: Sequence[PairAgent], never: set, level: float = 0.95) -> PairSet:
    """Pairs from two papers whose agents the selection never used (pinned-formula errors)."""
    return two_paper_pair_set(agents, level, "never-selected, two papers", never)


def same_paper_pair_set(pairs: Sequence[tuple[PairAgent, PairAgent, float]], name: str = "one paper") -> PairSet:
    """Pairs from one paper with the same-setup design's half-width (calibrated without that paper)."""
    return pair_set(name, pairs)


def decisions(pairs: PairSet, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """(decided, wrong way): the interval with half-widths times ``margin`` excludes 1; and on the wrong side."""
    decided = np.abs(pairs.estimated) > margin * pairs.half
    return decided, decided & (np.sign(pairs.estimated) != np.sign(pairs.true))


def choose_margin(sets: Sequence[PairSet], margins: Sequence[float] = MARGINS) -> float | None:
    """The smallest margin with no wrong-way decision in any of ``sets``; None when none of ``margins`` gives none."""
    for k in margins:
        if not any(decisions(s, k)[1].any() for s in sets):
            return k
    return None


def _paper_codes(sets: Sequence[PairSet]) -> list[np.ndarray]:
    """Per set, an (n, 2) array of each pair's two paper codes (one code for all sets)."""
    names = sorted({name for s in sets for name in s.paper_names})
    position = {name: i for i, name in enumerate(names)}
    return [np.array([position[name] for name in s.paper_names], int)[s.papers] for s in sets]


def _fold_margins(folds: np.ndarray, culprits: dict[float, np.ndarray], margins: Sequence[float]) -> np.ndarray:
    """Per fold (a row of ``folds``: the two paper codes a pair's margin is chosen without), the smallest margin
    whose wrong-way pairs (``culprits``: margin -> their (m, 2) paper codes) each share a paper with the fold, so
    that the fold excludes each of them; inf when no margin's do."""
    out = np.full(len(folds), math.inf)
    for k in reversed(margins):  # the smallest clean margin is written last
        shares = (culprits[k][None, :, :, None] == folds[:, None, None, :]).any(axis=(2, 3))  # (folds, culprits)
        out[shares.all(axis=1)] = k
    return out


def nested_wrong_way(sets: Sequence[PairSet], margins: Sequence[float] = MARGINS
                     ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per set, (decided, wrong way) when each pair's margin is chosen on the pairs (of every set) that share none of
    its papers: the out-of-sample count of the rule. A pair whose fold admits no margin is not decided."""
    codes = _paper_codes(sets)
    if not codes:
        return [], []
    # per margin, the paper codes of every wrong-way pair: a fold is clean at k when it excludes one of each's papers
    culprits = {k: np.concatenate([c[decisions(s, k)[1]] for s, c in zip(sets, codes)]) for k in margins}
    every = np.concatenate(codes)
    width = int(every.max()) + 1 if len(every) else 1
    keys, fold = np.unique(every[:, 0] * width + every[:, 1], return_inverse=True)  # one key per pair of papers
    margin = _fold_margins(np.stack([keys // width, keys % width], axis=1), culprits, margins)[fold]
    decided_out, wrong_out = [], []
    for s, k in zip(sets, np.split(margin, np.cumsum([len(s.half) for s in sets])[:-1])):
        decided = np.abs(s.estimated) > k * s.half
        decided_out.append(decided)
        wrong_out.append(decided & (np.sign(s.estimated) != np.sign(s.true)))
    return decided_out, wrong_out


def band_counts(true_log: np.ndarray, decided: np.ndarray) -> tuple[tuple[int, int], ...]:
    size = np.abs(true_log)
    out = []
    for _, low, high in BANDS:
        mask = (size >= math.log10(low)) & (size < math.log10(high))
        out.append((int(decided[mask].sum()), int(mask.sum())))
    return tuple(out)


class MarginResult(NamedTuple):
    """One population under one margin: decisions per band of true ratio and wrong-way decisions."""

    population: str
    margin: float | None      # None: the nested rule (each pair's margin chosen without its papers)
    n: int
    bands: tuple[tuple[int, int], ...]    # (decided, pairs) per pair_evaluation.BANDS
    wrong_way: int
    wrong_low: float          # 95% interval of the wrong-way rate, clustered by paper
    wrong_high: float
    runs: int
    papers: int


def _result(s: PairSet, margin, decided: np.ndarray, wrong: np.ndarray) -> MarginResult:

    evidence = population_evidence(wrong, pair_population(s.first, s.second, agent_codes(s.agents)))
    return MarginResult(s.name, margin, len(s.half), band_counts(s.true, decided), int(wrong.sum()), evidence.low,
                        evidence.high, evidence.runs, evidence.papers)


def margin_results(sets: Sequence[PairSet], margins: Sequence[float] = MARGINS) -> list[MarginResult]:
    """Every set under every margin of the grid, then under the nested rule."""
    sets = [s for s in sets if len(s.half)]
    out = [_result(s, k, *decisions(s, k)) for k in margins for s in sets]
    decided, wrong = nested_wrong_way(sets, margins)
    out += [_result(s, None, d, w) for s, d, w in zip(sets, decided, wrong)]
    return out


def same_setup_pair_set(agents: Sequence[PairAgent], level: float = 0.95) -> PairSet:
    """Pairs from one paper with the same-setup model's half-width fitted without that paper (what ``score
    --same-setup`` applies, :func:`.pairs.same_setup_model`)."""
    first, second = same_paper_positions(agents)
    return index_pair_set("one paper", agents, first, second, same_paper_pair_half_widths(agents, level, first))


def direction_margin(sets: Sequence[PairSet], margins: Sequence[float] = MARGINS):
    """(margin, nested decided, nested wrong way) of a design: the rule's margin (None: no margin of the grid
    gives no wrong-way decision) and, per set, the out-of-sample (nested) decisions behind it."""
    sets = [s for s in sets if len(s.half)]
    decided, wrong = nested_wrong_way(sets, margins)
    return choose_margin(sets, margins), decided, wrong
