"""atari5-spec: the Atari-5 benchmark as a data package and a scoring spec.

The public API is small and usable from a notebook:

>>> import atari5_spec
>>> data = atari5_spec.load()                          # tidy pandas frames
>>> result = atari5_spec.score({"battle_zone": 30000, "double_dunk": 0, "name_this_game": 9000,
...                             "phoenix": 6000, "qbert": 12000})   # or a Series / DataFrame
>>> low, high = result.prediction_interval             # where the 57-game median lies
>>> low < result.estimate < high
True
>>> runs = atari5_spec.human_normalised_runs("dreamerv3")   # runs x games fractions, rliable's shape
>>> runs.scores.shape
(3, 57)

``atari5_spec.validate()`` returns ``[]`` when the package is valid, and
``atari5_spec.aggregate({"DreamerV3": runs.scores}).to_frame()`` gives IQM,
median, mean and optimality gap with intervals.

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
    "aggregate": ("analyses.agent_runs", "aggregate"),
    "human_normalised_runs": ("analyses.agent_runs", "human_normalised_runs"),
    "Signature": ("scoring.signature", "Signature"),
    "parse_signature": ("scoring.signature", "parse_signature"),
    "check_signature": ("scoring.signature_check", "check_signature"),
    "cite": ("scoring.citation", "citation"),
    "export": ("scoring.release", "export"),
    # the result types (for isinstance checks and the API reference)
    "ScoreResult": ("scoring.estimate", "ScoreResult"),
    "SubsetScore": ("scoring.estimate", "SubsetScore"),
    "RelativeResult": ("scoring.relative", "RelativeResult"),
    "PredictionResult": ("scoring.prediction", "PredictionResult"),
    "Leaderboard": ("scoring.ranking", "Leaderboard"),
    "RunAggregates": ("analyses.run_aggregates", "RunAggregates"),
    "RunsMatrix": ("analyses.agent_runs", "RunsMatrix"),
    "Interval": ("scoring.intervals", "Interval"),
    "PredictionInterval": ("scoring.intervals", "PredictionInterval"),
    "RatioInterval": ("scoring.intervals", "RatioInterval"),
    "SignatureCheck": ("scoring.signature_check", "SignatureCheck"),
    "Citation": ("scoring.citation", "Citation"),
    "InputError": ("data.errors", "InputError"),
    "build_site": ("site.build", "build_site"),
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
