"""A calibration's interval table: the pinned half-widths ``score`` and the site apply, with the claim and evidence.

One pure function, :func:`interval_table`, turns a pinned calibration (its
rows of out-of-sample errors) into ``calibration/intervals/<name>.csv``
(``schemas/calibration-intervals.schema.json``; docs/design/interval-tables.md):
one row per (interval, subset, range, level) with the model half-width in
log10 after any widening, the claim (shown, widened, withheld:
:mod:`.claims`) and the out-of-sample evidence behind it. Every quantile is
taken here, once, when the calibration is pinned; ``score`` and the site only
read the table (:func:`atari5_spec.method.reference.read_interval_table`).

Per calibration method (:mod:`.calibration`):

* ``pooled``: range ``pooled``, the conformal quantile of every error of the
  subset; evidence on held-out agents (``held-out``), each calibrated without
  its own paper.
* ``in-range``: ``in range`` on the in-range errors, ``extrapolation`` on
  every error; evidence leave-one-paper-out on all agents of the range
  (``leave-one-paper-out``). Always shown.
* ``reselected``: as in-range, and the claim rule of :mod:`.claims` decides
  shown, widened (half-width x factor) or withheld.
* ``formula``: as reselected; the evidence is the claim's coverage on the
  agents the selection never used, scored by the pinned formula
  (``never-selected``), the primary line under its interval.

Ratio rows (``in range`` only; a ratio is in range when both agents are):
``ratio-two-papers`` half-width ``sqrt(2) q`` (two in-range agents' model
parts combined; a pair with an agent below 40 combines the two agents' own
rows), evidence on pairs from two papers; ``ratio-same-setup`` the same-setup
model's half-width (:mod:`.pairs`), evidence on pairs from one paper.

Direction rows (issue 33; ``direction-two-papers``, ``direction-same-setup``): when each ratio design states a
direction. ``factor`` is the decision margin of :mod:`.decision_margin` (a direction only when the interval
with its log half-widths times the factor excludes 1), ``half_width`` the ratio row's times it, status
``shown`` (margin 1), ``widened`` (reason ``wrong-way``) or ``withheld`` (``no-margin``: no direction); the
counts are pairs without a wrong-way decision, each pair's margin chosen without its papers (out of sample).
Level 0.95 only (DIRECTION_LEVELS): at another level a ratio interval is printed but no direction stated.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

if TYPE_CHECKING:  # imported where used: the module stays light for ``score``
    import numpy as np

    from .claims import ClaimRows
    from .pairs import AgentCodes, PairAgent, PairPopulation

__all__ = ["interval_table", "interval_table_text", "INTERVAL_COLUMNS", "INTERVALS_SCHEMA", "intervals_path",
           "LEVELS", "REASON_CODES"]

INTERVALS_SCHEMA = "schemas/calibration-intervals.schema.json"


def _schema_fields(root=None) -> list[dict]:
    """The interval table's fields as its schema states them (the single source of truth for its columns)."""
    import json

    from ..data.datapackage import package_root

    from ..data.paths import read_package_text

    return json.loads(read_package_text(package_root(root) / INTERVALS_SCHEMA, package_root(root)))["fields"]


INTERVAL_COLUMNS = [f["name"] for f in _schema_fields()]
INTEGER_COLUMNS = [f["name"] for f in _schema_fields() if f["type"] == "integer"]  # written as whole numbers
LEVELS = (0.8, 0.9, 0.95)  # the levels tabulated; `score` gives no prediction interval at any other
DIRECTION_LEVELS = (0.95,)  # the levels with direction rows; at any other a ratio states no direction
# claim code -> what it means (the site and the CLI render their sentences from the code and the counts)
REASON_CODES = {"too-few-agents": "fewer agents measured in the range than the level needs (1 / (1 - level))",
                "coverage-short": "the measured coverage falls short of the level: widened by the factor, or "
                                  "withheld when the coverage with the factor picked without each paper is short",
                "no-factor": "no widening factor up to the largest tried supports the level",
                "too-few-errors": "too few errors for a conformal quantile at the level",
                "wrong-way": "a direction is stated only when the interval widened by the factor (the decision margin, "
                             "method/decision_margin.py) excludes 1: at the level itself some measured pair was "
                             "decided the wrong way",
                "no-margin": "no decision margin up to the largest tried avoids every wrong-way decision: no "
                             "direction is stated"}


