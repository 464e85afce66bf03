"""Fitting the 2PL: Bayes modal (or maximum-likelihood) estimation, standard errors, discrimination tests."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_expit, logsumexp, softmax
from scipy.stats import chi2

from atari5_spec_research.analyses.irt.likelihood import _adaptive_quadrature, _at, _log_joint, _objective, _prepare, _split
from atari5_spec_research.analyses.irt.model import DEFAULT_N_QUADRATURE, DEFAULT_PRIOR, ML_DISCRIMINATION_BOUND, SEPARATION_DISCRIMINATION, Prior, TwoPLFit, _informative, _validate_responses

_MAX_ADAPTATIONS = 50
# Without priors, a separating item walks up a flat ridge for thousands of steps; after this many a
# fit that has separated stops (its numbers are no estimates anyway, and the output says so).
_ML_PROBE_ITERATIONS = 200
_ADAPTATION_TOLERANCE = 1e-7  # largest change of a fitted parameter between two adaptations


def _initial_params(ones, mask):
    """Deterministic start: a_i = 1 and c_i matching item i's success rate.

    For theta ~ N(0, 1), E[sigmoid(theta + c)] ~= sigmoid(c / sqrt(1 + pi/8))
    (probit approximation), so c_i = logit(rate_i) * sqrt(1 + pi/8).
    Starting all slopes positive also fixes the model's sign ambiguity
    (a, theta) -> (-a, -theta) to "higher ability, more successes".
    """
    rate = ones.sum(axis=0) / mask.sum(axis=0)
    rate = np.clip(rate, 0.01, 0.99)
    c = np.log(rate / (1.0 - rate)) * np.sqrt(1.0 + np.pi / 8.0)
    return np.concatenate([np.ones_like(c), c])


def _validate_prior(prior) -> Prior | None:
    if prior is None:
        return None
    if not isinstance(prior, Prior):
        raise ValueError(f"prior must be an irt.Prior or None, got {type(prior).__name__}.")
    values = np.array(prior, dtype=float)
    if not np.isfinite(values).all() or prior.log_discrimination_sd <= 0 or prior.intercept_sd <= 0:
        raise ValueError(f"prior needs finite means and positive standard deviations, got {prior!r}.")
    return prior


def _log_prior(log_a, c, prior: Prior):
    """log p(log a) + log p(c) up to a constant, and its gradient in (log a, c)."""
    za = (log_a - prior.log_discrimination_mean) / prior.log_discrimination_sd
    zc = (c - prior.intercept_mean) / prior.intercept_sd
    value = -0.5 * float(np.sum(za**2) + np.sum(zc**2))
    gradient = np.concatenate([-za / prior.log_discrimination_sd, -zc / prior.intercept_sd])
    return value, gradient


def _posterior_objective(theta, prior, ones, mask, quadrature):
    """Log-posterior (up to a constant) and gradient in the fitted parametrisation.

    With a prior, ``theta = [log a, c]`` (the chain rule multiplies the
    a-gradient by a); without, ``theta = [a, c]`` and this is the marginal
    log-likelihood.
    """
    n_items = ones.shape[1]
    if prior is None:
        return _objective(theta, ones, mask, quadrature)
    log_a, c = theta[:n_items], theta[n_items:]
    a = np.exp(log_a)
    log_lik, grad = _objective(np.concatenate([a, c]), ones, mask, quadrature)
    grad = np.concatenate([grad[:n_items] * a, grad[n_items:]])
    prior_value, prior_grad = _log_prior(log_a, c, prior)
    return log_lik + prior_value, grad + prior_grad


def log_posterior(params, responses, prior: Prior | None = DEFAULT_PRIOR,
                  n_quadrature: int = DEFAULT_N_QUADRATURE) -> float:
    """Marginal log-likelihood plus the log-priors of ``params = [a..., c...]``.

    Constants of the normal densities are left out; with ``prior=None`` this
    is :func:`marginal_log_likelihood`. Needs every ``a_i > 0`` with a prior.
    """
    prior = _validate_prior(prior)
    data = _at(params, responses, n_quadrature)
    a, c = _split(params, data[0].shape[1])
    if prior is None:
        return _objective(np.concatenate([a, c]), *data)[0]
    if not (a > 0).all():
        raise ValueError("with a log-normal discrimination prior every discrimination must be > 0.")
    return _posterior_objective(np.concatenate([np.log(a), c]), prior, *data)[0]


def _hessian(gradient, theta, relative_step: float = 1e-4) -> np.ndarray:
    """Symmetrised central-difference Jacobian of an analytic ``gradient`` at ``theta``."""
    steps = relative_step * np.maximum(1.0, np.abs(theta))
    columns = []
    for k, h in enumerate(steps):
        e = np.zeros_like(theta)
        e[k] = h
        columns.append((gradient(theta + e) - gradient(theta - e)) / (2.0 * h))
    hessian = np.column_stack(columns)
    return (hessian + hessian.T) / 2.0


def _covariance(hessian: np.ndarray) -> np.ndarray:
    """Inverse observed information, or NaN where the information is singular or not positive definite."""
    information = -hessian
    try:
        np.linalg.cholesky(information)
    except np.linalg.LinAlgError:
        return np.full_like(information, np.nan)
    return np.linalg.inv(information)


def _item_standard_errors(theta, covariance, n_items, on_log_scale):
    """SEs of a, c and b = -c / a from the covariance of the fitted parameters (delta method)."""
    first, c = theta[:n_items], theta[n_items:]
    var_first = np.diag(covariance)[:n_items]
    var_c = np.diag(covariance)[n_items:]
    cov_first_c = np.diag(covariance[:n_items, n_items:])
    a = np.exp(first) if on_log_scale else first
    da = a if on_log_scale else np.ones_like(a)  # d a / d (fitted first parameter)
    b = -c / a
    # b = -c / a:  d b / d a = c / a^2 = -b / a,  d b / d c = -1 / a
    db_dfirst = (-b / a) * da
    db_dc = -1.0 / a
    var_b = db_dfirst**2 * var_first + db_dc**2 * var_c + 2.0 * db_dfirst * db_dc * cov_first_c
    with np.errstate(invalid="ignore"):
        return np.sqrt(da**2 * var_first), np.sqrt(var_c), np.sqrt(var_b)


class DiscriminationTest(NamedTuple):
    """:func:`item_discrimination_tests`: per item, the likelihood-ratio test of ``a_i = 0``."""

    statistic: np.ndarray  # 2 (max over a, c of log L - max over c of log L at a = 0)
    p_value: np.ndarray  # chi-square, 1 degree of freedom
    direction: np.ndarray  # sign of the maximising a (+1 rising, -1 falling, 0 flat)


_TEST_DISCRIMINATION_BOUND = 30.0  # a separated item's likelihood is flat beyond this


def _item_log_likelihood(params, u_i, m_i, others, quadrature):
    """log L and its gradient in one item's (a, c), every other item held fixed in ``others`` (persons x nodes)."""
    a, c = params
    z = a * quadrature.nodes + c
    log_p = log_expit(z)
    log_joint = others + m_i[:, None] * log_p - (m_i - u_i)[:, None] * z  # u log p + (1 - u) log(1 - p)
    posterior = softmax(log_joint, axis=1)
    d_z = posterior * (u_i[:, None] - m_i[:, None] * np.exp(log_p))
    return float(logsumexp(log_joint, axis=1).sum()), np.array([np.sum(d_z * quadrature.nodes), np.sum(d_z)])


