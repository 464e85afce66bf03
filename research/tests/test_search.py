"""atari5_spec_research.search: the fast paths agree with the reference fits, and the searches pick what
brute force over the reference fits picks. Synthetic, seeded data only."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from atari5_spec.method import fitting
from atari5_spec_research import search
from atari5_spec_research.search import exhaustive


def synthetic(n_rows=62, n_games=14, seed=0, missing_games=6):
    """Scores driven by one latent skill, a target that is a positive mix of all games (so that
    admissible models exist, as for the ALE median), and some games missing some rows (few shared
    patterns, as in the ALE)."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.5, 3.0, n_rows)
    X = skill[:, None] * rng.uniform(0.3, 1.2, n_games) + rng.normal(0, 0.3, (n_rows, n_games))
    y = X @ rng.dirichlet(np.ones(n_games)) + rng.normal(0, 0.05, n_rows)
    patterns = [rng.random(n_rows) < share for share in (0.02, 0.05, 0.15, 0.3)]
    for g in rng.choice(n_games, missing_games, replace=False):
        X[patterns[g % len(patterns)], g] = np.nan
        X[rng.random(n_rows) < 0.03, g] = np.nan               # and a few rows of its own
    return X, y


@pytest.fixture(params=["tree", "direct"])
def path(request, monkeypatch):
    """Run a test through the prefix tree (even on small searches) and through the direct fits."""
    monkeypatch.setattr(exhaustive, "_DIRECT_UP_TO", 0 if request.param == "tree" else 10 ** 9)
    return request.param


@pytest.fixture
def tree(monkeypatch):
    """Run a test through the prefix tree even if the search is small."""
    monkeypatch.setattr(exhaustive, "_DIRECT_UP_TO", 0)


def reference_mse(X, y, columns):
    rows = ~np.isnan(y) & ~np.isnan(X[:, list(columns)]).any(axis=1)
    return fitting.cross_validate(X[rows][:, list(columns)], y[rows])[0]


def brute_force_best(X, y, pool, k, always=()):
    """The paper's selection by the reference code alone: lowest CV MSE among admissible subsets."""
    best = None
    for subset in itertools.combinations(sorted(pool), k):
        columns = list(subset) + list(always)
        rows = ~np.isnan(X[:, columns]).any(axis=1)
        coefficients = fitting.fit_no_intercept(X[rows][:, columns], y[rows])
        if np.all(coefficients >= 0):
            candidate = (reference_mse(X, y, columns), subset)
            best = candidate if best is None or candidate < best else best
    return best[1]


@pytest.mark.parametrize("k, always", [(1, ()), (2, ()), (3, ()), (4, ()), (5, ()), (2, (3, 9)), (4, (0,)),
                                       (3, (1, 2, 4))])
@pytest.mark.slow
def test_every_subset_matches_the_reference(k, always, path):
    X, y = synthetic(seed=k + len(always))
    pool = [g for g in range(X.shape[1]) if g not in always]
    scores = search.evaluate_all_subsets(X, y, pool, k, always)
    assert len(scores.cv_mse) == math.comb(len(pool), k)
    listed = {tuple(sorted(subset)) for subset in scores.subsets.tolist()}
    assert listed == set(itertools.combinations(pool, k))        # each subset exactly once
    for subset, mse, n in zip(scores.subsets, scores.cv_mse, scores.n_rows):
        columns = list(subset) + list(always)
        assert mse == pytest.approx(reference_mse(X, y, columns), rel=1e-9)
        assert n == (~np.isnan(X[:, columns]).any(axis=1)).sum()


@pytest.mark.parametrize("d, folds", [(1, 10), (3, 10), (5, 10), (5, 1)])
def test_sweeping_the_leading_columns_at_once_is_sweeping_them_one_by_one(d, folds):
    from atari5_spec_research.search.kernels import _sweep_first, _sweep_leading
    rng = np.random.default_rng(d * 10 + folds)
    Z = rng.normal(1, 1, (60, 12))
    fold = rng.integers(0, folds, 60)
    T = np.stack([Z[fold == f].T @ Z[fold == f] for f in range(folds)], axis=-1)
    S = (Z.T @ Z)[..., None] - T if folds > 1 else T.copy()
    S_one, T_one = S, T
    for _ in range(d):
        S_one, T_one = _sweep_first(S_one, T_one)
    S_all, T_all = _sweep_leading(S, T, d)
    assert S_all.flags.c_contiguous and T_all.flags.c_contiguous
    np.testing.assert_allclose(S_all, S_one, rtol=1e-12, atol=1e-12 * np.abs(S_one).max())
    np.testing.assert_allclose(T_all, T_one, rtol=1e-12, atol=1e-12 * np.abs(T_one).max())
    S_alone, no_T = _sweep_leading(S, None, d)               # T not carried (an RSS pass): the same S
    assert no_T is None and np.array_equal(S_alone, S_all)


