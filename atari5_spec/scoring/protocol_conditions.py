"""Conditions of an agent's evaluation that the error measurements may not cover: the episode cap, games below
random play, and game ids that disagree about the protocol.

* **Episode cap.** The standard evaluation ends an episode after 108,000 frames (30 minutes); a shorter cap
  (the Nature DQN's 5 minutes, 18,000 frames) cuts scores on games with long episodes, a longer one raises
  them. ``score --max-episode-frames N`` states it (an algorithm id baseline brings its recorded cap, which
  ``contribute check`` derives from a submission's ``max_episode_frames``). The output reports the measured
  error of agents with that cap where the version's errors hold such agents, else says it is not measured.
* **Below random.** The formula clips a game's human-normalised score at 0 (``phi = log10(1 + max(0, z))``),
  so how far below random play an agent is does not reach the estimate. The output names the games and the
  measured error of the agents with a below-random game of the subset in the version's errors.
* **Game ids.** ``ALE/X-v5`` implies sticky actions (0.25), ``XNoFrameskip-v4`` none; ids that imply different
  probabilities, or a ``--sticky-actions`` that contradicts them, get a warning.

A ratio's direction ("higher", "lower") is stated only when neither agent meets a condition the pair coverage
was not measured under (:mod:`.relative`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ..data.datapackage import package_root
from ..data.errors import InputError
from ..data.frames import STANDARD_EPISODE_FRAMES
from ..data.paths import read_package_rows

__all__ = ["implied_sticky", "game_id_warnings", "check_episode_frames", "episode_cap_reason", "episode_cap_message",
           "below_random_games", "below_random_message", "below_random_template", "with_conditions", "episode_caps", "agents_below_random",
           "STANDARD_EPISODE_FRAMES"]


def implied_sticky(name: str) -> tuple[float, str] | None:
    """(sticky-action probability, the id family) a game id implies, or None for a plain name."""
    text = str(name).strip()
    if text.startswith("ALE/") and text.endswith("-v5"):
        return 0.25, "ALE/*-v5"
    if text.endswith("-v4"):
        return 0.0, "*-v4"
    if text.endswith("-v0") and not text.startswith("ALE/"):
        return 0.25, "*-v0"
    return None


def game_id_warnings(names: Iterable[str], sticky: float | None) -> list[str]:
    """Warnings when the game ids imply different sticky-action probabilities, or contradict ``sticky``."""
    implied: dict[float, str] = {}
    for name in names:
        found = implied_sticky(name)
        if found is not None and found[0] not in implied:
            implied[found[0]] = str(name)
    warnings = []
    if len(implied) > 1:
        examples = " and ".join(f"{name} (sticky-action probability {p:g})" for p, name in sorted(implied.items()))
        warnings.append(f"the game ids disagree about the protocol: {examples}; runs of one agent are made under one "
                        "protocol, so the sticky-action probability is not read from them: check the ids and state "
                        "it with --sticky-actions (sticky_action_probability=)")
    if sticky is not None:
        for p, name in sorted(implied.items()):
            if not math.isclose(p, sticky):
                warnings.append(f"--sticky-actions {sticky:g} contradicts the game id {name}, which implies a "
                                f"sticky-action probability of {p:g} (Gymnasium's ALE/*-v5 repeat the previous action "
                                "with probability 0.25, *-v4 never do, unless the environment was made with another "
                                "repeat_action_probability): the stated probability is used; check which is right")
    return warnings


def check_episode_frames(value) -> int | None:
    """The episode cap as a positive whole number of frames (None stays None); InputError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < 1:
        raise InputError(f"the episode cap (max episode frames) must be a positive whole number of frames, e.g. "
                         f"{STANDARD_EPISODE_FRAMES} (30 minutes), not {value!r}")
    return int(value)


def episode_caps(root: Path | None) -> dict[str, int]:
    return {r["algorithm_id"]: int(float(r["max_episode_frames"]))
            for r in read_package_rows(package_root(root) / "data" / "algorithms.csv", package_root(root))
            if r.get("max_episode_frames")}


def _ratios_text(rows: Sequence[dict]) -> str:
    ratios = [float(r["ratio"]) for r in rows]
    papers = {r["paper"] for r in rows}
    in_range = sum(1 for r in rows if float(r["estimate"]) >= 40.0)
    return (f"{len(rows)} agent{'s' if len(rows) != 1 else ''} ({len(papers)} paper{'s' if len(papers) != 1 else ''}, "
            f"{in_range} in range): (1 + estimate) / (1 + true median) "
            + (f"{ratios[0]:.2f}" if len(ratios) == 1 else f"{min(ratios):.2f} to {max(ratios):.2f}"))


def episode_cap_reason(cap: int | None, who: str = "the agent") -> str | None:
    """Why a direction cannot be stated for an agent with this cap (None for the standard cap or none stated)."""
    if cap is None or cap == STANDARD_EPISODE_FRAMES:
        return None
    return (f"{who} was evaluated with an episode cap of {cap:,} frames, not the standard "
            f"{STANDARD_EPISODE_FRAMES:,} (30 minutes): the pair coverage was not measured for such agents")


