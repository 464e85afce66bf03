"""The limits every input is held to, and the checks that apply them (standard library only).

Each limit is far above what an honest file needs and far below what makes
the parsers, pandas or the arithmetic misbehave; CONTRIBUTING.md lists them.

* Nesting: JSON and YAML at most MAX_NESTING_DEPTH levels (a submission's
  metadata needs 3; Python's parsers recurse and fail at about 1,000).
* Numbers: at most MAX_NUMBER_CHARS characters of text (a 1,000-digit
  integer is not a measurement, and Python refuses to convert 4,300).
* Digits: ASCII 0-9 only. Python's ``\\d`` and ``int()`` also read
  full-width and other scripts' digits; a number that looks like one in one
  font and another in the next has no place in a data file.
* Text: no control characters (terminal escapes, NUL, the C1 range) and no
  bidirectional overrides, which can make a name print as something else;
  a line break only where a field is free text.
* Score files: at most MAX_SCORE_FILE_BYTES, MAX_SCORE_ROWS rows and
  MAX_RUNS_PER_GAME runs (seeds) of one game.
* Scores: finite, and within MAX_ABS_SCORE of zero (no Atari 2600 game
  displays a billion points; the largest published raw score in the data is
  under five million). Scores far below random play are refused separately,
  per game, where the normalisation constants are known.
* What cannot be a score: a per-game bound and human-normalised fractions given as raw scores are SPEC.md's
  input rules (section 1.1, in the reference); clipped returns of an episode list are the last section below.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Iterable

from .errors import InputError

__all__ = ["refuse_nul", "MAX_NESTING_DEPTH", "MAX_NUMBER_CHARS", "MAX_ABS_SCORE", "MAX_DESCRIPTOR_BYTES",
           "MAX_SCORE_FILE_BYTES", "MAX_SCORE_ROWS", "MAX_RUNS_PER_GAME", "ASCII_NUMBER", "ASCII_INTEGER", "json_nesting_problem",
           "load_json", "control_character_problem", "FORBIDDEN_CHARACTER", "score_problem", "non_ascii_digit", "printable",
           "escaped", "MAX_AGENTS", "MAX_RESAMPLES",
           "ALLOW_OPTION", "CLIPPED_STEP", "clipped_problem"]

MAX_NESTING_DEPTH = 32
MAX_NUMBER_CHARS = 40
MAX_LINE_CHARS = 65_536          # a line of a CSV input: under the csv module's default field limit (131,072),
                                 # which other libraries raise process-wide, so the refusal never depends on them
MAX_ABS_SCORE = 1e9
MAX_DESCRIPTOR_BYTES = 4 << 20   # datapackage.json: 17 kB today
# verify's slowest task (a fold's staged searches) takes under a minute on 2 loaded cores; ten minutes without an
# answer is a hung worker, not a slow one
WORKER_ANSWER_SECONDS = 600.0
WORKER_EXIT_SECONDS = 10.0
MAX_SCORE_FILE_BYTES = 64 << 20  # a score file: 200,000 per-seed rows are about 6 MB
MAX_SCORE_ROWS = 1_000_000       # rows (or JSON records) of a score file
MAX_RUNS_PER_GAME = 1_000        # seeds of one game in a score file: ten times the largest published study;
                                 # the seed bootstrap holds 10,000 resamples x runs numbers per game
MAX_AGENTS = 50                  # agents in one `aggregate` run: every pair is compared (1,225 pairs; 500 agents
                                 # took 80 s and 1 GB on one game each, 50 take 6 s and 0.24 GB)
MAX_RESAMPLES = 100_000          # bootstrap resamples of `aggregate` (rliable uses 2,000 to 50,000)

# Plain decimal or scientific notation in ASCII digits (re.ASCII: \d would accept any script's digits).
ASCII_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
ASCII_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)

_BIDI_CONTROLS = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
                  "\u200e", "\u200f", "\u061c"}
# Every character control_character_problem refuses: Unicode category Cc (exactly U+0000-U+001F and U+007F-U+009F)
# and the bidirectional controls; one class, so a whole column is checked in one regex pass.
FORBIDDEN_CHARACTER = re.compile("[\x00-\x1f\x7f-\x9f" + "".join(sorted(_BIDI_CONTROLS)) + "]")


# What the nesting scan looks at: a whole string (escapes inside it skipped; unterminated: to the end), or a bracket.
# The unrolled string pattern has no nested choices, so it is linear in the text.
_JSON_NESTING_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def json_nesting_problem(text: str) -> tuple[int, str] | None:
    """(line, message) when a JSON text nests deeper than MAX_NESTING_DEPTH; one linear scan, strings aware
    (brackets inside strings do not count; lines are counted only to name the place of a problem)."""
    depth = 0
    for token in _JSON_NESTING_TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > MAX_NESTING_DEPTH:
                return text.count("\n", 0, token.start()) + 1, f"nested deeper than {MAX_NESTING_DEPTH} levels"
        elif char in "]}":
            depth -= 1
    return None


def _number(kind: Callable[[str], Any], label: str) -> Callable[[str], Any]:
    def parse(text: str):
        if len(text) > MAX_NUMBER_CHARS:
            raise InputError(f"{label}: the number {text[:20]}... has {len(text):,} characters, more than the "
                             f"limit of {MAX_NUMBER_CHARS}: write the value as a plain number")
        return kind(text)
    return parse


def _no_constant(label: str) -> Callable[[str], Any]:
    def refuse(text: str):
        raise InputError(f"{label}: {text} is not a finite number (JSON has no NaN or Infinity): write a number")
    return refuse


def load_json(text: str, label: str, object_pairs_hook=None, allow_nan: bool = False) -> Any:
    """json.loads with the limits: nesting depth, number length, no NaN/Infinity; InputError with the line.

    ``allow_nan`` reads NaN/Infinity as floats, for callers that reject them later with a better place.
    """
    nested = json_nesting_problem(text)
    if nested:
        raise InputError(f"{label}, line {nested[0]}: {nested[1]}: flatten the structure")
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook, parse_int=_number(int, label),
                          parse_float=_number(float, label),
                          parse_constant=float if allow_nan else _no_constant(label))
    except json.JSONDecodeError as error:
        raise InputError(f"{label}, line {error.lineno}: not valid JSON ({error.msg}, column {error.colno})") from None
    except RecursionError:  # the scan above makes this unreachable; kept so it can never be a traceback
        raise InputError(f"{label}: nested too deeply: flatten the structure") from None


def refuse_nul(text: str, label: str) -> None:
    """InputError naming the line of the first NUL character in a text file's ``text``.

    Python's csv module reads NUL from 3.11 on and refuses it before; every CSV reader of user files calls this
    first, so a NUL gets the same message on every Python.
    """
    at = text.find("\x00")
    if at >= 0:
        raise InputError(f"{label}, line {text.count(chr(10), 0, at) + 1}: a NUL character (U+0000); the file must "
                         "be plain text: remove it")


def control_character_problem(text: str, line_breaks: bool = False) -> str | None:
    """Why ``text`` may not be stored (a control or bidirectional character), or None.

    ``line_breaks`` allows LF (and tab) inside free text such as notes.
    """
    for match in FORBIDDEN_CHARACTER.finditer(text):
        char, index = match.group(), match.start()
        if line_breaks and char in "\n\t":
            continue
        if char in _BIDI_CONTROLS:
            return f"contains the bidirectional control U+{ord(char):04X} at position {index + 1}"
        return (f"contains the control character U+{ord(char):04X} at position {index + 1}"
                + (" (a line break)" if char in "\r\n" else ""))
    return None


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: control and bidirectional characters shown as U+FFFD."""
    return FORBIDDEN_CHARACTER.sub("\ufffd", text)


