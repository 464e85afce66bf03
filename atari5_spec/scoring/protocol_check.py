"""The protocol of an agent's runs as far as known: the type :func:`atari5_spec.score` reports it in.

A leaf of the scoring layer: :mod:`.estimate` fills it and :mod:`.protocol_conditions` adds to it,
and neither has to import the other for it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ProtocolCheck"]


class ProtocolCheck(NamedTuple):
    """The agent's protocol as far as known, and how the version's errors shift for agents like it."""

    sticky_action_probability: float | None
    training_frames: int | None
    source: str               # where the facts came from (options, game ids, not given)
    messages: tuple[str, ...]
    max_episode_frames: int | None = None  # the evaluation's episode cap, when stated (scoring.protocol_conditions)
    protocol_id: str | None = None  # the protocol of data/protocols.csv an episode table names (machado-2018)
