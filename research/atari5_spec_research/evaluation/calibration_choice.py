"""Which errors should calibrate the interval? Every calibration judged on the agents a user's agent is like.

A user's agent is scored by the version's pinned formula, and the selection
(the staged search) and the fit never saw it. The agents of the package that
are like it are the **never-selected** agents: outside the version's training
set (kind ``held-out``), scored by the pinned formula (their rows of the
``formula`` calibration). Every calibration is judged on them the same way,
leave-one-paper-out: each agent's interval is the calibration's half-width
computed from the errors of every *other* paper (in range: on its in-range
errors; the pooled method: on every error), widened by the factor the
calibration's own claim picks (method/claims.py; methods without claims: 1),
around the pinned formula's estimate; the agent is covered when its pinned
formula error is inside. Withheld claims give no interval.

The alternatives (docs/out-of-sample.md, "Which errors calibrate the interval"):

* every pinned edition of the version (pooled, in-range, its later editions,
  reselected, formula), read from ``calibration/``;
* ``pinned formula on everyone``: every agent, training agents included,
  scored by the pinned formula (computed here, never pinned: the training
  agents' errors are in sample).

Ratios: pairs of never-selected in-range agents from two different papers,
their error the difference of two pinned-formula errors, the interval
``10^(-+ sqrt(a^2 + b^2))`` with a and b each agent's half-width from the
calibration without its paper; decisions per band of true ratio.

Evidence counts agents, runs (a run's learning-curve checkpoints count once),
papers and sources (data/sources.csv), with exact (Clopper-Pearson) 95% bounds
over runs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from atari5_spec.method.calibration import CLAIMED_METHODS, IN_RANGE_MIN, NEVER_SELECTED, Calibration, read_named_calibration
from atari5_spec.method.claims import Evidence, evidence, supported

__all__ = ["EVERYONE", "Alternative", "alternatives", "never_selected_rows", "SingleResult", "single_results",
           "PairResult", "pair_results", "choice", "choice_blocks", "RULE"]

LEVEL = 0.95
EVERYONE = "pinned formula on everyone"
RULE = ("a calibration is eligible when each of its errors is out of sample for the model that produced it (this "
        "excludes the pinned formula on everyone, whose training agents were fitted on) and, applied to the "
        "never-selected in-range agents scored by the pinned formula (each calibrated without its own paper's "
        "errors, widened as its own claim rule widens it), it is supported in every subset `score` reports "
        "(at least 90% of the agents covered and the exact 95% bounds over runs reaching 95%: method/claims.py); "
        "among the eligible ones, the narrowest median Atari-5 width is `score`'s default; when none is eligible "
        "the default stays")


class Alternative(NamedTuple):
    """One way of calibrating: its name, its rows (dicts as in a calibration file), its method, and whether every
    one of its errors is out of sample for the model that produced it."""

    name: str
    calibration: Calibration
    out_of_sample: bool


def _pinned_names(root: Path, version: str) -> list[str]:
    from atari5_spec.method.calibration import pinned_calibration_names

    return pinned_calibration_names(root, version)


def everyone_by_formula(dataset, version: str) -> Calibration:
    """Every agent (training agents too, in sample) scored by the version's pinned formula."""
    from atari5_spec_research.evaluation.reselection import reselected_errors

    frame = reselected_errors(dataset, version, {}, by_formula=("held-out", "leave-one-paper-out"))
    rows = tuple({k: ("" if isinstance(v, float) and math.isnan(v) else str(v)) for k, v in r.items()}
                 for r in frame.to_dict("records"))
    return Calibration(version, rows, "computed", "in-range", 1)


def alternatives(dataset, version: str) -> list[Alternative]:
    """Every pinned edition of ``version``, oldest method first, then the pinned formula on everyone."""
    root = dataset.root
    out = []
    for name in _pinned_names(root, version):
        calibration = read_named_calibration(root / "coefficients" / version, name)
        if calibration is not None:
            out.append(Alternative(name, calibration, True))
    out.append(Alternative(EVERYONE, everyone_by_formula(dataset, version), False))
    return out


