"""What ``atari5-spec score`` prints: the answer first, ``--explain``'s details, JSON, and paper-ready tables.

Every sentence here is rendered from the result objects' numbers
(:class:`~atari5_spec.scoring.estimate.ScoreResult`, its
:class:`~atari5_spec.scoring.intervals.PredictionInterval` and the pinned
interval table's :class:`~atari5_spec.method.reference.IntervalRow`, the
:class:`~atari5_spec.scoring.relative.RelativeResult`); nothing is parsed back.

* :func:`answer_lines`: the default, about 6-8 lines no wider than
  :data:`WIDTH` (the paste line excepted): the estimate, its prediction
  interval, one line of evidence, the seeds, the line to paste. With
  ``--relative-to``, :func:`ratio_answer_lines` come first with their own
  paste line. When the requested subset cannot be computed the first line
  says so and what it needs.
* :func:`explain_lines`: the details ``--explain`` adds (calibration
  evidence, protocol checks, the per-game table, other subsets, the
  baseline): every figure the 1.2.0 output printed, the signature once.
* :func:`score_tables`: ``--format markdown|latex`` (cli.tables renders).
* :func:`score_json`: ``--format json`` (``--json``).
"""

from __future__ import annotations

import math

from ..scoring.intervals import DECISION, DECISION_WITHIN_MARGIN, POPULATION, evidence_line as _evidence_line
from .tables import Table

__all__ = ["WIDTH", "answer_lines", "ratio_answer_lines", "measured_lines", "explain_lines", "relative_explain_lines",
           "score_tables", "score_json", "score_only", "number"]

WIDTH = 100  # the default output's widest line (the paste line excepted)


def number(value: float | None, places: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{places}f}"


def _percent(level: float) -> str:
    return f"{level * 100:g}%"


# --- the answer ----------------------------------------------------------------------------------------------

def _seed_line(result) -> str:
    seeds = sorted({result.n_seeds[g] for g in result.games if g in result.n_seeds})
    per_game = "/".join(map(str, seeds))
    if result.interval:
        return (f"seeds: {per_game} per game, in the prediction interval; seed noise alone: "
                f"{number(result.interval[0])} to {number(result.interval[1])}")
    if seeds and max(seeds) > 1:
        return f"seeds: {per_game} per game; no bootstrap, so seed noise is not in the interval"
    return f"seeds: {per_game} per game, so seed noise is not in the interval (run 3 or more to include it)"


def _withheld_reason(result) -> str:
    """Why the requested subset has no prediction interval (its table row's code, or the notes' first word)."""
    row = result.interval_row
    if row is not None and row.status == "withheld":
        where = "in range" if row.range == "in range" else "below 40, an extrapolation"
        return (f"withheld ({where}): {row.agents_covered} of {row.agents} agents covered, too few to support "
                f"{_percent(row.level)}" if row.reason == "coverage-short" else
                f"withheld ({where}): only {row.agents} agents measured there")
    return "none (no calibration at this level: see --explain)"


def answer_lines(result, more: bool = True) -> list[str]:
    """The default output: the answer in a few lines (see the module docstring)."""
    subset = result.subset
    if result.estimate is None:
        lines = [f"{subset} score: not computable: needs {', '.join(result.not_computable[subset])} (not given)"]
        if result.other_subsets:
            lines.append("computable from these games: " + ", ".join(
                f"{s.subset} {number(s.estimate)}" for s in result.other_subsets)
                + f" (--subset {result.other_subsets[-1].subset})")
        if result.own_median is not None:
            lines.append(f"your agent's own {result.own_median.label}: {number(result.own_median.median)}")
        return lines + (["more: --explain"] if more else [])
    pi = result.prediction_interval
    lines = [f"{subset} score: {number(result.estimate)}  (estimated 57-game median human-normalised score, %)"]
    if pi is not None:
        where = " EXTRAPOLATION: below 40, where the model was not fitted" if pi.range == "extrapolation" else ""
        lines.append(f"{_percent(pi.level)} prediction interval: {number(pi.low)} to {number(pi.high)} "
                     f"(where the agent's 57-game median lies){where}")
        evidence = _evidence_line(pi.row)
        if evidence:
            lines.append(evidence)
    else:
        lines.append(f"prediction interval: {_withheld_reason(result)}")
    lines.append(_seed_line(result))
    if result.log is not None:
        lines += log_lines(result.log, result.protocol)
    own = result.own_median
    if own is not None:
        held = ("" if own.in_prediction_interval is None else
                ", inside the interval" if own.in_prediction_interval else ", OUTSIDE the interval")
        lines.append(f"your agent's own {own.label}: {number(own.median)}{held}")
    if result.signature:
        lines += ["Paste this line in your paper (`atari5-spec signature check` verifies it):", "  " + paste_line(result)]
    if more:
        details = [f"{len(result.raw_means)} games' scores"]
        if result.other_subsets:
            details.append(f"{len(result.other_subsets)} other subsets")
        if result.protocol is not None and result.protocol.messages:
            details.append(f"{len(result.protocol.messages)} protocol checks")
        lines.append(f"more: --explain ({', '.join(details)}); --format markdown|latex|json")
    return lines