def escaped(text: str) -> str:
    """``text`` safe to print on a terminal, every control and bidirectional character written as an escape
    (ESC as ``\\x1b``, NUL as ``\\x00``, U+202E as ``\\u202e``): the name stays recognisable, nothing is executed."""
    def one(c: str) -> str:
        if c == "\\" or FORBIDDEN_CHARACTER.match(c):
            return "\\\\" if c == "\\" else (f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}")
        return c
    return "".join(one(c) for c in text)


def non_ascii_digit(text: str) -> str | None:
    """The first digit in ``text`` that is not ASCII 0-9 (full-width, Arabic-Indic, ...), or None."""
    return next((c for c in text if c.isdigit() and not ("0" <= c <= "9")), None)


def score_problem(value: float) -> str | None:
    """Why a raw game score is not plausible (None when it is): the rule in the module docstring."""
    if not math.isfinite(value):
        return f"{value!r} is not a finite number"
    if abs(value) > MAX_ABS_SCORE:
        return (f"{value:g} is beyond {MAX_ABS_SCORE:,.0f} in magnitude: no Atari game displays such a score "
                "(check the exponent and the scale)")
    return None


# --- clipped returns: the part of the gate only an episode list can show -------------------------------------
#
# The input rules of SPEC.md section 1.1 (a per-game bound, human-normalised fractions given as raw scores) are
# the reference's (atari5_spec.method.reference: BOUND_FACTOR, upper_bounds, games_above_bounds,
# normalised_looking); the messages that name the place are atari5_spec.scoring.estimate's (bound_problem,
# fractions_problem), used by ``score`` and ``aggregate``; the site's scorer gets the bounds
# the build exports. ``ALLOW_OPTION`` overrides them knowingly: the output states it and the signature records
# it (``gate:implausible-allowed``).
#
# **Clipped returns** (:func:`clipped_problem`) are not a scoring rule (a score file holds one number per seed):
# an episode list of Battle Zone whose returns are not all multiples of 1,000. The ALE reads Battle Zone's score
# in thousands, so every raw return is a multiple of 1,000, and a sum of rewards clipped to -1, 0 and 1 almost
# never is.
ALLOW_OPTION = "--allow-implausible"
# Games whose raw score the ALE reads in fixed steps (src/games/supported/BattleZone.cpp: the digits times 1,000).
CLIPPED_STEP = {"battle_zone": 1000}


def clipped_problem(game: str, returns: Iterable[float]) -> str | None:
    """Why a game's episode returns look clipped (sums of rewards in -1, 0, 1), or None."""
    step = CLIPPED_STEP.get(game)
    if step is None:
        return None
    off = [r for r in returns if r % step]
    if not off:
        return None
    return (f"{game}: {len(off)} episode return(s) are not multiples of {step:,} (e.g. {off[0]:g}), and every "
            f"raw {game} score is (the ALE counts it in steps of {step:,}): these look like clipped returns "
            "(rewards clipped to -1, 0, 1); log the unclipped episode return (e.g. RecordEpisodeStatistics before "
            "any reward clipping)")
