"""The ratio of two agents' 57-game medians: the pairs its coverage was measured on, and the same-setup model.

A ratio interval makes a claim about a *pair* of agents, so its evidence is
pairs of agents the coefficient version did not see: the rows of the pinned
calibration ``score`` uses, in range (estimate at or above 40, where the
model was fitted). Each pair's error is the difference of the two agents'
plain log errors, ``log10(true / estimate)``.

Two designs are used (chosen leave-one-paper-out, ``docs/comparisons.md``):

* **two papers** (the default): the two agents' own prediction-interval
  half-widths combined as ``sqrt(a^2 + b^2)``; its coverage is measured on
  pairs of agents from two different papers.
* **same setup** (``--same-setup``: both agents ran in one codebase and
  protocol): a model of shared error, ``error = paper effect + run effect +
  checkpoint noise``. The paper effect cancels in a pair from one setup; the
  rest does not. The variance of a pair's error is estimated from pairs of
  *different runs* within one paper (learning-curve checkpoints of one run
  share more error than two algorithms do, so they would make the interval
  too narrow for two algorithms), each paper weighted by its runs minus one,
  and the half-width is Student's t on those degrees of freedom times
  ``sqrt(2 variance)``: it stays finite with the few papers that hold two or
  more runs.

Evidence always says how many pairs, runs (an algorithm entry with all its
learning-curve checkpoints) and papers stand behind a coverage figure, with a
95% interval that respects clustering by paper: Clopper-Pearson on the
effective number of pairs (Korn & Graubard 1998), the design effect from a
bootstrap over papers (pinned seed), never more than the pairs and never fewer
than the papers (when every pair is covered, the papers).

No pandas and no scipy here (:mod:`.distributions`): ``score --relative-to`` must start fast.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Sequence

import numpy as np

from ..data.frames import STANDARD_EPISODE_FRAMES
from .calibration import SAME_SETUP_RULE, TWO_PAPER_RULE, MeasuredRange, PairEvidence as Evidence  # noqa: F401 (the readers' types)
from .claims import pool_quantiles
from .reference import IN_RANGE_MIN
from .distributions import beta_quantile, t_quantile

__all__ = ["PairAgent", "pair_agents", "MeasuredRange", "measured_range", "SameSetupModel", "same_setup_model",
           "same_paper_pairs",
           "two_paper_half_widths", "covered_pairs", "Evidence", "clustered_proportion", "pair_evidence", "two_paper_evidence",
           "same_setup_evidence", "two_paper_pair_halves", "two_paper_pairs", "pairs_evidence", "paper_draws",
           "t_two_sided", "STANDARD_EPISODE_FRAMES", "IN_RANGE_MIN", "SAME_SETUP_RULE", "TWO_PAPER_RULE",
           "BOOTSTRAP_RESAMPLES", "BOOTSTRAP_SEED", "AgentCodes", "agent_codes", "PairClusters", "pair_clusters",
           "clustered_interval", "PairPopulation", "pair_population", "population_evidence", "two_paper_positions",
           "two_paper_pair_half_widths", "same_paper_positions", "same_paper_pair_half_widths", "setup_terms"]

BOOTSTRAP_RESAMPLES = 2000       # resamples of papers behind the clustered coverage interval
BOOTSTRAP_SEED = 0


class PairAgent(NamedTuple):
    """One in-range agent of a pinned calibration, as the pair measurements use it."""

    agent: str
    run: str          # the algorithm entry (learning-curve checkpoints of one run share it)
    paper: str
    estimate: float
    true_median: float
    single_error: float   # log10((1 + true) / (1 + estimate)): what the single-agent interval calibrates
    plain_error: float    # log10(true / estimate): what a plain ratio's error is made of


def pair_agents(calibration, subset: str) -> list[PairAgent]:
    """The calibration's in-range agents of ``subset`` with a positive true median (the pairs' agents)."""
    out = []
    for r in calibration.rows:
        estimate, true = float(r["estimate"]), float(r["true_median"])
        if r["subset"] != subset or estimate < IN_RANGE_MIN or true <= 0:
            continue
        out.append(PairAgent(r["agent"], r.get("algorithm_id") or r["agent"], r["paper"], estimate, true,
                             math.log10((1 + true) / (1 + estimate)), math.log10(true / estimate)))
    return out


def measured_range(agents: Sequence[PairAgent]) -> MeasuredRange | None:
    if not agents:
        return None
    return MeasuredRange(IN_RANGE_MIN, max(a.estimate for a in agents), len(agents))


@functools.lru_cache(maxsize=1024)
def t_two_sided(df: float, level: float) -> float:
    """The two-sided ``level`` quantile of Student's t with ``df`` degrees of freedom (a pure function of two
    numbers, remembered: the interval tables ask for the same few thousands of times, and each answer is a
    plain-Python bisection)."""
    return t_quantile(1.0 - (1.0 - level) / 2.0, df)


class SameSetupModel(NamedTuple):
    """The same-setup pair error model fitted on a calibration's agents: the half-width at ``level``."""

    half_width: float     # log10 half-width of the model part of a same-setup ratio interval
    variance: float       # of one agent's error around its setup's (paper's) shared effect, across runs
    df: int               # runs minus papers, over the papers with two or more runs
    n_papers: int         # papers with two or more runs (the ones that inform the model)
    n_runs: int
    n_agents: int
    level: float


