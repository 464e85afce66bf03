"""Text from the data as inert Markdown: the one escaping function every writer of Markdown uses.

Names, titles and contributor names reach Markdown in CHANGELOG.md (``contribute add``), the README's
tables (scripts/update_readme_results.py), the documentation site (MyST, docs/) and the pull-request
comment (:mod:`atari5_spec_maintainers.contributions.report`, which adds GitHub's mentions and autolinks on top).
:func:`markdown_text` makes such text one line with nothing in it that Markdown or HTML would run or
link: ``\\``, ``<``, ``>``, ``[``, ``]``, backticks, ``&`` (entities) and ``|`` (table cells) are
backslash-escaped (CommonMark and MyST show the character itself). Emphasis (``*``, ``_``) is left as
typed: names such as ``PPO_100k`` and ``Q*bert`` show as they are, and emphasis neither runs nor links.

The submission gate (contributions/metadata.py) refuses ``<``, ``>``, brackets, backticks and
``://`` in names and titles outright; this is the second wall, for every text already in the data.
"""

from __future__ import annotations

import re

from .limits import printable

__all__ = ["MARKDOWN_ESCAPED", "markdown_text"]

MARKDOWN_ESCAPED = "\\<>[]`&|"
_ESCAPE = re.compile("([" + re.escape(MARKDOWN_ESCAPED) + "])")


def markdown_text(text: object) -> str:
    """``text`` on one line, control characters shown as U+FFFD, every character of MARKDOWN_ESCAPED escaped."""
    return _ESCAPE.sub(r"\\\1", printable(" ".join(str(text).split())))