def _negative_item_log_likelihood(params, *args):
    value, gradient = _item_log_likelihood(params, *args)
    return -value, -gradient


def _negative_flat_item_log_likelihood(intercept, *args):
    """The same with a = 0: a function of c alone."""
    value, gradient = _item_log_likelihood([0.0, intercept[0]], *args)
    return -value, -gradient[1:]


def item_discrimination_tests(responses, discrimination, intercept,
                              n_quadrature: int = DEFAULT_N_QUADRATURE) -> DiscriminationTest:
    """Does each item discriminate? A likelihood-ratio test of ``a_i = 0`` per item.

    Holding every other item at its estimate (and the quadrature adapted to
    them), item i's marginal log-likelihood is maximised over ``(a_i, c_i)``
    (``|a_i| <= 30``: a separated item's likelihood is flat beyond) and over
    ``c_i`` alone with ``a_i = 0``; twice the difference is chi-square with
    one degree of freedom under ``a_i = 0``. The test uses the likelihood
    only, not the priors: a log-normal prior keeps every estimate above 0
    whatever the data say, so its interval cannot tell. ``p < 0.05`` is the
    same as the 95% profile-likelihood interval of ``a_i`` (profiling out
    ``c_i``, other items fixed) excluding 0.
    """
    ones, mask = _prepare(responses)
    a = np.asarray(discrimination, dtype=float)
    c = np.asarray(intercept, dtype=float)
    quadrature = _adaptive_quadrature(a, c, ones, mask, n_quadrature)
    log_joint, _ = _log_joint(a, c, ones, mask, quadrature)
    z = a[None, :, None] * quadrature.nodes[:, None, :] + c[None, :, None]
    per_item = mask[:, :, None] * log_expit(z) - (mask - ones)[:, :, None] * z  # (persons, items, nodes)
    statistic, direction = np.zeros(a.size), np.zeros(a.size)
    bound = _TEST_DISCRIMINATION_BOUND
    for i in range(a.size):
        others = log_joint - per_item[:, i, :]
        args = (ones[:, i], mask[:, i], others, quadrature)
        free = minimize(_negative_item_log_likelihood, [a[i], c[i]], args=args, jac=True, method="TNC",
                        bounds=[(-bound, bound), (-bound * 10, bound * 10)])
        flat = minimize(_negative_flat_item_log_likelihood, [c[i]], args=args, jac=True, method="TNC",
                        bounds=[(-bound * 10, bound * 10)])
        # The free fit nests the flat one; guard against L-BFGS-B stopping short of it.
        best = max(-free.fun, -flat.fun)
        statistic[i] = max(0.0, 2.0 * (best - (-flat.fun)))
        direction[i] = np.sign(free.x[0]) if statistic[i] > 0 else 0.0
    return DiscriminationTest(statistic, chi2.sf(statistic, df=1), direction)