def log_lines(log, protocol=None) -> list[str]:
    """What a log or episode table gave: its kind, the protocol it names or implies, which episodes were used."""
    runs = log.runs
    counts = sorted({r.last - r.first + 1 for r in runs})
    window = (f"the last {log.window} of each run" if log.window is not None else "every episode of each run")
    used = (f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}") + " per run"
    trimmed = [r for r in runs if r.first > 1]
    lines = [f"read: {log.label}: {len(runs)} runs (game and seed), each the mean of its episodes: "
             f"{log.episodes_used:,} used, {used} ({window}" + (f", episodes {trimmed[0].first}-{trimmed[0].last} of {trimmed[0].total} in "
                            f"{trimmed[0].game} seed {trimmed[0].seed}" if trimmed else "") + "; --last N)"]
    seeds = [note for note in log.inferred if " seed " in note]
    if seeds:
        lines.append("games and seeds: " + "; ".join(seeds[:2]) + (f"; ... ({len(seeds)} runs: --format json)"
                                                                   if len(seeds) > 2 else ""))
    if log.protocol_id:
        lines.append(f"protocol: {log.protocol_id} (named by the file; data/protocols.csv), in the signature")
    elif protocol is not None and protocol.sticky_action_probability is not None:
        lines.append(f"protocol: sticky-action probability {protocol.sticky_action_probability:g} "
                     f"{protocol.source} (inferred, not stated: --sticky-actions to state it)")
    return lines


def paste_line(result) -> str:
    pi = result.prediction_interval
    interval = f" ({_percent(pi.level)} prediction interval {number(pi.low)} to {number(pi.high)})" if pi else ""
    return f"{result.subset} score {number(result.estimate)}{interval}  [{result.signature}]"


def ratio_paste_line(relative) -> str:
    pi = relative.prediction_interval
    interval = f" ({_percent(pi.level)} prediction interval {pi.low:.3f} to {pi.high:.3f})" if pi else ""
    return f"{relative.agent.subset} ratio {relative.ratio:.3f}{interval}  [{relative.signature}]"


def _lacking(relative) -> str:
    """Which side of a ratio lacks which games of the subset ('your agent lacks qbert; the baseline lacks ...')."""
    subset = relative.agent.subset
    return "; ".join(f"{who} lacks {', '.join(r.not_computable.get(subset, ()))}"
                     for who, r in (("your agent", relative.agent), ("the baseline", relative.baseline))
                     if r.estimate is None)


MEASURED_DECISION = {"higher": "the agent's measured median is higher than the baseline's",
                     "lower": "the agent's measured median is lower than the baseline's",
                     "cannot tell": "cannot tell which is higher (the seed interval holds 1)"}


