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

The subpackage holds one idea per module: :mod:`.model` (constants, priors,
result types, the responses, the item curve), :mod:`.likelihood` (the marginal
likelihood by adaptive quadrature, EAP abilities) and :mod:`.fitting`
(estimation, standard errors, discrimination tests).
"""

from __future__ import annotations

from atari5_spec_research.analyses.irt.fitting import DiscriminationTest, fit_2pl, item_discrimination_tests, log_posterior
from atari5_spec_research.analyses.irt.likelihood import eap_ability, marginal_log_likelihood, marginal_log_likelihood_gradient
from atari5_spec_research.analyses.irt.model import DEFAULT_N_QUADRATURE, DEFAULT_PRIOR, ML_DISCRIMINATION_BOUND, SEPARATION_DISCRIMINATION, ItemSelection, Prior, TwoPLFit, drop_uninformative_items, item_characteristic_curve

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
