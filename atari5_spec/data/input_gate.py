"""The one input gate for the tables and values users type: `score`, `aggregate` and `contribute` read through it.

A value is read only when it has one reading. Everything else is refused with
the place (file, line, column, or the ``--score`` argument) and how to write it:

* a number with a thousands separator (``35,000``) or suffix (``12k``), a decimal
  comma (``1,5``), a Unicode minus, a non-ASCII digit, NaN or infinity;
* a CSV row with more cells than its header (``battle_zone,35,000`` under
  ``game,score`` is not the score 35), and a file separated by semicolons, tabs
  or ``|`` (a spreadsheet's regional export), which is recognised and named;
* a ``--score GAME=V1,V2`` value whose commas could be thousands separators
  (``qbert=15,000``: one score or two seeds?); seeds are written with a space
  after each comma (``qbert=15, 0``) when the values would look like one number.

Every check looks at the length first and uses only patterns without nested or
lazy repetition (linear time on any input). Standard library only, so the
scoring path stays free of pandas.
"""

from __future__ import annotations

import csv
import io
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Iterator, NamedTuple

from .errors import InputError
from .limits import ASCII_NUMBER, MAX_LINE_CHARS, MAX_NUMBER_CHARS, non_ascii_digit, refuse_nul, score_problem

__all__ = ["CellProblem", "number_problem", "parse_number", "parse_count", "looks_like_thousands", "TableText",
           "read_table", "row_width_problem", "split_score_argument", "delimiter_problem"]

# One to three digits, then groups of a comma and three digits: "35,000", "-1,234.5". Each repetition starts
# with a literal comma, so the pattern cannot backtrack more than linearly.
_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?", re.ASCII)
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+", re.ASCII)
_SUFFIXED = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)) ?([kKmMbB])", re.ASCII)
_SUFFIX_FACTOR = {"k": 1_000, "m": 1_000_000, "b": 1_000_000_000}
# Characters a thousands-separated number may hold (checked before any pattern).
_NUMBER_CHARS = frozenset("0123456789+-.,")
_OTHER_DELIMITERS = ((";", "semicolons"), ("\t", "tabs"), ("|", "'|'"))


class CellProblem(NamedTuple):
    """What is wrong with a value, and how to write it."""

    message: str
    fix: str

    def at(self, where: str) -> InputError:
        """The InputError for this problem at ``where`` (\"scores.csv, line 3, column 'score'\")."""
        return InputError(f"{where}: {self.message}: {self.fix}")


def looks_like_thousands(text: str) -> bool:
    """True when ``text`` reads as one number with ',' thousands separators ("35,000", "1,234.5")."""
    text = text.strip()
    return 0 < len(text) <= MAX_NUMBER_CHARS and set(text) <= _NUMBER_CHARS and bool(_THOUSANDS.fullmatch(text))


def number_problem(text: str) -> CellProblem | None:
    """Why ``text`` is not a plain finite score (None when it is): what is wrong and how to write it."""
    text = text.strip()
    if not text:
        return CellProblem("the score is empty", "write the raw score as a plain number, or remove the row")
    if len(text) > MAX_NUMBER_CHARS:
        return CellProblem(f"{text[:20]!r}... has {len(text):,} characters, more than the limit of "
                           f"{MAX_NUMBER_CHARS} for a number", "write the score as the paper prints it")
    if ASCII_NUMBER.fullmatch(text):
        value = float(text)
        if not math.isfinite(value):
            return CellProblem(f"{text!r} is too large to be a finite number", "check the exponent")
        implausible = score_problem(value)
        return CellProblem(implausible, "check the exponent and the scale") if implausible else None
    digit = non_ascii_digit(text)
    if digit:
        return CellProblem(f"{text!r} has the non-ASCII digit {digit!r} (U+{ord(digit):04X})",
                           "type the number again with the ASCII digits 0-9")
    if text.lstrip("+-").lower() in ("nan", "inf", "infinity"):
        return CellProblem(f"{text!r} is not a finite score",
                           "give the published finite score, or leave the game out")
    if looks_like_thousands(text):
        return CellProblem(f"{text!r} has thousands separators", f"write {text.replace(',', '')}")
    if set(text) <= _NUMBER_CHARS and _DECIMAL_COMMA.fullmatch(text):
        return CellProblem(f"{text!r} uses ',' as decimal mark", f"write {text.replace(',', '.')}")
    suffix = _SUFFIXED.fullmatch(text)
    if suffix:
        try:
            full = Decimal(suffix.group(1)) * _SUFFIX_FACTOR[suffix.group(2).lower()]
        except InvalidOperation:  # unreachable: the pattern is a decimal
            full = None
        return CellProblem(f"{text!r} uses a thousands suffix",
                           f"write the full number{'' if full is None else ', ' + format(full.normalize(), 'f')}")
    if "\u2212" in text:
        return CellProblem(f"{text!r} uses a Unicode minus sign", f"write {text.replace(chr(0x2212), '-')}")
    return CellProblem(f"{text!r} is not a number", "write the raw score as a plain number (digits, '.', optional sign)")


