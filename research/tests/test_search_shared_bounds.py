"""One lower-bound pass shared by the leave-one-paper-out folds of a group of papers (``search.shared_bounds``):
the shared bound never exceeds a fold's own bound or its CV MSE by the reference code, and every fold chooses
exactly what its own (unshared) search and the reference brute force choose, also where the group's rows make
a subset near-singular. Synthetic, seeded data: rows carry "paper" codes."""

import numpy as np
import pandas as pd
import pytest

from atari5_spec.method import fitting
from atari5_spec_research import search
from atari5_spec_research.evaluation.reselection import _group_search
from atari5_spec_research.search import selection
from atari5_spec_research.search.shared_bounds import fold_bound, group_bound, paper_groups
from test_search import brute_force_best, path, reference_mse, synthetic, tree  # noqa: F401 (fixtures)
from test_search_bound import reference_bound


def papers_of(n_rows: int, seed: int) -> np.ndarray:
    """A paper code per row: papers of one to four rows, as in the package's training set."""
    rng = np.random.default_rng(seed)
    codes, paper = [], 0
    while len(codes) < n_rows:
        codes += [f"p{paper:02d}"] * int(rng.integers(1, 5))
        paper += 1
    return np.array(codes[:n_rows])


def test_paper_groups_pack_papers_up_to_the_row_limit_and_cover_each_once():
    codes = papers_of(62, seed=1)
    chosen = sorted(set(codes))
    groups = paper_groups(codes, chosen, max_rows=8)
    assert sorted(p for g in groups for p in g) == chosen
    assert all(sum(int((codes == p).sum()) for p in g) <= 8 for g in groups if len(g) > 1)
    assert len(groups) < len(chosen) / 2
    assert paper_groups(codes, chosen, max_rows=8) == groups                       # deterministic


@pytest.mark.parametrize("k", [2, 3])
def test_a_groups_bound_is_below_each_folds_own_bound_and_its_cv_mse(k, path):
    X, y = synthetic(seed=80 + k, n_games=10)
    codes = papers_of(len(y), seed=k)
    pool = list(range(X.shape[1]))
    for group in paper_groups(codes, sorted(set(codes)), max_rows=8)[:3]:   # several folds of several groups
        in_group = np.isin(codes, group)
        shared = group_bound(X, y, ~in_group, pool, k)
        for subset, value in zip(shared.subsets.tolist(), shared.cv_mse):   # the RSS bound of the group's rows
            assert value == pytest.approx(reference_bound(X[~in_group], y[~in_group], subset), rel=1e-9, abs=1e-12)
        for paper in group:
            keep = codes != paper
            bound = fold_bound(shared, int((in_group & keep).sum()), k)
            for subset, value in zip(bound.subsets.tolist(), bound.cv_mse):
                if np.isnan(value):
                    continue
                own = reference_bound(X[keep], y[keep], subset)
                assert value <= own * (1 + 1e-12)
                assert value <= reference_mse(X[keep], y[keep], subset) * (1 + 1e-12)


def test_a_folds_bound_is_the_groups_rss_over_its_row_count_by_the_plain_formula():
    """``fold_bound`` multiplies by a factor per row count (``fold_factors``): the same numbers as dividing each
    subset's RSS by K ceil((n + e) / K), NaN exactly where the plain rule does not trust it (too few rows per
    column, an RSS that is not finite and at least 0)."""
    X, y = synthetic(seed=71, n_games=10)
    codes = papers_of(len(y), seed=3)
    group = paper_groups(codes, sorted(set(codes)), max_rows=8)[0]
    in_group = np.isin(codes, group)
    shared = group_bound(X, y, ~in_group, range(X.shape[1]), 3)
    n = shared.n_rows.astype(float)
    rss = shared.cv_mse * fitting.N_SPLITS * np.ceil(n / fitting.N_SPLITS)
    rss[:5] = [np.inf, -1e-18, np.nan, 0.0, 2.5]                    # what a near-singular or perfect fit can give
    n[5] = 2 * 3 - 1                                                 # one subset with too few rows
    trusted_rss = (rss >= 0) & np.isfinite(rss)                      # what group_bound keeps
    scores = shared._replace(cv_mse=np.where(trusted_rss, rss, np.nan) / (fitting.N_SPLITS * np.ceil(
        n / fitting.N_SPLITS)), n_rows=n.astype(np.int32))
    for extra in (0, 1, 7):
        plain = rss / (fitting.N_SPLITS * np.ceil((n + extra) / fitting.N_SPLITS))
        trusted = np.isfinite(plain) & (plain >= 0) & (n >= 2 * 3)
        bound = fold_bound(scores, extra, 3).cv_mse
        assert np.array_equal(np.isnan(bound), ~trusted)
        np.testing.assert_allclose(bound[trusted], plain[trusted], rtol=1e-14, atol=0)
    assert np.isnan(shared.cv_mse).sum() < len(shared.cv_mse) // 10   # and the group's bound is mostly trusted


