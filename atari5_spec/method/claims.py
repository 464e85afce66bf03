"""What a subset's prediction interval may claim: measured coverage with its evidence, and show, widen or withhold.

A subset's interval is a claim ("95%: the 57-game median lies here"). It is
measured on the calibration's own pinned errors, leave-one-paper-out: each
agent's interval calibrated on the other papers' errors, around its point
estimate (no pandas: ``score`` uses this).

**Evidence.** Agents are not independent: learning-curve checkpoints of one
run share its error, and runs of one paper share a codebase and protocol. So
every coverage figure says how many agents, *runs* (algorithm entries: a run's
checkpoints are one run) and papers stand behind it, and its uncertainty is an
exact (Clopper-Pearson) 95% interval over runs, a run counting as covered
only when every one of its agents is. Runs of one paper are treated as
independent; that is the residual optimism of the interval, and the paper
count is printed beside it so a reader can judge it.

**The rule**, per subset and range group (``in range``: estimate at or above
40; ``extrapolation``: below), at level ``L`` (target ``T = 1 - 2 (1 - L)``,
90% at 95%):

* fewer than ``1 / (1 - L)`` agents (20 at 95%): **withheld**, a coverage of L
  cannot be measured on so few;
* *supported*: the leave-one-paper-out coverage over agents is at least T and
  the exact interval over runs reaches L (the data do not show the claim
  fails: 68 of 72 agents is 94.4%, which 72 agents cannot tell from 95%);
  then **shown** as calibrated;
* else **widened**: the half-width multiplied by the smallest factor of
  ``FACTORS`` under which the claim is supported. Picking the factor on the
  same errors is optimistic, so the coverage it states is measured with the
  factor picked without the agent's paper (nested); when that nested coverage
  is below T, or no factor is supported: **withheld**.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, NamedTuple, Sequence

if TYPE_CHECKING:  # imported where used: ``score`` starts without numpy until it needs it
    import numpy as np

__all__ = ["conformal_quantile", "pool_quantiles", "Evidence", "SubsetClaim", "evidence", "subset_claim",
           "clopper_pearson", "FACTORS", "target_for", "loso_half_widths", "supported", "claim_details",
           "ClaimDetails", "ClaimRows", "claim_rows"]

from .reference import FACTORS, Evidence, conformal_quantile  # the readers' types, defined with the reads


def target_for(level: float) -> float:
    """The coverage a claim at ``level`` must at least reach out of sample: 1 - 2 (1 - level) (90% at 95%)."""
    return 1.0 - 2.0 * (1.0 - level)


def _binomial_tail_at_least(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


@functools.lru_cache(maxsize=4096)
def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval for a binomial proportion k / n, by bisection on the binomial tails (a
    pure function of three numbers, remembered as ``pairs.t_two_sided`` is: the interval tables ask for the same few
    hundred intervals thousands of times, and each answer is two 60-step bisections of exact binomial sums)."""
    if n <= 0:
        return 0.0, 1.0
    alpha = (1.0 - level) / 2.0

    def solve(f) -> float:  # f increasing in p, root in [0, 1]
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2

    low = 0.0 if k == 0 else solve(lambda p: _binomial_tail_at_least(k, n, p) - alpha)
    high = 1.0 if k == n else solve(lambda p: alpha - (1 - _binomial_tail_at_least(k + 1, n, p)))
    return low, high


def evidence(covered: Sequence[bool], runs: Sequence[str], papers: Sequence[str]) -> Evidence:
    """The :class:`Evidence` of per-agent covered flags, with each agent's run and paper."""
    flagged = list(zip(covered, runs))
    every = {run for _, run in flagged}
    wholly = len(every - {run for flag, run in flagged if not flag})  # runs none of whose agents is missed
    low, high = clopper_pearson(wholly, len(every))
    return Evidence(sum(map(bool, covered)), len(covered), len(every), len(set(papers)), wholly, low, high)


class SubsetClaim(NamedTuple):
    """What one subset's interval may claim for estimates of one range group."""

    subset: str
    group: str               # 'in range', 'extrapolation' or 'pooled'
    level: float
    status: str              # 'shown', 'widened' or 'withheld'
    factor: float            # the half-width multiplier (1 when shown; nan when withheld)
    evidence: Evidence       # coverage of the interval as score prints it (widened: the factor picked without
                             # the agent's paper); withheld: of the plain interval
    plain: Evidence          # coverage of the interval as calibrated, before any widening
    reason: str              # one line: why shown, widened or withheld
    held_out: Evidence       # ``evidence`` restricted to held-out agents (outside the version's training set)
    code: str = ""           # why widened or withheld, as a code (method/interval_table.py REASON_CODES); '' shown

    def as_dict(self) -> dict:
        out = self._asdict()
        out["evidence"], out["plain"] = self.evidence.as_dict(), self.plain.as_dict()
        out["held_out"] = self.held_out.as_dict()
        out["factor"] = None if not math.isfinite(self.factor) else self.factor
        return out


