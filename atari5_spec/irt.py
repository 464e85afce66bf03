"""Two-parameter logistic (2PL) item response theory model.

Persons are algorithms, items are games, and a response is 1 when the
algorithm "solves" the game (e.g. human-normalised score >= 100), as in
Martinez-Plumed & Hernandez-Orallo, "AI results for the Atari 2600 games:
difficulty and discrimination using IRT" (2017).

Model, in slope/intercept form, for item ``i`` and ability ``theta``::

    P(u_i = 1 | theta) = sigmoid(a_i * theta + c_i),   theta ~ N(0, 1)

reported like R's ``ltm`` (``IRT.param = TRUE``): discrimination ``a_i`` and
difficulty ``b_i = -c_i / a_i``, so that ``P = sigmoid(a_i * (theta - b_i))``.

Item parameters are fitted by marginal maximum likelihood: the ability is
integrated out with Gauss-Hermite quadrature over the standard normal prior,
and the marginal log-likelihood is maximised with L-BFGS-B using its analytic
gradient. A missing response (NaN) simply does not enter the likelihood.
Abilities are then estimated by EAP (posterior mean on the quadrature grid);
note ``ltm``'s ``factor.scores`` defaults to the posterior mode instead.

Parameter vector layout used throughout: ``params = [a_1..a_n, c_1..c_n]``.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp, softmax

__all__ = [
    "DEFAULT_N_QUADRATURE",
    "ItemSelection",
    "TwoPLFit",
    "drop_uninformative_items",
    "marginal_log_likelihood",
    "marginal_log_likelihood_gradient",
    "eap_ability",
    "fit_2pl",
    "item_characteristic_curve",
]

#: Same number of Gauss-Hermite nodes as ``ltm``'s default (``GHk = 21``).
DEFAULT_N_QUADRATURE = 21


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
    converged: bool
    n_iterations: int


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
    parameters are infinite; the seed drops such games and names them.
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


def _log_joint(a, c, ones, mask, nodes, log_w):
    """Per person and node: log w_q + sum_i m_ij log P(u_ij | theta_q).

    ``ones`` is the response matrix with missing entries set to 0 and
    ``mask`` is 1 where a response was observed, so missing entries add
    nothing. Returns the (n_persons, n_quadrature) matrix and the item
    probabilities P(u=1 | theta_q) of shape (n_items, n_quadrature).
    """
    z = np.outer(a, nodes) + c[:, None]  # (n_items, n_quadrature)
    # u log p + (1 - u) log(1 - p), with log(1 - sigmoid(z)) = log_sigmoid(-z)
    log_lik = ones @ log_expit(z) + (mask - ones) @ log_expit(-z)
    return log_lik + log_w, expit(z)


def _objective(params, ones, mask, nodes, log_w):
    """Marginal log-likelihood and its gradient with respect to params.

    With posterior weights pi_jq = P(theta_q | u_j), the score equations are
        d logL / d z_iq = sum_j pi_jq m_ij (u_ij - p_iq)
        d logL / d a_i  = sum_q x_q * d logL / d z_iq
        d logL / d c_i  = sum_q       d logL / d z_iq
    """
    a, c = _split(params, ones.shape[1])
    log_joint, p = _log_joint(a, c, ones, mask, nodes, log_w)
    log_lik = float(logsumexp(log_joint, axis=1).sum())
    posterior = softmax(log_joint, axis=1)  # (n_persons, n_quadrature)
    d_z = ones.T @ posterior - p * (mask.T @ posterior)  # (n_items, n_quadrature)
    gradient = np.concatenate([d_z @ nodes, d_z.sum(axis=1)])
    return log_lik, gradient


def _prepare(responses, n_quadrature):
    u = _validate_responses(responses)
    mask = (~np.isnan(u)).astype(float)
    ones = np.nan_to_num(u, nan=0.0)
    nodes, log_w = _standard_normal_quadrature(n_quadrature)
    return ones, mask, nodes, log_w


def marginal_log_likelihood(
    params, responses, n_quadrature: int = DEFAULT_N_QUADRATURE
) -> float:
    """Marginal log-likelihood of the 2PL model.

    ``log L = sum_j log sum_q w_q prod_{i observed} p_iq^u_ij (1 - p_iq)^(1 - u_ij)``
    with ``p_iq = sigmoid(a_i x_q + c_i)`` and Gauss-Hermite nodes ``x_q`` and
    weights ``w_q`` (summing to 1) for the N(0, 1) ability prior.
    ``params = [a_1..a_n, c_1..c_n]``; NaN responses are skipped.
    """
    return _objective(params, *_prepare(responses, n_quadrature))[0]


def marginal_log_likelihood_gradient(
    params, responses, n_quadrature: int = DEFAULT_N_QUADRATURE
) -> np.ndarray:
    """Analytic gradient of :func:`marginal_log_likelihood` w.r.t. ``params``."""
    return _objective(params, *_prepare(responses, n_quadrature))[1]


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
    ones, mask, nodes, log_w = _prepare(responses, n_quadrature)
    n_items = ones.shape[1]
    a = np.asarray(discrimination, dtype=float)
    c = np.asarray(intercept, dtype=float)
    if a.shape != (n_items,) or c.shape != (n_items,):
        raise ValueError(
            f"discrimination and intercept must have shape ({n_items},), got "
            f"{a.shape} and {c.shape}."
        )
    log_joint, _ = _log_joint(a, c, ones, mask, nodes, log_w)
    return softmax(log_joint, axis=1) @ nodes


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


def fit_2pl(
    responses,
    n_quadrature: int = DEFAULT_N_QUADRATURE,
    initial=None,
    max_iter: int = 1000,
) -> TwoPLFit:
    """Fit a 2PL model by marginal maximum likelihood.

    ``responses`` is (n_persons, n_items) with 1 = correct, 0 = incorrect and
    NaN = not observed. Every item needs both outcomes observed; use
    :func:`drop_uninformative_items` first. ``initial`` optionally overrides
    the deterministic starting ``params`` (``[a..., c...]``). The fit has no
    randomness, so the same input gives the same result.

    Items that almost separate persons perfectly have very large (in the
    limit infinite) discrimination; ``ltm`` reports such values too (the
    seed's Seaquest, a ~ 146). Check ``converged`` and judge these items
    by eye rather than by their parameter values.
    """
    u = _validate_responses(responses)
    bad = np.flatnonzero(~_informative(u))
    if bad.size:
        raise ValueError(
            f"Item column(s) {bad.tolist()} lack either a 0 or a 1 among the "
            "observed responses; remove them with drop_uninformative_items."
        )
    ones, mask, nodes, log_w = _prepare(u, n_quadrature)
    n_persons, n_items = ones.shape
    x0 = _initial_params(ones, mask) if initial is None else np.array(initial, float)
    _split(x0, n_items)  # validates the shape of a user-supplied start

    def negative_mean_log_lik(params):
        # Scale by n_persons so the gradient tolerance is per-person,
        # independent of sample size.
        log_lik, grad = _objective(params, ones, mask, nodes, log_w)
        return -log_lik / n_persons, -grad / n_persons

    result = minimize(
        negative_mean_log_lik,
        x0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": 1e-7, "ftol": 1e-12},
    )
    a, c = _split(result.x, n_items)
    log_joint, _ = _log_joint(a, c, ones, mask, nodes, log_w)
    return TwoPLFit(
        difficulty=-c / a,
        discrimination=a,
        intercept=c,
        ability=softmax(log_joint, axis=1) @ nodes,
        log_likelihood=float(logsumexp(log_joint, axis=1).sum()),
        converged=bool(result.success),
        n_iterations=int(result.nit),
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
