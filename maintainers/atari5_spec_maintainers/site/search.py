"""What the leaderboard's search box looks through, written into the page at build time (issue 48 item 3).

Per entry one search text: the normalised words of its id, name, paper title, paper link (arXiv id, DOI or URL,
with its label such as ``arXiv:2301.04104``) and its authors' surnames, each field also as one word with its spaces
and punctuation removed (so "Agent 57", "go explore" and "2301.04104" match as typed). The games an entry has
scores for are searched too, by name and id; they are written once, as one text per game, and each entry names
the games it has by a mask of their positions in that list (:func:`game_mask`), which keeps the page small (the
game names are not repeated for each of some 200 entries). The page's script only matches: :func:`words` here and ``tokensOf`` in static/site.js
normalise alike (NFKD, accents dropped, casefolded, split at anything not a letter or digit).

Everything is sorted, so the same data gives the same bytes.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["words", "search_index", "game_mask"]

_SPLIT = re.compile(r"[^a-z0-9]+")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", str(text))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def words(text, compact: bool = True) -> set[str]:
    """The words of ``text`` (letters and digits, casefolded, accents dropped), and with ``compact`` the whole
    text as one word with everything else removed."""
    if text is None or text != text:  # None or NaN
        return set()
    parts = [p for p in _SPLIT.split(_fold(text)) if p]
    out = set(parts)
    if compact and len(parts) > 1:
        out.add("".join(parts))
    return out


def _surnames(authors) -> list[str]:
    """'Hafner, Danijar and Ba, Jimmy' -> ['Hafner', 'Ba'] ('others' left out)."""
    if not authors or authors != authors:
        return []
    return [n.partition(", ")[0] for n in str(authors).split(" and ") if n.strip() and n.strip() != "others"]


def search_index(dataset, links: dict[str, dict]) -> dict:
    """{"games": [text per game, by game id], "texts": {algorithm_id: [text, game mask]}} for every entry
    of ``dataset.algorithms``; ``links`` is :func:`~atari5_spec_maintainers.site.papers.paper_links`."""
    games = dataset.games.sort_values("game_id")
    position = {str(g): i for i, g in enumerate(games["game_id"])}
    game_texts = [" ".join(sorted(words(g) | words(n))) for g, n in zip(games["game_id"], games["name"])]
    played: dict[str, set[int]] = {}
    for algorithm_id, game_id in zip(dataset.scores["algorithm_id"], dataset.scores["game_id"]):
        if str(game_id) in position:
            played.setdefault(str(algorithm_id), set()).add(position[str(game_id)])
    texts = {}
    for row in dataset.algorithms.sort_values("algorithm_id").astype(object).to_dict("records"):
        algorithm_id = str(row["algorithm_id"])
        link = links.get(algorithm_id, {})
        found = words(algorithm_id) | words(row["name"]) | words(row.get("paper_title"), compact=False)
        found |= words(link.get("title"), compact=False)
        if link.get("url") and link.get("kind") == "url":  # an address: one word, "openreview" finds it
            found.add("".join(_SPLIT.split(_fold(link["link"]))))
        elif link.get("url"):  # arXiv id or DOI, as itself and as labelled: 2301.04104, arXiv:2301.04104
            found |= words(link.get("link")) | words(link.get("label"))
        for surname in _surnames(link.get("authors")):
            found |= words(surname)
        texts[algorithm_id] = [" ".join(sorted(found)), game_mask(played.get(algorithm_id, set()), len(game_texts))]
    return {"games": game_texts, "texts": texts}


def game_mask(positions: set[int], n_games: int) -> str:
    """The games at ``positions`` as hexadecimal digits, digit k for games 4k to 4k+3 (game 4k+b is bit b): 16
    characters for 62 games, where a list of positions took some 150."""
    return "".join("0123456789abcdef"[sum(1 << b for b in range(4) if 4 * k + b in positions)]
                   for k in range((n_games + 3) // 4))
