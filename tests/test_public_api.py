"""The names `import atari5_spec` promises stay what they are, however often they are used."""

import subprocess
import sys

import pytest

import atari5_spec


@pytest.mark.slow
def test_every_lazy_name_is_the_same_callable_on_every_access():
    # In a fresh interpreter, as in a notebook: every name accessed first, then the submodules get imported by
    # other calls, then every name accessed again (one interpreter for all: about 2 s each as one per name).
    names = [n for n in atari5_spec.__all__ if n != "__version__"]
    code = (f"import atari5_spec, importlib; names = {names!r}; "
            "first = {n: getattr(atari5_spec, n) for n in names}; "
            "[importlib.import_module(f'atari5_spec.{m}') for m in ('scoring.ranking', 'scoring.estimate', "
            "'scoring.prediction', 'data.loading', 'data.validation', 'method.verification')]; "
            "changed = [n for n in names if getattr(atari5_spec, n) is not first[n] or not callable(first[n])]; "
            "assert not changed, changed")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_no_public_name_is_also_a_submodule():
    import pkgutil

    submodules = {m.name for m in pkgutil.iter_modules(atari5_spec.__path__)}
    assert not submodules & set(atari5_spec.__all__)


def test_leaderboard_is_callable_twice():
    import atari5_spec.scoring.ranking  # noqa: F401  (as another module or test would have done)

    first = atari5_spec.leaderboard
    second = atari5_spec.leaderboard
    assert callable(first) and first is second