def episode_cap_message(cap: int | None, calibration, subset: str, root: Path | None = None) -> str | None:
    """What the version's errors say about agents evaluated with episode cap ``cap`` (None: nothing to say)."""
    if cap is None:
        return None
    if cap == STANDARD_EPISODE_FRAMES:
        return f"episode cap {cap:,} frames (30 minutes), the standard"
    kind = "shorter" if cap < STANDARD_EPISODE_FRAMES else "longer"
    text = (f"episode cap {cap:,} frames, {kind} than the standard {STANDARD_EPISODE_FRAMES:,} (30 minutes): "
            f"a {kind} cap {'cuts' if kind == 'shorter' else 'raises'} scores on games with long episodes, which the "
            "estimate does not know")
    if calibration is None:
        return text + "; the error there is not measured (no calibration)"
    caps = episode_caps(root)
    rows = [r for r in calibration.rows if r["subset"] == subset and caps.get(r.get("algorithm_id", "")) == cap]
    if not rows:
        return text + (f"; no agent in the version's errors ({calibration.name}) was evaluated with this cap: the "
                       "error there is NOT MEASURED")
    return text + f"; measured in {calibration.name} on " + _ratios_text(rows)


def below_random_games(normalised: Mapping[str, float], games: Sequence[str]) -> dict[str, float]:
    """The subset's games whose human-normalised score is below random play (z < 0), with z."""
    return {g: normalised[g] for g in games if g in normalised and normalised[g] < 0}


def agents_below_random(games: Sequence[str], constants: Mapping[str, tuple[float, float]],
                         root: Path | None) -> set[str]:
    """Agents of the data (an algorithm's published numbers: its id; its learning curves at a budget:
    ``<id>@<budget>``, the mean over seeds) with a score below random play on one of ``games`` (csv only)."""
    from ..data.frames import format_frames

    folder = package_root(root) / "data"
    below = set()
    for r in read_package_rows(folder / "scores.csv", folder.parent):
        if r["game_id"] in games and r["use_in_fit"] == "true" and float(r["score"]) < constants[r["game_id"]][0]:
            below.add(r["algorithm_id"])
    sums: dict[tuple[str, str, str], list[float]] = {}
    path = folder / "budget_scores.csv"
    if os.path.lexists(path):  # present but not a plain file: the read gate names it
        for r in read_package_rows(path, folder.parent):
            if r["game_id"] in games:
                key = (r["algorithm_id"], r["training_frames"], r["game_id"])
                sums.setdefault(key, []).append(float(r["score"]))
    for (algorithm, frames, game), values in sums.items():
        if sum(values) / len(values) < constants[game][0]:
            below.add(f"{algorithm}@{format_frames(int(float(frames)))}")
    return below


def below_random_template(calibration, subset: str, games: Sequence[str], root: Path | None = None,
                          constants: Mapping[str, tuple[float, float]] | None = None) -> dict:
    """The below-random line as parts (the CLI and the site's scorer both render from them): ``prefix``, then per
    game ``<name><between><z with places decimals><after_z>`` joined by ``separator``, then ``suffix`` (the
    measured error of agents like that in the version's errors)."""
    parts = {"prefix": "below random play on ", "between": " (", "places": 1, "after_z": "%)", "separator": ", ",
             "suffix": ": the formula counts a score below random as random play (z clipped to 0), so how far below "
                       "does not reach the estimate"}
    if calibration is None:
        return dict(parts, suffix=parts["suffix"] + "; the error there is not measured (no calibration)")
    below_agents = agents_below_random(games, constants, root)
    rows = [r for r in calibration.rows if r["subset"] == subset and r["agent"] in below_agents]
    if not rows:
        return dict(parts, suffix=parts["suffix"] + f"; no agent in the version's errors ({calibration.name}) has a "
                                                     f"below-random game of {subset}: the error there is NOT MEASURED")
    return dict(parts, suffix=parts["suffix"] + f"; measured in {calibration.name} on the agents with a below-random "
                                                 f"{subset} game: " + _ratios_text(rows))


def below_random_message(below: Mapping[str, float], calibration, subset: str, games: Sequence[str],
                         names: Mapping[str, str], root: Path | None = None,
                         constants: Mapping[str, tuple[float, float]] | None = None) -> str:
    """The games below random, and the measured error of agents like that in the version's errors."""
    t = below_random_template(calibration, subset, games, root, constants)
    listed = t["separator"].join(f"{names.get(g, g)}{t['between']}{z:.{t['places']}f}{t['after_z']}"
                                 for g, z in below.items())
    return t["prefix"] + listed + t["suffix"]


def with_conditions(result, names: Sequence[str], sticky: float | None, max_episode_frames: int | None,
                    coefficients, game_names: Mapping[str, str] | None = None):
    """``result`` (a ScoreResult) with the warnings and protocol messages of these conditions added."""
    from ..method.calibration import read_calibration

    warnings = list(result.warnings) + game_id_warnings(names, sticky)
    messages = []
    below = below_random_games(result.normalised, result.games) if result.estimate is not None else {}
    if max_episode_frames is None and not below:
        return result._replace(warnings=tuple(warnings))
    calibration = read_calibration(coefficients.path)
    root = Path(coefficients.path).parent.parent
    root = root if (root / "datapackage.json").is_file() else None
    cap = episode_cap_message(max_episode_frames, calibration, result.subset, root)
    if cap:
        messages.append(cap)
    if below:
        messages.append(below_random_message(below, calibration, result.subset, result.games, game_names or {}, root,
                                             coefficients.constants))
    protocol = result.protocol
    if protocol is not None:
        protocol = protocol._replace(messages=tuple(protocol.messages) + tuple(messages),
                                     max_episode_frames=max_episode_frames)
    elif messages:
        from .protocol_check import ProtocolCheck

        protocol = ProtocolCheck(sticky, None, "as given", tuple(messages), max_episode_frames)
    return result._replace(warnings=tuple(warnings), protocol=protocol)
