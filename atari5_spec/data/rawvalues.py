"""The published text of a number (``raw_value``) and the number it stands for.

Sources print scores in a few forms, all kept verbatim in ``raw_value``:

* a plain decimal or scientific number: ``364200.0``, ``-12.5``, ``1.5e6``;
* thousands with a ``k`` suffix (Never Give Up's tables): ``189.1k`` is exactly 189100;
* a mean and its spread (results tables such as Open RL Benchmark's): ``1705.80 ± 439.74``
  is the score 1705.80 with std 439.74 (``+/-`` is read the same way).

:func:`raw_value_number` turns a text into (score, std); validation checks
that every row's ``score`` (and ``std``) is exactly what its ``raw_value`` says.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["raw_value_number"]

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_FORMS = re.compile(rf"(?P<score>{_NUMBER})(?P<k>k)?(?:\s*(?:±|\+/-)\s*(?P<std>{_NUMBER}))?", re.ASCII)


def raw_value_number(text: str) -> tuple[float, float | None] | None:
    """(score, std or None) that ``text`` stands for, or None when it is not one of the published forms."""
    match = _FORMS.fullmatch(text.strip())
    if not match:
        return None
    try:
        score = Decimal(match.group("score")) * (1000 if match.group("k") else 1)
    except InvalidOperation:
        return None
    std = float(match.group("std")) if match.group("std") else None
    return float(score), std
