"""How the ratio intervals were chosen and what stands behind them: designs for same-setup pairs compared
leave-one-paper-out, decision rates by band of true ratio, and whether pairs from one paper share their error.

Everything here is measured on the pinned calibration ``score`` uses (its in-range agents, plain log errors,
:mod:`.pairs`) and printed by ``python scripts/update_comparison_docs.py`` into docs/comparisons.md.

Same-setup designs (each paper's one-paper pairs calibrated on the other papers' agents only):

* ``two papers``: the default interval (root-sum-square of the two single half-widths), for reference;
* ``one-paper pairs, conformal``: split-conformal quantile of |pair error| over the other papers' one-paper pairs;
* ``random effect: paper + agent``: error = paper effect + agent noise; half-width t(N - papers) x sqrt(2 MSW),
  MSW the pooled within-paper variance of the agents' errors;
* ``random effect: paper + run``: error = paper effect + run effect + checkpoint noise; the variance from pairs
  of different runs within one paper (:func:`.pairs.same_setup_model`).

The rule, the one the single-agent interval was chosen by: the narrowest median width among the designs whose
leave-one-paper-out coverage of one-paper pairs is at least the level.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from atari5_spec.method.pairs import PairAgent, pair_agents, pair_evidence, same_setup_model, t_two_sided, two_paper_half_widths
from atari5_spec.method.decision_margin import BANDS, band_counts

__all__ = ["measure_pairs", "SetupSpread", "setup_spreads", "setup_spread_markdown",
           "BANDS", "SAME_SETUP_DESIGNS", "DesignResult", "same_setup_designs", "chosen_design", "two_paper_bands",
           "shared_error", "SharedError", "comparison_markdown", "subsets_markdown"]

LEVEL = 0.95
# bands of the true ratio (larger / smaller median) that the decision rates are reported in
SAME_SETUP_WIDTH_TARGET = 2.7  # issue 33: same-setup ratio intervals no wider than this (reported, never chosen by)
SAME_SETUP_DESIGNS = ("two papers", "one-paper pairs, conformal", "random effect: paper + agent",
                      "random effect: paper + run")


def _one_paper_pairs(agents: Sequence[PairAgent]):
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            if a.paper == b.paper:
                yield a, b


def _conformal(values, level: float) -> float:
    absolute = np.sort(np.abs(np.asarray(values, float)))
    rank = math.ceil((len(absolute) + 1) * level)
    return float(absolute[rank - 1]) if 1 <= rank <= len(absolute) else math.inf


def _paper_agent_half(agents: Sequence[PairAgent], level: float) -> float:
    by_paper: dict[str, list[float]] = {}
    for a in agents:
        by_paper.setdefault(a.paper, []).append(a.plain_error)
    squares = sum(float(np.sum((np.array(v) - np.mean(v)) ** 2)) for v in by_paper.values())
    df = sum(len(v) - 1 for v in by_paper.values())
    return t_two_sided(df, level) * math.sqrt(2 * squares / df) if df else math.inf


def _half_width(design: str, agents: Sequence[PairAgent], paper: str, level: float) -> float:
    others = [a for a in agents if a.paper != paper]
    if design == "two papers":
        halves = two_paper_half_widths(agents, level)
        return math.hypot(halves[paper], halves[paper])
    if design == "one-paper pairs, conformal":
        return _conformal([a.plain_error - b.plain_error for a, b in _one_paper_pairs(others)], level)
    if design == "random effect: paper + agent":
        return _paper_agent_half(others, level)
    if design == "random effect: paper + run":
        model = same_setup_model(agents, level, exclude_paper=paper)
        return model.half_width if model else math.inf
    raise ValueError(design)


class DesignResult(NamedTuple):
    design: str
    pairs: str                 # 'one paper', 'one paper, different runs', 'one paper, checkpoints of one run'
    evidence: object           # pairs.Evidence
    median_width: float        # high / low
    bands: tuple[tuple[int, int], ...]   # (decided, n) per BANDS
    wrong_way: int


def _measure(design: str, label: str, pairs: list[tuple[PairAgent, PairAgent]], half: np.ndarray) -> DesignResult:
    error = np.array([a.plain_error - b.plain_error for a, b in pairs])
    estimated = np.array([math.log10(a.estimate / b.estimate) for a, b in pairs])
    true_log = np.array([math.log10(a.true_median / b.true_median) for a, b in pairs])
    covered = np.abs(error) <= half
    decided = np.abs(estimated) > half
    wrong = decided & (np.sign(estimated) != np.sign(true_log))
    evidence = pair_evidence(covered, [a for a, _ in pairs], [b for _, b in pairs])
    return DesignResult(design, label, evidence, float(np.median(10.0 ** (2 * half))),
                        band_counts(true_log, decided), int(wrong.sum()))


def measure_pairs(design: str, label: str, pairs: list[tuple[PairAgent, PairAgent]], half: np.ndarray
                  ) -> DesignResult:
    """Coverage (clustered by paper), median width and decisions per band of ``pairs`` under half-widths ``half``
    (log10, one per pair)."""
    return _measure(design, label, pairs, np.asarray(half, float))


def same_setup_designs(agents: Sequence[PairAgent], level: float = LEVEL) -> list[DesignResult]:
    """Every design on the one-paper pairs, leave-one-paper-out; also split into pairs of different runs and
    pairs of checkpoints of one run."""
    pairs = list(_one_paper_pairs(agents))
    out = []
    for design in SAME_SETUP_DESIGNS:
        cache = {p: _half_width(design, agents, p, level) for p in {a.paper for a, _ in pairs}}
        half = np.array([cache[a.paper] for a, _ in pairs])
        different = np.array([a.run != b.run for a, b in pairs])
        for label, mask in (("one paper", np.ones(len(pairs), bool)), ("one paper, different runs", different),
                            ("one paper, checkpoints of one run", ~different)):
            if mask.any():
                out.append(_measure(design, label, [p for p, m in zip(pairs, mask) if m], half[mask]))
    return out


def chosen_design(results: Sequence[DesignResult], level: float = LEVEL) -> str | None:
    """The narrowest median width among designs covering at least ``level`` of the one-paper pairs."""
    eligible = [r for r in results if r.pairs == "one paper" and r.evidence.covered >= level * r.evidence.n]
    return min(eligible, key=lambda r: r.median_width).design if eligible else None


def two_paper_bands(agents: Sequence[PairAgent], level: float = LEVEL) -> DesignResult:
    """The default (two-paper) design on pairs of agents from two papers: coverage, width, decisions per band."""
    halves = two_paper_half_widths(agents, level)
    pairs = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1:] if a.paper != b.paper]
    half = np.array([math.hypot(halves[a.paper], halves[b.paper]) for a, b in pairs])
    return _measure("two papers", "two papers", pairs, half)


class SharedError(NamedTuple):
    one_paper: tuple[int, float]           # pairs, median |pair error|
    one_paper_different_runs: tuple[int, float]
    two_papers: tuple[int, float]
    icc: float                             # paper-level intraclass correlation of the agents' errors
    n_agents: int
    n_papers: int


def shared_error(agents: Sequence[PairAgent]) -> SharedError:
    """Do pairs from one paper share their error? Median |pair error| by kind of pair, and the one-way ANOVA
    intraclass correlation of the agents' plain log errors by paper."""
    groups: dict[str, list[float]] = {}
    for a in agents:
        groups.setdefault(a.paper, []).append(a.plain_error)
    one, runs, two = [], [], []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            d = abs(a.plain_error - b.plain_error)
            (one if a.paper == b.paper else two).append(d)
            if a.paper == b.paper and a.run != b.run:
                runs.append(d)
    values = np.array([a.plain_error for a in agents])
    k, n = len(groups), len(values)
    sizes = np.array([len(v) for v in groups.values()])
    within = sum(float(np.sum((np.array(v) - np.mean(v)) ** 2)) for v in groups.values()) / (n - k)
    between = sum(len(v) * (np.mean(v) - values.mean()) ** 2 for v in groups.values()) / (k - 1)
    n0 = (n - float(np.sum(sizes ** 2)) / n) / (k - 1)
    paper_variance = max((between - within) / n0, 0.0)
    return SharedError((len(one), float(np.median(one))), (len(runs), float(np.median(runs))),
                       (len(two), float(np.median(two))), paper_variance / (paper_variance + within), n, k)


