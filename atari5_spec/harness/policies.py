"""The POLICY of ``atari5-spec play``: ``random``, ``module:callable`` or a Python file defining ``policy``.

A policy is a callable from an observation (the emulator's RGB screen, a uint8 array 210 x 160 x 3) to an
action, an index into the game's action set under the protocol (0 to n - 1). Whatever wrappers it needs
(frame stacking, resizing, grey scale) are its own: the harness gives it the raw screen and reads the raw
score from the emulator. Optional, used when present:

* ``policy.reset(game=..., num_actions=..., seed=...)`` is called before each episode (a recurrent state
  cleared, the number of actions learnt, an episode seed for the policy's own randomness);
* ``policy.batched = True``: the policy takes a batch of observations (N x 210 x 160 x 3) and returns N
  actions; the harness gives it batches of one.

Each process loads the policy once (:func:`load_policy`): a spec, not an object, travels to the workers, so
that local processes and Dask workers alike build it themselves.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

from ..data.errors import InputError

__all__ = ["RandomPolicy", "load_policy", "policy_label", "RANDOM"]

RANDOM = "random"


class RandomPolicy:
    """Uniformly random actions, seeded per episode from (seed, game, episode) by the harness."""

    def __init__(self):
        self._generator = None
        self._count = 0

    def reset(self, *, game: str, num_actions: int, seed: int) -> None:
        import numpy as np

        self._generator = np.random.default_rng(seed)
        self._count = num_actions

    def __call__(self, observation) -> int:
        return int(self._generator.integers(self._count))


def policy_label(spec: str) -> str:
    """What the episode table's policy column records for ``spec`` (the spec as given)."""
    return str(spec)


def _from_file(path: Path, spec: str):
    name = f"atari5_spec_policy_{abs(hash(str(path.resolve()))):x}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise InputError(f"POLICY {spec}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    module_spec.loader.exec_module(module)
    if not hasattr(module, "policy"):
        raise InputError(f"POLICY {spec}: the file defines no `policy` (a callable from observation to action)")
    return module.policy


def load_policy(spec: str):
    """The policy ``spec`` names: ``random``, ``module:callable`` or a path to a ``.py`` file defining ``policy``.

    A class (or any callable returning a callable when it takes no arguments) is not guessed at: the name must
    be the policy itself, e.g. an instance made at the module's top level.
    """
    spec = str(spec)
    if spec == RANDOM:
        return RandomPolicy()
    try:
        if spec.endswith(".py") or os.sep in spec or Path(spec).is_file():
            path = Path(spec)
            if not path.is_file():
                raise InputError(f"POLICY {spec}: no such Python file")
            found = _from_file(path, spec)
        elif ":" in spec:
            module_name, _, attribute = spec.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as error:
                raise InputError(f"POLICY {spec}: the module {module_name!r} cannot be imported ({error}); "
                                 "put it on PYTHONPATH or give the file's path") from None
            found = module
            for part in attribute.split("."):
                if not hasattr(found, part):
                    raise InputError(f"POLICY {spec}: {module_name} has no {attribute!r}")
                found = getattr(found, part)
        else:
            raise InputError(f"POLICY {spec}: give random, module:callable or a path to a .py file defining policy")
    except InputError:
        raise
    except Exception as error:  # the user's module failed while importing: say so, without a traceback
        raise InputError(f"POLICY {spec}: importing it raised {type(error).__name__}: {error}") from None
    if not callable(found):
        raise InputError(f"POLICY {spec}: {type(found).__name__} is not callable (a policy maps an observation "
                         "to an action)")
    if isinstance(found, type):
        raise InputError(f"POLICY {spec}: is a class; name an instance of it (policy = {found.__name__}(...))")
    return found
