"""atari5-spec's research: the game search, out-of-sample evaluation, pair evaluation, aggregates, IRT, structure.

It builds on the standard (``atari5_spec``) and adds nothing to what a user needs to score an agent:

>>> import atari5_spec_research as research
>>> runs = research.human_normalised_runs("dreamerv3")       # runs x games, fractions of human (rliable's shape)
>>> runs.scores.shape
(3, 57)

``research.aggregate({"DreamerV3": runs.scores}).to_frame()`` gives IQM, median, mean and optimality gap with
stratified-bootstrap intervals (rliable's), and ``research.aggregate_curves`` the same along training.
Each name is imported on first use.
"""

from __future__ import annotations

_LAZY = {
    "aggregate": ("analyses.agent_runs", "aggregate"),
    "aggregate_curves": ("analyses.agent_runs", "aggregate_curves"),
    "aggregate_file": ("analyses.agent_runs", "aggregate_file"),
    "human_normalised_runs": ("analyses.agent_runs", "human_normalised_runs"),
    "RunsMatrix": ("analyses.agent_runs", "RunsMatrix"),
    "RunAggregates": ("analyses.run_aggregates", "RunAggregates"),
    "CurveAggregates": ("analyses.sample_efficiency", "CurveAggregates"),
    "staged_search": ("search", "staged_search"),
    "staged_choice": ("search", "staged_choice"),
}

__all__ = list(_LAZY)


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