def parse_number(value, where: str) -> float:
    """A score (text or number) as a finite float, or InputError naming ``where`` and how to write it."""
    if isinstance(value, bool) or value is None:
        raise InputError(f"{where}: {value!r} is not a score (a number is needed)")
    if isinstance(value, str):
        problem = number_problem(value)
        if problem:
            raise problem.at(where)
        return float(value.strip())
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{where}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise InputError(f"{where}: {number!r} is not a finite score")
    implausible = score_problem(number)
    if implausible:
        raise InputError(f"{where}: {implausible}")
    return number


MAX_COUNT = 10 ** 12  # frames or steps of one run: 5,000 times the 200M-frame budget (Agent57 used 78B frames)


def parse_count(text: str, where: str, unit: str) -> int:
    """A whole number of ``unit`` (frames, agent steps) >= 0 written in plain digits (or ``2e8``), or InputError.

    The same refusals as scores (``35,000``, ``10M``, ``1,5``, a Unicode minus), and a count that is not whole
    (``1.5``: a fraction of a frame, so probably millions) or negative.
    """
    text = text.strip()
    if text and ASCII_NUMBER.fullmatch(text):
        value = float(text)
        if not math.isfinite(value) or value < 0 or value > MAX_COUNT:
            raise InputError(f"{where}: {text!r} is not a number of {unit} from 0 to {MAX_COUNT:.0e}: give the "
                             f"{unit} at which the score was measured")
        if not value.is_integer():
            raise InputError(f"{where}: {text!r} is not a whole number of {unit}: write every {unit[:-1]} in full "
                             f"(e.g. 1500000, not 1.5 for 1.5 million)")
        return int(value)
    if not text:
        raise InputError(f"{where}: empty: give the {unit} at which the score was measured as a plain number")
    problem = number_problem(text)  # thousands separators, suffixes, decimal commas: the scores' rules and fixes
    if problem and "score" not in problem.message + problem.fix:
        raise problem.at(where)
    raise InputError(f"{where}: {text!r} is not a number of {unit}: write it in plain digits (e.g. 10000000)")


# --- CSV tables ------------------------------------------------------------------------------------------------

def delimiter_problem(header: list[str]) -> CellProblem | None:
    """A header read as one column that holds another separator (a semicolon-separated export), else None."""
    if len(header) != 1:
        return None
    for delimiter, spoken in _OTHER_DELIMITERS:
        if delimiter in header[0]:
            return CellProblem(f"the columns are separated by {spoken}, not commas",
                               "save the file as comma-separated values (CSV with ',' between columns and '.' "
                               "as decimal mark)")
    return None