def intervals_path(root, name: str):
    """calibration/intervals/<name>.csv of the package at ``root``."""
    from pathlib import Path

    return Path(root) / "calibration" / "intervals" / f"{name}.csv"


def _conformal(errors: Sequence[float], level: float) -> float:
    from .calibration import conformal_quantile

    return conformal_quantile(errors, level)


def _row(interval, subset, group, level, status, half_width, factor, errors, population, evidence, sources,
         reason="", **printed) -> dict:
    withheld = status == "withheld" or half_width is None or not math.isfinite(half_width)
    return {"interval": interval, "subset": subset, "range": group, "level": level,
            "status": "withheld" if withheld else status, "half_width": None if withheld else half_width,
            "factor": factor if status == "widened" else 1, "errors": errors, "population": population,
            **evidence, "sources": sources, "reason": reason or ("too-few-errors" if withheld and status != "withheld"
                                                                 else ""), **printed}


def _evidence_cells(prefix: str, ev) -> dict:
    """An agent :class:`~atari5_spec.method.calibration.Evidence` as the ``<prefix>_*`` cells of a row."""
    return {f"{prefix}_agents_covered": ev.covered, f"{prefix}_agents": ev.n, f"{prefix}_runs_covered": ev.runs_covered,
            f"{prefix}_runs": ev.runs, f"{prefix}_papers": ev.papers,
            f"{prefix}_coverage_low": ev.runs_low if ev.n else None,
            f"{prefix}_coverage_high": ev.runs_high if ev.n else None}


def _also_agents(population: str, ev) -> dict:
    """The second evidence line of an agent row (``also_*``): held-out agents, or every agent of the claim."""
    return {"also_population": population, **_evidence_cells("also", ev)}


def _also_pairs(ev) -> dict:
    """The ratio design's evidence as ``score --relative-to`` prints it (``also_*``; none without pairs)."""
    if ev is None:
        return {}
    return {"also_agents_covered": ev.covered, "also_agents": ev.n, "also_runs": ev.runs, "also_papers": ev.papers,
            "also_coverage_low": ev.low, "also_coverage_high": ev.high, "also_effective_n": ev.effective_n}


def _sticky_cells(details) -> dict:
    """In-range claims: the coverage for agents with sticky actions (``sticky_*``) and without or not saying
    (``unsticky_*``), as ``score --sticky-actions`` prints it."""
    from .claims import evidence

    out = {}
    for prefix, sticky in (("sticky", True), ("unsticky", False)):
        pick = [i for i, r in enumerate(details.members) if (r["sticky"] == "sticky") == sticky]
        if pick:
            out.update(_evidence_cells(prefix, evidence([details.covered[i] for i in pick],
                                                        [details.members[i]["algorithm_id"] for i in pick],
                                                        [details.members[i]["paper"] for i in pick])))
    return out


def _agent_evidence(ev, source_of: Mapping[str, str], runs: Sequence[str]) -> tuple[dict, int]:
    return ({"agents_covered": ev.covered, "agents": ev.n, "runs_covered": ev.runs_covered, "runs": ev.runs,
             "papers": ev.papers, "coverage_low": ev.runs_low if ev.n else None,
             "coverage_high": ev.runs_high if ev.n else None},
            len({source_of.get(r, "") for r in runs} - {""}))


class _SubsetRows(NamedTuple):
    """A subset's calibration rows and what the agent rows of every level read (computed once per calibration)."""

    rows: list[dict]
    errors: dict[str, list[float]]   # range group -> the errors its interval is calibrated on
    members: dict[str, list[str]]    # range group -> the algorithm ids of its agents
    claims: ClaimRows | None         # claimed methods: the rows as the claim measurements read them


