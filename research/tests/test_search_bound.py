"""The bounded search (``search.selection.bounded_best``): its bound never exceeds a subset's CV MSE, it
rules most subsets out, and it chooses exactly what the exhaustive search chooses. Synthetic, seeded data."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from atari5_spec.method import fitting
from atari5_spec_research import search
from atari5_spec_research.search import selection
from test_search import brute_force_best, path, reference_mse, synthetic, tree  # noqa: F401 (fixtures)


def reference_bound(X, y, columns, n_splits=fitting.N_SPLITS):
    """In-sample RSS of the subset's complete rows over n_splits * ceil(n / n_splits), by the reference fit."""
    rows = ~np.isnan(y) & ~np.isnan(X[:, list(columns)]).any(axis=1)
    A, b = X[rows][:, list(columns)], y[rows]
    residual = b - A @ fitting.fit_no_intercept(A, b)
    return float(residual @ residual) / (n_splits * math.ceil(len(b) / n_splits))


@pytest.mark.parametrize("k, always", [(2, ()), (3, ()), (4, ()), (2, (3, 9))])
def test_the_bound_is_below_every_cv_mse_and_is_the_in_sample_rss(k, always, path):
    X, y = synthetic(seed=50 + k)
    pool = [g for g in range(X.shape[1]) if g not in always]
    bounds = search.evaluate_all_subsets(X, y, pool, k, always, lower_bound="rss")
    assert len(bounds.cv_mse) == math.comb(len(pool), k)
    for subset, bound in zip(bounds.subsets.tolist(), bounds.cv_mse):
        columns = list(subset) + list(always)
        assert bound == pytest.approx(reference_bound(X, y, columns), rel=1e-9)
        assert bound <= reference_mse(X, y, columns) * (1 + 1e-12)


def reference_leverage_bound(X, y, columns, always, n_splits=fitting.N_SPLITS):
    """sum_k e_k' (I - (H_A)_kk)^-1 e_k / (K n_k) on the subset's complete rows, by the reference fit and explicit
    inverses (e: the full fit's residuals; H_A: the hat matrix of the always games alone)."""
    rows = ~np.isnan(y) & ~np.isnan(X[:, list(columns)]).any(axis=1)
    A, b = X[rows][:, list(columns)], y[rows]
    residual = b - A @ fitting.fit_no_intercept(A, b)
    kept = X[rows][:, list(always)]
    hat = kept @ np.linalg.inv(kept.T @ kept) @ kept.T if always else np.zeros((len(b), len(b)))
    total = 0.0
    for test in fitting.kfold_test_folds(len(b), n_splits):
        metric = np.linalg.inv(np.eye(len(test)) - hat[np.ix_(test, test)])
        total += residual[test] @ metric @ residual[test] / (n_splits * len(test))
    return total


@pytest.mark.parametrize("k, always", [(2, ()), (3, ()), (2, (3, 9)), (3, (0, 5, 11))])
def test_the_leverage_bound_lies_between_the_rss_bound_and_every_cv_mse(k, always, path):
    X, y = synthetic(seed=80 + k + len(always))
    pool = [g for g in range(X.shape[1]) if g not in always]
    leverage = search.evaluate_all_subsets(X, y, pool, k, always, lower_bound="leverage")
    rss = search.evaluate_all_subsets(X, y, pool, k, always, lower_bound="rss")
    rss_of = {tuple(sorted(s)): b for s, b in zip(rss.subsets.tolist(), rss.cv_mse)}
    tighter = 0
    for subset, bound in zip(leverage.subsets.tolist(), leverage.cv_mse):
        columns = list(subset) + list(always)
        cv = reference_mse(X, y, columns)
        if not np.isfinite(cv):
            continue
        assert bound == pytest.approx(reference_leverage_bound(X, y, columns, always), rel=1e-9)
        assert rss_of[tuple(sorted(subset))] * (1 - 1e-12) <= bound <= cv * (1 + 1e-12)
        tighter += bound > rss_of[tuple(sorted(subset))] * (1 + 1e-6)
    assert tighter > len(leverage.cv_mse) // 2        # strictly tighter for most subsets, not just equal