def subsets_markdown(calibration, level: float = LEVEL) -> str:
    """Per subset of the calibration: the default interval on two-paper pairs and the same-setup interval
    (leave-one-paper-out) on one-paper pairs, with their evidence and widths."""
    from atari5_spec.method.pairs import same_setup_evidence

    lines = [f"Calibration `{calibration.name}`, {level:.0%} ratio intervals, every subset it holds (the same-setup "
             "design was chosen on Atari-5; on another subset its coverage is what this table measures):", "",
             "| subset | interval | pairs | covered | 95% interval (clustered by paper) | runs | papers | "
             "median width (high / low) |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for subset in dict.fromkeys(r["subset"] for r in calibration.rows):
        agents = pair_agents(calibration, subset)
        if len(agents) < 2:
            continue
        default = two_paper_bands(agents, level)
        same = same_setup_evidence(agents, level)
        model = same_setup_model(agents, level)
        rows = [("default (two papers)", "two papers", default.evidence, default.median_width)]
        if same is not None and model is not None:
            rows.append(("same setup", "one paper", same, 10.0 ** (2 * model.half_width)))
        for label, pairs, e, width in rows:
            lines.append(f"| {subset} | {label} | {pairs} | {e.covered}/{e.n} ({e.coverage:.1%}) | "
                         f"{e.low:.0%}-{e.high:.0%} | {e.runs} | {e.papers} | {width:.2f} |")
    return "\n".join(lines) + "\n"


def _bands_text(bands) -> list[str]:
    return [f"{d}/{n} ({d / n:.0%})" if n else "-" for d, n in bands]


def _row(r: DesignResult) -> str:
    e = r.evidence
    return (f"| {r.design} | {r.pairs} | {e.covered}/{e.n} ({e.coverage:.1%}) | {e.low:.0%}-{e.high:.0%} | "
            f"{e.runs} | {e.papers} | {r.median_width:.2f} | " + " | ".join(_bands_text(r.bands))
            + f" | {r.wrong_way} |")


def comparison_markdown(calibration, subset: str = "Atari-5", level: float = LEVEL) -> dict[str, str]:
    """The generated blocks of docs/comparisons.md: name -> markdown."""
    agents = pair_agents(calibration, subset)
    band_names = [name for name, _, _ in BANDS]
    header = ("| design | pairs | covered | 95% interval (clustered by paper) | runs | papers | "
              "median width (high / low) | " + " | ".join(f"decided, true ratio {b}" for b in band_names) + " | wrong way |")
    rule = "|---|---|---:|---:|---:|---:|---:|" + "---:|" * len(band_names) + "---:|"
    default = two_paper_bands(agents, level)
    blocks = {"two-papers": "\n".join([
        f"Calibration `{calibration.name}`, {subset}, {level:.0%} ratio intervals, pairs of in-range agents from two "
        "papers, each half-width calibrated without its own paper:", "", header, rule, _row(default)]) + "\n"}
    designs = same_setup_designs(agents, level)
    chosen = chosen_design(designs, level)
    lines = [f"Calibration `{calibration.name}`, {subset}, {level:.0%} ratio intervals, pairs of in-range agents "
             "from one paper, each paper's pairs calibrated without that paper (leave-one-paper-out):", "", header,
             rule]
    lines += [_row(r) for r in designs]
    both = [r.design for r in designs if r.pairs == "one paper" and r.evidence.covered >= level * r.evidence.n
            and r.median_width <= SAME_SETUP_WIDTH_TARGET]
    lines += ["", f"Chosen (the narrowest median width among designs covering at least {level:.0%} of the one-paper "
              f"pairs): **{chosen or 'none'}**.",
              f"Designs covering at least {level:.0%} with a median width of at most {SAME_SETUP_WIDTH_TARGET:g} (issue "
              f"33's target): {', '.join(both) if both else 'none'}."]
    blocks["same-setup"] = "\n".join(lines) + "\n"
    shared = shared_error(agents)
    blocks["subsets"] = subsets_markdown(calibration, level)
    blocks["shared-error"] = "\n".join([
        f"Calibration `{calibration.name}`, {subset}, {shared.n_agents} in-range agents from {shared.n_papers} papers:",
        "", "| pairs | n | median \\|pair error\\| (log10) |", "|---|---:|---:|",
        f"| one paper | {shared.one_paper[0]} | {shared.one_paper[1]:.3f} |",
        f"| one paper, different runs | {shared.one_paper_different_runs[0]} | "
        f"{shared.one_paper_different_runs[1]:.3f} |",
        f"| two papers | {shared.two_papers[0]} | {shared.two_papers[1]:.3f} |", "",
        f"Intraclass correlation of the agents' errors by paper (one-way ANOVA): {shared.icc:.2f}."]) + "\n"
    return blocks


class SetupSpread(NamedTuple):
    """One setup's (paper's) own within-setup spread against the pooled spread of every other setup."""

    paper: str
    runs: int
    df: int                  # runs - 1
    sd: float                # its within-setup standard deviation of one agent's error (log10)
    pooled_sd: float         # the other setups' pooled within-setup standard deviation
    ratio_low: float         # interval of its variance / the others' (F; 95% jointly over the setups tested)
    ratio_high: float

    @property
    def differs(self) -> bool:
        """The interval excludes 1: the evidence earns a spread of its own for this setup."""
        return self.ratio_high < 1.0 or self.ratio_low > 1.0


def _f_quantile(q: float, d1: float, d2: float) -> float:
    from atari5_spec.method.distributions import beta_quantile

    x = beta_quantile(q, d1 / 2.0, d2 / 2.0)
    return d2 * x / (d1 * (1.0 - x)) if x < 1.0 else math.inf


def setup_spreads(agents: Sequence[PairAgent], min_runs: int = 3) -> list[SetupSpread]:
    """Per setup (paper) with at least ``min_runs`` runs: is its within-setup spread different from the others'?

    Each setup's variance of one agent's error around its setup's shared effect, from pairs of different runs
    (as :func:`.pairs.same_setup_model`, df = runs - 1), against the pooled variance of every other setup
    (df = their runs minus setups); the interval of the ratio of the two variances from the F distribution
    (normal errors) at 95% jointly over the setups tested (Bonferroni: each at 1 - 0.05 / setups). A per-setup
    (per-family) spread is earned only where that interval excludes 1."""
    from atari5_spec.method.pairs import same_setup_model

    out = []
    by_paper: dict[str, set] = {}
    for a in agents:
        by_paper.setdefault(a.paper, set()).add(a.run)
    tested = sorted(p for p, runs in by_paper.items() if len(runs) >= min_runs)
    tail = 0.05 / max(len(tested), 1) / 2.0
    for paper in tested:
        own = same_setup_model([a for a in agents if a.paper == paper], 0.95)
        others = same_setup_model(agents, 0.95, exclude_paper=paper)
        if own is None or others is None:
            continue
        f = own.variance / others.variance
        low = f / _f_quantile(1.0 - tail, own.df, others.df)
        high = f / _f_quantile(tail, own.df, others.df)
        out.append(SetupSpread(paper, own.n_runs, own.df, math.sqrt(own.variance), math.sqrt(others.variance),
                               low, high))
    return out


def setup_spread_markdown(calibration, subset: str = "Atari-5", min_runs: int = 3) -> str:
    """The per-setup spreads of a calibration's in-range agents as markdown (docs/comparisons.md)."""
    spreads = setup_spreads(pair_agents(calibration, subset), min_runs)
    lines = [f"Calibration `{calibration.name}`, {subset}, in-range agents, setups (papers) with at least {min_runs} "
             "runs: the within-setup standard deviation of one agent's error (log10, from pairs of different runs), "
             "the pooled one of every other setup, and the interval of the ratio of their variances (F distribution, "
             f"95% jointly over the {len(spreads)} setups tested: Bonferroni):", "",
             "| setup (paper) | runs | df | within-setup SD | others' pooled SD | variance ratio, joint 95% interval | "
             "a spread of its own? |", "|---|---:|---:|---:|---:|---:|---|"]
    for s in spreads:
        lines.append(f"| {s.paper} | {s.runs} | {s.df} | {s.sd:.3f} | {s.pooled_sd:.3f} | "
                     f"{s.ratio_low:.2f}-{s.ratio_high:.2f} | {'yes' if s.differs else 'no: the pooled spread'} |")
    earned = [s.paper for s in spreads if s.differs]
    lines += ["", "Setups whose own spread the evidence earns: " + (", ".join(earned) if earned else "none") + "."]
    return "\n".join(lines) + "\n"
