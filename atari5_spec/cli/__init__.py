"""Layer 5, cli: the ``atari5-spec`` command line, a thin shell over the Python API.

``main`` holds the argument parser and ``main()``; each command family has its
module (``package``: validate, verify, reproduce, fit; ``search``: search and
stability; ``analyses``: irt, aggregate, report; ``score``: score, predict,
leaderboard; ``contribute``; ``evaluate``; ``release``: signature check, cite,
export), and ``options`` the options they
share. A command parses its arguments, calls one API function and prints the
result; user errors exit 1 with a message and no traceback.

May import every layer below. Nothing imports it.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