def loso_half_widths(rows: Sequence[dict], group_of, level: float, skip_paper: str | None = None) -> list[float]:
    """Per row: the calibrated half-width (log10) from the errors of the other papers (and not ``skip_paper``),
    in range on the in-range errors, else on every error (``group_of(estimate)`` gives the group)."""
    table = ClaimRows.of(rows, group_of)
    skip = table.papers.index(skip_paper) if skip_paper in table.papers else None
    return _loso_halves(table.error, table.paper, table.in_range, len(table.papers), level, skip).tolist()


class ClaimRows(NamedTuple):
    """Calibration rows as the arrays the claim measurements read: parsed once (:func:`claim_rows`), for every
    group, level and leave-one-paper-out fold."""

    rows: list[dict]
    error: np.ndarray   # |log_error|
    paper: np.ndarray   # each row's paper as its position in ``papers``
    papers: list[str]   # the papers, sorted
    in_range: np.ndarray
    group: list[str]    # group_of(estimate) per row
    run: list[str]      # algorithm_id per row

    @staticmethod
    def of(rows: Sequence[dict], group_of) -> ClaimRows:
        import numpy as np

        names = [str(r["paper"]) for r in rows]
        papers = sorted(set(names))
        position = {name: i for i, name in enumerate(papers)}
        group = [group_of(float(r["estimate"])) for r in rows]
        return ClaimRows(list(rows), np.array([abs(float(r["log_error"])) for r in rows], float),
                          np.array([position[name] for name in names], int), papers,
                          np.array([g == "in range" for g in group], bool), group,
                          [r.get("algorithm_id") for r in rows])


def pool_quantiles(ascending: np.ndarray, pools: np.ndarray, level: float) -> np.ndarray:
    """Per row of ``pools`` (numpy masks over the |errors| ``ascending``), :func:`conformal_quantile` of the errors
    it keeps: the ceil((n + 1) level)-th kept one, inf when n is too small for the level (a numpy array)."""
    import numpy as np

    if not len(ascending):
        return np.full(len(pools), np.inf)
    size = pools.sum(axis=1)
    rank = np.ceil((size + 1) * level).astype(int)
    position = np.argmax(np.cumsum(pools, axis=1) >= rank[:, None], axis=1)
    return np.where((rank >= 1) & (rank <= size), ascending[position], np.inf)


def _loso_halves(errors: np.ndarray, paper: np.ndarray, in_range: np.ndarray, n_papers: int, level: float,
                 skip: int | None = None) -> np.ndarray:
    """:func:`loso_half_widths` of rows given as arrays (|error|, paper code below ``n_papers``, in range; ``skip``:
    a paper code whose rows calibrate nothing): a numpy array of half-widths."""
    import numpy as np

    # sorted once: each leave-one-paper-out pool is this order with some rows dropped, still sorted
    order = np.argsort(errors, kind="stable")
    ascending, paper_sorted, in_range_sorted = errors[order], paper[order], in_range[order]
    pools = paper_sorted[None, :] != np.arange(n_papers)[:, None]  # per paper: the other papers' rows
    if skip is not None:
        pools &= paper_sorted[None, :] != skip
    every = pool_quantiles(ascending, pools, level)
    own_range = pool_quantiles(ascending, pools & in_range_sorted[None, :], level)
    return np.where(in_range, own_range[paper], every[paper])


def supported(measured: Evidence, level: float) -> bool:
    """The claim at ``level`` is supported: coverage over agents at least the target, and the exact interval over
    runs reaches ``level``."""
    return bool(measured.n) and measured.coverage >= target_for(level) and measured.runs_high >= level


def _smallest_factor(errors: np.ndarray, halves: np.ndarray, runs: Sequence[str], papers: Sequence[str], level: float
                     ) -> float:
    """The smallest factor (1, then FACTORS) under which the claim on agents with |errors| and calibrated
    ``halves`` (numpy arrays) is supported; inf when none is."""
    for factor in (1.0,) + FACTORS:
        if len(errors) and supported(evidence((errors <= halves * factor).tolist(), runs, papers), level):
            return factor
    return math.inf