def measured_lines(measured) -> list[str]:
    """With 40 or more of the 57 games on both sides: the measured ratio of medians, labelled as measured, the
    Atari-5 ratio beside it, its seed interval and decision (none without per-seed scores for both)."""
    m = measured
    if m is None:
        return []
    medians = f"yours {number(m.agent_median)}, baseline {number(m.baseline_median)}"
    if m.ratio is None:
        return [f"measured {m.label}: {medians}; no measured ratio: {m.note}"]
    beside = f" (Atari-5 ratio: {m.atari5_ratio:.3f})" if m.atari5_ratio is not None else ""
    lines = [f"measured ratio of {m.label}: {m.ratio:.3f}{beside}",
             f"  measured, not estimated: {medians} (median human-normalised score, %)"]
    if m.interval is not None:
        lines += [f"  {_percent(m.level)} seed interval: {m.interval[0]:.3f} to {m.interval[1]:.3f} "
                  f"(seed noise only; {m.n_resamples:,} resamples, seed {m.bootstrap_seed})",
                  f"  measured decision: {MEASURED_DECISION[m.decision]}"]
    else:
        lines.append(f"  no seed interval, so no measured direction: {m.note}")
    return lines


def ratio_answer_lines(relative, baseline_source: str) -> list[str]:
    """With ``--relative-to``: the ratio, its interval and decision, the evidence, with 40 or more games on both
    sides the measured ratio of medians, its own paste line."""
    subset = relative.agent.subset
    if relative.ratio is None:
        return [f"ratio to {baseline_source}: not computable: {_lacking(relative)}"] + measured_lines(
            relative.measured)
    lines = [f"ratio to {baseline_source}: {relative.ratio:.3f}  (your {subset} {number(relative.agent.estimate)} / "
             f"baseline {number(relative.baseline.estimate)})"]
    pi = relative.prediction_interval
    if pi is not None:
        design = ", same setup" if pi.design == "same setup" else ""
        lines.append(f"{_percent(pi.level)} prediction interval for the ratio of the 57-game medians{design}: "
                     f"{pi.low:.3f} to {pi.high:.3f}")
        within_margin = pi.decision == "cannot tell" and (pi.low > 1.0 or pi.high < 1.0)
        lines.append("decision: " + (DECISION_WITHIN_MARGIN if within_margin
                                     else DECISION.get(pi.decision, pi.decision)))
        evidence = _evidence_line(pi.row)
        if evidence:
            lines.append(evidence)
    else:
        lines.append("no prediction interval for the ratio: cannot be decided here (see --explain)")
    lines += measured_lines(relative.measured)
    if relative.signature:
        lines += ["Paste this line in your paper (the ratio):", "  " + ratio_paste_line(relative)]
    return lines


def score_only(result, relative=None) -> str:
    """``--score-only``: the number alone, at its printed precision (the ratio with ``--relative-to``)."""
    if relative is not None:
        return "n/a" if relative.ratio is None else f"{relative.ratio:.3f}"
    return "n/a" if result.estimate is None else f"{result.estimate:.1f}"


# --- --explain -------------------------------------------------------------------------------------------------

def _interval_text(interval, confidence: float, places: int = 1) -> str:
    return f"{_percent(confidence)} interval {number(interval[0], places)} to {number(interval[1], places)}"


def _seed_covers(interval, prediction) -> str:
    """What the seed interval covers, or why there is none ('unknown: ...' with one seed)."""
    from ..scoring.estimate import SEED_ONLY

    if interval:
        return SEED_ONLY
    return prediction.seed_part if prediction is not None else "unknown: no seed interval"


def _pi_text(pi) -> str:
    """'95% prediction interval for the 57-game median 60.1 to 250.3 (in range)'."""
    where = {"in range": "in range", "extrapolation": "EXTRAPOLATION: estimate below the range"}.get(pi.range)
    return (f"{_percent(pi.level)} prediction interval for the 57-game median {number(pi.low)} to "
            f"{number(pi.high)}" + (f" ({where})" if where else ""))


def _same_pins(other: str, main: str) -> bool:
    """Whether a subset's signature pins what the main one pins (they differ only in subset name and seeds)."""
    def pins(signature: str) -> list[str]:
        return [f for f in signature.split("|")[1:] if not f.startswith("seeds:")]
    return pins(other) == pins(main)


