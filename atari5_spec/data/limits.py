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
* What cannot be a score (SPEC.md, "Input rules"; the last section below): a per-game bound, human-normalised
  fractions given as raw scores, clipped returns.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Iterable, Mapping

from .errors import InputError

__all__ = ["refuse_nul", "MAX_NESTING_DEPTH", "MAX_NUMBER_CHARS", "MAX_ABS_SCORE", "MAX_DESCRIPTOR_BYTES",
           "MAX_SCORE_FILE_BYTES", "MAX_SCORE_ROWS", "MAX_RUNS_PER_GAME", "ASCII_NUMBER", "ASCII_INTEGER", "json_nesting_problem",
           "load_json", "control_character_problem", "FORBIDDEN_CHARACTER", "score_problem", "non_ascii_digit", "printable",
           "escaped", "MAX_AGENTS", "MAX_RESAMPLES",
           "BOUND_FACTOR", "FRACTION_LIMIT", "MIN_GAMES_FOR_FRACTIONS", "ALLOW_OPTION", "CLIPPED_STEP",
           "upper_bounds", "bound_problem", "fractions_problem", "clipped_problem"]

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
MAX_AGENTS = 500                 # agents in one `aggregate` run: every pair is compared (125,000 pairs)
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


# --- what cannot be a score: the gate of `score`, the site's scorer, `aggregate` and `contribute` ---------------
#
# The gate that refuses what cannot be a raw game score (SPEC.md, "Input rules"): one set of rules for
# ``score``, the site's scorer, ``aggregate`` and ``contribute check``.
#
# Each rule is a small pure function that says why a value (or an agent's values) is not a raw game score, or
# None; every reader applies them with its own place (file, line, column) and refuses with that place:
#
# * **a per-game bound** (:func:`upper_bounds`, :func:`bound_problem`): a score more than
#   :data:`BOUND_FACTOR` times the best published score's distance above random play (or the human-random gap,
#   when that is larger) above random play. No published agent comes near it; a score above it is a wrong game,
#   a wrong unit or a typing slip far more often than a new record. Knowingly overridden with
#   ``--allow-implausible`` (``allow_implausible=True``), which the output states and the signature records
#   (``gate:implausible-allowed``).
# * **human-normalised fractions given as raw scores** (:func:`fractions_problem`): three or more games, every
#   one within :data:`FRACTION_LIMIT` of zero, and more than half of them at or below random play. Raw scores
#   of a real agent look nothing like this (random play scores 2,360 at Battle Zone and 2,292 at Name This
#   Game); fractions (0 = random, 1 = human) look exactly like it.
# * **clipped returns** (:func:`clipped_problem`): an episode list of Battle Zone whose returns are not all
#   multiples of 1,000. The ALE reads Battle Zone's score in thousands, so every raw return is a multiple of
#   1,000, and a sum of rewards clipped to -1, 0 and 1 almost never is.
#
# The bounds are numbers in result objects, exported into the site's data, so the web scorer refuses what
# the command refuses without a second copy. Standard library only: ``score`` imports it.
BOUND_FACTOR = 3.0          # times the best published score's distance above random play
FRACTION_LIMIT = 2.0        # |value| at or under this on every game, with most at or below random: fractions
MIN_GAMES_FOR_FRACTIONS = 3  # fewer games say too little to call them fractions
ALLOW_OPTION = "--allow-implausible"
# Games whose raw score the ALE reads in fixed steps (src/games/supported/BattleZone.cpp: the digits times 1,000).
CLIPPED_STEP = {"battle_zone": 1000}


def upper_bounds(constants: Mapping[str, tuple[float, float]], best: Mapping[str, float]) -> dict[str, float]:
    """Per game with constants (random, human) and a best published raw score: the largest raw score taken
    as plausible, ``random + BOUND_FACTOR * max(best - random, human - random)``."""
    bounds = {}
    for game, (random, human) in constants.items():
        if game in best and math.isfinite(best[game]):
            bounds[game] = float(random + BOUND_FACTOR * max(best[game] - random, human - random))
    return bounds


def bound_problem(game: str, value: float, bounds: Mapping[str, float], best: Mapping[str, float]) -> str | None:
    """Why ``value`` cannot be a raw score of ``game`` (above its bound), or None."""
    bound = bounds.get(game)
    if bound is None or value <= bound:
        return None
    return (f"{game} {value:g} is above {bound:g}, the largest raw score the gate accepts for it "
            f"({BOUND_FACTOR:g} times the best published score's distance above random play; the best published "
            f"is {best[game]:g}): check the game, the units (the episode's raw game score) and the digits, or give "
            f"{ALLOW_OPTION} to score it knowingly (the output and the signature then record it)")


def fractions_problem(means: Mapping[str, float], constants: Mapping[str, tuple[float, float]]) -> str | None:
    """Why an agent's per-game values look like human-normalised fractions, not raw scores, or None."""
    usable = {g: v for g, v in means.items() if g in constants}
    if len(usable) < MIN_GAMES_FOR_FRACTIONS or any(abs(v) > FRACTION_LIMIT for v in usable.values()):
        return None
    below = sorted(g for g, v in usable.items() if v <= constants[g][0])
    if 2 * len(below) <= len(usable):
        return None
    return (f"every score is within {FRACTION_LIMIT:g} of zero and {len(below)} of {len(usable)} games are at or "
            f"below random play ({', '.join(below)}): these look like human-normalised fractions (0 = random, "
            "1 = human), not raw game scores; give the raw score of each game (random play scores "
            f"{constants[below[0]][0]:g} at {below[0]}), or {ALLOW_OPTION} if they are raw")


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