def row_width_problem(cells: list[str], header: list[str], number_column: int | None) -> CellProblem | None:
    """A row with more cells than the header (never read as its first cells), or None.

    When the cells from ``number_column`` on join into a thousands-separated number ("35" and "000"), the problem
    names it and says to write it without separators.
    """
    extra = len(cells) - len(header)
    if extra <= 0:
        return None
    if number_column is not None and number_column < len(header):
        joined = ",".join(c.strip() for c in cells[number_column:number_column + extra + 1])
        if looks_like_thousands(joined):
            return CellProblem(f"{len(cells)} cells under a header of {len(header)} columns: {joined!r} has a "
                               f"thousands separator ',' that splits it into {extra + 1} cells",
                               f"write {joined.replace(',', '')}")
    return CellProblem(f"{len(cells)} cells under a header of {len(header)} columns",
                       "quote values that contain commas (\"1,234\") or remove the extra cells")


class TableText(NamedTuple):
    """A CSV text read through the gate: the header and each data row with its line number."""

    header: list[str]
    rows: list[tuple[int, list[str]]]


def _content_lines(text: str) -> list[tuple[int, str]]:
    return [(n, line) for n, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]


def read_table(text: str, source: str, number_column: str | tuple[str, ...], max_rows: int,
               what: str = "scores") -> TableText:
    """The header and rows of a user's CSV text (blank and ``#`` lines skipped), or InputError naming the line.

    Refused: a NUL, an empty file, more than ``max_rows`` rows, a CSV syntax error, a file separated by
    semicolons (or tabs, '|'), and a row with more cells than the header (``number_column``, a column name or
    its accepted spellings, is where a split thousands-separated number is looked for).
    """
    refuse_nul(text, source)
    lines = _content_lines(text)
    if not lines:
        raise InputError(f"{source}: no {what} (the file is empty)")
    if len(lines) > max_rows + 1:
        raise InputError(f"{source}, line {lines[max_rows + 1][0]}: more than {max_rows:,} rows of {what}")
    for number, line in lines:
        if len(line) > MAX_LINE_CHARS:
            raise InputError(f"{source}, line {number}: {len(line):,} characters, more than the limit of "
                             f"{MAX_LINE_CHARS:,} for a line of {what}")
    records: Iterator[list[str]] = csv.reader(io.StringIO("\n".join(line for _, line in lines)))
    rows, index = [], 0
    while True:
        try:
            cells = next(records)
        except StopIteration:
            break
        except csv.Error as error:
            raise InputError(f"{source}, line {lines[min(index, len(lines) - 1)][0]}: {error}; a cell holds a "
                             "name, a game, a seed or a number") from None
        rows.append((lines[index][0], cells))
        index += 1
    (_, header), data = rows[0], rows[1:]
    problem = delimiter_problem(header)
    if problem:
        raise problem.at(f"{source}, line 1")
    names = (number_column,) if isinstance(number_column, str) else number_column
    lowered = [h.strip().lower() for h in header]
    at = next((lowered.index(n) for n in names if n in lowered), None)
    for line, cells in data:
        problem = row_width_problem(cells, header, at)
        if problem:
            column = f", column {header[at].strip()!r}" if at is not None and "thousands" in problem.message else ""
            raise problem.at(f"{source}, line {line}{column}")
    return TableText(header, data)


# --- --score GAME=VALUE ------------------------------------------------------------------------------------------

def split_score_argument(argument: str) -> tuple[str, list[str]]:
    """(game, value texts) of a ``--score GAME=VALUE[,VALUE...]`` argument, or InputError.

    ``VALUE,VALUE`` gives seeds, but a value that reads as one number with thousands separators
    (``15,000``, ``1,234,567``) is ambiguous and refused: one score is written without separators (15000),
    seeds with a space after each comma (``15, 0``).
    """
    where = f"--score {argument!r}"
    game, equals, values = argument.rpartition("=")
    if not equals or not game.strip():
        raise InputError(f"{where}: expected GAME=VALUE, e.g. --score 'Battle Zone=31000'")
    if looks_like_thousands(values):
        raise InputError(f"{where}: {values.strip()!r} reads as one number with thousands separators or as "
                         f"{values.count(',') + 1} seeds: write {values.strip().replace(',', '')} for one score, or "
                         f"'{game.strip()}={', '.join(v.strip() for v in values.split(','))}' (a space after each "
                         "comma) for seeds")
    return game.strip(), [v.strip() for v in values.split(",")]