def test_reference_matches_sklearn_on_a_sample():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold, cross_val_score
    X, y = synthetic(seed=11)
    scores = search.evaluate_all_subsets(X, y, range(X.shape[1]), 4)
    for i in np.random.default_rng(0).choice(len(scores.cv_mse), 10, replace=False):
        columns = list(scores.subsets[i])
        rows = ~np.isnan(X[:, columns]).any(axis=1)
        theirs = -cross_val_score(LinearRegression(fit_intercept=False), X[rows][:, columns], y[rows],
                                  cv=KFold(10, shuffle=True, random_state=1982),
                                  scoring="neg_mean_squared_error").mean()
        assert scores.cv_mse[i] == pytest.approx(theirs, rel=1e-9)


def test_threads_do_not_change_results(tree):
    X, y = synthetic(seed=12, n_games=16)
    one = search.evaluate_all_subsets(X, y, range(16), 5, n_threads=1)
    two = search.evaluate_all_subsets(X, y, range(16), 5, n_threads=2)
    np.testing.assert_array_equal(one.subsets, two.subsets)
    np.testing.assert_array_equal(one.cv_mse, two.cv_mse)


def test_progress_is_reported_up_to_the_total(path):
    X, y = synthetic(seed=13)
    calls = []
    search.evaluate_all_subsets(X, y, range(14), 4, progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (math.comb(14, 4), math.comb(14, 4))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_listed_subsets_agree_with_the_reference_and_with_sklearn_coefficients():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    X, y = synthetic(seed=14)
    rng = np.random.default_rng(1)
    subsets = np.array([rng.choice(np.arange(2, 14), 4, replace=False) for _ in range(60)])
    scores = search.evaluate_subsets(X, y, subsets, always=(0, 1))
    assert scores.coefficients.shape == (60, 6)
    for subset, mse, coefficients, admissible in zip(subsets, scores.cv_mse, scores.coefficients,
                                                     scores.admissible):
        columns = list(subset) + [0, 1]                              # always games last
        rows = ~np.isnan(X[:, columns]).any(axis=1)
        theirs = LinearRegression(fit_intercept=False).fit(X[rows][:, columns], y[rows]).coef_
        np.testing.assert_allclose(coefficients, theirs, rtol=0, atol=1e-10)
        assert mse == pytest.approx(reference_mse(X, y, columns), rel=1e-9)
        assert admissible == np.all(theirs >= 0)


def test_too_few_rows_gives_nan_not_an_error(path):
    X, y = synthetic(seed=15, missing_games=0)
    X[5:, 0] = np.nan                                                # game 0 has 5 rows: no 10-fold CV
    scores = search.evaluate_all_subsets(X, y, range(6), 2)
    with_game0 = np.array([0 in subset for subset in scores.subsets])
    assert np.isnan(scores.cv_mse[with_game0]).all()
    assert np.isfinite(scores.cv_mse[~with_game0]).all()


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_best_subset_is_the_brute_force_choice(seed, path):
    X, y = synthetic(seed=20 + seed)
    assert search.best_subset(X, y, range(14), 3) == brute_force_best(X, y, range(14), 3)
    assert search.best_subset(X, y, range(2, 14), 2, always=(0, 1)) == brute_force_best(X, y, range(2, 14), 2, (0, 1))


def test_inadmissible_subsets_are_never_chosen():
    rng = np.random.default_rng(30)
    X = rng.normal(2, 1, (62, 6))
    y = X[:, 0] - 0.6 * X[:, 1] + 0.3 * X[:, 2] + rng.normal(0, 0.01, 62)    # needs a negative weight
    ranked = sorted(itertools.combinations(range(6), 3), key=lambda s: reference_mse(X, y, s))
    assert ranked[0] == (0, 1, 2) and fitting.fit_no_intercept(X[:, [0, 1, 2]], y)[1] < 0
    chosen = search.best_subset(X, y, range(6), 3)
    assert 1 not in chosen
    assert chosen == brute_force_best(X, y, range(6), 3)


def test_exact_ties_go_to_the_first_columns():
    X, y = synthetic(seed=31, missing_games=0)
    X = np.column_stack([X[:, 3], X])                                # column 0 duplicates column 4
    assert reference_mse(X, y, [0]) == reference_mse(X, y, [4])
    assert search.best_subset(X, y, [4, 0], 1) == (0,)
    assert search.best_subset(X, y, [0, 4, 1], 2) == (0, 1)


def test_tree_and_direct_fits_agree_on_a_bigger_search(monkeypatch):
    """Enough games missing rows that nodes and pairs change their row set at every tree level; small
    buckets and batches, so that batches are also joined across buckets."""
    X, y = synthetic(seed=16, n_games=18, missing_games=10)
    monkeypatch.setattr(exhaustive, "_DIRECT_UP_TO", 0)
    monkeypatch.setattr(exhaustive, "_BUCKET_NODES", 10)
    monkeypatch.setattr(exhaustive, "_PAIR_CHUNK", 2000)
    by_tree = search.evaluate_all_subsets(X, y, range(18), 5, n_threads=2)
    monkeypatch.setattr(exhaustive, "_DIRECT_UP_TO", 10 ** 9)
    direct = search.evaluate_all_subsets(X, y, range(18), 5)
    order = {tuple(sorted(subset)): i for i, subset in enumerate(direct.subsets.tolist())}
    matched = np.array([order[tuple(sorted(subset))] for subset in by_tree.subsets.tolist()])
    assert sorted(matched.tolist()) == list(range(len(matched)))
    np.testing.assert_allclose(by_tree.cv_mse, direct.cv_mse[matched], rtol=1e-11)
    np.testing.assert_array_equal(by_tree.n_rows, direct.n_rows[matched])


@pytest.mark.slow
def test_staged_search_follows_the_paper_on_a_small_problem(path):
    X, y = synthetic(seed=40, n_games=16)
    games = [f"g{i:02d}" for i in range(15)] + ["surround"]
    X[:, 15] = 0.9 * y + 0.01                                        # a perfect predictor that must be excluded
    frame, target = pd.DataFrame(X, columns=games), pd.Series(y)
    seen = []
    models = search.staged_search(frame, target, progress=lambda done, total: seen.append((done, total)))
    assert list(models) == ["Atari-5", "Atari-3", "Atari-1", "Atari-3-Val", "Atari-5-Val", "Atari-10"]
    assert seen[-1][0] == seen[-1][1] == (math.comb(15, 5) + math.comb(5, 3) + 3 + math.comb(10, 3)
                                          + math.comb(7, 2) + math.comb(5, 5))
    index = {g: i for i, g in enumerate(games)}
    pool = list(range(15))

    def names(columns):
        return tuple(games[c] for c in columns)

    def columns(model):
        return [index[g] for g in model.games]

    atari5 = brute_force_best(X, y, pool, 5)
    atari3 = brute_force_best(X, y, atari5, 3)
    atari1 = brute_force_best(X, y, atari3, 1)
    outside = [g for g in pool if g not in atari5]
    val3 = brute_force_best(X, y, outside, 3)
    val5 = brute_force_best(X, y, [g for g in outside if g not in val3], 2, val3) + val3
    atari10 = brute_force_best(X, y, [g for g in outside if g not in val5], 5, atari5) + atari5
    expected = dict(zip(models, [atari5, atari3, atari1, val3, val5, atari10]))
    for name, model in models.items():
        assert model.games == names(expected[name]), name             # new games first, kept games last
        assert "surround" not in model.games
        assert model.admissible
        reference = fitting.fit_subset_model(frame, target, model.games)
        assert model == reference
    assert set(columns(models["Atari-3"])) <= set(columns(models["Atari-5"]))
    assert set(columns(models["Atari-1"])) <= set(columns(models["Atari-3"]))
    assert not set(columns(models["Atari-5-Val"])) & set(columns(models["Atari-5"]))
    assert not set(columns(models["Atari-10"])[:5]) & set(columns(models["Atari-5-Val"]))