def never_selected_rows(formula: Calibration, subset: str) -> list[dict]:
    """The never-selected in-range agents of ``subset``: outside the training set, scored by the pinned formula."""
    return [r for r in formula.rows if r["subset"] == subset and r["kind"] == NEVER_SELECTED
            and float(r["estimate"]) >= IN_RANGE_MIN]


def _quantile(values: Sequence[float], level: float) -> float:
    ordered = sorted(abs(v) for v in values)
    rank = math.ceil((len(ordered) + 1) * level)
    return ordered[rank - 1] if 1 <= rank <= len(ordered) else math.inf


def _half_widths(calibration: Calibration, subset: str, papers, level: float) -> dict[str, float]:
    """Per paper: the in-range half-width from the calibration's errors of every other paper (pooled: every
    error)."""
    estimate = None if calibration.method == "pooled" else IN_RANGE_MIN
    return {p: _quantile(calibration.errors(subset, p, estimate), level) for p in papers}


def _factor(calibration: Calibration, subset: str, level: float) -> float:
    """The widening the calibration's own claim gives an in-range estimate (nan: withheld; 1 without claims)."""
    if calibration.method not in CLAIMED_METHODS:
        return 1.0
    claim = calibration.claim(subset, IN_RANGE_MIN, level)
    return claim.factor if claim.status != "withheld" else math.nan


def _width(estimate: float, half: float) -> float:
    centre = math.log10(1.0 + max(estimate, 0.0))
    low, high = 10.0 ** (centre - half) - 1.0, 10.0 ** (centre + half) - 1.0
    return high / low if low > 0 and math.isfinite(high) else math.inf


class SingleResult(NamedTuple):
    """One calibration's interval on one subset's never-selected in-range agents."""

    calibration: str
    subset: str
    status: str          # 'shown', 'widened x1.1', 'withheld'
    evidence: Evidence | None   # None when withheld
    sources: int
    median_width: float


def single_results(alternatives_: Sequence[Alternative], formula: Calibration, subsets: Sequence[str],
                   sources_of: dict, level: float = LEVEL) -> list[SingleResult]:
    out = []
    for alt in alternatives_:
        for subset in subsets:
            target = never_selected_rows(formula, subset)
            if not target or not alt.calibration.errors(subset):
                continue
            factor = _factor(alt.calibration, subset, level)
            n_sources = len({sources_of.get(r["algorithm_id"]) for r in target})
            if not math.isfinite(factor):
                out.append(SingleResult(alt.name, subset, "withheld", None, n_sources, math.nan))
                continue
            halves = _half_widths(alt.calibration, subset, {r["paper"] for r in target}, level)
            half = [halves[r["paper"]] * factor for r in target]
            flags = [abs(float(r["log_error"])) <= h for r, h in zip(target, half)]
            measured = evidence(flags, [r["algorithm_id"] for r in target], [r["paper"] for r in target])
            status = "shown" if factor == 1.0 else f"widened x{factor:g}"
            out.append(SingleResult(alt.name, subset, status, measured, n_sources,
                                    float(np.median([_width(float(r["estimate"]), h) for r, h in zip(target, half)]))))
    return out


class PairResult(NamedTuple):
    """One calibration's two-paper ratio interval on pairs of never-selected in-range agents."""

    calibration: str
    subset: str
    measured: object   # pair_evaluation.DesignResult: coverage (clustered by paper), width, decisions per band