@pytest.mark.parametrize("n_always, n_rows", [(0, 37), (2, 37), (5, 62), (3, 23)])
def test_the_leverage_metric_products_are_the_explicit_inverses_per_fold(n_always, n_rows):
    """``_metric_products`` (Woodbury, all folds at once) against sum_k Z_k' (I - (H_A)_kk)^-1 Z_k / (K n_k) with
    explicit inverses; NaN once an always game is seen in one fold only (a leverage of 1 there)."""
    from atari5_spec_research.search.rowsets import _fold_places, _LeverageBoundRowSets
    rng = np.random.default_rng(n_always * 100 + n_rows)
    Z = rng.normal(1, 1, (n_rows, n_always + 4))
    rowsets = _LeverageBoundRowSets(Z[:, n_always:-1], Z[:, -1], [], range(3), fitting.N_SPLITS, fitting.SEED)
    rowsets.n_always = n_always                                    # the metric of these always columns of Z
    A = Z[:, :n_always]
    hat = A @ np.linalg.inv(A.T @ A) @ A.T if n_always else np.zeros((n_rows, n_rows))
    expected = np.zeros((Z.shape[1], Z.shape[1]))
    for test in fitting.kfold_test_folds(n_rows, fitting.N_SPLITS, fitting.SEED):
        metric = np.linalg.inv(np.eye(len(test)) - hat[np.ix_(test, test)])
        expected += Z[test].T @ metric @ Z[test] / (fitting.N_SPLITS * len(test))
    np.testing.assert_allclose(rowsets._metric_products(Z, n_rows), expected, rtol=1e-10, atol=1e-12)
    if n_always:
        fold, _ = _fold_places(n_rows, fitting.N_SPLITS, fitting.SEED)
        Z[:, 0] = np.where(fold == 3, Z[:, 0], 0.0)                # game 0 only seen in fold 3
        assert np.isnan(rowsets._metric_products(Z, n_rows)).all()


def test_an_unknown_bound_kind_is_refused():
    X, y = synthetic(seed=50)
    with pytest.raises(ValueError, match="lower_bound must be one of"):
        search.evaluate_all_subsets(X, y, range(5), 2, lower_bound=True)


@pytest.mark.parametrize("seed", range(3))
def test_bounded_search_chooses_what_brute_force_chooses(seed, path):
    X, y = synthetic(seed=60 + seed)
    assert selection.bounded_best(X, y, range(14), 3) == brute_force_best(X, y, range(14), 3)
    assert selection.bounded_best(X, y, range(2, 14), 2, always=(0, 1)) == brute_force_best(X, y, range(2, 14), 2,
                                                                                             (0, 1))


@pytest.fixture
def cross_validated(monkeypatch):
    """The sizes of the batches ``bounded_best`` cross-validates (``selection.evaluate_subsets`` calls), in order."""
    sizes = []
    real = selection.evaluate_subsets

    def counting(X, y, subsets, *args, **kwargs):
        sizes.append(len(subsets))
        return real(X, y, subsets, *args, **kwargs)
    monkeypatch.setattr(selection, "evaluate_subsets", counting)
    return sizes


def test_bounded_search_rules_out_most_subsets(cross_validated):
    X, y = synthetic(seed=70, n_games=16)
    exhaustive = search.best_subset(X, y, range(16), 5)
    cross_validated.clear()                                          # only the bounded search's batches count
    assert selection.bounded_best(X, y, range(16), 5) == exhaustive
    assert sum(cross_validated) < math.comb(16, 5) / 8          # of 4,368 subsets, a few hundred cross-validated


def test_bounded_search_skips_inadmissible_subsets_and_keeps_tie_order():
    rng = np.random.default_rng(30)
    X = rng.normal(2, 1, (62, 6))
    y = X[:, 0] - 0.6 * X[:, 1] + 0.3 * X[:, 2] + rng.normal(0, 0.01, 62)    # needs a negative weight
    assert selection.bounded_best(X, y, range(6), 3) == search.best_subset(X, y, range(6), 3)
    assert 1 not in selection.bounded_best(X, y, range(6), 3)
    X, y = synthetic(seed=31, missing_games=0)
    X = np.column_stack([X[:, 3], X])                                # column 0 duplicates column 4
    assert selection.bounded_best(X, y, [0, 4, 1], 2) == search.best_subset(X, y, [0, 4, 1], 2) == (0, 1)


def test_bounded_search_without_an_admissible_subset_says_so_as_the_exhaustive_one_does():
    rng = np.random.default_rng(3)
    X = rng.normal(2, 1, (40, 4))
    y = -X.sum(axis=1) + rng.normal(0, 0.01, 40)                     # every weight negative
    with pytest.raises(ValueError, match="no admissible subset"):
        search.best_subset(X, y, range(4), 2)
    with pytest.raises(ValueError, match="no admissible subset"):
        selection.bounded_best(X, y, range(4), 2)


