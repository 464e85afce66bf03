"""Tests for the 2PL IRT model in atari5_spec_research.analyses.irt."""

import numpy as np
import pytest
from scipy import integrate, special, stats

from atari5_spec_research.analyses import irt


def simulate(n_persons, n_items, seed, missing=0.0):
    """Draw 2PL responses with a ~ U(0.7, 2), b ~ U(-1.5, 1.5), theta ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.7, 2.0, n_items)
    b = rng.uniform(-1.5, 1.5, n_items)
    theta = rng.standard_normal(n_persons)
    p = irt.item_characteristic_curve(theta[:, None], b, a)
    u = (rng.random((n_persons, n_items)) < p).astype(float)
    u[rng.random(u.shape) < missing] = np.nan
    return u, a, b, theta


# --- parameter recovery ------------------------------------------------------
#
# 2,000 persons x 15 items, seed 0. Measured errors (this seed / worst of
# seeds 0-29): complete data, mean |a - a_true| 0.065 / 0.105 and mean
# |b - b_true| 0.029 / 0.077; with 20% of responses missing 0.088 / 0.112
# and 0.031 / 0.083. The tolerances below hold for all 30 seeds.


@pytest.mark.slow
@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_parameter_recovery(missing):
    u, a, b, theta = simulate(2000, 15, seed=0, missing=missing)
    fit = irt.fit_2pl(u)
    assert fit.converged
    assert np.mean(np.abs(fit.discrimination - a)) < 0.12
    assert np.mean(np.abs(fit.difficulty - b)) < 0.10
    assert np.max(np.abs(fit.discrimination - a)) < 0.40
    assert np.max(np.abs(fit.difficulty - b)) < 0.30
    assert np.corrcoef(fit.ability, theta)[0, 1] > 0.85


@pytest.mark.parametrize("prior", [None, irt.DEFAULT_PRIOR], ids=["ml", "bayes-modal"])
def test_reported_parameters_are_consistent(prior):
    u, *_ = simulate(300, 6, seed=1)
    fit = irt.fit_2pl(u, prior=prior)
    np.testing.assert_allclose(fit.difficulty, -fit.intercept / fit.discrimination)
    params = np.concatenate([fit.discrimination, fit.intercept])
    assert fit.log_likelihood == pytest.approx(irt.marginal_log_likelihood(params, u))
    assert fit.log_posterior == pytest.approx(irt.log_posterior(params, u, prior=prior))
    np.testing.assert_allclose(
        fit.ability, irt.eap_ability(u, fit.discrimination, fit.intercept)
    )
    if prior is None:
        # At the maximum the gradient vanishes (relative to the sample size).
        gradient = irt.marginal_log_likelihood_gradient(params, u)
        assert np.max(np.abs(gradient)) / u.shape[0] < 1e-5
    # Either way the estimate is a maximum of the objective: any small step lowers it.
    for step in 0.01 * np.eye(params.size):
        for moved in (params + step, params - step):
            assert irt.log_posterior(moved, u, prior=prior) < fit.log_posterior


@pytest.mark.slow
def test_fit_is_deterministic():
    u, *_ = simulate(500, 8, seed=2, missing=0.1)
    first, second = irt.fit_2pl(u), irt.fit_2pl(u)
    for name in first._fields:
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))


# --- likelihood and gradient -------------------------------------------------


def test_likelihood_matches_numerical_integration():
    # Independent check of the quadrature: integrate each person's likelihood
    # against the N(0, 1) density with scipy.integrate.quad, skipping NaNs.
    u = np.array([[1, 0, np.nan], [1, 1, 1], [np.nan, np.nan, 0], [0, 1, 0.0]])
    a, c = np.array([1.2, 0.6, -0.8]), np.array([0.3, -0.5, 1.0])

    def person_likelihood(theta, row):
        p = special.expit(a * theta + c)
        seen = ~np.isnan(row)
        terms = np.where(row[seen] == 1, p[seen], 1.0 - p[seen])
        return np.prod(terms) * stats.norm.pdf(theta)

    expected = sum(
        np.log(integrate.quad(person_likelihood, -np.inf, np.inf, args=(row,))[0])
        for row in u
    )
    params = np.concatenate([a, c])
    got = irt.marginal_log_likelihood(params, u, n_quadrature=41)
    assert got == pytest.approx(expected, rel=1e-8)


def test_gradient_matches_central_finite_differences():
    rng = np.random.default_rng(4)
    u = (rng.random((60, 5)) < 0.5).astype(float)
    u[rng.random(u.shape) < 0.2] = np.nan
    params = rng.normal(size=10)
    step = 1e-5
    numeric = np.array(
        [
            (
                irt.marginal_log_likelihood(params + step * e, u)
                - irt.marginal_log_likelihood(params - step * e, u)
            )
            / (2 * step)
            for e in np.eye(params.size)
        ]
    )
    analytic = irt.marginal_log_likelihood_gradient(params, u)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-8)


# --- missing responses -------------------------------------------------------


def test_missing_responses_do_not_enter_the_likelihood():
    rng = np.random.default_rng(5)
    u = (rng.random((20, 3)) < 0.6).astype(float)
    params = np.array([1.0, 1.5, 0.5, 0.2, -0.3, 0.1])
    base = irt.marginal_log_likelihood(params, u)

    # A person with no observed responses contributes log(1) = 0.
    with_empty_person = np.vstack([u, np.full(3, np.nan)])
    assert irt.marginal_log_likelihood(params, with_empty_person) == pytest.approx(base)

    # An extra item nobody answered changes nothing, whatever its parameters.
    with_empty_item = np.hstack([u, np.full((20, 1), np.nan)])
    extra = np.array([1.0, 1.5, 0.5, 7.0, 0.2, -0.3, 0.1, -4.0])
    assert irt.marginal_log_likelihood(extra, with_empty_item) == pytest.approx(base)


def test_person_without_responses_gets_prior_mean_ability():
    u = np.array([[1, 0], [np.nan, np.nan], [0, 1.0]])
    ability = irt.eap_ability(u, [1.0, 1.0], [0.0, 0.0])
    assert ability[1] == pytest.approx(0.0, abs=1e-12)


# --- uninformative items -----------------------------------------------------


def test_uninformative_items_are_dropped_and_named():
    u = np.array(
        [
            [1, 0, 1, 0, np.nan],
            [1, 1, 0, 0, np.nan],
            [1, np.nan, 1, 0, np.nan],
            [np.nan, 0, 0, 0, np.nan],
        ]
    )
    names = ["Krull", "Pong", "Tennis", "Montezuma's Revenge", "Unplayed"]
    kept = irt.drop_uninformative_items(u, names)
    assert kept.kept == ["Pong", "Tennis"]
    assert kept.dropped == ["Krull", "Montezuma's Revenge", "Unplayed"]
    np.testing.assert_array_equal(kept.responses, u[:, [1, 2]])


def test_fit_refuses_uninformative_items():
    u, *_ = simulate(100, 4, seed=6)
    u[:, 2] = 1.0
    with pytest.raises(ValueError, match=r"\[2\].*drop_uninformative_items"):
        irt.fit_2pl(u)


# --- item characteristic curve ----------------------------------------------


def test_item_characteristic_curve():
    theta = np.linspace(-4, 4, 81)
    rising = irt.item_characteristic_curve(theta, difficulty=1.0, discrimination=2.0)
    assert irt.item_characteristic_curve(1.0, 1.0, 2.0) == pytest.approx(0.5)
    assert np.all(np.diff(rising) > 0)
    falling = irt.item_characteristic_curve(theta, difficulty=1.0, discrimination=-0.5)
    assert np.all(np.diff(falling) < 0)
    table = irt.item_characteristic_curve(theta[:, None], [0.0, 1.0], [1.0, 2.0])
    assert table.shape == (81, 2)


# --- input validation --------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: irt.fit_2pl(np.array([1.0, 0.0])), "2-D"),
        (lambda: irt.fit_2pl(np.array([[1.0, 2.0], [0.0, 1.0]])), "0, 1 or NaN"),
        (lambda: irt.fit_2pl(np.array([[1, 0], [0, 1.0]]), n_quadrature=1), "n_quadrature"),
        (
            lambda: irt.marginal_log_likelihood(np.zeros(3), np.array([[1, 0], [0, 1.0]])),
            r"shape \(4,\)",
        ),
        (lambda: irt.drop_uninformative_items(np.array([[1, 0.0]]), ["a"]), "names"),
    ],
)
def test_bad_inputs(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- Bayes modal estimation, standard errors, separation ----------------------


def separating_responses(seed=7, n_persons=80):
    """Mostly ordinary items plus one that splits the persons perfectly at ability 0.3."""
    u, a, b, theta = simulate(n_persons, 6, seed=seed)
    step = (theta > 0.3).astype(float)
    return np.column_stack([u, step])


@pytest.mark.slow
def test_unregularised_fit_flags_separation_and_the_prior_fixes_it():
    u = separating_responses()
    ml = irt.fit_2pl(u, prior=None)
    assert ml.separated[-1] and not ml.converged
    assert abs(ml.discrimination[-1]) > irt.SEPARATION_DISCRIMINATION
    assert np.isnan(ml.discrimination_se).all()  # no curvature to speak of at a non-finite optimum
    regularised = irt.fit_2pl(u)
    assert regularised.converged and not regularised.separated.any()
    assert regularised.discrimination.max() < irt.SEPARATION_DISCRIMINATION
    assert np.isfinite(regularised.discrimination_se).all() and np.isfinite(regularised.difficulty_se).all()
    # The separating item stays the steepest, located above average ability (62% of persons fail it).
    assert np.argmax(regularised.discrimination) == u.shape[1] - 1
    assert 0.0 < regularised.difficulty[-1] < 1.5


def test_bayes_modal_estimates_do_not_depend_on_the_number_of_nodes():
    # Steep items make each person's posterior narrow: fixed nodes would move the estimates.
    u = separating_responses(seed=8, n_persons=120)
    coarse, fine = irt.fit_2pl(u, n_quadrature=21), irt.fit_2pl(u, n_quadrature=61)
    np.testing.assert_allclose(coarse.discrimination, fine.discrimination, atol=1e-3)
    np.testing.assert_allclose(coarse.difficulty, fine.difficulty, atol=1e-3)
    np.testing.assert_allclose(coarse.discrimination_se, fine.discrimination_se, atol=1e-3)


def test_non_discriminating_item_is_detected():
    # Item 5 is a coin flip (a = 0): its likelihood-ratio test must not reject.
    rng = np.random.default_rng(9)
    u, a, b, theta = simulate(400, 5, seed=9)
    coin = (rng.random(400) < 0.5).astype(float)
    falling = (rng.random(400) < irt.item_characteristic_curve(theta, 0.0, -1.5)).astype(float)
    fit = irt.fit_2pl(np.column_stack([u, coin, falling]))
    assert fit.discriminating[:5].all()
    assert not fit.discriminating[5] and fit.discrimination_p_value[5] > 0.05
    # A falling curve is strongly "informative" but does not discriminate in the model's direction.
    assert not fit.discriminating[6] and fit.discrimination_p_value[6] < 0.001
    # The prior keeps every a > 0, so a Wald interval on a would never have flagged them.
    assert (fit.discrimination > 0).all()


@pytest.mark.slow
def test_standard_errors_match_the_spread_of_the_estimates():
    # z = (estimate - truth) / SE over 2 x 15 items should look standard normal.
    z_a, z_b = [], []
    for seed in (0, 1):
        u, a, b, _ = simulate(1500, 15, seed=seed)
        fit = irt.fit_2pl(u)
        z_a += list((fit.discrimination - a) / fit.discrimination_se)
        z_b += list((fit.difficulty - b) / fit.difficulty_se)
    for z in (np.array(z_a), np.array(z_b)):
        assert 0.6 < np.sqrt(np.mean(z**2)) < 1.5
        assert np.mean(np.abs(z) < 1.96) > 0.8


def test_bad_prior():
    u, *_ = simulate(50, 3, seed=10)
    with pytest.raises(ValueError, match="positive standard deviations"):
        irt.fit_2pl(u, prior=irt.Prior(log_discrimination_sd=0.0))
    with pytest.raises(ValueError, match="irt.Prior"):
        irt.fit_2pl(u, prior=(0, 0.5, 0, 2))


# --- an independent implementation: girth (PyPI) -----------------------------


@pytest.mark.slow
def test_maximum_likelihood_fit_matches_girth():
    """girth's ``twopl_mml`` (its own EM and quadrature) on complete data, inside its discrimination bounds."""
    girth = pytest.importorskip("girth", reason="girth is a test dependency: pip install '.[test]'")
    rng = np.random.default_rng(11)
    a = rng.uniform(0.7, 2.0, 10)  # girth bounds a to [0.25, 4]
    b = rng.uniform(-1.5, 1.5, 10)
    theta = rng.standard_normal(1000)
    u = (rng.random((1000, 10)) < irt.item_characteristic_curve(theta[:, None], b, a)).astype(float)
    theirs = girth.twopl_mml(u.T.astype(int))  # girth: items x persons
    ours = irt.fit_2pl(u, prior=None)
    # Measured: 1e-4 (a) and 9e-4 (b); both are far below the sampling error (~0.1).
    np.testing.assert_allclose(ours.discrimination, theirs["Discrimination"], atol=5e-3)
    np.testing.assert_allclose(ours.difficulty, theirs["Difficulty"], atol=5e-3)
