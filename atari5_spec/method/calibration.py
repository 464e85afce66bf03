"""Prediction intervals for the 57-game median: a version's measured out-of-sample errors (no pandas).

A coefficient version's estimate is a point on a regression line; where the
57-game median of a new agent lies depends mostly on how far that line misses
for agents it never saw. ``calibration/<version>.csv`` pins those misses: for
each subset, every agent's out-of-sample log-space error (held-out agents
scored with the version's formula; the version's own training agents by
leave-one-paper-out refits), made by ``atari5-spec evaluate --pin-calibration``
and recomputed by ``atari5-spec verify``.

A *calibration* is pinned errors plus the rule that turns them into an
interval. Two rules exist, each with its own pinned file:

* ``pooled`` (``calibration/<version>.csv``, the first one): split-conformal
  on every absolute error of the subset; the seed interval, when there is
  one, widened by that quantile on both sides (the two half-widths added).
* ``in-range`` (``calibration/<version>.in-range.csv``, the default when it is
  pinned): the same errors, each marked ``in range`` (estimate at or above the
  inclusion rule's median of 40, where the model was fitted) or
  ``extrapolation``. An estimate in range is calibrated on the in-range errors
  only; an estimate below it is labelled extrapolation and calibrated on every
  error (below the range there are too few errors for a 95% quantile of their
  own). The model part and the seed part are combined per side as the root of
  the sum of squares of their log half-widths (independent errors: variances
  add; tested by simulation in tests/test_intervals.py).

A calibration is never rewritten: new evidence (agents merged after it was
pinned) becomes its next *edition*, a new file beside the old one. A
calibration's name is ``<version>[.<method suffix>][.<edition>]``
(``paper-2023.in-range.2``; the first edition has no number, so files pinned
before editions keep their names and hashes). ``score`` uses the newest pinned
edition of the default method; a signature naming an older edition is checked
with that edition.

Split-conformal: with ``n`` errors, ``q`` is the ``ceil((n + 1)(1 - a))``-th
smallest ``|error|``, and the interval is ``phi^-1(phi(estimate) -+ q)``.

The ratio of two agents' 57-game medians (``relative_score``) gets the
interval ratio-of-estimates x 10^(-+ sqrt(ha^2 + hb^2)), ha and hb the two
agents' own half-widths (model and seed part), per side. Its coverage is
measured on pairs of agents from two different papers (each half-width
calibrated without its own paper). Chosen by measurement over a conformal
quantile of pair errors (narrower, but 93.9% coverage at 95%) and the sum of
the two half-widths (99.8%, much wider); pairs from one paper do not share
their error in the pinned data, so no narrower interval is used for them
(docs/out-of-sample.md, ``atari5-spec evaluate --designs``).
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

from .reference import FACTORS, IN_RANGE_MIN, Evidence, combine_half_widths, conformal_quantile  # noqa: F401

__all__ = ["Calibration", "CALIBRATION_COLUMNS", "read_calibration", "calibration_path", "calibration_name",
           "split_name", "calibration_editions", "RESELECTED_COLUMNS", "read_named_calibration", "conformal_quantile",
           "sticky_from_game_ids", "CALIBRATION_METHOD", "CALIBRATION_METHODS",
           "IN_RANGE_MIN", "combine_half_widths", "CLAIMED_METHODS", "NEVER_SELECTED", "ratio_summary", "RatioSummary",
           "tabulated_t975", "Evidence", "PairEvidence", "MeasuredRange", "FACTORS", "TWO_PAPER_RULE", "SAME_SETUP_RULE",
           "read_calibration_intervals"]

CALIBRATION_COLUMNS = ["subset", "agent", "algorithm_id", "paper", "kind", "budget", "sticky", "regime",
                       "estimate", "true_median", "log_error", "ratio"]
# calibration method -> (file suffix, what the interval is); the first pinned one is score's default: formula, by
# the rule docs/out-of-sample.md states before its comparison, once its second edition held the sticky-action
# baselines (data 1.77.0; the first edition, on 8 never-selected papers, fell short for Atari-3)
CALIBRATION_METHODS = {
    "formula": (".formula", "split-conformal on |phi(true median) - phi(estimate)| where every agent is scored by the "
                "model that would score it: an agent the selection and the fit never used by the version's pinned "
                "formula (the model a user's agent meets), an agent they used by its paper's fold (the subset's "
                "games chosen again by the staged search and the weights refitted without that paper); in range "
                "(estimate >= 40) on the in-range errors only, below it on every error; the seed part combined "
                "with the model part as the root of the sum of squares of their log half-widths, per side; a "
                "subset whose measured coverage falls short is widened or withheld (method/claims.py)"),
    "reselected": (".reselected", "split-conformal on |phi(true median) - phi(estimate)| where every agent whose paper "
                   "the search or the fit saw is predicted with the subset's games chosen again (the staged search) "
                   "and its weights refitted without that paper, so the error includes the optimism of choosing the "
                   "games; in range (estimate >= 40) on the in-range errors only, below it on every error; the seed "
                   "part combined with the model part as the root of the sum of squares of their log half-widths, "
                   "per side; a subset whose measured coverage falls short is widened or withheld "
                   "(method/claims.py)"),
    "in-range": (".in-range", "split-conformal on |phi(true median) - phi(estimate)| of agents the version did not "
                 "see (held-out agents; training agents by leave-one-paper-out), in range (estimate >= 40) on the "
                 "in-range errors only, below it (extrapolation) on every error; the seed part combined with the "
                 "model part as the root of the sum of squares of their log half-widths, per side"),
    "pooled": ("", "split-conformal on |phi(true median) - phi(estimate)| of agents the version did not see "
               "(held-out agents; training agents by leave-one-paper-out); the seed bootstrap interval, when there "
               "is one, is widened by that quantile on both sides in log space"),
}
CALIBRATION_METHOD = CALIBRATION_METHODS["pooled"][1]  # the first calibration's rule (kept for old callers)
IN_RANGE_COLUMNS = CALIBRATION_COLUMNS + ["range"]
RESELECTED_COLUMNS = IN_RANGE_COLUMNS + ["games"]  # + the games that predicted the agent (its paper's fold)
CLAIMED_METHODS = ("formula", "reselected")  # methods whose intervals carry a measured claim (method/claims.py)
NEVER_SELECTED = "held-out"  # the kind of an agent the selection and the fit never used (outside the training set)


TWO_PAPER_RULE = ("ratio of estimates x 10^(-+ sqrt(a^2 + b^2)), a and b the two agents' own prediction-interval "
                  "half-widths in log10 (the lower side takes the agent's lower and the baseline's upper half-width)")
SAME_SETUP_RULE = ("same setup: ratio of estimates x 10^(-+ sqrt(h^2 + s^2)), h = t(df) x sqrt(2 v), v the "
                   "variance of a pair's log error within one setup (paper effect cancelled) from pairs of "
                   "different runs within one paper, df their runs minus papers; s the seed part of the ratio "
                   "(its bootstrap interval's log half-width, per side)")


# --- what the pinned interval table's evidence cells read as (built at pinning time: method/claims.py, pairs.py) ---

class PairEvidence(NamedTuple):
    """What stands behind a pair coverage figure."""

    covered: int
    n: int            # pairs
    runs: int
    papers: int
    low: float        # 95% interval of the coverage, clustered by paper
    high: float
    effective_n: float

    @property
    def coverage(self) -> float:
        return self.covered / self.n if self.n else math.nan

    def text(self) -> str:
        return (f"{self.covered} of {self.n} pairs ({self.coverage:.1%}; {self.runs} runs, {self.papers} papers; "
                f"95% interval {self.low:.0%}-{self.high:.0%}, clustered by paper)")


class MeasuredRange(NamedTuple):
    """Estimates of the agents behind the pair coverage: a direction is stated only for two agents inside."""

    low: float
    high: float
    n_agents: int

    def holds(self, estimate: float) -> bool:
        return self.low <= estimate <= self.high

    def text(self) -> str:
        return f"estimates {self.low:,.0f} to {self.high:,.1f}, {self.n_agents} agents"


class Calibration(NamedTuple):
    """The pinned out-of-sample errors of one version: per subset, the rows of its calibration file."""

    version: str
    rows: tuple[dict, ...]
    digest: str  # first 8 hex digits of the file's sha256
    method: str = "pooled"
    edition: int = 1  # 1: the first pinned file of the method; each new edition is a new file beside it

    @property
    def name(self) -> str:
        """The calibration's name: the version, plus the method when it is not the first (pooled) one, plus the
        edition from the second on (``paper-2023.in-range.2``)."""
        return calibration_name(self.version, self.method, self.edition)

    @property
    def rule(self) -> str:
        return CALIBRATION_METHODS[self.method][1]

    def group(self, estimate: float) -> str:
        """'in range' or 'extrapolation' (in-range method), 'pooled' otherwise."""
        if self.method == "pooled":
            return "pooled"
        return "in range" if estimate >= IN_RANGE_MIN else "extrapolation"

    def _rows(self, subset: str, estimate: float | None = None, exclude_papers: Sequence[str] = ()) -> list[dict]:
        rows = [r for r in self.rows if r["subset"] == subset and r["paper"] not in exclude_papers]
        if estimate is not None and self.group(estimate) == "in range":
            rows = [r for r in rows if float(r["estimate"]) >= IN_RANGE_MIN]
        return rows

    def errors(self, subset: str, exclude_paper: str | None = None, estimate: float | None = None) -> list[float]:
        """The errors that calibrate an interval around ``estimate`` (every error of the subset when None)."""
        excluded = () if exclude_paper is None else (exclude_paper,)
        return [float(r["log_error"]) for r in self._rows(subset, estimate, excluded)]

    def coverage(self, subset: str, level: float, kind: str | None = "held-out", group: str | None = None
                 ) -> tuple[int, int]:
        """(covered, n): agents of ``kind`` (None: every kind), in ``group`` ('in range', 'extrapolation';
        None: all), whose true median falls in the interval calibrated on the other papers' errors
        (leave-one-paper-out), around the point estimate."""
        rows, flags = self._loso_flags(subset, kind, group, level)
        return sum(flags), len(rows)

    def _loso_flags(self, subset: str, kind: str | None, group: str | None, level: float
                    ) -> tuple[list[dict], list[bool]]:
        """(rows, flags): the rows of ``subset`` of ``kind`` in ``group`` (None: any), and per row its |error| within
        the quantile of the other papers' errors (of its range when in range: ``claims.loso_half_widths``)."""
        from .claims import loso_half_widths

        mine = [r for r in self.rows if r["subset"] == subset]
        chosen = [(r, half) for r, half in zip(mine, loso_half_widths(mine, self.group, level))
                  if (kind is None or r["kind"] == kind)
                  and (group is None or self.group(float(r["estimate"])) == group)]
        return [r for r, _ in chosen], [abs(float(r["log_error"])) <= half for r, half in chosen]

    def coverage_evidence(self, subset: str, level: float, kind: str | None = "held-out", group: str | None = None):
        """:meth:`coverage` with the runs and papers behind it (:class:`~atari5_spec.method.claims.Evidence`)."""
        from .claims import evidence

        rows, flags = self._loso_flags(subset, kind, group, level)
        return evidence(flags, [r["algorithm_id"] for r in rows], [r["paper"] for r in rows])

    def pair_coverage(self, subset: str, level: float) -> tuple[int, int]:
        """(covered, n pairs): over every pair of in-range agents from two different papers, how often the ratio
        interval (root-sum-square of the two single half-widths, each calibrated without its own paper) holds
        the plain ratio of their true medians."""
        rows = [r for r in self.rows if r["subset"] == subset and float(r["true_median"]) > 0
                and float(r["estimate"]) >= IN_RANGE_MIN]
        quantile = {p: conformal_quantile(self.errors(subset, p, IN_RANGE_MIN), level) for p in {r["paper"] for r in rows}}
        error = [math.log10(float(r["true_median"])) - math.log10(float(r["estimate"])) for r in rows]
        covered = n = 0
        for i in range(len(rows)):
            for j in range(i + 1, len(rows)):
                if rows[i]["paper"] != rows[j]["paper"]:
                    n += 1
                    covered += abs(error[i] - error[j]) <= math.hypot(quantile[rows[i]["paper"]],
                                                                      quantile[rows[j]["paper"]])
        return covered, n

    def claim(self, subset: str, estimate: float, level: float):
        """The :class:`~atari5_spec.method.claims.SubsetClaim` of ``subset``'s interval around ``estimate`` at
        ``level``: shown, widened or withheld, with the measured coverage and what stands behind it."""
        from .claims import subset_claim

        return subset_claim(self.rows, subset, self.group(estimate), self.group, level)

    @property
    def primary_is_never_selected(self) -> bool:
        """True when the coverage to read first is the claim's held-out figure: the pinned formula's own errors on
        agents the selection never used (``formula``); else (``reselected``) those agents were scored by fold
        models, and the held-out figure measures the selection procedure, not the formula."""
        return self.method == "formula"

    def training_protocols(self, subset: str) -> dict[str, int]:
        """How many of the version's training agents (with the subset's games) are sticky, not, not stated."""
        counts: dict[str, int] = {}
        for r in self.rows:
            if r["subset"] == subset and r["kind"] == "leave-one-paper-out":
                counts[r["sticky"]] = counts.get(r["sticky"], 0) + 1
        return counts

    def budget_shift(self, subset: str, frames: float) -> "RatioSummary | None":
        """Like :meth:`shift`, over held-out agents at the same training budget."""
        return ratio_summary([(float(r["ratio"]), r["paper"]) for r in self.rows if r["subset"] == subset and
                              r["kind"] == "held-out" and r["budget"] and float(r["budget"]) == float(frames)])

    def shift(self, subset: str, sticky: str) -> "RatioSummary | None":
        """The ratio (1 + estimate) / (1 + true median) over held-out agents of one sticky-action group
        ('sticky', 'no sticky', 'not stated'): see :class:`RatioSummary`."""
        return ratio_summary([(float(r["ratio"]), r["paper"]) for r in self.rows
                              if r["subset"] == subset and r["sticky"] == sticky and r["kind"] == "held-out"])