@pytest.mark.parametrize("seed", [40, 41])
def test_bounded_staged_search_equals_the_exhaustive_one(seed, tree):
    X, y = synthetic(seed=seed, n_games=17, missing_games=8)
    frame, target = pd.DataFrame(X, columns=[f"g{i:02d}" for i in range(17)]), pd.Series(y)
    exhaustive = search.staged_search(frame, target)
    bounded = search.staged_search(frame, target, bounded=True)
    assert [m.games for m in bounded.values()] == [m.games for m in exhaustive.values()]
    assert all(itertools.starmap(lambda a, b: a == b, zip(bounded.values(), exhaustive.values())))


@pytest.mark.parametrize("count", [1, 256, 2048, 10_000])
def test_the_lowest_bounds_are_taken_in_order_of_value_then_index_whatever_the_sample_shows(count):
    rng = np.random.default_rng(count)
    values = np.round(rng.exponential(1.0, 9_000), 2)              # many ties
    values[rng.choice(9_000, 500, replace=False)] = np.nan          # subsets without a bound
    values[rng.choice(9_000, 50, replace=False)] = np.inf
    clustered = values.copy()
    clustered[::64] = np.nan                                       # the strided sample sees no finite value
    skewed = values.copy()
    skewed[::64] = 0.0                                             # the sample's cut keeps too few
    for case in (values, clustered, skewed):
        finite = np.flatnonzero(np.isfinite(case))
        expected = finite[np.lexsort((finite, case[finite]))][:count]
        assert np.array_equal(selection._lowest(case, count), expected)


def test_a_walk_whose_first_256_subsets_are_all_inadmissible_takes_more_and_still_chooses_the_best(
        cross_validated):
    rng = np.random.default_rng(12)
    X = rng.normal(3, 1, (80, 17))
    X[:, 1:14] -= 3
    # y falls with games 1-13 (any subset with one of them needs a negative weight: the best fits do) and rises
    # with 0 and 14-16 (only their subsets are admissible)
    y = -3 * X[:, 1:14].sum(axis=1) + X[:, [0, 14, 15, 16]].sum(axis=1) + rng.normal(0, 0.1, 80)
    chosen = selection.bounded_best(X, y, range(17), 3)
    assert cross_validated[:2] == [256, math.comb(17, 3) - 256]     # the first round set no ceiling
    assert set(chosen) <= {0, 14, 15, 16}
    assert chosen == brute_force_best(X, y, range(17), 3)


def node_states(seed: int, n_nodes: int, n_columns: int, near_singular: bool):
    """(Z, masks, S): columns [x_0, ..., y] of 40 rows, each node its own rows (mask), S = Z_m'Z_m as
    (q, q, nodes, 1) states of an RSS pass; with ``near_singular`` x_2 is x_1 up to a 1e-6 wobble."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(1, 1, (40, n_columns + 1))
    if near_singular:
        Z[:, 2] = Z[:, 1] + 1e-6 * rng.normal(size=40)
    masks = rng.random((n_nodes, 40)) < 0.8
    S = np.stack([Z[mask].T @ Z[mask] for mask in masks], axis=-1)[..., None]
    return Z, masks, S


def least_squares_rss(A: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(RSS of the least-squares fit, the rounding a sweep of the cross products may make in it): a sweep's
    error is about eps cond(A'A) b'b, with or without T (the near-singular pairs: about 1e-4 b'b)."""
    residual = b - A @ np.linalg.lstsq(A, b, rcond=None)[0]
    return float(residual @ residual), 10 * np.finfo(float).eps * np.linalg.cond(A.T @ A) * float(b @ b)