@pytest.mark.parametrize("seed", range(2))
def test_every_fold_chooses_with_the_shared_bound_what_brute_force_chooses(seed, path):
    X, y = synthetic(seed=90 + seed, n_games=11)
    codes = papers_of(len(y), seed=seed)
    pool = range(X.shape[1])
    for group in paper_groups(codes, sorted(set(codes)), max_rows=8)[:2]:
        in_group = np.isin(codes, group)
        shared = group_bound(X, y, ~in_group, pool, 3)
        for paper in group[:2]:
            keep = codes != paper
            bound = fold_bound(shared, int((in_group & keep).sum()), 3)
            chosen = selection.bounded_best(X[keep], y[keep], pool, 3, bounds=bound)
            assert chosen == selection.bounded_best(X[keep], y[keep], pool, 3) == \
                brute_force_best(X[keep], y[keep], pool, 3)


def test_a_subset_near_singular_on_the_groups_rows_gets_no_bound_from_them_or_a_valid_one(path):
    """Column 0 equals column 1 on every row but the group's (and a 1e-9 wobble): on the group's rows the pair is
    (near) singular, in each fold it is not. The shared bound must not rule the pair out wrongly."""
    X, y = synthetic(seed=33, n_games=10, missing_games=0)
    codes = papers_of(len(y), seed=5)
    group = paper_groups(codes, sorted(set(codes)), max_rows=8)[0]
    in_group = np.isin(codes, group)
    X = X.copy()
    X[:, 0] = X[:, 1] + 1e-9 * np.random.default_rng(0).normal(size=len(y))
    X[in_group, 0] = X[in_group, 1] + 2.0                                   # the fold's rows tell them apart
    y = y + 0.8 * (X[:, 0] - X[:, 1])                                       # and the target needs both
    pool = range(X.shape[1])
    shared = group_bound(X, y, ~in_group, pool, 2)
    for paper in group:
        keep = codes != paper
        bound = fold_bound(shared, int((in_group & keep).sum()), 2)
        pair = np.flatnonzero((np.sort(bound.subsets, axis=1) == [0, 1]).all(axis=1))[0]
        assert np.isnan(bound.cv_mse[pair]) or bound.cv_mse[pair] <= reference_mse(X[keep], y[keep], [0, 1]) * (
            1 + 1e-12)
        chosen = selection.bounded_best(X[keep], y[keep], pool, 2, bounds=bound)
        assert chosen == selection.bounded_best(X[keep], y[keep], pool, 2) == brute_force_best(X[keep], y[keep],
                                                                                            pool, 2)


def test_the_shared_group_search_equals_each_folds_own_staged_search(tree):
    X, y = synthetic(seed=41, n_games=17, missing_games=8)
    frame, target = pd.DataFrame(X, columns=[f"g{i:02d}" for i in range(17)]), pd.Series(y)
    codes = papers_of(len(y), seed=7)
    group = paper_groups(codes, sorted(set(codes)), max_rows=8)[1]
    assert len(group) > 1
    shared = _group_search((frame, target, codes, group, (), True, True))
    alone = [_group_search((frame, target, codes, [paper], (), True, False))[0] for paper in group]
    assert shared == alone
    keep = codes != group[0]                                   # and the exhaustive search, for one fold
    exhaustive = search.staged_search(frame[keep], target[keep])
    assert shared[0] == {subset: tuple(model.games) for subset, model in exhaustive.items()}
