"""What compare.html needs to compute ``atari5-spec score A --relative-to B`` for any two entries, in the browser.

The page takes two algorithm entries of the package and computes, with the
JavaScript port of SPEC.md in static/site.js, what
:func:`atari5_spec.scoring.relative.relative_score` gives for the first
entry's published per-game numbers against the second's: both Atari-5
estimates, the ratio, its 95% prediction interval (two papers, or same setup
when :func:`~atari5_spec.scoring.baselines.shares_setup` says the entries are
one setup), the decision and the reasons that withhold a direction. Written
here, from the same Python objects ``score`` uses: each entry's five numbers
(the rows :func:`~atari5_spec.scoring.baselines.algorithm_baselines` reads)
and recorded episode cap, the bands of the single-agent interval, the
pinned ratio rows and their evidence lines, the range the pair coverage was
measured on, and the sentences whose words do not depend on the pair. The
57-game rows go to a separate script file (``compare-scores.js``), so the
page stays light. tests/test_site_browser.py compares the page with the
command line on pairs of every kind.
"""

from __future__ import annotations

from typing import Any

from atari5_spec.method.calibration import read_calibration, read_calibration_intervals
from atari5_spec.method.pairs import measured_range, pair_agents, same_setup_evidence, two_paper_evidence
from atari5_spec.method.pinned import CoefficientSet
from atari5_spec.method.decision_margin import pinned_margin
from atari5_spec.scoring.intervals import DECISION, DECISION_WITHIN_MARGIN, evidence_line, within_margin_statement
from atari5_spec.scoring.baselines import algorithm_baselines, shares_setup
from atari5_spec.scoring.protocol_conditions import episode_cap_reason
from atari5_spec.scoring.signature import data_version_of, signature
from atari5_spec_maintainers.site.scorer import LEVEL, MAIN_SUBSET, subset_bands

__all__ = ["compare_data", "compare_scores", "KINDS"]

KINDS = (("two papers", "ratio-two-papers", None), ("same setup", "ratio-same-setup", "same-setup ratio"))


def _kinds(model, coefficients: CoefficientSet, bands: list[dict]) -> dict[str, Any]:
    """Per design: the pinned ratio row's half-width (same setup), the evidence line and the coverage shortfall
    sentence `score` prints, and the ratio's signature for each calibration a band can bring."""
    calibration = read_calibration(coefficients.path)
    table = read_calibration_intervals(coefficients.path, calibration) if calibration else None
    agents = pair_agents(calibration, model.name) if calibration else []
    percent = f"{LEVEL * 100:g}%"
    out = {}
    for design, table_kind, signature_kind in KINDS:
        row = table.rows.get((table_kind, model.name, "in range", LEVEL)) if table is not None else None
        evidence = ((same_setup_evidence if design == "same setup" else two_paper_evidence)(agents, LEVEL)
                    if agents else None)
        short = (f"; but this interval held the true ratio for only {evidence.coverage:.1%} of the measured pairs, "
                 f"less than {percent}" if evidence is not None and evidence.coverage < LEVEL else "")
        calibrations = sorted({b["calibration"] for b in bands if b["calibration"]})
        out[design] = {
            "half_width": None if row is None or row.status == "withheld" else row.half_width,
            "evidence": evidence_line(row), "short": short,
            # SPEC.md section 9's decision margin (None: no direction is stated) and why, when it withholds one
            "margin": (margin := pinned_margin(table, table_kind, model.name, LEVEL)),
            "within_margin": within_margin_statement(percent, margin),
            # by the agent's band calibration; "": none (no interval for the ratio)
            "signatures": {c: signature(model.name, coefficients, [1] * len(model.games), None, relative=True,
                                        calibration=c or None, kind=signature_kind,
                                        data_version=data_version_of(coefficients))
                           for c in [""] + calibrations}}
    span = measured_range(agents) if agents else None
    return {"designs": out, "span": None if span is None else {"low": span.low, "high": span.high,
                                                                 "text": span.text()}}


def compare_data(dataset, coefficients: CoefficientSet) -> dict[str, Any]:
    """Everything compare.html computes from, as plain JSON-able values."""
    model = coefficients.subsets[MAIN_SUBSET]
    entries = algorithm_baselines(dataset.root)
    names = dataset.games.set_index("game_id")["name"].astype(str)
    bands = [{k: b[k] for k in ("from", "range", "half_width", "calibration")}
             for b in subset_bands(model, coefficients)]
    kinds = _kinds(model, coefficients, bands)
    listed = sorted((e for e in entries.values() if e.scores), key=lambda e: (e.name.lower(), e.algorithm_id))
    ids = [e.algorithm_id for e in listed]
    setups: dict[str, int] = {}  # entries of one setup share a number (shares_setup is an equivalence here)
    for i, a in enumerate(listed):
        if a.algorithm_id in setups:
            continue
        group = [b.algorithm_id for b in listed[i + 1:] if shares_setup(a, b)]
        if group:
            setups[a.algorithm_id] = i
            for other in group:
                setups[other] = i
    for a in listed:  # check: the grouping is the rule, pair by pair
        for b in listed:
            if shares_setup(a, b) != (a.algorithm_id != b.algorithm_id and setups.get(a.algorithm_id) is not None
                                      and setups.get(a.algorithm_id) == setups.get(b.algorithm_id)):
                raise AssertionError(f"shares_setup is not an equivalence on {a.algorithm_id}, {b.algorithm_id}")
    caps = sorted({e.max_episode_frames for e in listed if e.max_episode_frames is not None})
    return {
        "subset": model.name, "level_label": f"{LEVEL * 100:g}%",
        "games": [{"id": g, "name": names.get(g, g), "random": coefficients.constants[g][0],
                   "human": coefficients.constants[g][1]} for g in model.games],
        "coefficients": list(model.coefficients), "bands": bands, "span": kinds["span"],
        "designs": kinds["designs"], "decisions": dict(DECISION), "decision_within_margin": DECISION_WITHIN_MARGIN,
        "cap_reasons": {str(c): {"agent": episode_cap_reason(c, "the agent"),
                                 "baseline": episode_cap_reason(c, "the baseline")} for c in caps},
        "entries": [{"id": e.algorithm_id, "name": e.name, "year": e.year,
                     "five": [e.scores.get(g) for g in model.games], "cap": e.max_episode_frames,
                     "setup": setups.get(e.algorithm_id)} for e in listed],
        "n_entries": len(ids),
    }


def compare_scores(dataset) -> dict[str, Any]:
    """Every entry's number on each of the 57 games (the rows ``score --relative-to ID`` reads), for the page's
    collapsed per-game table: the games in order, per entry the values in that order (None where none)."""
    games = dataset.games[dataset.games["in_57"].astype(bool)].sort_values("game_id")
    order = [str(g) for g in games["game_id"]]
    entries = algorithm_baselines(dataset.root)
    return {"games": [{"id": g, "name": str(n), "random": float(r), "human": float(h)} for g, n, r, h in
                      zip(order, games["name"], games["random_score"], games["human_score"])],
            "scores": {i: [e.scores.get(g) for g in order] for i, e in entries.items() if e.scores}}