# two-sided 95% quantiles of Student's t (degrees of freedom 1-30); beyond 30, the normal's 1.96 (within 2%)
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def tabulated_t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom, from the printed table to 3 decimals (1.96
    beyond 30); the exact quantile of any level is :func:`atari5_spec.method.distributions.t_quantile`."""
    return _T975[df - 1] if df <= len(_T975) else 1.96


class RatioSummary(NamedTuple):
    """Measured ratios (1 + estimate) / (1 + true median) of a group of agents, and what they can tell.

    The interval is for the group's geometric-mean ratio, over *papers*: each paper's agents are averaged
    first (agents of one paper share their protocol and are not independent), then a t interval at 95% over
    the paper means. With one paper there is no interval and no direction.
    """

    n: int            # agents
    n_papers: int
    mean: float       # geometric mean over agents
    low: float        # lowest agent's ratio
    high: float
    mean_low: float | None   # 95% interval of the geometric mean over papers (None: one paper)
    mean_high: float | None

    @property
    def direction(self) -> str:
        """'over-estimated', 'under-estimated', or 'cannot tell' (the interval holds 1, or there is none)."""
        if self.mean_low is None or self.mean_low <= 1.0 <= self.mean_high:
            return "cannot tell"
        return "over-estimated" if self.mean_low > 1.0 else "under-estimated"

    def text(self, who: str) -> str:
        """One sentence: n, papers, range, the interval, and the direction only when the interval supports it."""
        base = (f"on {self.n} held-out agent{'s' if self.n != 1 else ''} {who} ({self.n_papers} paper"
                f"{'s' if self.n_papers != 1 else ''}), (1 + estimate) / (1 + true median) was {self.low:.2f}-"
                f"{self.high:.2f} (geometric mean {self.mean:.2f}")
        if self.mean_low is None:
            return base + "); all from one paper, so the data cannot tell whether such agents are over- or " \
                          "under-estimated"
        base += f", 95% interval over papers {self.mean_low:.2f}-{self.mean_high:.2f})"
        if self.direction == "cannot tell":
            return base + "; the interval holds 1, so the data cannot tell whether such agents are over- or " \
                          "under-estimated"
        return base + f"; such agents tend to be {self.direction}"


def ratio_summary(ratios: Sequence[tuple[float, str]]) -> RatioSummary | None:
    """:class:`RatioSummary` of (ratio, paper) pairs, None for none."""
    if not ratios:
        return None
    logs = [math.log(r) for r, _ in ratios]
    by_paper: dict[str, list[float]] = {}
    for (r, paper), x in zip(ratios, logs):
        by_paper.setdefault(paper, []).append(x)
    means = [sum(v) / len(v) for _, v in sorted(by_paper.items())]
    low = high = None
    if len(means) >= 2:
        centre = sum(means) / len(means)
        spread = math.sqrt(sum((m - centre) ** 2 for m in means) / (len(means) - 1))
        half = tabulated_t975(len(means) - 1) * spread / math.sqrt(len(means))
        low, high = math.exp(centre - half), math.exp(centre + half)
    values = [r for r, _ in ratios]
    return RatioSummary(len(ratios), len(means), math.exp(sum(logs) / len(logs)), min(values), max(values), low, high)


def calibration_name(version: str, method: str = "pooled", edition: int = 1) -> str:
    """``<version>[.<method suffix>][.<edition>]``: the first edition has no number."""
    return version + CALIBRATION_METHODS[method][0] + (f".{edition}" if edition > 1 else "")


def split_name(name: str) -> tuple[str, str, int] | None:
    """(coefficient version, method, edition) of a calibration name, or None when it names no known method's
    calibration."""
    from ..data.registry import split_calibration_name

    parts = split_calibration_name(name)
    if parts is None:
        return None
    version, suffix, edition = parts
    for method, (method_suffix, _) in CALIBRATION_METHODS.items():
        if method_suffix == (f".{suffix}" if suffix else ""):
            return version, method, edition
    return None


def calibration_path(coefficients_path: Path, method: str = "pooled", edition: int = 1) -> Path:
    """calibration/<name>.csv beside coefficients/ (the version directory's grand-parent is the package)."""
    return (Path(coefficients_path).parent.parent / "calibration"
            / f"{calibration_name(Path(coefficients_path).name, method, edition)}.csv")


def calibration_editions(coefficients_path: Path, method: str = "pooled") -> list[int]:
    """The editions of the version's ``method`` calibration whose files exist, oldest first."""
    folder = Path(coefficients_path).parent.parent / "calibration"
    version = Path(coefficients_path).name
    editions = []
    for path in folder.glob(f"{version}*.csv") if folder.is_dir() else ():
        parts = split_name(path.name.removesuffix(".csv"))
        if parts is not None and parts[0] == version and parts[1] == method:
            editions.append(parts[2])
    return sorted(editions)


def _read_edition(coefficients_path: Path, method: str, edition: int, pinned: bool = False) -> Calibration | None:
    """One edition's file; inside a data package only when datapackage.json lists it (with its recorded hash;
    ``pinned``: a hash must be recorded)."""
    path = calibration_path(coefficients_path, method, edition)
    if not os.path.lexists(path):  # present but not a plain file (a pipe, a device link): refused by name below
        return None
    package = path.parent.parent
    if (package / "datapackage.json").is_file():  # in a package: only a listed file, with its recorded hash
        from ..data.registry import registered_bytes

        data = registered_bytes(package, f"calibration/{path.name}", pinned=pinned)
        if data is None:
            return None
    elif pinned:
        return None
    else:
        from ..data.paths import read_package_bytes

        data = read_package_bytes(path, path.parent)
    rows = tuple(csv.DictReader(data.decode("utf-8").splitlines()))
    return Calibration(Path(coefficients_path).name, rows, hashlib.sha256(data).hexdigest()[:8], method, edition)


def read_calibration_intervals(coefficients_path: Path, calibration: "Calibration"):
    """The pinned interval table of ``calibration`` (calibration/intervals/<name>.csv, read with
    :func:`atari5_spec.method.reference.read_interval_table`), or None when it has none; inside a data package only
    when datapackage.json lists it, with its recorded hash: a listed table whose bytes differ from it is refused
    (InputError naming the file, both hashes and the fix: :func:`atari5_spec.data.registry.hash_mismatch`)."""
    from .reference import read_interval_table

    package = Path(coefficients_path).parent.parent
    relative = f"calibration/intervals/{calibration.name}.csv"
    if not os.path.lexists(package / relative):
        return None
    if (package / "datapackage.json").is_file():
        from ..data.registry import registered_bytes

        data = registered_bytes(package, relative, refuse_edited=True)
        if data is None:
            return None
    else:
        from ..data.paths import read_package_bytes

        data = read_package_bytes(package / relative, package)
    return read_interval_table(data, calibration.name)


def read_named_calibration(coefficients_path: Path, name: str) -> Calibration | None:
    """The calibration called ``name`` (exactly that edition) of the version at ``coefficients_path``, or None
    when the name is not one of this version's calibrations or its file is not usable here."""
    parts = split_name(name)
    if parts is None or parts[0] != Path(coefficients_path).name:
        return None
    return _read_edition(coefficients_path, parts[1], parts[2])


def read_calibration(coefficients_path: Path, method: str | None = None) -> Calibration | None:
    """The calibration of the version at ``coefficients_path``, or None when it has none.

    ``method`` None: the first method of CALIBRATION_METHODS that has a *pinned* file (listed in
    datapackage.json with the file's sha256; ``atari5-spec verify`` recomputes its rows from the data), and of
    it the newest pinned edition; else the pooled file as it is (old packages without a hash). With a
    ``method``: its newest edition usable here. Inside a data package a file is read only when
    datapackage.json lists it (with its hash, when recorded): an unregistered calibration is never used, and an
    edited or unlisted newer edition leaves the older pinned one in use.
    """
    if method is not None:
        for edition in reversed(calibration_editions(coefficients_path, method)):
            calibration = _read_edition(coefficients_path, method, edition)
            if calibration is not None:
                return calibration
        return None
    for name in CALIBRATION_METHODS:
        for edition in reversed(calibration_editions(coefficients_path, name)):
            calibration = _read_edition(coefficients_path, name, edition, pinned=True)
            if calibration is not None:
                return calibration
    return read_calibration(coefficients_path, "pooled")


def sticky_from_game_ids(names: Mapping[str, str] | Sequence[str]) -> tuple[float | None, str | None]:
    """(sticky-action probability, why) implied by how the games were named, or (None, None).

    Gymnasium's ``ALE/X-v5`` (and gym's ``X-v0``) repeat the previous action with
    probability 0.25; ``XNoFrameskip-v4``, ``X-v4`` and ``XDeterministic-v4`` never do.
    Names that disagree, or plain names, say nothing.
    """
    implied = set()
    for name in names:
        text = str(name)
        if text.startswith("ALE/") and text.endswith("-v5"):
            implied.add((0.25, "ALE/*-v5 game ids (Gymnasium: repeat_action_probability 0.25)"))
        elif text.endswith("-v4"):
            implied.add((0.0, "*-v4 game ids (no sticky actions)"))
        elif text.endswith("-v0") and not text.startswith("ALE/"):
            implied.add((0.25, "*-v0 game ids (gym: repeat_action_probability 0.25)"))
        else:
            return None, None
    if len(implied) != 1:
        return None, None
    return next(iter(implied))


def pinned_calibration_names(root: Path, version: str) -> list[str]:
    """Every calibration of ``version`` with a file in the package: each method's editions, oldest first."""
    coefficients = Path(root) / "coefficients" / version
    return [calibration_name(version, method, edition) for method in CALIBRATION_METHODS
            for edition in calibration_editions(coefficients, method)]