def explain_lines(result, names: dict[str, str]) -> list[str]:
    """The details of ``--explain``: interval calibration and coverage, the seed interval, protocol checks, the
    agent's own median, the per-game table, other subsets and what the games do not allow."""
    lines = []
    if result.estimate is not None:
        lines.append(f"{result.subset} score: {number(result.estimate)}")
        lines.append("  = estimated median human-normalised score over the 57 games, in % (the pinned formula)")
        pi = result.prediction_interval
        if pi is not None:
            lines.append(f"  prediction interval ({_percent(pi.level)}): {number(pi.low)} to {number(pi.high)}: "
                         "where the 57-game median lies, with the model's out-of-sample error"
                         + {"in range": " (in range: estimate at or above 40)",
                            "extrapolation": " (EXTRAPOLATION: estimate below 40, where the model was not fitted)"}.get(
                             pi.range, ""))
            lines.append(f"    calibrated on {pi.n_errors} out-of-sample errors ({pi.calibration}); measured "
                         f"coverage: {pi.coverage}")
            lines.append(f"    seed part: {pi.seed_part}")
        if result.interval:
            b = result.bootstrap
            lines.append(f"  seed-only interval ({_percent(b.confidence)}): {number(result.interval[0])} to "
                         f"{number(result.interval[1])}: seed-to-seed variation only, NOT where the 57-game median "
                         f"lies ({b.n_resamples:,} bootstrap resamples, seed {b.seed}; each game's seeds resampled "
                         "with replacement, independently per game)")
        if result.protocol is not None:
            lines += [f"  protocol: {m}" for m in result.protocol.messages]
    else:
        lines.append(f"{result.subset} score: not computable, missing "
                     + ", ".join(result.not_computable[result.subset]))
    if result.own_median is not None:
        lines.append(f"  {result.own_median.text()}")
    given = list(g for g in result.games if g in result.raw_means)
    given += sorted(g for g in result.raw_means if g not in result.games)
    lines += ["", f"  {'game':<20} {'raw score':>14} {'seeds':>6} {'normalised':>12}"]
    for g in given:
        lines.append(f"  {names.get(g, g):<20} {number(result.raw_means[g], 2):>14} {result.n_seeds[g]:>6} "
                     f"{number(result.normalised[g]):>11}%")
    if result.other_subsets:
        lines += ["", "Other subsets from these games (estimate; where the 57-game median lies; seed part):"]
        for s in result.other_subsets:
            pi = s.prediction_interval
            lines.append(f"  {s.subset:<12} {number(s.estimate):>10}   "
                         + (_pi_text(pi) if pi else "no prediction interval (withheld or no calibration: see the notes)"))
            seed = (f"seed-only {_interval_text(s.interval, result.bootstrap.confidence)} (seed noise only)"
                    if s.interval else "seed part " + _seed_covers(None, pi).split(":")[0])
            same = result.signature and _same_pins(s.signature, result.signature)
            lines.append(f"  {'':<12} {'':>10}   {seed}" + ("" if same else f"   {s.signature}"))
        if result.signature:
            lines.append("  (their signatures: the paste line's with their subset name and seeds, unless printed)")
    missing = {k: v for k, v in result.not_computable.items() if k != result.subset}
    if missing:
        lines += ["", "Not computable (games not given):"]
        lines += [f"  {name:<12} needs {', '.join(games)}" for name, games in missing.items()]
    lines += [f"note: {note}" for note in result.notes]
    if result.signature:
        lines += ["", "The signature in the paste line pins coefficients, calibration, constants and method.",
                  f"Compare {result.subset} scores only with {result.subset} scores (see `atari5-spec leaderboard`), "
                  "never with 57-game medians (paper section 8)."]
    return lines


def _see_also(entry) -> list[str]:
    if entry is None or not entry.exclusion:
        return []
    return [f"  the entry is marked {entry.exclusion}: {entry.exclusion_note}"
            + (f" (--relative-to {entry.see_also[0]})" if entry.see_also else "")]