def fit_2pl(
    responses,
    n_quadrature: int = DEFAULT_N_QUADRATURE,
    initial=None,
    max_iter: int = 1000,
    prior: Prior | None = DEFAULT_PRIOR,
) -> TwoPLFit:
    """Fit a 2PL model by Bayes modal estimation (default) or marginal maximum likelihood.

    ``responses`` is (n_persons, n_items) with 1 = correct, 0 = incorrect and
    NaN = not observed. Every item needs both outcomes observed; use
    :func:`drop_uninformative_items` first. ``initial`` optionally overrides
    the deterministic starting ``params`` (``[a..., c...]``, every ``a > 0``
    with a prior). The fit has no randomness, so the same input gives the
    same result.

    ``prior=None`` gives the unregularised marginal maximum-likelihood fit
    (``ltm``, the IRT paper). Items that almost separate the persons then
    have very large (in the limit infinite) discrimination, here stopped at
    ``|a| <= ML_DISCRIMINATION_BOUND``; they are flagged in ``separated``,
    every standard error is NaN, and ``converged`` is False.
    """
    u = _validate_responses(responses)
    prior = _validate_prior(prior)
    bad = np.flatnonzero(~_informative(u))
    if bad.size:
        raise ValueError(
            f"Item column(s) {bad.tolist()} lack either a 0 or a 1 among the "
            "observed responses; remove them with drop_uninformative_items."
        )
    ones, mask = _prepare(u)
    n_persons, n_items = ones.shape
    x0 = _initial_params(ones, mask) if initial is None else np.array(initial, float)
    start_a, start_c = _split(x0, n_items)  # validates the shape of a user-supplied start
    if prior is not None:
        if not (start_a > 0).all():
            raise ValueError("initial discriminations must be > 0 with a log-normal prior.")
        x0 = np.concatenate([np.log(start_a), start_c])

    def item_parameters(theta):
        return (np.exp(theta[:n_items]) if prior is not None else theta[:n_items]), theta[n_items:]

    # Without a prior a separating item's slope has no finite optimum: stop it at a bound far
    # beyond SEPARATION_DISCRIMINATION rather than walking up the ridge for thousands of steps.
    bounds = None if prior is not None else (
        [(-ML_DISCRIMINATION_BOUND, ML_DISCRIMINATION_BOUND)] * n_items + [(None, None)] * n_items)

    # Alternate: centre the quadrature on the persons' posteriors under the
    # current parameters, then maximise with those nodes held fixed, until
    # the parameters stop moving (a fixed point; usually 3-6 rounds).
    theta, converged, n_iterations = x0, False, 0
    for _ in range(_MAX_ADAPTATIONS):
        quadrature = _adaptive_quadrature(*item_parameters(theta), ones, mask, n_quadrature)

        def negative_mean_log_posterior(t, quadrature=quadrature):
            # Scale by n_persons so the gradient tolerance is per-person,
            # independent of sample size.
            value, grad = _posterior_objective(t, prior, ones, mask, quadrature)
            return -value / n_persons, -grad / n_persons

        result = minimize(negative_mean_log_posterior, theta, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"maxiter": max_iter if prior is not None else _ML_PROBE_ITERATIONS,
                                   "gtol": 1e-9, "ftol": 1e-15})
        n_iterations += int(result.nit)
        if prior is None and not np.any(np.abs(item_parameters(result.x)[0]) > SEPARATION_DISCRIMINATION) \
                and not result.success:
            # Not separating after the probe: finish the maximisation properly.
            n_iterations -= int(result.nit)
            result = minimize(negative_mean_log_posterior, theta, jac=True, method="L-BFGS-B", bounds=bounds,
                              options={"maxiter": max_iter, "gtol": 1e-9, "ftol": 1e-15})
            n_iterations += int(result.nit)
        moved = np.max(np.abs(result.x - theta))
        theta = result.x
        if moved < _ADAPTATION_TOLERANCE:
            converged = bool(result.success)
            break
        if np.any(np.abs(item_parameters(theta)[0]) > SEPARATION_DISCRIMINATION):
            break  # no finite maximum to adapt to: further rounds only walk up the ridge

    a, c = item_parameters(theta)
    quadrature = _adaptive_quadrature(a, c, ones, mask, n_quadrature)
    separated = np.abs(a) > SEPARATION_DISCRIMINATION
    covariance = _covariance(_hessian(lambda t: _posterior_objective(t, prior, ones, mask, quadrature)[1], theta))
    if separated.any():  # no finite optimum: the curvature at the stopping point means nothing
        covariance = np.full_like(covariance, np.nan)
    a_se, c_se, b_se = _item_standard_errors(theta, covariance, n_items, on_log_scale=prior is not None)
    log_joint, _ = _log_joint(a, c, ones, mask, quadrature)
    posterior = softmax(log_joint, axis=1)
    ability = np.sum(posterior * quadrature.nodes, axis=1)
    ability_variance = np.sum(posterior * quadrature.nodes**2, axis=1) - ability**2
    log_lik = float(logsumexp(log_joint, axis=1).sum())
    test = item_discrimination_tests(u, a, c, n_quadrature)
    log_post = log_lik if prior is None else log_lik + _log_prior(theta[:n_items], c, prior)[0]
    return TwoPLFit(
        difficulty=-c / a,
        discrimination=a,
        intercept=c,
        ability=ability,
        log_likelihood=log_lik,
        converged=converged and not separated.any(),
        n_iterations=n_iterations,
        difficulty_se=b_se,
        discrimination_se=a_se,
        intercept_se=c_se,
        discriminating=(test.p_value < 0.05) & (test.direction > 0),
        discrimination_p_value=test.p_value,
        separated=separated,
        ability_sd=np.sqrt(np.maximum(ability_variance, 0.0)),
        prior=prior,
        log_posterior=float(log_post),
    )
