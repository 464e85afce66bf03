"""Prediction intervals for the 57-game median: a version's measured out-of-sample errors (no pandas).

A coefficient version's estimate is a point on a regression line; where the
57-game median of a new agent lies depends mostly on how far that line misses
for agents it never saw. ``calibration/<version>.csv`` pins those misses: for
each subset, every agent's out-of-sample log-space error (held-out agents
scored with the version's formula; the version's own training agents by
leave-one-paper-out refits), made by ``atari5-spec evaluate --pin-calibration``
and recomputed by ``atari5-spec verify``.

The interval at level ``1 - a`` is split-conformal on absolute errors: with
``n`` errors, ``q`` is the ``ceil((n + 1)(1 - a))``-th smallest ``|error|``, and
the interval is ``phi^-1(phi(estimate) -+ q)``. When the agent has several seeds
per game, the seed bootstrap interval (at the same level) is widened by ``q``
on both sides in log space: adding the two half-widths is conservative, and
needs no assumption about how seed noise and model error combine.
"""

from __future__ import annotations

import csv
import hashlib
import math
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

__all__ = ["Calibration", "CALIBRATION_COLUMNS", "read_calibration", "calibration_path", "conformal_quantile",
           "prediction_interval", "sticky_from_game_ids", "CALIBRATION_METHOD"]

CALIBRATION_COLUMNS = ["subset", "agent", "algorithm_id", "paper", "kind", "budget", "sticky", "regime",
                       "estimate", "true_median", "log_error", "ratio"]
CALIBRATION_METHOD = ("split-conformal on |phi(true median) - phi(estimate)| of agents the version did not see "
                      "(held-out agents; training agents by leave-one-paper-out); the seed bootstrap interval, "
                      "when there is one, is widened by that quantile on both sides in log space")


class Calibration(NamedTuple):
    """The pinned out-of-sample errors of one version: per subset, the rows of calibration/<version>.csv."""

    version: str
    rows: tuple[dict, ...]
    digest: str  # first 8 hex digits of the file's sha256

    def errors(self, subset: str, exclude_paper: str | None = None) -> list[float]:
        return [float(r["log_error"]) for r in self.rows
                if r["subset"] == subset and (exclude_paper is None or r["paper"] != exclude_paper)]

    def coverage(self, subset: str, level: float, kind: str = "held-out") -> tuple[int, int]:
        """(covered, n): agents of ``kind`` whose true median falls in the interval calibrated on the other
        papers' errors (leave-one-paper-out), around the point estimate."""
        rows = [r for r in self.rows if r["subset"] == subset and r["kind"] == kind]
        covered = sum(abs(float(r["log_error"])) <= conformal_quantile(self.errors(subset, r["paper"]), level)
                      for r in rows)
        return covered, len(rows)

    def training_protocols(self, subset: str) -> dict[str, int]:
        """How many of the version's training agents (with the subset's games) are sticky, not, not stated."""
        counts: dict[str, int] = {}
        for r in self.rows:
            if r["subset"] == subset and r["kind"] == "leave-one-paper-out":
                counts[r["sticky"]] = counts.get(r["sticky"], 0) + 1
        return counts

    def budget_shift(self, subset: str, frames: float) -> tuple[int, float, float, float] | None:
        """Like :meth:`shift`, over held-out agents at the same training budget."""
        return _ratio_summary([float(r["ratio"]) for r in self.rows if r["subset"] == subset and
                               r["kind"] == "held-out" and r["budget"] and float(r["budget"]) == float(frames)])

    def shift(self, subset: str, sticky: str) -> tuple[int, float, float, float] | None:
        """(n, geometric mean, lowest, highest) of (1 + estimate) / (1 + true median) over held-out agents of
        one sticky-action group ('sticky', 'no sticky', 'not stated')."""
        return _ratio_summary([float(r["ratio"]) for r in self.rows
                               if r["subset"] == subset and r["sticky"] == sticky and r["kind"] == "held-out"])


def _ratio_summary(ratios: list[float]) -> tuple[int, float, float, float] | None:
    """(n, geometric mean, lowest, highest) of ratios, None for none."""
    if not ratios:
        return None
    return len(ratios), math.exp(sum(math.log(x) for x in ratios) / len(ratios)), min(ratios), max(ratios)

def calibration_path(coefficients_path: Path) -> Path:
    """calibration/<version>.csv beside coefficients/ (the version directory's grand-parent is the package)."""
    return Path(coefficients_path).parent.parent / "calibration" / f"{Path(coefficients_path).name}.csv"


def read_calibration(coefficients_path: Path) -> Calibration | None:
    """The pinned calibration of the version at ``coefficients_path``, or None when it has none."""
    path = calibration_path(coefficients_path)
    if not path.is_file():
        return None
    package = path.parent.parent
    if (package / "datapackage.json").is_file():  # in a package: only a listed file, with its recorded hash
        from ..data.registry import registered_bytes

        data = registered_bytes(package, f"calibration/{path.name}")
        if data is None:
            return None
    else:
        data = path.read_bytes()
    rows = tuple(csv.DictReader(data.decode("utf-8").splitlines()))
    return Calibration(Path(coefficients_path).name, rows, hashlib.sha256(data).hexdigest()[:8])


def conformal_quantile(errors: Sequence[float], level: float) -> float:
    """The ceil((n + 1) level)-th smallest |error| (infinite when n is too small for the level)."""
    absolute = sorted(abs(e) for e in errors)
    rank = math.ceil((len(absolute) + 1) * level)
    return absolute[rank - 1] if 1 <= rank <= len(absolute) else math.inf


def prediction_interval(log_low: float, log_high: float, errors: Sequence[float], level: float
                        ) -> tuple[float, float, float]:
    """(low, high, q): the interval for the 57-game median from a log-space interval of the estimate
    (a point: log_low == log_high) and the out-of-sample errors."""
    q = conformal_quantile(errors, level)
    low = 10.0 ** (log_low - q) - 1.0 if math.isfinite(q) else -math.inf
    high = 10.0 ** (log_high + q) - 1.0 if math.isfinite(q) else math.inf
    return low, high, q


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