def measured_explain_lines(measured) -> list[str]:
    """``--explain``'s account of the measured comparison: what is measured, over which games, the bootstrap."""
    m = measured
    if m is None:
        return []
    lines = [f"  measured ratio of {m.label}: " + (f"{m.ratio:.3f} = {number(m.agent_median)} / "
                                                   f"{number(m.baseline_median)}" if m.ratio is not None else
                                                   f"none ({m.note})"),
             "    each side's median human-normalised score over the games of the 57 both have (the reference's "
             "normalisation of each game's seed mean): measured from the games, not estimated",
             f"    games: the agent gives {m.agent_games} of the 57, the baseline has {m.baseline_games}; "
             f"{m.n_games} compared (the games both have)"]
    if m.atari5_ratio is not None:
        lines.append(f"    the Atari-5 ratio beside it: {m.atari5_ratio:.3f} (a prediction of this ratio from five games)")
    if m.interval is not None:
        lines.append(f"    seed interval ({_percent(m.level)}): {m.interval[0]:.3f} to {m.interval[1]:.3f}: percentile "
                     f"bootstrap, {m.n_resamples:,} resamples, pinned seed {m.bootstrap_seed}, each game's seeds "
                     "resampled with replacement within the game, independently per agent; seed noise only (not "
                     "the games left out, nor a difference of protocol); a direction only when it excludes 1")
        lines.append(f"    seeds: the agent's from {m.agent_seeds}, the baseline's from {m.baseline_seeds}")
    elif m.ratio is not None:
        lines.append(f"    no seed interval, so no measured direction: {m.note}")
    return lines


def relative_explain_lines(relative, baseline_source: str) -> list[str]:
    """The ratio's details for ``--explain``: its definition, the baseline's provenance and protocol, the interval's
    coverage and seed part, the measured comparison (40 or more games on both sides), the baseline's own interval
    and signature."""
    subset = relative.agent.subset
    if relative.ratio is None:
        return (["", f"Relative to {baseline_source}: not computable, {_lacking(relative)}"]
                + measured_explain_lines(relative.measured) + _see_also(relative.baseline_entry))
    from ..scoring.relative import RATIO_DEFINITION

    ratio_pi = relative.prediction_interval
    lines = ["", f"Relative to the baseline ({baseline_source}): {relative.ratio:.3f}", f"  ratio = {RATIO_DEFINITION}"]
    entry = relative.baseline_entry
    if entry is not None:
        lines += [f"  baseline: {entry.describe()}",
                  f"    protocol: {entry.protocol_text()}",
                  "    numbers: " + ", ".join(f"{g} {entry.scores[g]:g} ({entry.provenance[g]})"
                                             for g in relative.baseline.games if g in entry.scores)]
        if entry.exclusion:
            lines.append(f"    note: the entry is marked {entry.exclusion}: {entry.exclusion_note}")
    if relative.baseline.protocol is not None:
        lines += [f"  baseline protocol: {m}" for m in relative.baseline.protocol.messages]
    if ratio_pi is not None:
        design = (" (same setup: both agents in one codebase and protocol)" if ratio_pi.design == "same setup"
                  else "")
        lines += [f"  {_percent(ratio_pi.level)} prediction interval for the ratio of the true 57-game medians"
                  f"{design}: {ratio_pi.low:.3f} to {ratio_pi.high:.3f}: {ratio_pi.statement}",
                  f"    measured coverage: {ratio_pi.coverage}", f"    seed part: {ratio_pi.seed_part}"]
    elif relative.agent.prediction_interval is None or relative.baseline.prediction_interval is None:
        who = " and ".join(w for w, r in (("the agent's", relative.agent), ("the baseline's", relative.baseline))
                           if r.estimate is not None and r.prediction_interval is None) or "an agent's"
        lines.append(f"  no prediction interval for the ratio: cannot be decided here ({who} own 57-game median "
                     "interval is withheld or missing; the notes say why)")
    else:
        lines.append("  no prediction interval for the ratio (no calibration, or an estimate at or below 0)")
    if relative.interval:
        lines.append(f"  seed-only {_interval_text(relative.interval, relative.agent.bootstrap.confidence, 3)} "
                     "(seed noise only, NOT where the ratio of the 57-game medians lies)")
    lines += measured_explain_lines(relative.measured)
    bpi = relative.baseline.prediction_interval
    lines += [f"  your {subset} {number(relative.agent.estimate)} / baseline {subset} "
              f"{number(relative.baseline.estimate)}, same coefficients and settings (paper Table 5)"
              + (f"; baseline {_pi_text(bpi)}" if bpi else ""),
              f"  baseline signature: {relative.baseline.signature}"]
    return lines


