"""Every subset's interval as ``score`` uses it, measured: coverage with runs and papers, width, per protocol group.

For each coefficient version with a reselected calibration and each subset
``score`` reports, the measurement of :mod:`atari5_spec.method.claims` on the
pinned errors (games chosen again without each agent's paper), by group:

* ``in range`` (estimate at or above 40) and ``extrapolation`` (below): the
  claim ``score`` makes there (shown, widened, withheld) and why;
* inside ``in range``: held-out agents (outside the version's training set),
  sticky actions, no sticky actions or not stated, 200M frames: the same
  intervals, counted on those agents only (the claim is not re-decided per
  protocol: the groups are too small to decide on, and are reported so that a
  reader sees where it holds less well).

Each row: covered / agents, runs, papers, runs wholly covered with exact 95%
bounds, the median width (high / low of the 57-game median, the model part
only, at each agent's own estimate), and the coverage and width of the
previous default (weights refitted without the paper, games as pinned) on its
own errors (its agents of the same group, each calibrated without its own
paper): a calibration's interval is only ever measured on the errors of the
model it calibrates.

The ``reselected`` calibration scores every agent whose paper the selection
saw with that paper's fold, so its coverage measures the selection procedure;
the ``formula`` calibration scores the agents the selection never used with
the pinned formula, so its held-out row is the pinned formula's coverage on
agents like a user's (``method="formula"``).
"""

from __future__ import annotations

import math
from pathlib import Path

from atari5_spec.method.calibration import IN_RANGE_MIN, read_calibration
from atari5_spec.method.claims import ClaimDetails, Evidence, claim_details, evidence, loso_half_widths

__all__ = ["claim_table", "claims_markdown", "claims_text", "fold_stability", "REPORTED", "PROTOCOL_GROUPS"]

REPORTED = ("Atari-1", "Atari-3", "Atari-5", "Atari-10", "Atari-3-Val", "Atari-5-Val")  # score's subsets
LEVEL = 0.95
PROTOCOL_GROUPS = {
    "held-out": lambda r: r["kind"] == "held-out",
    "sticky": lambda r: r["sticky"] == "sticky",
    "no sticky or not stated": lambda r: r["sticky"] != "sticky",
    "200M frames": lambda r: r["budget"] not in ("", None) and float(r["budget"]) == 2e8,
}


def _width(estimate: float, half: float) -> float:
    centre = math.log10(1.0 + max(estimate, 0.0))
    low, high = 10.0 ** (centre - half) - 1.0, 10.0 ** (centre + half) - 1.0
    return high / low if low > 0 and math.isfinite(high) else math.inf


def _median(values) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _previous(root: Path, version: str):
    """The calibration that was the default before the reselected one: the newest in-range edition, else pooled."""
    path = Path(root) / "coefficients" / version
    return read_calibration(path, "in-range") or read_calibration(path, "pooled")


def claim_table(root: Path, version: str, level: float = LEVEL, method: str = "reselected") -> list[dict]:
    """One row per (subset, group): the claim's status, its evidence, median width, and the previous default's
    coverage and width on its own errors (its agents of the same group, each calibrated without its own paper).
    Empty when the version has no calibration of ``method``."""
    calibration = read_calibration(Path(root) / "coefficients" / version, method)
    if calibration is None:
        return []
    previous = _previous(root, version)
    out = []
    for subset in REPORTED:
        if not calibration.errors(subset):
            continue
        for group in ("in range", "extrapolation"):
            details = claim_details(calibration.rows, subset, group, calibration.group, level)
            claim = details.claim
            factor = claim.factor if claim.status == "widened" else 1.0
            widths = [_width(float(r["estimate"]), h * factor) for r, h in zip(details.members, details.halves)]
            own = _own_coverage(previous, subset, group, level)  # the previous default on its own errors
            subgroups = [(group, lambda r: True)]
            if group == "in range":
                subgroups += [(f"in range, {name}", test) for name, test in PROTOCOL_GROUPS.items()]
            for label, test in subgroups:
                pick = [i for i, r in enumerate(details.members) if test(r)]
                if not pick:
                    continue
                measured = _evidence(details, pick)
                mine = [i for i, r in enumerate(own.members) if test(r)]
                out.append(dict(version=version, calibration=calibration.name, subset=subset, group=label,
                                status=claim.status, factor=factor if claim.status != "withheld" else math.nan,
                                reason=claim.reason, evidence=measured,
                                median_width=_median([widths[i] for i in pick]),
                                previous=previous.name, previous_evidence=_evidence(own, mine),
                                previous_width=_median([_width(float(own.members[i]["estimate"]), own.halves[i])
                                                        for i in mine])))
    return out


def _own_coverage(calibration, subset: str, group: str, level: float):
    """The calibration's plain interval (no claims) on its own agents of ``group``, leave-one-paper-out:
    :class:`~atari5_spec.method.claims.ClaimDetails` whose ``covered`` are the plain flags."""
    mine = [r for r in calibration.rows if r["subset"] == subset]
    halves = loso_half_widths(mine, calibration.group, level)  # pooled: every error; else the range's own errors

    def in_group(r) -> bool:
        return ("in range" if float(r["estimate"]) >= IN_RANGE_MIN else "extrapolation") == group

    pick = [i for i, r in enumerate(mine) if in_group(r)]
    members, kept = [mine[i] for i in pick], [halves[i] for i in pick]
    return ClaimDetails(None, members, kept, [abs(float(r["log_error"])) <= h for r, h in zip(members, kept)])


