"""Result types as a notebook user meets them: intervals unpack as (low, high), one-line reprs, HTML tables.

Written from the user's side: everything goes through ``import atari5_spec``.
"""

from __future__ import annotations

import copy
import json
import pickle
import warnings

import pytest

import atari5_spec
import atari5_spec_research
from atari5_spec.scoring.intervals import Interval, PredictionInterval

ONE_SEED = {"Battle Zone": 35000, "Double Dunk": -1.5, "Name This Game": 12000, "Phoenix": 9000, "Q*bert": 15000}
THREE_SEEDS = {"battle_zone": [35000, 30000, 32000], "double_dunk": [-1.5, 0.0, 1.0],
               "name_this_game": [12000, 11000, 13000], "phoenix": [9000, 8000, 9500], "qbert": [15000, 14000, 16000]}
BASELINE = {"battle_zone": [20000, 21000], "double_dunk": [-2, -3], "name_this_game": [8000, 8100],
            "phoenix": [5000, 5200], "qbert": [9000, 9500]}


@pytest.fixture(scope="module")
def results():
    return {"one": atari5_spec.score(ONE_SEED), "three": atari5_spec.score(THREE_SEEDS),
            "relative": atari5_spec.relative_score(THREE_SEEDS, BASELINE)}


def every_interval(results):
    one, three, relative = results["one"], results["three"], results["relative"]
    yield one.prediction_interval
    yield three.prediction_interval
    yield three.interval
    yield from (s.prediction_interval for s in three.other_subsets)
    yield from (s.interval for s in three.other_subsets)
    yield relative.prediction_interval
    yield relative.interval


def test_every_interval_unpacks_as_a_pair_with_low_high_level_covers(results):
    intervals = list(every_interval(results))
    assert len(intervals) > 6 and all(i is not None for i in intervals)
    for interval in intervals:
        low, high = interval                       # the README's `lo, hi = result.prediction_interval`
        assert (low, high) == (interval.low, interval.high) and low <= high
        assert interval == (low, high) and tuple(interval) == (low, high) and len(interval) == 2
        assert interval.level == 0.95
        assert isinstance(interval.covers, str) and len(interval.covers) > 20
        assert json.loads(json.dumps(interval)) == [low, high]
        assert pickle.loads(pickle.dumps(interval)) == interval and copy.deepcopy(interval) == interval
        assert (low + high) / 2 in interval


def test_what_each_interval_covers_is_said(results):
    three = results["three"]
    assert "57 games" in three.prediction_interval.covers
    assert "NOT where the 57-game median lies" in three.interval.covers
    assert "ratio" in results["relative"].prediction_interval.covers


def test_reprs_are_one_line_with_the_number_its_interval_and_what_it_covers(results):
    three, relative = results["three"], results["relative"]
    for result, number in ((three, f"{three.estimate:.1f}"), (three.other_subsets[0], f"{three.other_subsets[0].estimate:.1f}"),
                           (relative, f"{relative.ratio:.3f}")):
        line = repr(result)
        assert "\n" not in line and number in line
        pi = result.prediction_interval
        assert f"95% prediction_interval=({pi.low:.{3 if result is relative else 1}f}, " in line
        assert "57-game median" in line and "seed noise only" in line
    assert "interval=None" not in repr(relative)   # the issue: "interval=None" read as "no interval"
    assert f"decision={relative.prediction_interval.decision!r}" in repr(relative)
    pi = three.prediction_interval
    assert repr(pi).startswith(f"PredictionInterval(low={pi.low:.1f}, high={pi.high:.1f}, level=0.95, covers=")


def test_html_tables_for_jupyter(results):
    for result in (results["one"], results["three"], results["three"].other_subsets[0], results["relative"],
                   results["three"].prediction_interval):
        table = result._repr_html_()
        assert table.startswith("<table") and table.endswith("</table>")
        assert type(result).__name__ in table
    assert "57-game median" in results["one"]._repr_html_() and results["one"].signature in results["one"]._repr_html_()
    assert "<script" not in Interval(0, 1, 0.9, "<script>alert(1)</script>")._repr_html_()


def test_the_1_0_0_named_tuple_access_still_works_with_a_deprecation_warning(results):
    pi = results["one"].prediction_interval
    with pytest.warns(DeprecationWarning, match=r"use \.calibration"):
        assert pi[3] == pi.calibration
    with pytest.warns(DeprecationWarning, match=r"use \.level"):
        assert pi[2] == 0.95
    with pytest.warns(DeprecationWarning, match=r"as_dict"):
        assert pi._asdict() == pi.as_dict()
    with pytest.warns(DeprecationWarning, match=r"replace"):
        assert pi._replace(level=0.9).level == 0.9
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # the pair and the attributes never warn
        assert pi[:2] == (pi.low, pi.high) and pi[0] == pi.low and pi[-1] == pi.high
        assert pi.as_dict()["coverage"] == pi.coverage
    # positional construction as in 1.0.0
    again = PredictionInterval(*pi.as_dict().values())
    assert again == pi


def test_intervals_are_immutable(results):
    pi = results["one"].prediction_interval
    with pytest.raises(AttributeError, match="immutable"):
        pi.level = 0.5


def test_every_other_result_prints_one_line_and_a_table():
    data = atari5_spec.load(scores="all")
    predicted = atari5_spec.predict(ONE_SEED)
    board = atari5_spec.leaderboard(ONE_SEED)
    runs = atari5_spec_research.human_normalised_runs("dreamerv3")
    aggregates = atari5_spec_research.aggregate({"DreamerV3": runs.scores}, n_resamples=20)
    for result in (data, predicted, board, runs, aggregates):
        line = repr(result)
        assert "\n" not in line and len(line) < 400, line
    assert f"algorithms {len(data.algorithms):,}" in repr(data)              # not every table in full
    assert "R^2" in repr(predicted) and predicted.to_frame().shape[0] == len(predicted.predictions)
    assert f"your agent {board.user_estimate:.1f} (rank {board.user_rank})" in repr(board)
    assert "IQM" in repr(aggregates)
    for result in (data, predicted, board, runs, aggregates):
        assert "<table" in result._repr_html_()