def _subset_rows(calibration, subset: str) -> _SubsetRows:
    """The :class:`_SubsetRows` of ``subset``."""
    from .calibration import CLAIMED_METHODS, IN_RANGE_MIN
    from .claims import claim_rows

    mine = [r for r in calibration.rows if r["subset"] == subset]
    groups = ("pooled",) if calibration.method == "pooled" else ("in range", "extrapolation")
    group_of = [calibration.group(float(r["estimate"])) for r in mine]
    return _SubsetRows(mine, {g: calibration.errors(subset, estimate=IN_RANGE_MIN if g == "in range" else None)
                              for g in groups},
                       {g: [r["algorithm_id"] for r, own in zip(mine, group_of) if own == g] for g in groups},
                       claim_rows(mine, subset, calibration.group) if calibration.method in CLAIMED_METHODS
                       else None)


def _agent_rows(calibration, subset: str, level: float, source_of: Mapping[str, str], shared: _SubsetRows
                ) -> list[dict]:
    """The agent rows of ``subset`` at ``level``; ``shared``: the subset's :class:`_SubsetRows`."""
    from .calibration import NEVER_SELECTED
    from .claims import claim_details

    if calibration.method == "pooled":
        ev = calibration.coverage_evidence(subset, level)
        held = [r["algorithm_id"] for r in shared.rows if r["kind"] == "held-out"]
        counts, sources = _agent_evidence(ev, source_of, held)
        errors = shared.errors["pooled"]
        return [_row("agent", subset, "pooled", level, "shown", _conformal(errors, level), 1, len(errors),
                     "held-out", counts, sources)]
    rows = []
    for group in ("in range", "extrapolation"):
        errors, members = shared.errors[group], shared.members[group]
        q = _conformal(errors, level)
        if shared.claims is not None:
            details = claim_details(calibration.rows, subset, group, calibration.group, level, shared.claims)
            claim = details.claim
            factor = claim.factor if claim.status == "widened" else 1
            if calibration.primary_is_never_selected:  # formula: the pinned formula on agents never selected
                never = [r["algorithm_id"] for r in details.members if r["kind"] == NEVER_SELECTED]
                counts, sources = _agent_evidence(claim.held_out, source_of, never)
                population, also = "never-selected", _also_agents("every-agent", claim.evidence)
            else:
                counts, sources = _agent_evidence(claim.evidence, source_of, members)
                population, also = "leave-one-paper-out", _also_agents("held-out", claim.held_out)
            plain = {"plain_agents_covered": claim.plain.covered, "plain_agents": claim.plain.n,
                     "plain_coverage_high": claim.plain.runs_high if claim.plain.n else None}
            sticky = _sticky_cells(details) if group == "in range" else {}
            rows.append(_row("agent", subset, group, level, claim.status, q * factor, factor, len(errors),
                             population, counts, sources, claim.code, **plain, **also, **sticky))
        else:
            ev = calibration.coverage_evidence(subset, level, None, group)
            counts, sources = _agent_evidence(ev, source_of, members)
            also = _also_agents("held-out", calibration.coverage_evidence(subset, level, "held-out", group))
            rows.append(_row("agent", subset, group, level, "shown", q, 1, len(errors), "leave-one-paper-out",
                             counts, sources, **also))
    return rows


class _SubsetPairs(NamedTuple):
    """A subset's pair agents and what the pair rows of every level share: each design's pairs as positions into
    ``agents``, with their evidence populations (computed once per calibration, not per level)."""

    agents: list[PairAgent]
    codes: AgentCodes
    plain: np.ndarray              # each agent's plain error
    terms: list                    # the agents' same-setup model terms (pairs.setup_terms)
    two_papers: PairPopulation     # every pair from two papers (the design's pairs, its direction row's too)
    same_paper: PairPopulation     # every pair from one paper
    measured: PairPopulation       # the pairs the two-paper ratio's coverage is measured on: every two-paper pair
                                   # or (formula) those of two never-selected agents
    measured_of_two_papers: np.ndarray  # which of two_papers' pairs they are (a mask)
    measured_population: str       # their population code in the table