@pytest.mark.parametrize("pivot", [False, True])
@pytest.mark.parametrize("near_singular", [False, True])
def test_the_rss_pair_step_is_each_pairs_least_squares_rss_and_the_general_step_with_T_equal_to_S(pivot,
                                                                                                 near_singular):
    """``kernels._pair_rss`` (T not carried) against an explicit least-squares fit of every (pivot,) a, b and
    against the general pair step fed T = S: the same numbers to rounding (which sweeps make in both, relative to
    y'y and to the pair's condition), near-singular pairs included."""
    from atari5_spec_research.search.kernels import _pair_mse
    Z, masks, S = node_states(10 + pivot + 2 * near_singular, n_nodes=5, n_columns=8, near_singular=near_singular)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, (len(masks), 1))
    c = Z.shape[1] - 1 - pivot                                       # the games paired, after the pivot
    for a, (alone, general) in enumerate(zip(_pair_mse(S, None, weights, pivot),
                                             _pair_mse(S, S.copy(), weights, pivot), strict=True)):
        assert alone.shape == general.shape == (c - a - 1, len(masks))
        for b_index, b in enumerate(range(a + 1, c)):
            for node, mask in enumerate(masks):
                columns = [0] * pivot + [pivot + a, pivot + b]
                expected, rounding = (weights[node, 0] * v for v in least_squares_rss(Z[mask][:, columns],
                                                                                      Z[mask, -1]))
                assert alone[b_index, node] == pytest.approx(expected, rel=1e-12, abs=rounding)
                assert alone[b_index, node] == pytest.approx(general[b_index, node], rel=1e-12, abs=rounding)


@pytest.mark.parametrize("near_singular", [False, True])
def test_the_direct_rss_is_the_least_squares_rss_and_the_held_out_sse_with_T_equal_to_S(near_singular):
    """``kernels._held_out_sse`` without T (S_yy - |z|^2) for every 3-subset of the columns, one node each."""
    from atari5_spec_research.search.kernels import _held_out_sse
    Z, masks, S = node_states(20 + near_singular, n_nodes=1, n_columns=6, near_singular=near_singular)
    for subset in itertools.combinations(range(6), 3):
        columns = list(subset) + [6]
        state = S[np.ix_(columns, columns)][..., 0, 0]
        expected, rounding = least_squares_rss(Z[masks[0]][:, list(subset)], Z[masks[0], -1])
        assert _held_out_sse(state, None) == pytest.approx(expected, rel=1e-12, abs=rounding)
        assert _held_out_sse(state, None) == pytest.approx(_held_out_sse(state, state), rel=1e-12, abs=rounding)


def _by_subset(scores):
    """``scores`` (a SubsetScores) in the order of its subsets' sorted columns."""
    order = np.lexsort(np.sort(scores.subsets, axis=1).T[::-1])
    return type(scores)(*(None if field is None else field[order] for field in scores))


@pytest.mark.parametrize("k, always", [(5, ()), (3, (0, 1))])
def test_the_rss_pass_without_T_is_the_general_tree_carrying_T_equal_to_S(k, always, monkeypatch):
    """The RSS pass sweeps and pairs S alone; the general machinery, fed T = S, computes the same bound the long
    way. On a search where nodes and pairs change their row set at every level (fresh states, one-column
    finishes, direct fits), with small buckets and batches (joined batches) and two threads."""
    from atari5_spec_research.search import exhaustive
    from atari5_spec_research.search.rowsets import _BoundRowSets

    class CarryingT(_BoundRowSets):
        def _tables(self, masks, counts):
            S, T, grams, weights = super()._tables(masks, counts)
            assert T is None
            return S, S.copy(), grams, weights

    X, y = synthetic(seed=17 + k, n_games=18, missing_games=10)
    pool = [g for g in range(18) if g not in always]
    monkeypatch.setattr(exhaustive, "_DIRECT_UP_TO", 0)
    monkeypatch.setattr(exhaustive, "_BUCKET_NODES", 10)
    monkeypatch.setattr(exhaustive, "_PAIR_CHUNK", 2000)
    alone = search.evaluate_all_subsets(X, y, pool, k, always, lower_bound="rss", n_threads=2)
    monkeypatch.setattr(exhaustive, "_BoundRowSets", CarryingT)
    general = search.evaluate_all_subsets(X, y, pool, k, always, lower_bound="rss", n_threads=2)
    # with two threads, nodes whose row set changes reach the output in completion order (as before this pass):
    # the two passes are compared subset by subset
    alone, general = _by_subset(alone), _by_subset(general)
    np.testing.assert_array_equal(alone.subsets, general.subsets)
    np.testing.assert_array_equal(alone.n_rows, general.n_rows)
    np.testing.assert_allclose(alone.cv_mse, general.cv_mse, rtol=1e-11)         # NaN where the other is NaN
    for i in np.random.default_rng(k).choice(len(alone.cv_mse), 50, replace=False):
        columns = list(alone.subsets[i]) + list(always)
        assert alone.cv_mse[i] == pytest.approx(reference_bound(X, y, columns), rel=1e-9)