def pair_results(alternatives_: Sequence[Alternative], formula: Calibration, subsets: Sequence[str],
                 level: float = LEVEL) -> list[PairResult]:
    from atari5_spec_research.pair_evaluation import measure_pairs
    from atari5_spec.method.pairs import pair_agents

    out = []
    for alt in alternatives_:
        for subset in subsets:
            agents = [a for a in pair_agents(formula, subset)
                      if a.agent in {r["agent"] for r in never_selected_rows(formula, subset)}]
            pairs = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1:] if a.paper != b.paper]
            factor = _factor(alt.calibration, subset, level)
            if not pairs or not alt.calibration.errors(subset) or not math.isfinite(factor):
                continue
            halves = _half_widths(alt.calibration, subset, {a.paper for a in agents}, level)
            half = np.array([math.hypot(halves[a.paper], halves[b.paper]) * factor for a, b in pairs])
            out.append(PairResult(alt.name, subset, measure_pairs(alt.name, "two papers, never selected", pairs,
                                                                   half)))
    return out


def choice(alternatives_: Sequence[Alternative], singles: Sequence[SingleResult], level: float = LEVEL,
           headline: str = "Atari-5") -> tuple[str | None, dict[str, str]]:
    """(the calibration the rule picks or None, why each calibration is or is not eligible)."""
    why, eligible = {}, {}
    for alt in alternatives_:
        mine = [r for r in singles if r.calibration == alt.name]
        short = [r.subset for r in mine if r.evidence is None or not supported(r.evidence, level)]
        if not alt.out_of_sample:
            why[alt.name] = "not eligible: its training agents' errors are in sample"
        elif short:
            why[alt.name] = "not eligible: not supported on never-selected agents for " + ", ".join(short)
        else:
            width = next(r.median_width for r in mine if r.subset == headline)
            eligible[alt.name] = width
            why[alt.name] = f"eligible: {headline} median width {width:.2f}"
    picked = min(eligible, key=lambda name: (eligible[name], name)) if eligible else None
    return picked, why


def _cell(e: Evidence | None, sources: int) -> str:
    if e is None:
        return "withheld"
    return (f"{e.covered}/{e.n} ({e.coverage:.1%}); {e.runs_covered}/{e.runs} runs, {e.papers} papers, {sources} "
            f"sources; runs {e.runs_low:.0%}-{e.runs_high:.0%}")


