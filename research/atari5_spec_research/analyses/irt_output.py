"""``atari5-spec irt``: the 2PL fit of :func:`atari5_spec_research.analyses.structure.training_irt` as text and as JSON."""

from __future__ import annotations

import pandas as pd

from atari5_spec_research.analyses import irt, structure

__all__ = ["IRT_PAPER", "irt_estimation_text", "irt_warnings", "format_irt", "irt_as_dict"]

IRT_PAPER = "Martinez-Plumed & Hernandez-Orallo 2017"


def irt_estimation_text(result: structure.IrtResult) -> str:
    """One line saying how the 2PL model was fitted."""
    prior = irt.DEFAULT_PRIOR
    how = (f"Bayes modal (priors log a ~ N({prior.log_discrimination_mean:g}, {prior.log_discrimination_sd:g}^2), "
           f"c ~ N({prior.intercept_mean:g}, {prior.intercept_sd:g}^2))" if result.estimation == "bayes-modal"
           else "marginal maximum likelihood, no priors (as the IRT paper)")
    return f"estimation: {how}; {result.n_quadrature} adaptive Gauss-Hermite nodes per agent"


def irt_warnings(result: structure.IrtResult) -> list[str]:
    """Why the numbers of an unregularised fit should not be read as estimates, if they should not."""
    separated = result.items.index[result.items["separated"]].tolist()
    if not separated:
        return []
    return [f"{len(separated)} game(s) separate the agents (|discrimination| > {irt.SEPARATION_DISCRIMINATION:g}): "
            f"{', '.join(separated)}. Their maximum-likelihood estimates are not finite (they grow without bound "
            "and depend on the quadrature) and have no standard errors; use the default (regularised) fit."]


def format_irt(fit: structure.TrainingIrt, abilities: bool = False) -> str:
    """``atari5-spec irt``: per game difficulty and discrimination with standard errors, beside the IRT paper's."""
    result, published = fit.result, fit.published
    items = result.items.sort_values(["difficulty", "discrimination"], na_position="last")
    lines = [f"2PL IRT ({IRT_PAPER}) on {len(result.abilities)} agents x {len(items) + len(result.dropped)} games, "
             "response = human-normalised score >= 100",
             irt_estimation_text(result),
             f"{'game':<20} {'difficulty':>10} {'(se)':>7} {'discrim.':>9} {'(se)':>7} {'human-level':>11} "
             f"{'n':>3}   {'paper b':>8} {'paper a':>8}"]

    def number(value, width, digits=3):
        return f"{'-':>{width}}" if pd.isna(value) else f"{value:>{width}.{digits}f}"

    for game, item in items.iterrows():
        theirs = published.loc[game] if game in published.index else None
        b = "" if theirs is None or pd.isna(theirs["difficulty"]) else f"{theirs['difficulty']:.3f}"
        a = "" if theirs is None or pd.isna(theirs["discrimination"]) else f"{theirs['discrimination']:.3f}"
        flag = "" if item["discriminating"] else "  not discriminating"
        lines.append(f"{game:<20} {number(item['difficulty'], 10)} {number(item['difficulty_se'], 7)} "
                     f"{number(item['discrimination'], 9)} {number(item['discrimination_se'], 7)} "
                     f"{item['success_rate']:>11.2f} {int(item['n']):>3}   {b:>8} {a:>8}{flag}")
    rc = fit.rank_correlation
    lines += [
        "",
        f"dropped (no variance after binarising): {', '.join(result.dropped) or 'none'}",
        "human-level: share of the agents reporting the game that score >= 100; (se): standard error from the "
        "observed information",
        "not discriminating: the likelihood-ratio test of discrimination = 0 does not reject at 5% (or the curve "
        "falls), so the game's difficulty is no location on the ability scale and is not given",
        f"converged: {result.converged}; marginal log-likelihood {result.log_likelihood:.3f}",
        f"Spearman rank correlation of difficulty with the IRT paper's Table 1 over the {rc.n} games both fits "
        f"call discriminating (paper: discrimination >= {structure.PUBLISHED_DISCRIMINATING_MIN:g}): "
        f"{rc.rho:.3f} (p = {rc.p_value:.3f})",
    ]
    lines += [f"WARNING: {warning}" for warning in irt_warnings(result)]
    if abilities:
        lines += ["", f"{'algorithm':<24} {'ability':>8} {'(sd)':>6}"]
        for algorithm, theta in result.abilities.sort_values(ascending=False, kind="stable").items():
            lines.append(f"{algorithm:<24} {theta:>8.3f} {result.ability_sd[algorithm]:>6.3f}")
    return "\n".join(lines)


def _json_number(value):
    return None if pd.isna(value) else float(value)


def irt_as_dict(fit: structure.TrainingIrt, names: pd.Series | None = None) -> dict:
    """``atari5-spec irt --json``: the fit as plain JSON types (NaN -> null), games easiest first."""
    result = fit.result
    items = result.items.sort_values(["difficulty", "discrimination"], na_position="last")
    names = names if names is not None else pd.Series(dtype=str)
    games = []
    for game, item in items.iterrows():
        record = {"game_id": game, "name": names.get(game, game)}
        for column in structure.IRT_ITEM_COLUMNS:
            value = item[column]
            record[column] = (bool(value) if column in ("discriminating", "separated") else
                              int(value) if column == "n" else _json_number(value))
        theirs = fit.published.loc[game] if game in fit.published.index else None
        record["paper_difficulty"] = None if theirs is None else _json_number(theirs["difficulty"])
        record["paper_discrimination"] = None if theirs is None else _json_number(theirs["discrimination"])
        games.append(record)
    rc = fit.rank_correlation
    return {
        "model": "2PL", "response": "human-normalised score >= 100",
        "estimation": result.estimation, "n_quadrature": result.n_quadrature,
        "prior": dict(irt.DEFAULT_PRIOR._asdict()) if result.estimation == "bayes-modal" else None,
        "converged": bool(result.converged), "log_likelihood": float(result.log_likelihood),
        "n_agents": int(len(result.abilities)), "games": games, "dropped": list(result.dropped),
        "rank_correlation_with_paper": {"rho": rc.rho, "p_value": rc.p_value, "n": rc.n, "games": rc.games,
                                        "paper_min_discrimination": structure.PUBLISHED_DISCRIMINATING_MIN},
        "abilities": [{"algorithm_id": a, "ability": float(t), "sd": float(result.ability_sd[a])}
                      for a, t in result.abilities.items()],
        "warnings": irt_warnings(result),
    }