# --- --format markdown|latex -------------------------------------------------------------------------------------

def score_tables(result, relative=None, baseline_source: str | None = None) -> list[Table]:
    """Paper-ready tables: the subsets' estimates with their intervals (and the ratio with ``--relative-to``)."""
    level = result.prediction_interval.level if result.prediction_interval else (
        result.bootstrap.confidence if result.bootstrap else 0.95)
    seeds_label = "Seeds per game"
    rows = []
    for s in ((result,) if result.estimate is not None else ()) + tuple(result.other_subsets):
        pi = s.prediction_interval
        seeds = sorted({result.n_seeds[g] for g in s.games if g in result.n_seeds})
        rows.append((s.subset, number(s.estimate), f"{number(pi.low)} to {number(pi.high)}" if pi else "withheld",
                     f"{number(s.interval[0])} to {number(s.interval[1])}" if s.interval else "-",
                     "/".join(map(str, seeds))))
    notes = [f"Estimate: the agent's median human-normalised score over the 57 games (%), predicted from the subset's "
             f"games; {_percent(level)} prediction interval: where that median lies (model error measured out of "
             "sample, and seed noise when there are several seeds); seed-only interval: seed noise only."]
    if result.own_median is not None:
        notes.append(f"The agent's own {result.own_median.label}: {number(result.own_median.median)}.")
    if result.signature:
        notes.append(f"Signature: {result.signature}")
    tables = [Table(("Subset", "Estimate", f"{_percent(level)} prediction interval", "Seed-only interval",
                     seeds_label), tuple(rows), "lrrrr", f"{result.subset} score", tuple(notes), "tab:atari5-score")]
    if relative is not None and relative.ratio is not None:
        pi = relative.prediction_interval
        row = (baseline_source or "baseline", number(relative.agent.estimate), number(relative.baseline.estimate),
               f"{relative.ratio:.3f}", f"{pi.low:.3f} to {pi.high:.3f}" if pi else "-",
               pi.decision if pi else "cannot be decided here")
        notes = ["Ratio: the plain ratio of the two estimates; its interval is where the ratio of the two agents' "
                 "57-game medians lies."]
        m = relative.measured
        if m is not None and m.ratio is not None:
            notes.append(f"Measured ratio of {m.label}: {m.ratio:.3f} (measured, not estimated: "
                         f"{number(m.agent_median)} / {number(m.baseline_median)})"
                         + (f"; {_percent(m.level)} seed interval {m.interval[0]:.3f} to {m.interval[1]:.3f} "
                            f"({m.n_resamples:,} resamples over seeds, seed {m.bootstrap_seed}): {m.decision}"
                            if m.interval is not None else f"; no seed interval: {m.note}") + ".")
        if relative.signature:
            notes.append(f"Signature: {relative.signature}")
        tables.insert(0, Table(("Baseline", "Agent", "Baseline estimate", "Ratio",
                                f"{_percent(pi.level if pi else level)} prediction interval", "Decision"), (row,),
                               "lrrrrl", f"{result.subset} ratio to a baseline", tuple(notes), "tab:atari5-ratio"))
    return tables


# --- --format json ---------------------------------------------------------------------------------------------

def _prediction_json(interval) -> dict | None:
    if interval is None:
        return None
    out = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in interval.as_dict().items()}
    row = out.get("row")
    if row is not None and hasattr(row, "_asdict"):
        out["row"] = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row._asdict().items()}
    out["interval"] = [out["low"], out["high"]]
    return out


def _entry_json(entry) -> dict | None:
    if entry is None:
        return None
    return {"algorithm_id": entry.algorithm_id, "name": entry.name, "paper": entry.paper, "year": entry.year,
            "source_id": entry.source_id, "source_title": entry.source_title, "scores": entry.scores,
            "provenance": entry.provenance, "protocol": entry.protocol, "protocol_note": entry.protocol_note,
            "exclusion": entry.exclusion or None, "exclusion_note": entry.exclusion_note or None}