def choice_blocks(dataset, version: str, subsets: Sequence[str], level: float = LEVEL) -> dict[str, str]:
    """The comparison as markdown blocks: ``calibration-choice`` (docs/out-of-sample.md: per calibration and subset,
    never-selected coverage and width, the rule's outcome) and ``ratio-choice`` (docs/comparisons.md: two-paper
    ratios of never-selected agents per calibration and subset, decisions per band of true ratio)."""
    from atari5_spec_research.pair_evaluation import BANDS

    alts = alternatives(dataset, version)
    formula = next((a.calibration for a in reversed(alts) if a.calibration.method == "formula"), None)
    if formula is None:
        text = f"`{version}` has no pinned formula calibration: nothing to compare on.\n"
        return {"calibration-choice": text, "ratio-choice": text}
    sources_of = dict(zip(dataset.algorithms["algorithm_id"], dataset.algorithms["source_id"].astype(str)))
    singles = single_results(alts, formula, subsets, sources_of, level)
    lines = [f"`{version}`, {level:.0%} intervals on the never-selected in-range agents (outside the training set, "
             f"scored by the pinned formula; never-selected agents from `{formula.name}`), each calibrated without "
             "its own paper's errors: covered / agents; runs wholly covered, papers and sources behind them; exact "
             "95% bounds over runs; what `score` does with it (its own claim rule); median width (high / low):", "",
             "| calibration | " + " | ".join(subsets) + " |", "|---|" + "---|" * len(subsets)]
    for alt in alts:
        cells = []
        for subset in subsets:
            r = next((x for x in singles if x.calibration == alt.name and x.subset == subset), None)
            cells.append("-" if r is None else _cell(r.evidence, r.sources)
                         + ("" if r.evidence is None else f"; {r.status}, width {r.median_width:.2f}"))
        lines.append(f"| `{alt.name}` | " + " | ".join(cells) + " |")
    picked, why = choice(alts, singles, level)
    lines += ["", "The rule, as stated above: " + RULE + ".", ""]
    lines += [f"* `{name}`: {text}" for name, text in why.items()]
    lines += ["", f"Chosen by the rule: **{picked or 'none (the default stays)'}**."]
    blocks = {"calibration-choice": "\n".join(lines) + "\n"}
    pairs = pair_results(alts, formula, subsets, level)
    band_names = [name for name, _, _ in BANDS]
    lines = [f"`{version}`, {level:.0%} ratio intervals on pairs of never-selected in-range agents from two papers "
             f"(never-selected agents from `{formula.name}`; a pair's error is the difference of two pinned-formula "
             "errors), each agent's half-width from the calibration without its paper, combined as sqrt(a^2 + b^2): "
             "covered pairs with a 95% interval clustered by paper, the runs and papers behind them, median width "
             "(high / low), pairs decided (the interval excludes 1) per band of true ratio, wrong-way decisions:", "",
             "| calibration | subset | covered | runs | papers | median width | "
             + " | ".join(f"decided, {b}" for b in band_names) + " | wrong way |",
             "|---|---|---:|---:|---:|---:|" + "---:|" * len(band_names) + "---:|"]
    for p in pairs:
        m, e = p.measured, p.measured.evidence
        bands = [f"{d}/{n} ({d / n:.0%})" if n else "-" for d, n in m.bands]
        lines.append(f"| `{p.calibration}` | {p.subset} | {e.covered}/{e.n} ({e.coverage:.1%}; "
                     f"{e.low:.0%}-{e.high:.0%}) | {e.runs} | {e.papers} | {m.median_width:.2f} | "
                     + " | ".join(bands) + f" | {m.wrong_way} |")
    blocks["ratio-choice"] = "\n".join(lines) + "\n"
    return blocks


def shared_error_by_scoring(dataset, version: str, subset: str = "Atari-5") -> str:
    """Where the shared error by paper comes from: the intraclass correlation of the agents' plain log errors by
    paper, (a) training agents scored by their paper's fold (the reselected errors: agents of one paper share one
    fold model), (b) the same agents scored by the pinned formula (in sample), (c) never-selected agents scored by
    the pinned formula (what a same-setup comparison of two users' agents meets)."""
    from atari5_spec_research.pair_evaluation import shared_error
    from atari5_spec.method.pairs import pair_agents

    alts = {a.calibration.method if a.out_of_sample else EVERYONE: a.calibration
            for a in alternatives(dataset, version)}
    formula, reselected, everyone = alts.get("formula"), alts.get("reselected"), alts[EVERYONE]
    if formula is None or reselected is None:
        return ""

    def kind_agents(calibration, kind):
        names = {r["agent"] for r in calibration.rows if r["subset"] == subset and r["kind"] == kind}
        return [a for a in pair_agents(calibration, subset) if a.agent in names]

    lines = [f"Where that correlation comes from ({subset}, in-range agents, intraclass correlation by paper):", "",
             "| agents | scored by | agents | papers | intraclass correlation |", "|---|---|---:|---:|---:|"]
    for who, how, calibration, kind in (
            ("used by the selection (training agents)", f"their paper's fold (`{reselected.name}`)", reselected,
             "leave-one-paper-out"),
            ("used by the selection (training agents)", "the pinned formula (in sample)", everyone,
             "leave-one-paper-out"),
            ("never selected (held-out)", f"the pinned formula (`{formula.name}`)", formula, NEVER_SELECTED)):
        agents = kind_agents(calibration, kind)
        if len({a.paper for a in agents}) < 2:
            continue
        shared = shared_error(agents)
        lines.append(f"| {who} | {how} | {shared.n_agents} | {shared.n_papers} | {shared.icc:.2f} |")
    return "\n".join(lines) + "\n"
