"""The evaluation protocols of data/protocols.csv, and the emulator settings each one fixes.

A protocol row says, in data/algorithms.csv's words, how episodes start, the sticky-action probability,
the action set, the frame skip and the episode cap. :func:`emulator_settings` turns a row into the
arguments the harness builds every environment with, and refuses a protocol that leaves one of them
empty (the row's note says why it is empty): the harness never guesses a setting.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from ..data.errors import InputError

__all__ = ["Protocol", "EmulatorSettings", "protocols", "protocol", "emulator_settings", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = "machado-2018"
# The fields a harness must have to build an environment and start an episode.
PLAYED_FIELDS = ("start_condition", "sticky_action_probability", "action_set", "frame_skip", "max_episode_frames")


@dataclasses.dataclass(frozen=True)
class Protocol:
    """One row of data/protocols.csv (None where the row is empty)."""

    protocol_id: str
    name: str
    defined_by: str
    start_condition: str | None
    noop_max: int | None
    sticky_action_probability: float | None
    action_set: str | None
    life_loss_episode_end: bool | None
    frame_skip: int | None
    max_episode_frames: int | None
    training_frames: int | None
    eval_episodes: int | None
    statistic: str | None
    protocol_note: str

    def __repr__(self) -> str:
        return (f"Protocol({self.protocol_id}: start {self.start_condition}, noop_max {self.noop_max}, sticky "
                f"{self.sticky_action_probability}, {self.action_set} action set, frame skip {self.frame_skip}, "
                f"cap {self.max_episode_frames} frames; {self.defined_by})")


@dataclasses.dataclass(frozen=True)
class EmulatorSettings:
    """What every environment of a protocol is built with, each setting explicit (ale-py's own names)."""

    repeat_action_probability: float
    full_action_space: bool
    frameskip: int
    max_num_frames_per_episode: int
    noop_max: int  # no-op actions the harness takes after a reset: a uniform number from 1 to noop_max (0: none)


def _cell(value):
    if value is None:
        return None
    try:
        import pandas as pd

        if value is pd.NA:
            return None
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # numpy scalars: plain Python values in the dataclass
        value = value.item()
    return value


def package_table(name: str, root: Path | str | None = None):
    """One table of the data package, typed by its schema (None when the descriptor does not list it): the
    harness reads only the tables it needs, not the whole package."""
    from ..data.datapackage import package_root, read_descriptor, resource_path, schema_of
    from ..data.loading import read_table

    folder = package_root(root)
    descriptor = read_descriptor(folder)
    if name not in {r.get("name") for r in descriptor.get("resources", [])}:
        return None
    return read_table(resource_path(folder, descriptor, name), schema_of(folder, descriptor, name))


def protocols(root: Path | str | None = None) -> dict[str, Protocol]:
    """Every protocol of the data package (``root``: a package folder, default the one in use), by id."""
    table = package_table("protocols", root)
    if table is None:
        raise InputError("this data package has no data/protocols.csv (it came with data 1.95.0): "
                         "use a newer package")
    fields = [f.name for f in dataclasses.fields(Protocol)]
    return {row["protocol_id"]: Protocol(**{f: _cell(row[f]) for f in fields})
            for row in table.astype(object).to_dict("records")}


def protocol(name: str | Protocol, root: Path | str | None = None) -> Protocol:
    """The protocol named ``name`` (a protocol_id of data/protocols.csv); a Protocol is returned as it is."""
    if isinstance(name, Protocol):
        return name
    known = protocols(root)
    if name not in known:
        import difflib

        close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise InputError(f"--protocol {name}: not a protocol of data/protocols.csv{hint}; the protocols are "
                         f"{', '.join(known)}")
    return known[name]


def emulator_settings(chosen: Protocol) -> EmulatorSettings:
    """The settings ``chosen`` fixes; InputError naming the empty fields when it leaves one unstated."""
    missing = [f for f in PLAYED_FIELDS if getattr(chosen, f) is None]
    if chosen.start_condition == "no-op" and chosen.noop_max is None:
        missing.append("noop_max")
    if missing:
        raise InputError(f"protocol {chosen.protocol_id}: data/protocols.csv leaves {', '.join(missing)} empty "
                         "(its protocol_note says why: the sources read do not state them); the harness plays "
                         "only a protocol that states every setting, it never guesses one: choose another "
                         "--protocol")
    return EmulatorSettings(repeat_action_probability=float(chosen.sticky_action_probability),
                            full_action_space=chosen.action_set == "full", frameskip=int(chosen.frame_skip),
                            max_num_frames_per_episode=int(chosen.max_episode_frames),
                            noop_max=int(chosen.noop_max) if chosen.start_condition == "no-op" else 0)
