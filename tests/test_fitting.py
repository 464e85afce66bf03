"""atari5_spec.method.fitting against scikit-learn, on seeded synthetic data."""

import math

import numpy as np
import pandas as pd
import pytest

from atari5_spec.method import fitting


def synthetic(n_rows=62, n_games=12, missing=0.1, seed=0):
    """Log-normalised-like scores driven by one latent skill, with NaNs, and a positive target."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.5, 3.0, n_rows)
    X = skill[:, None] * rng.uniform(0.3, 1.2, n_games) + rng.normal(0, 0.3, (n_rows, n_games))
    y = skill + rng.normal(0, 0.1, n_rows)
    X[rng.random(X.shape) < missing] = np.nan
    games = [f"game{i:02d}" for i in range(n_games)]
    return (pd.DataFrame(X, index=[f"algo{i}" for i in range(n_rows)], columns=games),
            pd.Series(y, index=[f"algo{i}" for i in range(n_rows)]))


def sklearn_cv(X, y):
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold, cross_val_score
    folds = KFold(10, shuffle=True, random_state=1982)
    model = LinearRegression(fit_intercept=False)
    mse = -cross_val_score(model, X, y, cv=folds, scoring="neg_mean_squared_error").mean()
    mae = -cross_val_score(model, X, y, cv=folds, scoring="neg_mean_absolute_error").mean()
    return mse, mae


@pytest.mark.parametrize("n_splits", [2, 5, 10])
def test_kfold_folds_are_sklearns(n_splits):
    pytest.importorskip("sklearn")
    from sklearn.model_selection import KFold
    for n_rows in range(n_splits, 130):
        ours = fitting.kfold_test_folds(n_rows, n_splits, 1982)
        theirs = [test for _, test in KFold(n_splits, shuffle=True, random_state=1982).split(np.zeros(n_rows))]
        assert len(ours) == len(theirs) == n_splits
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, b)


def test_kfold_rejects_too_few_rows():
    with pytest.raises(ValueError):
        fitting.kfold_test_folds(9)


def test_fits_match_sklearn():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    X, y = synthetic(missing=0.0)
    Xn, yn = X.to_numpy(), y.to_numpy()
    rng = np.random.default_rng(1)
    for _ in range(50):
        columns = rng.choice(Xn.shape[1], rng.integers(1, 8), replace=False)
        theirs = LinearRegression(fit_intercept=False).fit(Xn[:, columns], yn)
        np.testing.assert_allclose(fitting.fit_no_intercept(Xn[:, columns], yn), theirs.coef_, rtol=0, atol=1e-10)
        theirs = LinearRegression().fit(Xn[:, columns], yn)
        intercept, coefficients = fitting.fit_with_intercept(Xn[:, columns], yn)
        np.testing.assert_allclose(coefficients, theirs.coef_, rtol=0, atol=1e-10)
        assert intercept == pytest.approx(theirs.intercept_, abs=1e-10)


@pytest.mark.slow
def test_cross_validation_matches_sklearn_on_subsets_with_missing_values():
    X, y = synthetic(missing=0.12)
    rng = np.random.default_rng(2)
    for _ in range(20):
        games = list(rng.choice(X.columns, rng.integers(1, 6), replace=False))
        rows = fitting.complete_rows(X, games)
        Xs, ys = X.loc[rows, games].to_numpy(), y[rows].to_numpy()
        mse, mae = fitting.cross_validate(Xs, ys)
        sk_mse, sk_mae = sklearn_cv(Xs, ys)
        assert mse == pytest.approx(sk_mse, rel=0, abs=1e-12)
        assert mae == pytest.approx(sk_mae, rel=0, abs=1e-12)


def test_subset_model_reports_the_papers_metrics():
    X, y = synthetic(missing=0.12, seed=3)
    games = ["game05", "game01", "game09"]                      # order is kept, not sorted
    model = fitting.fit_subset_model(X, y, games)
    rows = fitting.complete_rows(X, games)
    Xs, ys = X.loc[rows, games].to_numpy(), y[rows].to_numpy()
    mse, mae = sklearn_cv(Xs, ys)
    assert model.games == tuple(games)
    assert model.n == rows.sum() < len(X)
    assert model.cv_mse == pytest.approx(mse, abs=1e-12)
    assert model.cv_mae == pytest.approx(mae, abs=1e-12)
    assert model.cv_r2 == pytest.approx(1 - mse / np.var(ys), abs=1e-12)
    assert model.rel_err_percent == pytest.approx(math.log(10) * mae * 100, abs=1e-10)
    np.testing.assert_allclose(model.coefficients, fitting.fit_no_intercept(Xs, ys), atol=1e-14)
    assert model.admissible == all(c >= 0 for c in model.coefficients)


def test_admissibility_is_about_negative_coefficients():
    X, y = synthetic(missing=0.0, seed=4)
    X["anti"] = -X["game00"]                                      # forces a negative coefficient
    assert not fitting.fit_subset_model(X, y, ["anti"]).admissible
    assert fitting.fit_subset_model(X, y, ["game00"]).admissible


def test_per_game_models_match_sklearn_and_are_exact_identities_on_predictors():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    from sklearn.metrics import r2_score
    X, y = synthetic(missing=0.1, seed=5)
    predictors = ["game03", "game07"]
    table = fitting.per_game_models(X, predictors)
    assert list(table.columns) == ["target_game", "term", "coefficient", "r2", "n"]
    assert len(table) == 3 * X.shape[1]
    for target, rows in table.groupby("target_game", sort=False):
        assert list(rows["term"]) == ["intercept", *predictors]
        complete = fitting.complete_rows(X, [*predictors, target])
        assert (rows["n"] == complete.sum()).all()
        if target in predictors:
            expected = [0.0] + [1.0 if g == target else 0.0 for g in predictors]
            assert list(rows["coefficient"]) == expected          # exactly, not approximately
            assert (rows["r2"] == 1.0).all()
            continue
        Xs, ys = X.loc[complete, predictors].to_numpy(), X.loc[complete, target].to_numpy()
        theirs = LinearRegression().fit(Xs, ys)
        np.testing.assert_allclose(rows["coefficient"], [theirs.intercept_, *theirs.coef_], atol=1e-10)
        assert rows["r2"].iloc[0] == pytest.approx(r2_score(ys, theirs.predict(Xs)), abs=1e-10)


def test_single_game_models_match_sklearn():
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LinearRegression
    X, y = synthetic(missing=0.15, seed=6)
    table = fitting.single_game_models(X, y)
    assert list(table["game"]) == list(X.columns)
    for _, row in table.iterrows():
        have = X[row["game"]].notna().to_numpy()
        xs, ys = X.loc[have, [row["game"]]].to_numpy(), y[have].to_numpy()
        theirs = LinearRegression().fit(xs, ys)
        assert row["n"] == have.sum()
        assert row["slope"] == pytest.approx(theirs.coef_[0], abs=1e-10)
        assert row["intercept"] == pytest.approx(theirs.intercept_, abs=1e-10)
        assert row["r2"] == pytest.approx(theirs.score(xs, ys), abs=1e-10)