def fold_stability(root: Path, version: str) -> dict[str, tuple[int, int]]:
    """subset -> (folds whose search chose the pinned games again, folds): over the papers of the version's
    training agents, for a version whose games its own search chose (its manifest reproduces the paper); {}
    otherwise (a refit's folds are its search set's, reported there)."""
    from atari5_spec.data.paths import package_file
    from atari5_spec.method.pinned import load_coefficient_set, read_yaml

    directory = package_file(Path(root) / "coefficients", version, "the coefficient version")
    if read_yaml(directory / "manifest.yaml").get("reproduces") != "paper":
        return {}
    calibration = read_calibration(directory, "reselected")
    if calibration is None:
        return {}
    pinned = {name: " ".join(model.games) for name, model in load_coefficient_set(version, Path(root)).subsets.items()}
    out = {}
    for subset in REPORTED:
        folds = {r["paper"]: r["games"] for r in calibration.rows
                 if r["subset"] == subset and r["kind"] == "leave-one-paper-out"}
        if folds:
            out[subset] = (sum(set(g.split()) == set(pinned[subset].split()) for g in folds.values()), len(folds))
    return out


def _evidence(details, pick) -> Evidence:
    return evidence([details.covered[i] for i in pick], [details.members[i]["algorithm_id"] for i in pick],
                    [details.members[i]["paper"] for i in pick])


def _cell(e: Evidence) -> str:
    return (f"{e.covered}/{e.n} ({e.coverage:.1%}); {e.runs} runs, {e.papers} papers; runs "
            f"{e.runs_low:.0%}-{e.runs_high:.0%}") if e.n else "-"


WHAT = {"reselected": "every agent whose paper the selection saw predicted with each subset's games chosen again "
                      "without that paper: the error of the selection procedure, not of the pinned formula",
        "formula": "agents the selection never used (held-out) scored by the pinned formula, the model a user's "
                   "agent meets; the agents it used by their paper's reselected fold"}


def claims_markdown(root: Path, versions=("paper-2023", "refit-2026-11"), level: float = LEVEL,
                    groups: tuple[str, ...] | None = None, method: str = "reselected") -> str:
    """The measured table as markdown (docs/out-of-sample.md: every group; docs/method.md's accuracy section: ``groups``
    only, e.g. in range, its held-out agents, extrapolation)."""
    lines = []
    for version in versions:
        every = claim_table(root, version, level, method)
        rows = [r for r in every if groups is None or r["group"] in groups]
        if not rows:
            continue
        lines += [f"`{version}`, calibration `{rows[0]['calibration']}` ({level:.0%} intervals, leave-one-paper-out, "
                  + (WHAT[method] if method in WHAT else "") + "). Covered / agents; runs and papers "
                  "behind them; exact 95% bounds of the share of runs wholly covered; median width (high / low); "
                  f"the previous default (`{rows[0]['previous']}`: weights refitted without the paper, games as "
                  "pinned) on its own errors (its agents of the group, each calibrated without its paper):", "",
                  "| subset | agents | `score` | covered (runs, papers; exact bounds over runs) | median width | "
                  "previous default, on its own errors |", "|---|---|---|---|---:|---|"]
        for r in rows:
            status = r["status"] + (f" x{r['factor']:g}" if r["status"] == "widened" else "")
            width = f"{r['median_width']:.2f}" if r["status"] != "withheld" else "-"
            lines.append(f"| {r['subset']} | {r['group']} | {status} | {_cell(r['evidence'])} | {width} | "
                         f"{_cell(r['previous_evidence'])}; width {r['previous_width']:.2f} |")
        stability = fold_stability(root, version)
        if stability:
            lines += ["", "Of the folds that predict an agent (one per paper left out), the staged search chose the "
                      "pinned games again in: " + ", ".join(
                f"{subset} {same} of {folds} folds" for subset, (same, folds) in stability.items()) + "."]
        reasons = {(r["subset"], r["group"]): r["reason"] for r in rows if r["group"] in ("in range", "extrapolation")}
        for group in ("in range", "extrapolation"):
            by_status = {}
            for r in rows:
                if r["group"] == group:
                    by_status.setdefault(r["status"], []).append(r["subset"])
            lines += ["", f"{group.capitalize()}: " + "; ".join(f"{status} for {', '.join(names)}"
                                                               for status, names in by_status.items()) + "."]
        lines += [""] + [f"* {subset}, {group}: {reason}" for (subset, group), reason in reasons.items()] + [""]
    return "\n".join(lines)


def claims_text(root: Path, versions=("paper-2023", "refit-2026-11"), level: float = LEVEL) -> str:
    """The same table as plain text (what scripts/measure_subset_claims.py prints)."""
    lines = [f"{level:.0%} prediction intervals as score uses them (reselected calibration), leave-one-paper-out: "
             "version, subset, agents, what score does, median width (high / low), covered / agents with the runs "
             "and papers behind them and exact 95% bounds over runs | the previous default on the same agents"]
    for version in versions:
        for r in claim_table(root, version, level):
            status = r["status"] + (f" x{r['factor']:g}" if r["status"] == "widened" else "")
            width = f"{r['median_width']:.2f}" if r["status"] != "withheld" else "-"
            lines.append(f"{version:14} {r['subset']:12} {r['group']:36} {status:12} {width:>6}  "
                         f"{_cell(r['evidence'])}  | previous: {_cell(r['previous_evidence'])}, width "
                         f"{r['previous_width']:.2f}")
    return "\n".join(lines) + "\n"
