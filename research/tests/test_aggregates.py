"""Hand-checked examples for atari5_spec_research.analyses.aggregates."""

import numpy as np
import pytest
import scipy.stats

from atari5_spec_research.analyses import aggregates as agg

# --- normalisation -----------------------------------------------------------


def test_range_normalised_formula():
    z = agg.range_normalised([[5.0, 30.0]], r_min=[0.0, 10.0], r_max=[10.0, 20.0])
    np.testing.assert_allclose(z, [[0.5, 2.0]])


def test_reference_normalised_uses_zero_and_absolute_reference():
    # r_min = 0, r_max = |reference|  ->  z = s / |reference|
    z = agg.reference_normalised([10.0, -5.0], reference=[5.0, -10.0])
    np.testing.assert_allclose(z, [2.0, -0.5])
    assert z.shape == (2,)  # 1-D in, 1-D out


def test_baseline_normalised_uses_min_and_max_of_baselines():
    baselines = [[0.0, 10.0], [4.0, 20.0], [2.0, np.nan]]
    z = agg.baseline_normalised([[2.0, 30.0], [np.nan, 15.0]], baselines)
    np.testing.assert_allclose(z, [[0.5, 2.0], [np.nan, 0.5]])


def test_inter_algorithm_hand_example():
    scores = [[10.0, 0.0], [20.0, -4.0], [15.0, 4.0]]
    z = agg.inter_algorithm_normalised(scores)
    np.testing.assert_allclose(z, [[0.0, 0.5], [1.0, 0.0], [0.5, 1.0]])


def test_inter_algorithm_in_unit_interval_with_min_0_and_max_1():
    rng = np.random.default_rng(0)
    scores = rng.normal(100.0, 50.0, size=(5, 57))
    z = agg.inter_algorithm_normalised(scores)
    assert np.all((z >= 0) & (z <= 1))
    np.testing.assert_array_equal(z.min(axis=0), 0.0)
    np.testing.assert_array_equal(z.max(axis=0), 1.0)


def test_inter_algorithm_two_algorithms_gives_zero_or_one():
    z = agg.inter_algorithm_normalised([[1.0, 9.0], [3.0, 2.0]])
    np.testing.assert_array_equal(z, [[0.0, 1.0], [1.0, 0.0]])


def test_inter_algorithm_missing_score_stays_missing():
    z = agg.inter_algorithm_normalised([[0.0, np.nan], [10.0, 1.0], [5.0, 3.0]])
    np.testing.assert_allclose(z, [[0.0, np.nan], [1.0, 0.0], [0.5, 1.0]])


