"""Quantiles of Student's t and of the beta distribution in plain Python, for commands that must start fast.

``score --relative-to`` needs a t quantile (the same-setup interval) and beta quantiles (the Clopper-Pearson
interval of a coverage); importing scipy.special takes longer than the rest of the command. Both come from the
regularised incomplete beta function, evaluated by its continued fraction (modified Lentz), and inverted by
bisection to far below the printed precision. tests/test_comparisons.py compares them with scipy.
"""

from __future__ import annotations

import functools
import math

__all__ = ["regularised_beta", "beta_quantile", "t_quantile"]

_EPS = 1e-15
_TINY = 1e-300


def _continued_fraction(x: float, a: float, b: float) -> float:
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                          -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < _EPS:
            break
    return h


def regularised_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the beta distribution's cumulative probability at ``x`` (a, b > 0)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(1.0 - x, b, a) / b


def _bisect(function, target: float, low: float, high: float) -> float:
    for _ in range(200):
        middle = (low + high) / 2.0
        if function(middle) < target:
            low = middle
        else:
            high = middle
        if high - low < 1e-13 * max(1.0, abs(middle)):
            break
    return (low + high) / 2.0


@functools.lru_cache(maxsize=4096)
def beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of the beta(a, b) distribution (a pure function of three numbers, remembered as
    ``pairs.t_two_sided`` is: the interval tables' coverage bounds ask for some of them again)."""
    return _bisect(lambda x: regularised_beta(x, a, b), q, 0.0, 1.0)


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * regularised_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t > 0 else tail


def t_quantile(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (0 < q < 1)."""
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    high = 1.0
    while _t_cdf(high, df) < q:
        high *= 2.0
    return _bisect(lambda t: _t_cdf(t, df), q, 0.0, high)
