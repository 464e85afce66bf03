"""The 2PL model's vocabulary: its constants, priors and result types, the responses it takes, and the item curve.

Persons are algorithms, items are games; the model is described in :mod:`atari5_spec_research.analyses.irt`.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
from scipy.special import expit


#: Same number of Gauss-Hermite nodes as ``ltm``'s default (``GHk = 21``).
DEFAULT_N_QUADRATURE = 21

#: Beyond this |a| an item is practically a step on the ability scale: the
#: maximum-likelihood fit has separated (the likelihood keeps rising as the
#: curve steepens) and its parameters depend on the quadrature.
SEPARATION_DISCRIMINATION = 10.0

#: Without priors, |a| is kept below this (a separated item's estimate stops there, flagged).
ML_DISCRIMINATION_BOUND = 100.0


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


def item_characteristic_curve(theta, difficulty, discrimination) -> np.ndarray:
    """Probability of a correct response: ``sigmoid(a * (theta - b))``.

    Inputs broadcast NumPy-style, e.g. ``theta[:, None]`` against per-item
    arrays gives a (n_theta, n_items) table of curves.
    """
    theta = np.asarray(theta, dtype=float)
    b = np.asarray(difficulty, dtype=float)
    a = np.asarray(discrimination, dtype=float)
    return expit(a * (theta - b))
