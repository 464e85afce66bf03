"""atari5-spec: the Atari-5 benchmark as a data package and a scoring spec.

The public API is small and usable from a notebook:

>>> import atari5_spec
>>> data = atari5_spec.load()                          # tidy pandas frames
>>> result = atari5_spec.score({"battle_zone": 30000, "double_dunk": 0, "name_this_game": 9000,
...                             "phoenix": 6000, "qbert": 12000})   # or a Series / DataFrame
>>> low, high = result.prediction_interval             # where the 57-game median lies
>>> low < result.estimate < high
True

``atari5_spec.validate()`` returns ``[]`` when the package is valid, and
``atari5_spec.verify()`` the checks that every pinned number still reproduces.
This package is the standard alone; aggregates of your own runs, the search and
the analyses are ``atari5_spec_research`` (``pip install ./research``), the
maintainers' tools ``atari5_spec_maintainers`` (docs/architecture.md).

Heavy modules (pandas, frictionless, pandera) are imported on first use, so
that the command line starts quickly. No public name is also the name of a
submodule: importing a submodule binds it on the package, and would replace
the function of the same name (``leaderboard`` lives in ``ranking``).
"""

from __future__ import annotations

from ._version import __version__

_LAZY = {
    "load": ("data.loading", "open_dataset"),
    "Dataset": ("data.loading", "Dataset"),
    "validate": ("data.validation", "validate_package"),
    "score": ("scoring.estimate", "score"),
    "relative_score": ("scoring.relative", "relative_score"),
    "relative_scores": ("scoring.relative", "relative_scores"),
    "own_median": ("scoring.own_median", "own_median"),
    "predict": ("scoring.prediction", "predict"),
    "leaderboard": ("scoring.ranking", "leaderboard"),
    "verify": ("method.verification", "verify"),
    "Signature": ("scoring.signature", "Signature"),
    "parse_signature": ("scoring.signature", "parse_signature"),
    "check_signature": ("scoring.signature_check", "check_signature"),
    "cite": ("scoring.citation", "citation"),
    "play": ("harness.runs", "play"),
    "protocols": ("harness.protocols", "protocols"),
    # the result types (for isinstance checks and the API reference)
    "ScoreResult": ("scoring.estimate", "ScoreResult"),
    "SubsetScore": ("scoring.estimate", "SubsetScore"),
    "RelativeResult": ("scoring.relative", "RelativeResult"),
    "PredictionResult": ("scoring.prediction", "PredictionResult"),
    "Leaderboard": ("scoring.ranking", "Leaderboard"),
    "Interval": ("scoring.intervals", "Interval"),
    "PredictionInterval": ("scoring.intervals", "PredictionInterval"),
    "RatioInterval": ("scoring.intervals", "RatioInterval"),
    "SignatureCheck": ("scoring.signature_check", "SignatureCheck"),
    "Citation": ("scoring.citation", "Citation"),
    "PlayResult": ("harness.runs", "PlayResult"),
    "Protocol": ("harness.protocols", "Protocol"),
    "InputError": ("data.errors", "InputError"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
