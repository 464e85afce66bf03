"""Two-parameter logistic (2PL) item response theory model.

Persons are algorithms, items are games, and a response is 1 when the
algorithm "solves" the game (e.g. human-normalised score >= 100), as in
Martinez-Plumed & Hernandez-Orallo, "AI results for the Atari 2600 games:
difficulty and discrimination using IRT" (2017).

Model, in slope/intercept form, for item ``i`` and ability ``theta``::

    P(u_i = 1 | theta) = sigmoid(a_i * theta + c_i),   theta ~ N(0, 1)

reported like R's ``ltm`` (``IRT.param = TRUE``): discrimination ``a_i`` and
difficulty ``b_i = -c_i / a_i``, so that ``P = sigmoid(a_i * (theta - b_i))``.

Item parameters are fitted by **Bayes modal** estimation by default (as
BILOG-MG and ``mirt`` with priors): the ability is integrated out with
Gauss-Hermite quadrature over the standard normal prior, and the marginal
log-likelihood plus the log-priors ``log a_i ~ N(0, 0.5^2)`` and
``c_i ~ N(0, 2^2)`` (:data:`DEFAULT_PRIOR`) is maximised with L-BFGS-B using
its analytic gradient. Without the priors (``prior=None``: marginal maximum
likelihood, as ``ltm`` and the IRT paper) an item that splits the persons
almost perfectly has no finite estimate: its discrimination runs off to
infinity and its difficulty snaps to a quadrature node; such items are
flagged ``separated``. A missing response (NaN) simply does not enter the
likelihood.

Standard errors come from the observed information: the Hessian of the
negative log-posterior (or log-likelihood) at the estimate, by central
differences of the analytic gradient, inverted, and carried to ``a`` and
``b`` by the delta method. An item whose 95% Wald interval for ``a``
contains 0 is *not discriminating*: its difficulty is not a location on the
ability scale.

Abilities are estimated by EAP (posterior mean on the quadrature grid) with
their posterior standard deviation; note ``ltm``'s ``factor.scores``
defaults to the posterior mode instead.

Parameter vector layout used throughout: ``params = [a_1..a_n, c_1..c_n]``.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp, softmax
from scipy.stats import chi2

__all__ = [
    "DEFAULT_N_QUADRATURE",
    "DEFAULT_PRIOR",
    "SEPARATION_DISCRIMINATION",
    "ML_DISCRIMINATION_BOUND",
    "Prior",
    "ItemSelection",
    "DiscriminationTest",
    "item_discrimination_tests",
    "TwoPLFit",
    "drop_uninformative_items",
    "marginal_log_likelihood",
    "marginal_log_likelihood_gradient",
    "log_posterior",
    "eap_ability",
    "fit_2pl",
    "item_characteristic_curve",
]

#: Same number of Gauss-Hermite nodes as ``ltm``'s default (``GHk = 21``).
DEFAULT_N_QUADRATURE = 21

#: Beyond this |a| an item is practically a step on the ability scale: the
#: maximum-likelihood fit has separated (the likelihood keeps rising as the
#: curve steepens) and its parameters depend on the quadrature.
SEPARATION_DISCRIMINATION = 10.0

#: Without priors, |a| is kept below this (a separated item's estimate stops there, flagged).
ML_DISCRIMINATION_BOUND = 100.0

_MAX_ADAPTATIONS = 50
# Without priors, a separating item walks up a flat ridge for thousands of steps; after this many a
# fit that has separated stops (its numbers are no estimates anyway, and the output says so).
_ML_PROBE_ITERATIONS = 200
_ADAPTATION_TOLERANCE = 1e-7  # largest change of a fitted parameter between two adaptations


class Prior(NamedTuple):
    """Independent item priors: ``log a ~ N(mean, sd^2)`` and ``c ~ N(mean, sd^2)``.

    The log-normal discrimination prior is BILOG-MG's and ``mirt``'s usual
    choice (``lnorm(0, 0.5)``): it keeps ``a`` positive (higher ability,
    more successes) and finite. The intercept prior only tames items that
    almost every person (or none) solves: one prior SD either side of 0 is
    a success probability of 12% to 88% at ability 0, two SDs 2% to 98%.
    """

    log_discrimination_mean: float = 0.0
    log_discrimination_sd: float = 0.5
    intercept_mean: float = 0.0
    intercept_sd: float = 2.0


DEFAULT_PRIOR = Prior()


class ItemSelection(NamedTuple):
    """Responses restricted to informative items, with the item names."""

    responses: np.ndarray
    kept: list
    dropped: list


class TwoPLFit(NamedTuple):
    """Result of :func:`fit_2pl`; item arrays follow the item columns."""

    difficulty: np.ndarray  # b_i = -c_i / a_i
    discrimination: np.ndarray  # a_i
    intercept: np.ndarray  # c_i
    ability: np.ndarray  # EAP estimate per person
    log_likelihood: float  # marginal log-likelihood at the estimate
    converged: bool  # the optimiser stopped at a finite optimum (False when an item separated)
    n_iterations: int
    difficulty_se: np.ndarray  # observed-information standard errors (NaN when not identified)
    discrimination_se: np.ndarray
    intercept_se: np.ndarray
    discriminating: np.ndarray  # bool: a_i > 0 and the likelihood-ratio test of a_i = 0 rejects at 5%
    discrimination_p_value: np.ndarray  # that test's p-value (see item_discrimination_tests)
    separated: np.ndarray  # bool: |a_i| > SEPARATION_DISCRIMINATION (the estimate is not finite)
    ability_sd: np.ndarray  # posterior standard deviation of each ability
    prior: Prior | None  # None: marginal maximum likelihood
    log_posterior: float  # log-likelihood + log-prior (= log_likelihood without a prior)


# --------------------------------------------------------------------------
# Data handling
# --------------------------------------------------------------------------


def _validate_responses(responses) -> np.ndarray:
    """Return responses as a float (n_persons, n_items) array of 0/1/NaN."""
    u = np.asarray(responses, dtype=float)
    if u.ndim != 2:
        raise ValueError(
            "Expected responses as a 2-D array of shape (n_persons, n_items), "
            f"got {u.ndim}-D array instead."
        )
    if u.size == 0:
        raise ValueError(f"responses is empty (shape {u.shape}).")
    observed = u[~np.isnan(u)]
    if not np.isin(observed, (0.0, 1.0)).all():
        raise ValueError("responses must contain only 0, 1 or NaN (missing).")
    return u


def _informative(u: np.ndarray) -> np.ndarray:
    """Boolean per item: both a 0 and a 1 were observed."""
    return (u == 1).any(axis=0) & (u == 0).any(axis=0)


def drop_uninformative_items(responses, item_names: Sequence) -> ItemSelection:
    """Leave out items whose observed responses lack either outcome.

    An item answered 1 by everyone (or 0 by everyone, or by no one at all)
    carries no information about ability and its maximum-likelihood
    parameters are infinite; the IRT paper drops such games and names them.
    Returns the kept response columns plus the kept and dropped names, both
    in their original order.
    """
    u = _validate_responses(responses)
    names = list(item_names)
    if len(names) != u.shape[1]:
        raise ValueError(
            f"Got {len(names)} item names for {u.shape[1]} response columns."
        )
    keep = _informative(u)
    kept = [n for n, k in zip(names, keep) if k]
    dropped = [n for n, k in zip(names, keep) if not k]
    return ItemSelection(u[:, keep], kept, dropped)


# --------------------------------------------------------------------------
# Marginal likelihood
# --------------------------------------------------------------------------


def _standard_normal_quadrature(n_quadrature: int):
    """Nodes and log-weights integrating against the N(0, 1) density."""
    if not isinstance(n_quadrature, (int, np.integer)) or n_quadrature < 2:
        raise ValueError(
            f"n_quadrature must be an integer >= 2, got {n_quadrature!r}."
        )
    nodes, weights = hermegauss(n_quadrature)  # weight function exp(-x^2 / 2)
    return nodes, np.log(weights / weights.sum())  # sum(weights) = sqrt(2 pi)


def _split(params, n_items: int):
    p = np.asarray(params, dtype=float)
    if p.shape != (2 * n_items,):
        raise ValueError(
            f"params must have shape ({2 * n_items},) = [discriminations, "
            f"intercepts] for {n_items} items, got {p.shape}."
        )
    return p[:n_items], p[n_items:]


# A person's posterior is located on this fixed grid before the quadrature is
# centred on it; the grid only has to find the peak, not integrate it.
_LOCATING_GRID = np.linspace(-8.0, 8.0, 401)
_MIN_POSTERIOR_SD = 1e-3


class _Quadrature(NamedTuple):
    """Per-person nodes and log-weights, both (n_persons, n_quadrature)."""

    nodes: np.ndarray
    log_w: np.ndarray


def _adaptive_quadrature(a, c, ones, mask, n_quadrature) -> _Quadrature:
    """Adaptive Gauss-Hermite quadrature centred on each person's posterior.

    With many steep items a person's posterior is far narrower than the
    N(0, 1) prior, and fixed nodes (spaced ~0.5 apart) then integrate it
    poorly: the estimates move with the number of nodes. Centring the nodes
    on each person's posterior mean mu_j and scaling them by its standard
    deviation s_j (located on a fine fixed grid), ``theta_jq = mu_j + s_j x_q``
    and ``log w_jq = log w_q + log phi(theta_jq) - log phi(x_q) + log s_j``,
    makes 21 nodes as accurate as hundreds of fixed ones.
    """
    x, log_w = _standard_normal_quadrature(n_quadrature)
    z = np.outer(a, _LOCATING_GRID) + c[:, None]
    log_joint = ones @ log_expit(z) + (mask - ones) @ log_expit(-z) - 0.5 * _LOCATING_GRID**2
    posterior = softmax(log_joint, axis=1)
    mean = posterior @ _LOCATING_GRID
    sd = np.sqrt(np.maximum(posterior @ _LOCATING_GRID**2 - mean**2, _MIN_POSTERIOR_SD**2))
    nodes = mean[:, None] + sd[:, None] * x[None, :]
    log_weights = log_w[None, :] - 0.5 * nodes**2 + 0.5 * x[None, :] ** 2 + np.log(sd)[:, None]
    return _Quadrature(nodes, log_weights)


def _log_joint(a, c, ones, mask, quadrature: _Quadrature):
    """Per person and node: log w_jq + sum_i m_ij log P(u_ij | theta_jq).

    ``ones`` is the response matrix with missing entries set to 0 and
    ``mask`` is 1 where a response was observed, so missing entries add
    nothing. Returns the (n_persons, n_quadrature) matrix and the item
    probabilities P(u=1 | theta_jq) of shape (n_persons, n_items, n_quadrature).
    """
    z = a[None, :, None] * quadrature.nodes[:, None, :] + c[None, :, None]
    log_p = log_expit(z)
    # u log p + (1 - u) log(1 - p) with log(1 - sigmoid(z)) = log sigmoid(z) - z:
    # m log p - (m - u) z, and the z term is linear in the nodes.
    failures = mask - ones
    log_lik = (np.einsum("ji,jiq->jq", mask, log_p)
               - quadrature.nodes * (failures @ a)[:, None] - (failures @ c)[:, None])
    return log_lik + quadrature.log_w, np.exp(log_p)


def _objective(params, ones, mask, quadrature: _Quadrature):
    """Marginal log-likelihood and its gradient with respect to params, nodes held fixed.

    With posterior weights pi_jq = P(theta_jq | u_j), the score equations are
        d logL / d z_ijq = pi_jq m_ij (u_ij - p_ijq)
        d logL / d a_i   = sum_jq theta_jq * d logL / d z_ijq
        d logL / d c_i   = sum_jq            d logL / d z_ijq
    """
    a, c = _split(params, ones.shape[1])
    log_joint, p = _log_joint(a, c, ones, mask, quadrature)
    log_lik = float(logsumexp(log_joint, axis=1).sum())
    posterior = softmax(log_joint, axis=1)  # (n_persons, n_quadrature)
    residual = ones[:, :, None] - p * mask[:, :, None]  # m (u - p), as ones is 0 where missing
    d_a = np.einsum("jq,jiq,jq->i", posterior, residual, quadrature.nodes)
    d_c = np.einsum("jq,jiq->i", posterior, residual)
    return log_lik, np.concatenate([d_a, d_c])


def _prepare(responses):
    u = _validate_responses(responses)
    mask = (~np.isnan(u)).astype(float)
    ones = np.nan_to_num(u, nan=0.0)
    return ones, mask


def _at(params, responses, n_quadrature):
    """Data and quadrature adapted to ``params``, for the public likelihood functions."""
    ones, mask = _prepare(responses)
    a, c = _split(params, ones.shape[1])
    return ones, mask, _adaptive_quadrature(a, c, ones, mask, n_quadrature)


def marginal_log_likelihood(
    params, responses, n_quadrature: int = DEFAULT_N_QUADRATURE
) -> float:
    """Marginal log-likelihood of the 2PL model.

    ``log L = sum_j log integral phi(theta) prod_{i observed} p_i^u_ij (1 - p_i)^(1 - u_ij) dtheta``
    with ``p_i = sigmoid(a_i theta + c_i)``, integrated by adaptive
    Gauss-Hermite quadrature with ``n_quadrature`` nodes per person.
    ``params = [a_1..a_n, c_1..c_n]``; NaN responses are skipped.
    """
    return _objective(params, *_at(params, responses, n_quadrature))[0]


def marginal_log_likelihood_gradient(
    params, responses, n_quadrature: int = DEFAULT_N_QUADRATURE
) -> np.ndarray:
    """Analytic gradient of :func:`marginal_log_likelihood` w.r.t. ``params``."""
    return _objective(params, *_at(params, responses, n_quadrature))[1]


def eap_ability(
    responses,
    discrimination,
    intercept,
    n_quadrature: int = DEFAULT_N_QUADRATURE,
) -> np.ndarray:
    """Expected a posteriori ability of each person given item parameters.

    ``theta_j = sum_q x_q pi_jq`` where ``pi_jq`` is the posterior of node
    ``x_q`` given person j's observed responses and the N(0, 1) prior. A
    person with no observed responses gets the prior mean, 0.
    """
    ones, mask = _prepare(responses)
    n_items = ones.shape[1]
    a = np.asarray(discrimination, dtype=float)
    c = np.asarray(intercept, dtype=float)
    if a.shape != (n_items,) or c.shape != (n_items,):
        raise ValueError(
            f"discrimination and intercept must have shape ({n_items},), got "
            f"{a.shape} and {c.shape}."
        )
    quadrature = _adaptive_quadrature(a, c, ones, mask, n_quadrature)
    log_joint, _ = _log_joint(a, c, ones, mask, quadrature)
    return np.sum(softmax(log_joint, axis=1) * quadrature.nodes, axis=1)


# --------------------------------------------------------------------------
# Fitting
# --------------------------------------------------------------------------


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


def item_characteristic_curve(theta, difficulty, discrimination) -> np.ndarray:
    """Probability of a correct response: ``sigmoid(a * (theta - b))``.

    Inputs broadcast NumPy-style, e.g. ``theta[:, None]`` against per-item
    arrays gives a (n_theta, n_items) table of curves.
    """
    theta = np.asarray(theta, dtype=float)
    b = np.asarray(difficulty, dtype=float)
    a = np.asarray(discrimination, dtype=float)
    return expit(a * (theta - b))