def _subset_pairs(calibration, subset: str) -> _SubsetPairs | None:
    """The :class:`_SubsetPairs` of ``subset``; None when the calibration has no pair rows for it."""
    import numpy as np

    from .calibration import NEVER_SELECTED
    from .pairs import agent_codes, pair_agents, pair_population, same_paper_positions, setup_terms, \
        two_paper_positions

    if calibration.method == "pooled" or not all("true_median" in r for r in calibration.rows):
        return None
    agents = pair_agents(calibration, subset)
    if not agents:
        return None
    codes = agent_codes(agents)
    two_papers = pair_population(*two_paper_positions(agents), codes)
    measured, kept, population = two_papers, np.ones(len(two_papers.first), bool), "pairs-two-papers"
    if calibration.primary_is_never_selected:  # formula: pairs of never-selected agents, two pinned-formula errors
        names = {r["agent"] for r in calibration.rows if r["subset"] == subset and r["kind"] == NEVER_SELECTED}
        never = np.array([a.agent in names for a in agents], bool)
        kept = never[two_papers.first] & never[two_papers.second]
        measured = pair_population(two_papers.first[kept], two_papers.second[kept], codes)
        population = "never-selected-pairs-two-papers"
    return _SubsetPairs(agents, codes, np.array([a.plain_error for a in agents], float), setup_terms(agents),
                        two_papers, pair_population(*same_paper_positions(agents), codes), measured, kept,
                        population)


def _pair_counts(population: PairPopulation, covered: np.ndarray, shared: _SubsetPairs, source_of: Mapping[str, str]
                 ) -> tuple[dict, int]:
    """(evidence cells, sources) of a population's pairs with their ``covered`` flags: runs_covered counts the runs
    every one of whose pairs (as the first or the second agent) is covered."""
    import numpy as np

    from .pairs import population_evidence

    ev = population_evidence(covered, population)
    run = shared.codes.run
    short = np.union1d(run[population.first[~covered]], run[population.second[~covered]])
    counts = {"agents_covered": ev.covered, "agents": ev.n, "runs_covered": ev.runs - len(short), "runs": ev.runs,
              "papers": ev.papers, "coverage_low": ev.low, "coverage_high": ev.high}
    return counts, len({source_of.get(shared.codes.runs[r], "") for r in population.runs.tolist()} - {""})


def _pair_rows(calibration, subset: str, level: float, source_of: Mapping[str, str], shared: _SubsetPairs | None,
               subset_rows: _SubsetRows) -> list[dict]:
    """The ratio rows of ``subset`` at ``level``, then (at DIRECTION_LEVELS) their direction rows; ``shared``: the
    subset's :class:`_SubsetPairs` (None: the calibration has no pair rows for it), ``subset_rows`` its
    :class:`_SubsetRows`."""
    import numpy as np

    from .pairs import (measured_range, same_paper_pair_half_widths, same_setup_evidence, same_setup_model,
                        two_paper_evidence, two_paper_pair_half_widths)

    if shared is None:
        return []
    rows = []
    q = _conformal(subset_rows.errors["in range"], level)
    # each design's pair half-widths at this level, once for the ratio and the direction rows
    halves = {"ratio-two-papers": two_paper_pair_half_widths(shared.agents, level, shared.two_papers.first,
                                                           shared.two_papers.second),
              "ratio-same-setup": same_paper_pair_half_widths(shared.agents, level, shared.same_paper.first,
                                                            shared.terms)}
    model = same_setup_model(shared.agents, level, terms=shared.terms)
    span = measured_range(shared.agents)
    measured = {"measured_low": span.low, "measured_high": span.high, "measured_agents": span.n_agents}
    setup = {} if model is None else {"model_runs": model.n_runs, "model_papers": model.n_papers, "model_df": model.df}
    for interval, pairs, half, pair_halves, population, printed in (
            ("ratio-two-papers", shared.measured, math.hypot(q, q),
             halves["ratio-two-papers"][shared.measured_of_two_papers], shared.measured_population,
             {"also_population": "pairs-two-papers", **_also_pairs(two_paper_evidence(shared.agents, level))}),
            ("ratio-same-setup", shared.same_paper, None if model is None else model.half_width,
             halves["ratio-same-setup"], "pairs-same-paper",
             {"also_population": "pairs-same-paper", **_also_pairs(same_setup_evidence(shared.agents, level)),
              **setup})):
        if not len(pairs.first):
            continue
        covered = np.abs(shared.plain[pairs.first] - shared.plain[pairs.second]) <= pair_halves
        counts, sources = _pair_counts(pairs, covered, shared, source_of)
        rows.append(_row(interval, subset, "in range", level, "shown", half, 1, counts["agents"], population, counts,
                         sources, **measured, **printed))
    return rows + (_direction_rows(rows, halves, shared, subset, level, source_of) if level in DIRECTION_LEVELS
                   else [])