def test_inter_algorithm_all_tied_game_is_an_error():
    with pytest.raises(ValueError, match=r"zero width.*\[1\]"):
        agg.inter_algorithm_normalised([[1.0, 5.0], [2.0, 5.0]])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: agg.inter_algorithm_normalised([[1.0, 2.0]]), "at least 2"),
        (lambda: agg.reference_normalised([1.0, 2.0], [0.0, 1.0]), "zero width"),
        (lambda: agg.reference_normalised([1.0, 2.0], [1.0]), r"shape \(2,\)"),
        (lambda: agg.baseline_normalised([[1.0, 2.0]], [[1.0, 2.0, 3.0]]), "games"),
        (lambda: agg.baseline_normalised([[1.0]], [[np.nan], [np.nan]]), "No baseline"),
        (lambda: agg.range_normalised(np.ones((2, 2, 2)), [0, 0], [1, 1]), "3-D"),
        (lambda: agg.range_normalised([[np.inf]], [0], [1]), "infinity"),
    ],
)
def test_normalisation_bad_inputs(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- point aggregates --------------------------------------------------------


def test_mean_and_median_hand_example():
    # Two runs; per-game means are [1, 2, 6] -> mean 3, median 2.
    x = [[0.0, 2.0, 4.0], [2.0, 2.0, 8.0]]
    assert agg.mean_score(x) == pytest.approx(3.0)
    assert agg.median_score(x) == pytest.approx(2.0)
    # Even number of games: average of the two middle values.
    assert agg.median_score([4.0, 1.0, 3.0, 2.0]) == pytest.approx(2.5)


def test_iqm_of_known_array():
    # 8 values: drop the 2 lowest and 2 highest, average 3, 4, 5, 6.
    x = np.array([[8.0, 1.0, 3.0, 6.0], [2.0, 7.0, 5.0, 4.0]])
    assert agg.interquartile_mean(x) == pytest.approx(4.5)
    assert agg.interquartile_mean(x) == pytest.approx(
        scipy.stats.trim_mean(x.ravel(), 0.25)
    )


def test_iqm_when_count_is_not_a_multiple_of_four():
    # 10 values: floor(0.25 * 10) = 2 dropped from each end (-50, 0 and 7,
    # 100), leaving the middle 6 values 1..6.
    x = np.array([[100.0, 0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0, -50.0]])
    assert agg.interquartile_mean(x) == pytest.approx(3.5)
    rng = np.random.default_rng(1)
    y = rng.normal(size=(7, 5))
    assert agg.interquartile_mean(y) == pytest.approx(
        scipy.stats.trim_mean(y, 0.25, axis=None)
    )


def test_optimality_gap():
    x = [[0.5, 1.5], [0.0, 1.0]]
    # max(1 - x, 0) = [0.5, 0, 1, 0] -> 0.375
    assert agg.optimality_gap(x) == pytest.approx(0.375)
    # gamma = 2: [1.5, 0.5, 2, 1] -> 1.25
    assert agg.optimality_gap(x, gamma=2.0) == pytest.approx(1.25)
    assert agg.optimality_gap([[3.0, 4.0]]) == 0.0


def test_score_distribution_hand_example():
    x = [0.0, 0.5, 1.0, 2.0]
    dist = agg.score_distribution(x, [0.0, 0.5, 0.75, 1.0, 3.0])
    np.testing.assert_allclose(dist, [1.0, 0.75, 0.5, 0.5, 0.0])
    assert agg.score_distribution(x, 1.0) == pytest.approx(0.5)


def test_score_distribution_non_increasing_in_threshold():
    rng = np.random.default_rng(2)
    x = rng.normal(1.0, 1.0, size=(5, 57))
    dist = agg.score_distribution(x, np.linspace(-3.0, 5.0, 200))
    assert np.all(np.diff(dist) <= 0)
    assert dist[0] == 1.0 and dist[-1] == 0.0


@pytest.mark.parametrize(
    "func",
    [agg.mean_score, agg.median_score, agg.interquartile_mean, agg.optimality_gap],
)
def test_aggregates_reject_nan_and_bad_shapes(func):
    with pytest.raises(ValueError, match="NaN"):
        func([[1.0, np.nan]])
    with pytest.raises(ValueError, match="3-D"):
        func(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="empty"):
        func(np.zeros((0, 3)))


# --- paired win/loss ---------------------------------------------------------


def test_win_loss_direct_comparison():
    a = [1.0, 2.0, 3.0, np.nan, 5.0]
    b = [0.0, 2.0, 4.0, 1.0, 4.0]
    # game 0 win, 1 tie, 2 loss, 3 skipped (missing), 4 win
    assert agg.paired_win_loss(a, b) == (2, 1, 1)
    assert agg.paired_win_loss(b, a) == (1, 2, 1)


def test_win_loss_direct_comparison_uses_mean_over_runs():
    a = [[0.0, 10.0], [4.0, 10.0]]  # means [2, 10]
    b = [[2.0, 9.0]]
    assert agg.paired_win_loss(a, b) == agg.WinLoss(wins=1, losses=0, ties=1)


def test_win_loss_welch_test_turns_insignificant_differences_into_ties():
    a = np.array([[10.0, 1.0, 5.0, 7.0], [11.0, 3.0, 5.0, 7.0], [12.0, 2.0, 5.0, 7.0]])
    b = np.array([[0.0, 1.6, 5.0, 8.0], [1.0, 2.6, 5.0, 8.0], [2.0, 2.1, 5.0, 8.0]])
    # game 0: clear win; game 1: means 2.0 vs 2.1 but overlapping -> tie;
    # game 2: identical constants -> tie; game 3: constant, different -> loss
    assert agg.paired_win_loss(a, b, alpha=0.01) == (1, 1, 2)
    # Without the test, game 1 counts as a loss.
    assert agg.paired_win_loss(a, b) == (1, 2, 1)


def test_win_loss_bad_inputs():
    with pytest.raises(ValueError, match="games"):
        agg.paired_win_loss([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="alpha"):
        agg.paired_win_loss([1.0], [2.0], alpha=1.5)


# --- stratified bootstrap ----------------------------------------------------


@pytest.fixture
def runs():
    rng = np.random.default_rng(3)
    return rng.normal(1.0, 0.5, size=(5, 10))


def test_bootstrap_same_seed_same_interval(runs):
    first = agg.stratified_bootstrap_ci(runs, agg.interquartile_mean, 500, seed=7)
    second = agg.stratified_bootstrap_ci(runs, agg.interquartile_mean, 500, seed=7)
    assert first == second


def test_bootstrap_other_seed_other_interval(runs):
    first = agg.stratified_bootstrap_ci(runs, agg.interquartile_mean, 500, seed=7)
    other = agg.stratified_bootstrap_ci(runs, agg.interquartile_mean, 500, seed=8)
    assert (first.low, first.high) != (other.low, other.high)


def test_bootstrap_interval_brackets_estimate(runs):
    ci = agg.stratified_bootstrap_ci(runs, agg.mean_score, 1000, confidence=0.95)
    assert ci.estimate == pytest.approx(runs.mean())
    assert ci.low < ci.estimate < ci.high
    narrow = agg.stratified_bootstrap_ci(runs, agg.mean_score, 1000, confidence=0.5)
    assert ci.low < narrow.low < narrow.high < ci.high


def test_bootstrap_resamples_within_each_game():
    # Each game's runs are constant, so every stratified resample reproduces
    # the data exactly and the interval collapses to the point estimate.
    # (Resampling across games would mix columns and widen it.)
    x = np.tile(np.arange(6.0), (4, 1))
    ci = agg.stratified_bootstrap_ci(x, agg.median_score, 200, seed=0)
    assert ci.low == ci.estimate == ci.high == 2.5


def test_bootstrap_vector_statistic(runs):
    thresholds = [0.5, 1.0, 1.5]
    ci = agg.stratified_bootstrap_ci(
        runs, lambda x: agg.score_distribution(x, thresholds), 300
    )
    assert ci.low.shape == ci.high.shape == (3,)
    assert np.all(ci.low <= ci.high)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"confidence": 0.0}, "confidence"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 95}, "confidence"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"n_resamples": 10.5}, "n_resamples"),
        ({"statistic": "iqm"}, "callable"),
    ],
)
def test_bootstrap_bad_arguments(runs, kwargs, message):
    arguments = {"statistic": agg.interquartile_mean, **kwargs}
    with pytest.raises(ValueError, match=message):
        agg.stratified_bootstrap_ci(runs, **arguments)


def test_bootstrap_bad_scores(runs):
    with pytest.raises(ValueError, match="at least 2 runs"):
        agg.stratified_bootstrap_ci(runs[:1], agg.mean_score)
    with_nan = runs.copy()
    with_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        agg.stratified_bootstrap_ci(with_nan, agg.mean_score)