def _log_json(log) -> dict | None:
    if log is None:
        return None
    return {"kind": log.kind, "source": log.source, "window": log.window, "protocol_id": log.protocol_id,
            "sticky_action_probability": log.sticky_action_probability,
            "max_episode_frames": log.max_episode_frames, "inferred": list(log.inferred),
            "runs": [{"game": r.game, "seed": r.seed, "first_episode": r.first, "last_episode": r.last,
                      "episodes": r.total, "mean": r.mean} for r in log.runs]}


def score_json(result, names: dict[str, str], relative=None, baseline_source: str | None = None) -> dict:
    """The JSON object of ``atari5-spec score --format json``."""
    given = list(result.games) + sorted(g for g in result.raw_means if g not in result.games)
    own = result.own_median
    out = {
        "subset": result.subset,
        "estimate": result.estimate,
        "prediction_interval": _prediction_json(result.prediction_interval),
        "seed_interval": list(result.interval) if result.interval else None,
        "seed_interval_covers": _seed_covers(result.interval, result.prediction_interval),
        "interval": list(result.interval) if result.interval else None,
        "interval_is": "the seed interval (deprecated name; use seed_interval)",
        "confidence": result.bootstrap.confidence if result.bootstrap else None,
        "protocol": result.protocol._asdict() if result.protocol else None,
        "signature": result.signature,
        "coefficients": result.coefficients_version,
        "rel_err_percent": result.rel_err_percent,
        "meaning": "estimated median human-normalised score over the 57 games, in percent",
        "games": [{"game_id": g, "name": names.get(g, g), "raw_mean": result.raw_means[g],
                   "normalised": result.normalised[g], "n_seeds": result.n_seeds[g],
                   "in_subset": g in result.games} for g in given if g in result.raw_means],
        "bootstrap": result.bootstrap._asdict() if result.bootstrap else None,
        "other_subsets": [{"subset": s.subset, "games": list(s.games), "estimate": s.estimate,
                           "seed_interval": list(s.interval) if s.interval else None,
                           "seed_interval_covers": _seed_covers(s.interval, s.prediction_interval),
                           "prediction_interval": _prediction_json(s.prediction_interval), "signature": s.signature,
                           "rel_err_percent": s.rel_err_percent} for s in result.other_subsets],
        "not_computable": [{"subset": name, "missing": list(missing)}
                           for name, missing in result.not_computable.items()],
        "warnings": list(result.warnings),
        "implausible_allowed": list(result.implausible_allowed),
        "notes": list(result.notes),
        "own_median": dict(own._asdict(), label=own.label) if own is not None else None,
        "log": _log_json(result.log),
    }
    if relative is not None:
        from ..scoring.estimate import SEED_ONLY
        from ..scoring.relative import RATIO_DEFINITION

        ratio_pi = relative.prediction_interval
        out["relative"] = {"baseline": baseline_source, "baseline_estimate": relative.baseline.estimate,
                           "baseline_signature": relative.baseline.signature, "ratio": relative.ratio,
                           "ratio_definition": RATIO_DEFINITION,
                           "prediction_interval": _prediction_json(ratio_pi),
                           "baseline_prediction_interval": _prediction_json(relative.baseline.prediction_interval),
                           "interval": list(relative.interval) if relative.interval else None,
                           "interval_covers": (SEED_ONLY if relative.interval else
                                               "unknown: no seed interval for the ratio (a single seed for some game "
                                               "of either agent, or no bootstrap)"),
                           "signature": relative.signature,
                           "same_setup": relative.same_setup,
                           "baseline_entry": _entry_json(relative.baseline_entry),
                           "baseline_protocol": (relative.baseline.protocol._asdict()
                                                 if relative.baseline.protocol else None)}
        if relative.measured is not None:  # only with 40 or more games on both sides (else the key is absent)
            out["relative"]["measured"] = relative.measured.as_dict()
        if ratio_pi is not None:
            evidence = ratio_pi.evidence
            out["relative"]["prediction_interval"]["evidence"] = evidence._asdict() if evidence else None
            out["relative"]["prediction_interval"]["reasons"] = list(ratio_pi.reasons)
    return out
