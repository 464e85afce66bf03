"""The published text of a number (``raw_value``) and the number it stands for.

Sources print scores in a few forms, all kept verbatim in ``raw_value``:

* a plain decimal or scientific number: ``364200.0``, ``-12.5``, ``1.5e6``;
* thousands with a ``k`` suffix (Never Give Up's tables): ``189.1k`` is exactly 189100;
* a mean and its spread (results tables such as Open RL Benchmark's): ``1705.80 ± 439.74``
  is the score 1705.80 with std 439.74; ``+/-`` and ``+-`` are read the same way, with or without
  spaces (a non-breaking space is a space), and so is the bracketed ``1705.80 (± 439.74)``.

:func:`raw_value_number` turns a text into (score, std); validation checks
that every row's ``score`` (and ``std``) is exactly what its ``raw_value`` says.
:func:`split_spread` splits a submitted "mean ± spread" cell at its sign.

Both are linear in the text and bounded: a text longer than MAX_RAW_VALUE_CHARS
is no published number, and no pattern here has a quantified group inside
another quantifier or two unbounded runs that can match the same characters.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["raw_value_number", "split_spread", "PLUS_MINUS_SIGNS", "MAX_RAW_VALUE_CHARS", "PLAIN_NUMBER"]

# Two numbers of MAX_NUMBER_CHARS (data.limits), a sign, brackets and spaces: a longer text is no published number.
MAX_RAW_VALUE_CHARS = 100
PLUS_MINUS_SIGNS = ("±", "+/-", "+-")

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"  # ASCII digits only
PLAIN_NUMBER = _NUMBER  # a number alone (a pattern): raw_value_number gives (float(text), None) for it
# The spread's sign as tables print it: ±, +/- or +-; spaces around it optional (any Unicode space, so that a
# non-breaking space copied from a PDF or web page reads as one), or the whole spread in brackets: (± 12.3).
PLUS_MINUS_SIGN = r"(?:±|\+/-|\+-)"
_SPREAD = rf"(?:\s*{PLUS_MINUS_SIGN}\s*(?P<std>{_NUMBER})|\s*\(\s*{PLUS_MINUS_SIGN}\s*(?P<bracketed>{_NUMBER})\s*\))"
_FORMS = re.compile(rf"(?P<score>{_NUMBER})(?P<k>k)?{_SPREAD}?")


def raw_value_number(text: str) -> tuple[float, float | None] | None:
    """(score, std or None) that ``text`` stands for, or None when it is not one of the published forms."""
    if len(text) > MAX_RAW_VALUE_CHARS:  # checked before any pattern
        return None
    match = _FORMS.fullmatch(text.strip())
    if not match:
        return None
    try:
        score = Decimal(match.group("score")) * (1000 if match.group("k") else 1)
    except InvalidOperation:
        return None
    spread = match.group("std") or match.group("bracketed")
    std = float(spread) if spread else None
    return float(score), std


def split_spread(text: str) -> tuple[str, str] | None:
    """(score text, spread text) of a "mean ± spread" cell, None when it holds no ± sign (``+/-`` and ``+-`` too).

    Forms: ``1705.80 ± 439.74`` and ``1705.80 (± 439.74)``; spaces around the sign (any Unicode space) are
    dropped. The first sign splits; what is left on either side is checked as a number by the caller. String
    operations only: linear in the text, whatever it holds.
    """
    found = [(text.find(sign), sign) for sign in PLUS_MINUS_SIGNS if sign in text]
    if not found:
        return None
    at, sign = min(found)
    before, after = text[:at].rstrip(), text[at + len(sign):].strip()
    if before.endswith("(") and after.endswith(")"):
        return before[:-1].rstrip(), after[:-1].rstrip()
    return before, after