def subset_claim(rows: Sequence[dict], subset: str, group: str, group_of, level: float) -> SubsetClaim:
    """The claim of ``subset``'s interval for estimates in ``group``, measured on the calibration's ``rows`` (dicts
    with subset, agent, algorithm_id, paper, kind, estimate, log_error)."""
    return claim_details(rows, subset, group, group_of, level).claim


class ClaimDetails(NamedTuple):
    """A claim and, per agent of its group, the row, its calibrated half-width (log10, before widening) and whether
    the interval as ``score`` prints it (widened: the factor picked without the agent's paper) held it."""

    claim: SubsetClaim
    members: list
    halves: list
    covered: list


def claim_rows(rows: Sequence[dict], subset: str, group_of) -> ClaimRows:
    """The :class:`ClaimRows` of ``subset``'s rows (``group_of(estimate)`` gives an agent's group)."""
    return ClaimRows.of([r for r in rows if r["subset"] == subset], group_of)


def claim_details(rows: Sequence[dict], subset: str, group: str, group_of, level: float,
                  measured: ClaimRows | None = None) -> ClaimDetails:
    """:func:`subset_claim` with the per-agent measurements behind it (for reports by protocol group). ``measured``:
    the subset's :func:`claim_rows`, when the caller has them (they do not depend on the group or the level)."""
    import numpy as np

    table = claim_rows(rows, subset, group_of) if measured is None else measured
    mine = table.rows
    member = np.array([g == group for g in table.group], bool)
    members = [r for r, m in zip(mine, member.tolist()) if m]
    errors = table.error[member]
    halves = _loso_halves(table.error, table.paper, table.in_range, len(table.papers), level)[member]
    runs = [r["algorithm_id"] for r in members]
    papers = [r["paper"] for r in members]
    plain_flags = (errors <= halves).tolist()
    plain = evidence(plain_flags, runs, papers)
    target = target_for(level)
    minimum = math.ceil(1.0 / (1.0 - level) - 1e-9)

    held = [r.get("kind") == "held-out" for r in members]

    def claim(status, factor, measured, reason, flags, code=""):
        held_out = evidence([f for f, h in zip(flags, held) if h], [x for x, h in zip(runs, held) if h],
                            [x for x, h in zip(papers, held) if h])
        return ClaimDetails(SubsetClaim(subset, group, level, status, factor, measured, plain, reason, held_out,
                                        code), members, halves.tolist(), list(flags))

    if plain.n < minimum:
        return claim("withheld", math.nan, plain, f"only {plain.n} agents ({plain.papers} papers) measured {group}: "
                     f"a {level:.0%} coverage needs at least {minimum}", plain_flags, "too-few-agents")
    if supported(plain, level):
        return claim("shown", 1.0, plain, f"leave-one-paper-out coverage {plain.covered}/{plain.n} (runs: exact "
                     f"95% bounds up to {plain.runs_high:.0%}) supports {level:.0%}", plain_flags)
    factor = _smallest_factor(errors, halves, runs, papers, level)
    # nested: for each paper, the factor picked on the other papers only (their agents calibrated without it too)
    flags = np.zeros(len(members), bool)
    member_paper = table.paper[member]
    for paper in np.unique(member_paper).tolist():  # the members' papers, in sorted order
        inner = table.paper != paper
        inner_halves = _loso_halves(table.error[inner], table.paper[inner], table.in_range[inner],
                                    len(table.papers), level, skip=paper)
        chosen = member[inner]
        inner_members = np.flatnonzero(inner & member).tolist()
        picked = _smallest_factor(table.error[inner][chosen], inner_halves[chosen],
                                  [table.run[i] for i in inner_members], table.paper[inner_members].tolist(), level)
        picked = picked if math.isfinite(picked) else FACTORS[-1]
        own = member_paper == paper
        flags[own] = errors[own] <= halves[own] * picked
    flags = flags.tolist()
    nested = evidence(flags, runs, papers)
    if not math.isfinite(factor):
        return claim("withheld", math.nan, nested, f"no widening up to x{FACTORS[-1]:g} supports {level:.0%} "
                     f"leave-one-paper-out (as calibrated: {plain.covered}/{plain.n})", flags, "no-factor")
    if nested.coverage < target:
        return claim("withheld", math.nan, nested,
                     f"leave-one-paper-out coverage {plain.covered}/{plain.n} as calibrated, {nested.covered}/"
                     f"{nested.n} widened with the factor picked without each paper: below {target:.0%}", flags,
                     "coverage-short")
    return claim("widened", factor, nested,
                 f"leave-one-paper-out coverage {plain.covered}/{plain.n} as calibrated does not support {level:.0%}; "
                 f"half-width x{factor:g} ({nested.covered}/{nested.n} with the factor picked without each paper)", flags,
                 "coverage-short")