def _direction_rows(ratio_rows: list[dict], halves: Mapping[str, np.ndarray], shared: _SubsetPairs, subset: str,
                    level: float, source_of: Mapping[str, str]) -> list[dict]:
    """Per ratio design, the decision margin (:mod:`.decision_margin`): ``factor`` the margin the direction is
    stated with, ``half_width`` the design's pinned half-width times it; the counts are pairs WITHOUT a wrong-way
    decision under the nested rule (each pair's margin chosen without its papers: out of sample); withheld
    (``no-margin``) when no margin of the grid gives no wrong-way decision. ``halves``: ratio interval -> its
    design's pair half-widths (``shared.two_papers``', ``shared.same_paper``'s pairs)."""
    from .decision_margin import DIRECTION_INTERVALS, direction_margin, index_pair_set

    out = []
    for ratio in ratio_rows:
        two_papers = ratio["interval"] == "ratio-two-papers"
        population = shared.two_papers if two_papers else shared.same_paper
        if not len(population.first):
            continue
        pairs = index_pair_set("two papers" if two_papers else "one paper", shared.agents, population.first,
                               population.second, halves[ratio["interval"]])
        margin, _, wrong = direction_margin([pairs])
        counts, sources = _pair_counts(population, ~wrong[0], shared, source_of)
        half = ratio["half_width"]
        status = "withheld" if margin is None or half is None else "widened" if margin > 1 else "shown"
        out.append(_row(DIRECTION_INTERVALS[ratio["interval"]], subset, "in range", level, status,
                        None if status == "withheld" else half * margin, margin or 1, counts["agents"],
                        "pairs-two-papers" if two_papers else "pairs-same-paper", counts, sources,
                        "no-margin" if status == "withheld" else "wrong-way" if margin > 1 else ""))
    return out


def interval_table(calibration, source_of: Mapping[str, str] | None = None, levels: Sequence[float] = LEVELS):
    """The interval table of a pinned :class:`~atari5_spec.method.calibration.Calibration` as a DataFrame
    (INTERVAL_COLUMNS, one row per interval, subset, range and level, in that order). ``source_of``: algorithm id
    -> source id (data/algorithms.csv), for the ``sources`` column."""
    import pandas as pd

    source_of = source_of or {}
    subsets = list(dict.fromkeys(r["subset"] for r in calibration.rows))
    # what every level shares, per subset
    agents = {subset: _subset_rows(calibration, subset) for subset in subsets}
    pairs = {subset: _subset_pairs(calibration, subset) for subset in subsets}
    rows = []
    for level in levels:
        for subset in subsets:
            rows += _agent_rows(calibration, subset, level, source_of, agents[subset])
        for subset in subsets:
            rows += _pair_rows(calibration, subset, level, source_of, pairs[subset], agents[subset])
    order = {"agent": 0, "ratio-two-papers": 1, "ratio-same-setup": 2, "direction-two-papers": 3,
             "direction-same-setup": 4}
    frame = pd.DataFrame(rows, columns=INTERVAL_COLUMNS)
    frame = frame.assign(_o=frame["interval"].map(order)).sort_values(["_o", "level"], kind="stable")
    return frame.drop(columns="_o").reset_index(drop=True)


def interval_table_text(calibration, source_of: Mapping[str, str] | None = None) -> str:
    """The table as the CSV text pinned in calibration/intervals/<name>.csv (byte-identical for the same rows)."""
    from ..data.writing import frame_csv_text

    frame = interval_table(calibration, source_of)
    for column in INTEGER_COLUMNS:  # whole numbers, empty where a row has none
        frame[column] = frame[column].astype("Int64")
    return frame_csv_text(frame, INTERVAL_COLUMNS)