def _different_run_pairs(agents: Sequence[PairAgent]):
    by_paper: dict[str, list[PairAgent]] = {}
    for a in agents:
        by_paper.setdefault(a.paper, []).append(a)
    for paper, members in sorted(by_paper.items()):
        runs = {a.run for a in members}
        if len(runs) < 2:
            continue
        squares = [(x.plain_error - y.plain_error) ** 2 for i, x in enumerate(members) for y in members[i + 1:]
                   if x.run != y.run]
        yield paper, members, len(runs), squares


class _SetupTerm(NamedTuple):
    """One paper's part of the same-setup model: its runs, agents and mean squared different-run pair error."""

    paper: str
    runs: int
    n_agents: int
    mean_square: float


def setup_terms(agents: Sequence[PairAgent]) -> list[_SetupTerm]:
    """Per paper with two or more runs (in paper order), its part of the model: computed once, so that the
    leave-one-paper-out models only drop one term each."""
    return [_SetupTerm(paper, runs, len(members), sum(squares) / len(squares))
            for paper, members, runs, squares in _different_run_pairs(agents)]


def _model_of_terms(terms: Sequence[_SetupTerm], level: float, exclude_paper: str | None = None
                    ) -> SameSetupModel | None:
    weighted = df = n_papers = n_runs = n_agents = 0
    for term in terms:
        if term.paper == exclude_paper:
            continue
        weighted += (term.runs - 1) * term.mean_square / 2.0
        df += term.runs - 1
        n_papers += 1
        n_runs += term.runs
        n_agents += term.n_agents
    if df == 0:
        return None
    variance = weighted / df
    return SameSetupModel(t_two_sided(df, level) * math.sqrt(2.0 * variance), variance, df, n_papers, n_runs,
                          n_agents, level)


def same_setup_model(agents: Sequence[PairAgent], level: float, exclude_paper: str | None = None, terms=None
                     ) -> SameSetupModel | None:
    """The model on the agents of every paper but ``exclude_paper``; None when no paper has two runs. ``terms``: the
    agents' :func:`setup_terms`, when the caller has them (they do not depend on the level)."""
    return _model_of_terms(setup_terms(agents) if terms is None else terms, level, exclude_paper)


def two_paper_half_widths(agents: Sequence[PairAgent], level: float) -> dict[str, float]:
    """Per paper, the single in-range half-width calibrated without that paper's agents."""
    codes = agent_codes(agents)
    errors = np.abs(np.array([a.single_error for a in agents], float))
    order = np.argsort(errors, kind="stable")
    others = codes.paper[order][None, :] != np.arange(len(codes.papers))[:, None]  # per paper: the other papers'
    return dict(zip(codes.papers, pool_quantiles(errors[order], others, level).tolist()))


@functools.lru_cache(maxsize=64)
def _draws_by_paper(n_papers: int, resamples: int, seed: int) -> np.ndarray:
    """:func:`paper_draws` transposed, papers x resamples (read-only; remembered as it is): a paper's draws
    contiguous, as the pair weights gather them."""
    draws = np.ascontiguousarray(paper_draws(n_papers, resamples, seed).T)
    draws.setflags(write=False)
    return draws


