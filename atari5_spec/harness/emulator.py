"""The emulator side of the harness: ale-py, imported only here and only when an episode is played.

Every environment is ale-py's own ``AtariEnv`` built with each protocol setting given explicitly
(``repeat_action_probability``, ``full_action_space``, ``frameskip``, ``max_num_frames_per_episode``), never a
registered id whose defaults could change; no wrapper clips rewards or ends an episode at a life lost. An
episode's score is the sum of the rewards ``AtariEnv.step`` returns, each the sum of ``ALEInterface.act``
over the skipped frames: the raw game score.
"""

from __future__ import annotations

import hashlib
import zlib

from ..data.errors import InputError

__all__ = ["require_ale", "library_versions", "rom_sha256", "episode_seeds", "play_episode", "environment"]

INSTALL = 'pip install "atari5-spec[ale]"'


def require_ale() -> None:
    """InputError saying how to install ale-py and Gymnasium when either is missing or unusable."""
    try:
        import ale_py  # noqa: F401
        import gymnasium  # noqa: F401
    except ImportError as error:
        raise InputError(f"`atari5-spec play` needs ale-py (>= 0.12.1) and Gymnasium, which are not installed "
                         f"here ({error}): {INSTALL}") from None
    if ale_py.__version__ == "0.12.0":
        raise InputError(f"ale-py 0.12.0 shipped without its ROMs (and was yanked): {INSTALL} installs 0.12.1 or "
                         "newer")


def library_versions() -> tuple[str, str]:
    """(ale-py version, Gymnasium version)."""
    import ale_py
    import gymnasium

    return ale_py.__version__, gymnasium.__version__


_ROM_HASHES: dict[str, str] = {}


def rom_sha256(game: str) -> str:
    """sha256 of the ROM file ale-py loads for ``game`` (hex)."""
    if game not in _ROM_HASHES:
        from ale_py import roms

        try:
            path = roms.get_rom_path(game)
        except Exception as error:  # ale-py raises its own error types for an unknown ROM
            raise InputError(f"game {game}: ale-py has no ROM for it ({error})") from None
        if path is None:
            raise InputError(f"game {game}: ale-py has no ROM for it")
        with open(path, "rb") as handle:
            _ROM_HASHES[game] = hashlib.sha256(handle.read()).hexdigest()
    return _ROM_HASHES[game]


def episode_seeds(seed: int, game: str, episode: int) -> tuple[int, int, int]:
    """(emulator seed, policy seed, no-op seed) of one episode, from (seed, game, episode) alone.

    The game enters by the CRC-32 of its id, a stable number on every machine and Python (``hash`` is salted
    per process); numpy's SeedSequence spreads the three into independent streams.
    """
    import numpy as np

    words = np.random.SeedSequence([int(seed), zlib.crc32(game.encode("utf-8")), int(episode)]).generate_state(3)
    return tuple(int(w) for w in words)


def environment(game: str, settings):
    """ale-py's AtariEnv for ``game`` with every setting of ``settings`` (EmulatorSettings) explicit."""
    from ale_py.env import AtariEnv

    return AtariEnv(game=game, obs_type="rgb", frameskip=settings.frameskip,
                    repeat_action_probability=settings.repeat_action_probability,
                    full_action_space=settings.full_action_space,
                    max_num_frames_per_episode=settings.max_num_frames_per_episode)


class PolicyError(InputError):
    """The user's policy raised, or returned something that is not an action."""


def _act(policy, observation, batched: bool, count: int, where: str) -> int:
    try:
        action = policy(observation[None])[0] if batched else policy(observation)
        index = int(action)
    except Exception as error:
        raise PolicyError(f"the policy raised {type(error).__name__}: {error} ({where})") from None
    if not 0 <= index < count or index != action:
        raise PolicyError(f"the policy returned {action!r}, not an action index from 0 to {count - 1} ({where})")
    return index


def play_episode(env, policy, settings, game: str, seed: int, episode: int) -> tuple[float, int, bool]:
    """(raw score, emulator frames, truncated) of one episode of ``policy`` in ``env``.

    No-op starts (``settings.noop_max`` > 0) are the harness's: after the reset, a uniform number of NOOP
    actions from 1 to noop_max, their rewards counted; a game that ends during them starts again.
    """
    import numpy as np

    env_seed, policy_seed, noop_seed = episode_seeds(seed, game, episode)
    count = env.action_space.n
    where = f"game {game}, seed {seed}, episode {episode}"
    reset = getattr(policy, "reset", None)
    if callable(reset):
        try:
            reset(game=game, num_actions=count, seed=policy_seed)
        except Exception as error:
            raise PolicyError(f"the policy's reset raised {type(error).__name__}: {error} ({where})") from None
    batched = bool(getattr(policy, "batched", False))
    observation, _ = env.reset(seed=env_seed)
    score = 0.0
    if settings.noop_max:
        noop = env.get_action_meanings().index("NOOP")
        noops = np.random.default_rng(noop_seed)
        ended = True
        while ended:
            ended = False
            for _ in range(int(noops.integers(1, settings.noop_max + 1))):
                observation, reward, terminated, truncated, _ = env.step(noop)
                score += reward
                if terminated or truncated:
                    observation, _ = env.reset()
                    score, ended = 0.0, True
                    break
    step = env.step
    while True:
        observation, reward, terminated, truncated, _ = step(_act(policy, observation, batched, count, where))
        score += reward
        if terminated or truncated:
            break
    return float(score), int(env.ale.getEpisodeFrameNumber()), bool(truncated and not terminated)
