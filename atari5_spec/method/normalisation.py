"""Human normalisation and the log transform of the Atari-5 paper (section 4.1).

    Z(x)      = 100 (x - random) / (human - random)          (eq. 1)
    phi(z)    = log10(1 + max(0, z))                          (eq. 2)
    phi^-1(s) = 10**s - 1                                     (eq. 3)
"""

from __future__ import annotations

import numpy as np

__all__ = ["human_normalised", "log_transform", "inverse_log_transform"]


def human_normalised(raw, random, human):
    """Human-normalised score in percent: 0 = random policy, 100 = average human."""
    raw, random, human = np.asarray(raw, float), np.asarray(random, float), np.asarray(human, float)
    return 100.0 * (raw - random) / (human - random)


def log_transform(normalised):
    """phi: log10(1 + max(0, z)); clipping because some agents score slightly below random."""
    return np.log10(1.0 + np.maximum(0.0, np.asarray(normalised, float)))


def inverse_log_transform(log_score):
    """phi^-1: back from log space to a normalised score."""
    return 10.0 ** np.asarray(log_score, float) - 1.0