@functools.lru_cache(maxsize=64)
def paper_draws(n_papers: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """(resamples, n_papers): how often each paper is drawn in each bootstrap resample of the papers (read-only; a
    pure function of three numbers, remembered as :func:`t_two_sided` is: every coverage interval over the same
    number of papers draws the same resamples)."""
    counts = np.random.default_rng(seed).multinomial(n_papers, np.full(n_papers, 1.0 / n_papers),
                                                     size=resamples).astype(float)
    counts.setflags(write=False)
    return counts


def _distinct_codes(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct codes, ascending; each code's position among them): ``np.unique(codes, return_inverse=True)``
    for codes below ``size``, by marking instead of sorting."""
    present = np.zeros(size, bool)
    present[codes] = True
    return np.flatnonzero(present), np.cumsum(present)[codes] - 1


def _resample_weights(draws: np.ndarray, first: np.ndarray, second: np.ndarray, weights: np.ndarray,
                      one_paper: bool) -> np.ndarray:
    """Per bootstrap resample (a column of ``draws``: papers x resamples, how often each paper is drawn), the pairs'
    summed whole-number ``weights``, a one-paper pair's times k when its paper is drawn k times, a two-paper pair's
    times k l; over only the papers of the pairs with a weight. Every product and partial sum is a whole number far
    below 2^53, so exact in any order; einsum's own loops, not BLAS (whose threads cost more CPU than they save)."""
    use = weights != 0
    rows, row = _distinct_codes(first[use], len(draws))
    if one_paper:
        return np.einsum("b,br->r", np.bincount(row, weights[use], len(rows)), draws[rows])
    cols, col = _distinct_codes(second[use], len(draws))
    table = np.bincount(row * len(cols) + col, weights[use], len(rows) * len(cols)).reshape(len(rows), len(cols))
    return np.einsum("cr,cr->r", np.einsum("bc,br->cr", table, draws[rows]), draws[cols])


class PairClusters(NamedTuple):
    """Pairs as the paper codes of their two agents (equal for a pair from one paper), with what every coverage
    interval on them shares: the bootstrap's paper draws and each resample's total pair weight."""

    first: np.ndarray
    second: np.ndarray
    papers: int           # papers among the pairs
    draws: np.ndarray     # paper_draws of the codes' papers, transposed: papers x resamples
    one_paper: bool       # every pair from one paper: a paper drawn k times counts its pairs k times
    total: np.ndarray     # per resample, the pairs' weight


def pair_clusters(first: np.ndarray, second: np.ndarray, n_papers: int, resamples: int = BOOTSTRAP_RESAMPLES,
                  seed: int = BOOTSTRAP_SEED) -> PairClusters:
    """The :class:`PairClusters` of pairs with paper codes ``first``, ``second`` (0 .. ``n_papers`` - 1; at least one
    pair)."""
    draws = _draws_by_paper(n_papers, resamples, seed)
    one_paper = bool(np.array_equal(first, second))
    total = _resample_weights(draws, first, second, np.ones(len(first)), one_paper)
    return PairClusters(first, second, len(np.union1d(first, second)), draws, one_paper, total)


def clustered_interval(covered: np.ndarray, clusters: PairClusters | None) -> tuple[float, float, float]:
    """:func:`clustered_proportion` of the pairs ``clusters`` describes (None: no pairs)."""
    n = len(covered)
    if n == 0 or clusters is None:
        return math.nan, math.nan, 0.0
    # the covered pairs' weights as the total less the uncovered ones': whole numbers, exact; and few pairs are
    # uncovered, so few papers enter the product
    weight_total = clusters.total
    weight_hits = weight_total - _resample_weights(clusters.draws, clusters.first, clusters.second,
                                                   (~covered).astype(float), clusters.one_paper)
    ok = weight_total > 0
    p = float(covered.mean())
    used = clusters.papers
    if 0.0 < p < 1.0 and ok.sum() > 1:
        variance = float(np.var(weight_hits[ok] / weight_total[ok], ddof=1))
        effective = p * (1 - p) / variance if variance > 0 else float(n)
    else:
        effective = float(used)
    effective = min(max(effective, float(used)), float(n))
    x = p * effective
    low = 0.0 if x <= 0 else beta_quantile(0.025, x, effective - x + 1)
    high = 1.0 if x >= effective else beta_quantile(0.975, x + 1, effective - x)
    return low, high, effective


def clustered_proportion(covered: np.ndarray, first: np.ndarray, second: np.ndarray, n_papers: int,
                         resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
                         ) -> tuple[float, float, float]:
    """(low, high, effective n): a 95% interval for the proportion of ``covered`` pairs (paper codes ``first``,
    ``second``, equal for a pair from one paper), respecting clustering by paper.

    A bootstrap over papers (a paper drawn k times weighs its one-paper pairs k times and its pairs with a paper
    drawn l times k l times) gives the variance; its ratio to the binomial variance is the design effect; the
    Clopper-Pearson interval is taken on n / design effect pairs, bounded by [papers, pairs]."""
    covered = np.asarray(covered, bool)
    clusters = pair_clusters(first, second, n_papers, resamples, seed) if len(covered) else None
    return clustered_interval(covered, clusters)


class AgentCodes(NamedTuple):
    """Each pair agent's paper and run as its position in the sorted names: pairs measured as index arrays."""

    papers: list[str]
    paper: np.ndarray
    runs: list[str]
    run: np.ndarray


def _codes(names: Sequence[str]) -> tuple[list[str], np.ndarray]:
    ordered = sorted(set(names))
    position = {name: i for i, name in enumerate(ordered)}
    return ordered, np.array([position[name] for name in names], int)


def agent_codes(agents: Sequence[PairAgent]) -> AgentCodes:
    """The :class:`AgentCodes` of ``agents``."""
    papers, paper = _codes([a.paper for a in agents])
    runs, run = _codes([a.run for a in agents])
    return AgentCodes(papers, paper, runs, run)


class PairPopulation(NamedTuple):
    """Pairs as positions ``first``, ``second`` into one list of agents, with what every coverage figure on them
    shares (computed once, whatever pairs turn out covered)."""

    first: np.ndarray
    second: np.ndarray
    clusters: PairClusters | None   # the bootstrap clusters, by the sorted order of the pairs' papers
    runs: np.ndarray                 # the codes of the runs of the pairs' agents
    papers: int


def pair_population(first: np.ndarray, second: np.ndarray, codes: AgentCodes) -> PairPopulation:
    """The :class:`PairPopulation` of the pairs at positions ``first``, ``second`` of the agents ``codes``
    describes."""
    n = len(first)
    papers, paper = _distinct_codes(np.concatenate([codes.paper[first], codes.paper[second]]), len(codes.papers))
    clusters = pair_clusters(paper[:n], paper[n:], len(papers)) if n else None
    runs, _ = _distinct_codes(np.concatenate([codes.run[first], codes.run[second]]), len(codes.runs))
    return PairPopulation(first, second, clusters, runs, len(papers))


def population_evidence(covered: np.ndarray, population: PairPopulation) -> Evidence:
    """Counts and the clustered interval of the coverage indicators of a :class:`PairPopulation`'s pairs."""
    covered = np.asarray(covered, bool)
    low, high, effective = clustered_interval(covered, population.clusters)
    return Evidence(int(np.sum(covered)), len(covered), len(population.runs), population.papers, low, high,
                    effective)


def pair_evidence(covered: np.ndarray, first_agents: Sequence[PairAgent], second_agents: Sequence[PairAgent]
                  ) -> Evidence:
    """Counts and the clustered interval of pair coverage indicators."""
    n = len(first_agents)
    population = pair_population(np.arange(n), np.arange(n, 2 * n), agent_codes([*first_agents, *second_agents]))
    return population_evidence(covered, population)


def two_paper_positions(agents: Sequence[PairAgent], keep=None) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) arrays of every pair ``agents[i], agents[j]`` (i < j, in that order) from two papers (``keep``: an
    optional set of agent names both must be in)."""
    paper = agent_codes(agents).paper
    first, second = np.triu_indices(len(agents), 1)
    use = paper[first] != paper[second]
    if keep is not None:
        kept = np.array([a.agent in keep for a in agents], bool)
        use &= kept[first] & kept[second]
    return first[use], second[use]


def two_paper_pair_half_widths(agents: Sequence[PairAgent], level: float, first: np.ndarray, second: np.ndarray
                             ) -> np.ndarray:
    """Per two-paper pair (positions ``first``, ``second``), the half-width ``math.hypot`` of the two papers' own
    half-widths, taken once per pair of papers."""
    halves = two_paper_half_widths(agents, level)
    papers = sorted(halves)
    paper = agent_codes(agents).paper
    table = np.array([[math.hypot(halves[p], halves[q]) for q in papers] for p in papers], float).reshape(
        len(papers), len(papers))
    return table[paper[first], paper[second]]


def _two_paper_index(agents: Sequence[PairAgent], level: float, keep=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(i, j, half-width) arrays of every pair ``agents[i], agents[j]`` from two papers (:func:`two_paper_positions`,
    :func:`two_paper_pair_half_widths`)."""
    first, second = two_paper_positions(agents, keep)
    return first, second, two_paper_pair_half_widths(agents, level, first, second)


def two_paper_pair_halves(agents: Sequence[PairAgent], level: float, keep=None
                          ) -> list[tuple[PairAgent, PairAgent, float]]:
    """(a, b, half-width) for every pair of agents from two papers (``keep``: an optional set of agent names both
    must be in), the half-width sqrt(a^2 + b^2) of the two agents' own half-widths, each calibrated without its own
    paper."""
    first, second, half = _two_paper_index(agents, level, keep)
    return [(agents[i], agents[j], h) for i, j, h in zip(first.tolist(), second.tolist(), half.tolist())]


def covered_pairs(halves: Sequence[tuple[PairAgent, PairAgent, float]]) -> list[tuple[PairAgent, PairAgent, bool]]:
    """(a, b, covered) of (a, b, half-width) pairs: the difference of the two plain errors within the half-width."""
    return [(a, b, abs(a.plain_error - b.plain_error) <= half) for a, b, half in halves]


def two_paper_pairs(agents: Sequence[PairAgent], level: float) -> list[tuple[PairAgent, PairAgent, bool]]:
    """(a, b, covered) for every pair of agents from two papers (:func:`two_paper_pair_halves`)."""
    first, second, half = _two_paper_index(agents, level)
    plain = np.array([a.plain_error for a in agents], float)
    covered = np.abs(plain[first] - plain[second]) <= half
    return [(agents[i], agents[j], c) for i, j, c in zip(first.tolist(), second.tolist(), covered.tolist())]


def pairs_evidence(pairs: Sequence[tuple[PairAgent, PairAgent, bool]]) -> Evidence | None:
    """The :func:`pair_evidence` of (a, b, covered) triples; None when there are none."""
    if not pairs:
        return None
    return pair_evidence(np.array([c for _, _, c in pairs], bool), [a for a, _, _ in pairs], [b for _, b, _ in pairs])


def two_paper_evidence(agents: Sequence[PairAgent], level: float) -> Evidence | None:
    """Coverage of the two-paper design on pairs of agents from two papers, each half-width calibrated without its
    own paper (the figure ``score --relative-to`` prints)."""
    return pairs_evidence(two_paper_pairs(agents, level))


def same_paper_positions(agents: Sequence[PairAgent]) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) arrays of every pair ``agents[i], agents[j]`` (i < j) from one paper, paper by paper in sorted order."""
    paper = agent_codes(agents).paper
    first, second = np.triu_indices(len(agents), 1)
    use = paper[first] == paper[second]
    first, second = first[use], second[use]
    by_paper = np.argsort(paper[first], kind="stable")  # within a paper, still i then j ascending
    return first[by_paper], second[by_paper]


def same_paper_pair_half_widths(agents: Sequence[PairAgent], level: float, first: np.ndarray, terms=None
                              ) -> np.ndarray:
    """Per one-paper pair (first positions ``first``), the same-setup half-width calibrated without its paper
    (leave-one-paper-out; inf where no model can be fitted without it). ``terms``: as :func:`same_setup_model`'s."""
    terms = setup_terms(agents) if terms is None else terms
    codes = agent_codes(agents)
    half = np.full(len(codes.papers), math.inf)
    for code in np.unique(codes.paper[first]).tolist():
        model = _model_of_terms(terms, level, exclude_paper=codes.papers[code])
        half[code] = model.half_width if model else math.inf
    return half[codes.paper[first]]


def same_paper_pair_halves(agents: Sequence[PairAgent], level: float) -> list[tuple[PairAgent, PairAgent, float]]:
    """(a, b, half-width) for every pair of agents from one paper, the same-setup half-width calibrated without
    that paper (:func:`same_paper_pair_half_widths`)."""
    first, second = same_paper_positions(agents)
    half = same_paper_pair_half_widths(agents, level, first)
    return [(agents[i], agents[j], h) for i, j, h in zip(first.tolist(), second.tolist(), half.tolist())]


def same_paper_pairs(agents: Sequence[PairAgent], level: float) -> list[tuple[PairAgent, PairAgent, bool]]:
    """(a, b, covered) for every pair of agents from one paper (:func:`same_paper_pair_halves`)."""
    return covered_pairs(same_paper_pair_halves(agents, level))


def same_setup_evidence(agents: Sequence[PairAgent], level: float) -> Evidence | None:
    """Coverage of the same-setup design on pairs of agents from one paper (:func:`same_paper_pairs`)."""
    return pairs_evidence(same_paper_pairs(agents, level))
