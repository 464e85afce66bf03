"""The names `import atari5_spec` promises stay what they are, however often they are used."""

import subprocess
import sys

import pytest

import atari5_spec


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in atari5_spec.__all__ if n != "__version__"])
def test_every_lazy_name_is_the_same_callable_on_every_access(name):
    # In a fresh interpreter, as in a notebook: first access, then the submodules get imported
    # by other calls, then access again.
    code = (f"import atari5_spec, importlib; first = atari5_spec.{name}; "
            "[importlib.import_module(f'atari5_spec.{m}') for m in ('scoring.ranking', 'scoring.estimate', "
            "'scoring.prediction', 'data.loading', 'data.validation', 'method.verification')]; "
            f"second = atari5_spec.{name}; assert first is second and callable(second), (first, second)")
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
