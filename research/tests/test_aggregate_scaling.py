"""``aggregate`` without seeds x seeds arrays: the ranked probability of improvement and the streamed bootstrap
give the same numbers as the direct formulas (bit for bit), on ties, copies and unequal seed counts."""

import numpy as np
import pytest

from atari5_spec_research.analyses import run_aggregates as ra


def runs(rng, n_seeds, n_games, ties=False):
    x = rng.lognormal(0.0, 1.0, size=(n_seeds, n_games))
    return np.round(x, 1) if ties else x


@pytest.mark.parametrize("n_x, n_y, ties", [(5, 5, False), (3, 8, True), (1, 4, True), (40, 17, False)])
def test_ranked_probability_of_improvement_equals_the_pairwise_count(n_x, n_y, ties):
    rng = np.random.default_rng(n_x * 100 + n_y)
    x, y = runs(rng, n_x, 9, ties), runs(rng, n_y, 9, ties)
    y[:, 0] = x[0, 0]  # exact ties across agents
    assert ra.improvement_probability_ranked(x, y) == float(ra.improvement_probability(x, y))
    assert ra.improvement_probability_ranked(x, x) == 0.5


@pytest.mark.parametrize("n_x, n_y, ties", [(4, 6, True), (7, 7, False), (300, 2, True)])
def test_streamed_replicates_equal_the_resampled_arrays(monkeypatch, n_x, n_y, ties):
    monkeypatch.setattr(ra, "CHUNK_ELEMENTS", 500)  # many chunks, including an odd last one
    rng = np.random.default_rng(1)
    x, y, taus = runs(rng, n_x, 5, ties), runs(rng, n_y, 5, ties), np.linspace(0, 3, 7)
    boot_x = ra.bootstrap_agent(x, 37, np.random.default_rng(9), taus)
    boot_y = ra.bootstrap_agent(y, 37, np.random.default_rng(10), taus)
    resampled_x = ra._resample_seeds(x, 37, np.random.default_rng(9))
    resampled_y = ra._resample_seeds(y, 37, np.random.default_rng(10))
    np.testing.assert_array_equal(ra.improvement_replicates(boot_x, boot_y),
                                  ra.improvement_probability(resampled_x, resampled_y))
    for metric, values in ra.batch_statistics(resampled_x).items():
        np.testing.assert_array_equal(boot_x.replicates[metric], values)
    np.testing.assert_array_equal(boot_x.profiles, ra.performance_profile(resampled_x, taus))


def test_vectorised_welch_of_all_pairs_equals_the_single_ones():
    rng = np.random.default_rng(5)
    scores = {f"a{i}": rng.normal(i * 0.3, 1.0, size=(3 + i, 30)) for i in range(4)}
    scores["a0"][:, :2] = 1.0
    scores["a1"][:, :2] = [1.0, 2.0]  # constant games: decided without a test
    pairs = [(x, y) for i, x in enumerate(scores) for y in list(scores)[i + 1:]]
    assert ra.welch_all_pairs(scores, pairs) == [ra.welch_win_loss(scores[x], scores[y]) for x, y in pairs]


def test_memory_does_not_grow_with_seeds_squared():
    import tracemalloc

    rng = np.random.default_rng(2)
    peaks = []
    for n_seeds in (100, 400):
        scores = {"a": runs(rng, n_seeds, 57), "b": runs(rng, n_seeds, 57)}
        tracemalloc.start()
        ra.aggregate_runs(scores, list(range(57)), n_resamples=200)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 6 * peaks[0]  # 4x the seeds: linear growth (16x would be seeds squared)
