"""Look-alikes and near-copies: a new entry whose name or numbers are those of an entry already in data/.

Two entries of one result would count twice in fits and show twice on the
leaderboard. Names are compared by a skeleton: NFKC normalisation, case folding,
the letters that look alike in the scripts a name is typed in mapped to one
Latin letter (a small table after Unicode's confusables list, UTS #39, for
the Cyrillic, Greek and Latin letters and digits that look like Latin ones),
and everything but letters and digits dropped ("Dreamer-V3", "DreamerV3" and
"DrеamerV3" with a Cyrillic "е" share one skeleton). Scores are compared game
by game within a relative tolerance (1%: a copy times 1.001 is still a copy).
"""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd

__all__ = ["skeleton", "same_looking_names", "near_copies", "SCORE_TOLERANCE", "MIN_SHARED_GAMES"]

SCORE_TOLERANCE = 0.01   # relative: |a - b| <= 1% of the larger magnitude
MIN_SHARED_GAMES = 5     # fewer shared games say nothing

# Characters that render (nearly) like a Latin letter or digit, mapped to it; applied after NFKC and casefold.
_CONFUSABLE = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "l", "ї": "l", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ӏ": "l",
    "з": "3", "ь": "b", "п": "n", "г": "r", "л": "n", "ч": "4",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ω": "w", "μ": "u", "ϲ": "c", "ϳ": "j", "σ": "o", "ς": "c",
    # Latin and digits that look alike
    "ı": "l", "i": "l", "1": "l", "|": "l", "ł": "l", "0": "o", "ø": "o", "5": "s", "ß": "ss", "ſ": "s",
})


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, casefolded, confusable letters mapped, only letters and digits kept."""
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    text = unicodedata.normalize("NFKD", text)  # accents apart from their letters, then dropped below
    text = text.translate(_CONFUSABLE).replace("rn", "m").replace("vv", "w")
    return "".join(c for c in text if c.isalnum() and unicodedata.category(c)[0] in "LN")


def same_looking_names(name: str, algorithms: pd.DataFrame) -> list[tuple[str, str]]:
    """(algorithm_id, name) of every entry whose name or id has the skeleton of ``name``."""
    target = skeleton(name)
    if not target:
        return []
    return [(row.algorithm_id, row.name) for row in algorithms.itertuples(index=False)
            if skeleton(row.name) == target or skeleton(row.algorithm_id) == target]


def near_copies(fit: dict[str, float], scores: pd.DataFrame) -> list[tuple[str, int, int, int]]:
    """(algorithm_id, games within the tolerance, of them exactly equal, shared games) per existing entry whose
    per-game numbers agree with ``fit`` on more than half of the new entry's games (and at least
    MIN_SHARED_GAMES), most alike first."""
    if len(fit) < MIN_SHARED_GAMES:
        return []
    new = pd.DataFrame({"game_id": list(fit), "new": [float(v) for v in fit.values()]})
    rows = scores[scores["use_in_fit"].astype(bool)][["algorithm_id", "game_id", "score"]]
    both = rows.merge(new, on="game_id")
    old, value = both["score"].to_numpy(float), both["new"].to_numpy(float)
    both["equal"] = old == value
    both["near"] = np.abs(old - value) <= SCORE_TOLERANCE * np.maximum(np.abs(old), np.abs(value))
    games = both.groupby(["algorithm_id", "game_id"])[["near", "equal"]].any().reset_index()
    per = games.groupby("algorithm_id").agg(near=("near", "sum"), equal=("equal", "sum"), shared=("game_id", "size"))
    per = per[(per["near"] >= MIN_SHARED_GAMES) & (per["near"] > len(fit) / 2)]
    per = per.sort_values(["near", "equal"], ascending=False)
    return [(str(a), int(r.near), int(r.equal), int(r.shared)) for a, r in per.iterrows()]
